"""Progress bars for long steps (encoding, indexing, reranking), shown only where someone can see them.

Bars go to stderr through ``rich`` and are off when stderr is not a terminal or ``HCRBENCH_PROGRESS=0``, so logs,
pipes and tests stay clean.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress_enabled() -> bool:
    """True when a bar would be seen: stderr is a TTY and ``HCRBENCH_PROGRESS`` is not ``0``."""
    flag = os.environ.get("HCRBENCH_PROGRESS", "").strip().lower()
    if flag in ("0", "false", "no", "off"):
        return False
    if flag in ("1", "true", "yes", "on"):
        return True
    return sys.stderr.isatty()


def progress(items: Iterable[T], *, total: int | None = None, desc: str = "") -> Iterator[T]:
    """Iterate ``items`` with a rich progress bar (``total`` steps) when enabled; plain iteration otherwise."""
    if not progress_enabled():
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=Console(stderr=True), transient=True,
    ) as bar:
        task = bar.add_task(desc or "working", total=total)
        for item in items:
            yield item
            bar.advance(task)
