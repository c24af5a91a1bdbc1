"""Atomic file writes: write to a temporary file beside the target, fsync, then rename.

A crash or Ctrl-C never leaves a half-written result file: either the old file or the complete new one exists.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from hcrbench.errors import InputError


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", *, encoding: str = "utf-8") -> Iterator[IO]:
    """Open ``path`` for writing atomically. ``mode`` is ``"w"`` (text) or ``"wb"`` (bytes).

    A path ending in ``.gz`` is gzip-compressed (with a fixed mtime, so output is byte-identical across runs).
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open supports 'w' and 'wb', not {mode!r}")
    path = Path(path)
    if path.is_dir():
        raise InputError("is a directory", path=path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the permissions open() would
        with os.fdopen(fd, "wb") as raw:
            if path.suffix == ".gz":
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                    if mode == "w":
                        with io.TextIOWrapper(gz, encoding=encoding, newline="\n") as fh:
                            yield fh
                    else:
                        yield gz
                raw.flush()
                os.fsync(raw.fileno())
            elif mode == "w":
                with io.TextIOWrapper(raw, encoding=encoding, newline="\n") as fh:
                    yield fh
                    fh.flush()
                    os.fsync(raw.fileno())
            else:
                yield raw
                raw.flush()
                os.fsync(raw.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_open(path, "w", encoding=encoding) as fh:
        fh.write(text)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)
