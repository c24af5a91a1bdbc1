"""A fake full / read-only disk for fault-injection tests, loaded by subprocesses whose PYTHONPATH starts here.

``HCRBENCH_FAKE_FAULT="ENOSPC:/abs/dir"`` makes every write under ``/abs/dir`` fail as a full disk would: files
open, but flushing them to disk (``os.fsync``, or a buffered ``open(..., "w")`` file's write) raises
``OSError(ENOSPC)``. ``"EROFS:/abs/dir"`` makes creating anything there fail as on a read-only file system. ``"SLOW:/abs/dir"`` makes
the first ``os.fsync`` of a file there sleep 3 seconds (a slow disk: a run that is still writing, for races).
Reading is never affected, and nothing outside the folder is. Only for tests: hcrbench itself has no hook.
"""

from __future__ import annotations

import builtins
import errno
import io
import os

_SPEC = os.environ.get("HCRBENCH_FAKE_FAULT", "")
if ":" in _SPEC:
    _NAME, _DIR = _SPEC.split(":", 1)
    _ERR = getattr(errno, _NAME, None)
    _DIR = os.path.realpath(_DIR)

    def _under(path) -> bool:
        try:
            p = os.path.realpath(os.fspath(path))
        except TypeError:
            return False
        return p == _DIR or p.startswith(_DIR + os.sep)

    def _fail(path=None):
        raise OSError(_ERR, os.strerror(_ERR), None if path is None else os.fspath(path))

    _real_open, _real_os_open, _real_fsync = builtins.open, os.open, os.fsync
    _real_mkdir = os.mkdir

    class _FullFile(io.RawIOBase):
        """A file on a full disk: opening works, the first write fails."""

        def __init__(self, path):
            self.name = os.fspath(path)

        def writable(self) -> bool:
            return True

        def write(self, b) -> int:
            _fail(self.name)

    def fake_open(file, mode="r", *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)) and any(c in mode for c in "wax+") and _under(file):
            if _ERR == errno.EROFS:
                _fail(file)
            raw = _FullFile(file)
            return raw if "b" in mode and kwargs.get("buffering", 1) == 0 else (
                io.BufferedWriter(raw) if "b" in mode else io.TextIOWrapper(io.BufferedWriter(raw)))
        return _real_open(file, mode, *args, **kwargs)

    def fake_os_open(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and _ERR == errno.EROFS and _under(path):
            _fail(path)
        return _real_os_open(path, flags, *args, **kwargs)

    _slept = []

    def fake_fsync(fd):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if _under(target):
            if _NAME != "SLOW":
                _fail(target)
            if not _slept:
                import time

                _slept.append(target)
                time.sleep(3.0)
        return _real_fsync(fd)

    def fake_mkdir(path, *args, **kwargs):
        if _ERR == errno.EROFS and _under(path) and not os.path.isdir(path):
            _fail(path)
        return _real_mkdir(path, *args, **kwargs)

    if _NAME == "SLOW":
        os.fsync = fake_fsync
    else:
        builtins.open = io.open = fake_open
        os.open, os.fsync, os.mkdir = fake_os_open, fake_fsync, fake_mkdir
