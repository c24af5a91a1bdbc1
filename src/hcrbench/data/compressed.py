"""One way to open an input file that may be compressed (gzip, bzip2, xz: recognised by their magic bytes, not
their name), read as a stream with caps, so a compression bomb is refused in seconds with one line.

A 1 MB ``.gz`` run expanding to 1 GiB of blanks used to take three minutes and 6 GB of memory before "file is
empty". Here the decompressed bytes are counted as they are read and the stream stops, with an
:class:`~hcrbench.errors.InputError` naming the file, once they pass :func:`inflate_cap` (``MAX_RATIO`` times
the compressed size, at least ``MIN_CAP``: real run and qrels files compress 5-20 times); and a line is read at
most :data:`MAX_LINE` bytes at a time, so one endless line never fills memory.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from hcrbench.errors import InputError

#: Most decompressed bytes per compressed byte accepted (gzip's own limit is about 1,032).
MAX_RATIO = 200
#: Decompressed bytes always accepted, whatever the ratio (small files compress well).
MIN_CAP = 64 << 20
#: Longest line read from a TREC-style input (a run or qrels line is under 1 kB).
MAX_LINE = 1 << 20

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
#: What a corrupt compressed stream raises while it is read.
STREAM_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


def compression(path: str | Path) -> str | None:
    """``"gzip"``, ``"bzip2"``, ``"xz"`` or None (plain), from the file's first bytes."""
    with open(path, "rb") as fh:
        head = fh.read(6)
    return next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)


def stream_error(path: str | Path, e: BaseException, line: int | None = None) -> InputError:
    """The one-line error for a file whose (compressed) stream broke while read: a truncated or corrupt gzip /
    bzip2 / xz file is named so (Python raises ``EOFError`` for a cut gzip, which must not read as Ctrl-C)."""
    try:
        kind = compression(path)
    except OSError:
        kind = None
    if kind is not None:
        what = "truncated" if isinstance(e, EOFError) else "truncated or corrupt"
        return InputError(f"{what} {kind} file ({e}): recompress it or fetch it again", path=path, line=line)
    return InputError(f"cannot read file ({e})", path=path, line=line)


def inflate_cap(path: str | Path) -> int:
    """The most decompressed bytes read from ``path``: ``MAX_RATIO`` x its size, at least ``MIN_CAP``."""
    return max(MIN_CAP, MAX_RATIO * Path(path).stat().st_size)


class _Capped(io.RawIOBase):
    """A decompressing stream that refuses to yield more than ``cap`` bytes."""

    def __init__(self, inner: BinaryIO, cap: int, path: Path, kind: str) -> None:
        self.inner, self.cap, self.path, self.kind, self.seen = inner, cap, path, kind, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        data = self.inner.read(len(b))
        self.seen += len(data)
        if self.seen > self.cap:
            raise InputError(f"{self.kind} file expands to more than {self.cap:,} bytes ({MAX_RATIO} times its "
                             f"size of {self.path.stat().st_size:,}): a compression bomb or a damaged file; "
                             "decompress it yourself if it is real", path=self.path)
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.inner.close()
        super().close()


def open_input(path: str | Path) -> BinaryIO:
    """Open ``path`` for reading bytes; a gzip / bzip2 / xz file is decompressed as a capped stream."""
    path = Path(path)
    kind = compression(path)
    if kind is None:
        return open(path, "rb")
    inner = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}[kind](path, "rb")
    return io.BufferedReader(_Capped(inner, inflate_cap(path), path, kind), buffer_size=1 << 16)


def bounded_lines(fh: BinaryIO, path: str | Path, max_line: int = MAX_LINE) -> Iterator[bytes]:
    """The lines of ``fh`` (each ending in its newline, but the last), none longer than ``max_line`` bytes: a
    longer one is refused naming its line number before it is read whole."""
    n = 0
    while True:
        raw = fh.readline(max_line + 1)
        if not raw:
            return
        n += 1
        if len(raw) > max_line and not raw.endswith(b"\n"):
            raise InputError(f"line longer than {max_line:,} bytes: not a line of a run or qrels file",
                             path=path, line=n)
        yield raw
