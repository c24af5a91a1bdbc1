"""Where results may be written: only where the user pointed, creating at most one missing folder; and whose
folder it is (an ownership marker written at creation, an exclusive lock while a command writes into it).

A typo in ``--out /dta/runs/x.trec`` should be a one-line error, not a new directory tree at the root of the
disk. :func:`ensure_parent` creates the folder a file goes into when only that last level is missing (``--out
runs/x.trec`` in a fresh clone) and refuses anything deeper, naming the first folder that does not exist.
"""

from __future__ import annotations

import contextvars
import functools
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError, cut


def ensure_parent(target: str | Path, *, field: str | None = None, levels: int = 1) -> Path:
    """Make sure ``target``'s folder exists, creating at most ``levels`` missing folders; returns ``target``.

    Raises :class:`InputError` (naming ``field``) when more folders are missing, or when something on the way
    is a file.
    """
    target = Path(target)
    missing: list[Path] = []
    p = target.parent
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    if not p.is_dir():
        raise InputError(f"{p} is not a folder", path=target, field=field)
    if len(missing) > levels:
        raise InputError(f"folder {missing[-1]} does not exist (hcrbench creates at most {levels} missing "
                         f"folder level; create it first: mkdir -p {target.parent})", path=target, field=field)
    try:
        for m in reversed(missing):
            m.mkdir(exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create folder {missing[0]} ({e.strerror or e})", path=target,
                         field=field) from None
    return target


# --------------------------------------------------------------------------------------------- folder ownership

#: The ownership marker hcrbench writes first into every output folder it creates (JSON, no timestamp).
MARKER = ".hcrbench-folder.json"
#: The file a running command holds an exclusive ``flock`` on while it writes into the folder.
BUSY = ".hcrbench-busy"


def read_marker(folder: str | Path) -> dict[str, Any] | None:
    """The folder's ownership marker, or None when it has none (or an unreadable one: not ours to trust)."""
    try:
        from hcrbench.data.structured import read_json

        obj = read_json(Path(folder) / MARKER, max_bytes=1 << 20)  # a deep or huge user file: not ours
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) and obj.get("owner") == "hcrbench" else None


def write_marker(folder: str | Path, *, name: str, config_path: str | Path | None,
                 foreign: list[str] | None = None) -> None:
    """Mark ``folder`` as hcrbench's: which experiment owns it, which hcrbench wrote it, and which entries were
    already there and are not hcrbench's (``foreign``: kept by ``--force``, left out of ``hcrbench lock``)."""
    from hcrbench.data.atomic import atomic_write_text

    doc = {"owner": "hcrbench", "name": name, "config_path": str(config_path) if config_path else None,
           "hcrbench_version": _hcrbench_version(), "foreign": sorted(foreign or [])}
    atomic_write_text(Path(folder) / MARKER, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def _hcrbench_version() -> str:
    try:
        from importlib.metadata import version

        return version("hcrbench")
    except Exception:  # pragma: no cover - not installed
        import hcrbench

        return getattr(hcrbench, "__version__", "unknown")


class FolderBusy(InputError):
    """Another hcrbench process holds the folder's lock (one line naming it, exit 2)."""


class FolderLock:
    """An exclusive, non-blocking ``flock`` on ``FOLDER/.hcrbench-busy`` while a command writes into the folder.

    The holder writes who it is (pid, host, command, start time) into the file; a second command finds the lock
    taken and raises :class:`FolderBusy` naming that holder. The kernel releases the lock when the holder exits,
    however it exits (SIGKILL included), so there is never a stale lock to clean up by hand.
    """

    def __init__(self, folder: str | Path, *, field: str | None = None) -> None:
        self.folder = Path(folder)
        self.field = field
        self.fd: int | None = None

    def acquire(self) -> FolderLock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no folder lock
            return self
        path = self.folder / BUSY
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as e:
            from hcrbench.errors import WriteError

            raise WriteError.from_os(e, path, "the folder's lock file") from None
        if not _our_holder(os.pread(fd, 4096, 0), empty_ok=True):  # a user's file by our reserved name: keep it
            os.close(fd)
            raise InputError(f"{path} is not hcrbench's lock file (hcrbench reserves the name {BUSY}); move it, "
                             "or use another folder", field=self.field)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe_holder(os.read(fd, 4096))
            os.close(fd)
            raise FolderBusy(f"the output folder {self.folder} is in use by another hcrbench command ({holder}); "
                             "wait for it to finish, or set another output folder", field=self.field) from None
        except OSError:
            os.close(fd)
            raise
        info = {"pid": os.getpid(), "host": socket.gethostname(), "command": " ".join(sys.argv),
                "since": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(info) + "\n").encode("utf-8"), 0)
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor drops the flock
            self.fd = None

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _our_holder(raw: bytes, *, empty_ok: bool) -> bool:
    """Whether ``raw`` is what :class:`FolderLock` writes (pid, host, command, since), or empty when allowed."""
    if not raw.strip():
        return empty_ok
    try:
        h = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return isinstance(h, dict) and {"pid", "host", "command", "since"} <= set(h)


def is_our_busy_file(path: str | Path) -> bool:
    """Whether the file at ``path`` is an hcrbench run lock file (an empty one counts: a lock being taken)."""
    try:
        with open(path, "rb") as fh:
            return _our_holder(fh.read(4096), empty_ok=True)
    except OSError:
        return False


def _describe_holder(raw: bytes) -> str:
    try:
        h = json.loads(raw.decode("utf-8"))
        return f"pid {h['pid']} on {h['host']}, `{cut(str(h['command']), 80)}`, since {h['since']}"
    except (ValueError, KeyError, TypeError):
        return "holder unknown"


_HELD: contextvars.ContextVar[list[FolderLock] | None] = contextvars.ContextVar("hcrbench_held_locks",
                                                                                default=None)


def hold(lock: FolderLock) -> FolderLock:
    """Acquire ``lock`` and keep it until the innermost :func:`releasing` scope ends (or the process does)."""
    lock.acquire()
    held = _HELD.get()
    if held is not None:
        held.append(lock)
    return lock


def releasing(fn):
    """Decorator: locks taken with :func:`hold` during ``fn`` are released when it returns or raises."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any):
        token = _HELD.set([])
        try:
            return fn(*args, **kwargs)
        finally:
            for lock in reversed(_HELD.get() or []):
                lock.release()
            _HELD.reset(token)
    return wrapper
