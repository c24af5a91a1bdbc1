"""Atomic file writes: write to a temporary file beside the target, fsync, then rename.

A crash or Ctrl-C never leaves a half-written result file: either the old file or the complete new one exists.
A write the machine refuses (disk full, read-only file system, no permission) removes the temporary file and
raises :class:`~hcrbench.errors.WriteError` naming the target: one line, exit 1 (2 when the path is wrong, e.g.
a file where a folder should be). The old file, if any, is left as it was.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from hcrbench.errors import InputError, WriteError


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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except FileExistsError:
        err = WriteError(f"cannot write: a file stands where the folder {path.parent} should be", path=path)
        err.exit_code = 2  # a wrong path: the user's to fix
        raise err from None
    except OSError as e:
        raise WriteError.from_os(e, path, "the file") from None
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
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if e.errno not in _WRITE_ERRNOS:  # not the disk's doing (e.g. the caller's own read failed)
            raise
        raise WriteError.from_os(e, path, "the file") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


#: errno values of a write the machine refused: these become a WriteError naming the target.
_WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO, errno.EFBIG,
                 errno.ENOTDIR, errno.ENAMETOOLONG}


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


#: The name :func:`atomic_open` gives its temporary file: ``.NAME.XXXXXXXX.tmp`` (mkstemp's 8 random characters).
_TEMP_NAME = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


def remove_stale_temps(folder: str | Path, entries: Iterable[str]) -> list[Path]:
    """Delete the temporary files a killed write left in ``folder`` (directly, or anywhere under the
    sub-folders named in ``entries``); returns them. Call it only while holding the folder's lock
    (:class:`~hcrbench.data.outputs.FolderLock`): then no other hcrbench process is writing there."""
    folder = Path(folder)
    names = set(entries)
    found = [p for p in folder.iterdir() if p.is_file() and _TEMP_NAME.match(p.name)] if folder.is_dir() else []
    for sub in sorted(names):
        d = folder / sub
        if d.is_dir() and not d.is_symlink():
            found += [p for p in d.rglob(".*.tmp") if p.is_file() and _TEMP_NAME.match(p.name)]
    gone = []
    for p in found:
        with contextlib.suppress(OSError):
            p.unlink()
            gone.append(p)
    return gone
