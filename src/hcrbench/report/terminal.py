"""The terminal's table: rich's ``Table`` whose cells wrap instead of being cut with an ellipsis.

At 80 columns rich shrinks a wide table by cutting cells to ``hcr-se…``, so ``hcr-seed1`` and ``hcr-seed2`` read
the same and a CI loses its upper bound. Every terminal table of hcrbench is this one: a cell that does not fit
folds onto the next line, whole.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table as _RichTable


class Table(_RichTable):
    """``rich.table.Table`` with ``overflow="fold"`` as every column's default (a caller may still pass another)."""

    def add_column(self, *args: Any, overflow: Any = "fold", **kwargs: Any) -> None:
        super().add_column(*args, overflow=overflow, **kwargs)


def width(default: int = 140) -> int | None:
    """Width for a stdout console: the terminal's when stdout is one (rich measures it), else ``default`` for a
    pipe or a log file, where nothing says how wide the reader's screen is."""
    import sys

    return None if sys.stdout.isatty() else default
