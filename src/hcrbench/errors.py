"""Errors and warnings shared by every stage.

A user mistake (bad file, bad flag, bad config) raises :class:`InputError`, whose ``str`` is one line naming the
file, the line number and the field, so the CLI can print it and exit with code 2 instead of a traceback.
A file that cannot be written (disk full, read-only file system, no permission) raises :class:`WriteError`, an
InputError whose ``exit_code`` is 1: the input was fine, the machine was not. The problem text is cut to
:data:`MAX_PROBLEM` characters, so a 50 MB field quoted in an error stays one readable line.
"""

from __future__ import annotations

import errno as _errno
from pathlib import Path

#: The longest problem text an error line carries (longer ones are cut in the middle, saying how much was cut).
MAX_PROBLEM = 600


class InputError(ValueError):
    """Bad user input: one line, ``FILE:LINE: FIELD: problem``.

    ``path``, ``line`` and ``field`` are optional; whatever is known is named.
    """

    #: The CLI's exit code for this error (2: bad input or usage).
    exit_code = 2

    def __init__(
        self,
        problem: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.problem = problem
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(self.format())

    def format(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        field = f"{self.field}: " if self.field else ""
        # Keep it to one line whatever the problem text holds.
        problem = cut(" ".join(str(self.problem).split()), MAX_PROBLEM)
        return f"{where}{field}{problem}"


def cut(text: str, limit: int = 80) -> str:
    """``text`` when it has at most ``limit`` characters, else its start and end with the cut length between."""
    if len(text) <= limit:
        return text
    keep = max(limit - 30, 10)
    return f"{text[: keep * 2 // 3]}...[{len(text) - keep} characters cut]...{text[len(text) - keep // 3:]}"


class WriteError(InputError):
    """A file or folder hcrbench had to write could not be written: exit 1 (2 when the path itself is wrong).

    Raised by :func:`hcrbench.data.atomic.atomic_open` and the runner; the message names the path, what was
    being written and the system's reason (``No space left on device``, ``Read-only file system``, ...).
    """

    exit_code = 1

    @classmethod
    def from_os(cls, e: OSError, path: str | Path | None, what: str = "") -> WriteError:
        """The one-line error for ``e``, raised while writing ``what`` to ``path``."""
        reason = e.strerror or str(e)
        err = cls(f"cannot write {what}: {reason}" if what else reason, path=path)
        if e.errno in _BAD_PATH:  # the user pointed at a file where a folder must be, or a path too long
            err.exit_code = 2
        err.errno = e.errno
        return err


#: errno values that mean the path itself is wrong (a user mistake, exit 2), not the machine.
_BAD_PATH = {_errno.ENOTDIR, _errno.EISDIR, _errno.ENAMETOOLONG, _errno.ENOENT, _errno.ELOOP}


class HcrbenchWarning(UserWarning):
    """A recoverable oddity in the input (e.g. run queries absent from the qrels)."""
