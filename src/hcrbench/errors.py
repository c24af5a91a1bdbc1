"""Errors and warnings shared by every stage.

A user mistake (bad file, bad flag, bad config) raises :class:`InputError`, whose ``str`` is one line naming the
file, the line number and the field, so the CLI can print it and exit with code 2 instead of a traceback.
"""

from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """Bad user input: one line, ``FILE:LINE: FIELD: problem``.

    ``path``, ``line`` and ``field`` are optional; whatever is known is named.
    """

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
        problem = " ".join(str(self.problem).split())
        return f"{where}{field}{problem}"


class HcrbenchWarning(UserWarning):
    """A recoverable oddity in the input (e.g. run queries absent from the qrels)."""
