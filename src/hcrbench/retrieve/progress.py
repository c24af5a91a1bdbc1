"""Progress bars for long steps (encoding, indexing, reranking), shown only where someone can see them.

Bars go to stderr through ``rich`` and are off when stderr is not a terminal or ``HCRBENCH_PROGRESS=0``, so logs,
pipes and tests stay clean. ``HCRBENCH_PROGRESS=1`` forces them on.

While a job draws one line for the whole job (:mod:`hcrbench.experiment.progress`, which installs a sink with
:func:`set_sink`), :func:`progress` draws no bar of its own: it reports ``(desc, done, total)`` to the sink, and
:func:`progress_enabled` is False, so nothing else at this layer writes to the terminal under the job line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

Sink = Callable[[str, int, "int | None"], None]
_SINK: Sink | None = None


def set_sink(sink: Sink | None) -> Sink | None:
    """Send :func:`progress`'s steps to ``sink(desc, done, total)`` instead of a bar (None: bars again).
    Returns the sink it replaces."""
    global _SINK
    previous, _SINK = _SINK, sink
    return previous


def terminal_wanted() -> bool:
    """True when progress would be seen: stderr is a TTY (or ``HCRBENCH_PROGRESS=1``) and it is not ``0``."""
    flag = os.environ.get("HCRBENCH_PROGRESS", "").strip().lower()
    if flag in ("0", "false", "no", "off"):
        return False
    if flag in ("1", "true", "yes", "on"):
        return True
    return sys.stderr.isatty()


def progress_enabled() -> bool:
    """True when a bar of this layer's own would be seen: :func:`terminal_wanted` and no job line owns stderr."""
    return _SINK is None and terminal_wanted()


def report(desc: str, done: int, total: int | None = None) -> None:
    """Tell the job line (if any) how far an inner stage is, without iterating through :func:`progress`."""
    if _SINK is not None:
        _SINK(desc, done, total)


def progress(items: Iterable[T], *, total: int | None = None, desc: str = "") -> Iterator[T]:
    """Iterate ``items`` with a rich progress bar (``total`` steps) when enabled; plain iteration otherwise.

    Under a job line, the steps go to its sink instead (no bar)."""
    sink = _SINK
    if sink is not None:
        sink(desc or "working", 0, total)
        for i, item in enumerate(items, start=1):
            yield item
            sink(desc or "working", i, total)
        return
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
