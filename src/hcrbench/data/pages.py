"""Large temporaries on ordinary 4 KiB pages while a file is parsed or scored.

numpy asks the kernel for transparent huge pages on every allocation of 4 MiB or more. Where the kernel then
compacts memory to find a free 2 MiB page on the first touch (``/sys/kernel/mm/transparent_hugepage/defrag`` set
to ``madvise``, the default of common distributions), each fresh page of a short-lived array costs that compaction:
reading a 5M-line run makes and drops gigabytes of such arrays, and about a third of its CPU time went to the
kernel. :func:`small_pages` turns numpy's request off for the duration and restores the previous setting after;
nothing else changes (no value depends on the page size).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

try:  # private to numpy, stable since 1.20; absent elsewhere: then there is nothing to switch
    from numpy._core.multiarray import _set_madvise_hugepage
except ImportError:  # pragma: no cover - numpy 1.x
    try:
        from numpy.core.multiarray import _set_madvise_hugepage
    except ImportError:
        _set_madvise_hugepage = None


@contextmanager
def small_pages() -> Iterator[None]:
    """Within the block, numpy's large allocations do not ask for huge pages (process-wide; restored after)."""
    if _set_madvise_hugepage is None:
        yield
        return
    before = _set_madvise_hugepage(False)
    try:
        yield
    finally:
        _set_madvise_hugepage(before)
