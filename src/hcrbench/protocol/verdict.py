"""The protocol's verdicts as one enum: each carries its word (the value every row and ``verdicts.json`` write),
its severity (worse is higher: the overall verdict is the worst decided one), the word the console's verdict
block shows for it and that word's style."""

from __future__ import annotations

from enum import Enum


class Verdict(str, Enum):
    GO = "go"
    PASS = "pass"
    NOT_RUN = "not run"
    UNDECIDABLE = "not decidable"
    INCONCLUSIVE = "inconclusive"
    SOFT = "soft no-go"
    NOGO = "no-go"
    DIAGNOSE = "stop and diagnose"
    KILL = "kill"
    INVALIDATED = "invalidated"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @property
    def severity(self) -> int:
        """How bad it is for the system (0: go / pass / not run; the kill criterion's kill is the worst)."""
        return _SEVERITY[self]

    @property
    def console(self) -> str:
        """The console verdict block's word (one vocabulary: kill, stop, no-go, soft no-go, go, undecided,
        not run)."""
        return _CONSOLE[self]

    @property
    def style(self) -> str:
        """The console style of :attr:`console`."""
        return _STYLE[self.console]

    @property
    def decided(self) -> bool:
        return self not in (Verdict.NOT_RUN, Verdict.UNDECIDABLE, Verdict.INCONCLUSIVE)

    @classmethod
    def parse(cls, word: str) -> Verdict:
        """The verdict a row's status or verdict says (``stop and diagnose: routing`` is :attr:`DIAGNOSE`; a word
        it does not know is :attr:`UNDECIDABLE`)."""
        w = str(word).strip().lower()
        if w.startswith("stop"):
            return cls.DIAGNOSE
        try:
            return cls(w)
        except ValueError:
            return cls.UNDECIDABLE


_SEVERITY = {Verdict.GO: 0, Verdict.PASS: 0, Verdict.NOT_RUN: 0, Verdict.UNDECIDABLE: 1, Verdict.INCONCLUSIVE: 2,
             Verdict.SOFT: 3, Verdict.NOGO: 4, Verdict.DIAGNOSE: 5, Verdict.KILL: 6, Verdict.INVALIDATED: 6}
_CONSOLE = {Verdict.GO: "go", Verdict.PASS: "go", Verdict.NOT_RUN: "not run", Verdict.UNDECIDABLE: "undecided",
            Verdict.INCONCLUSIVE: "undecided", Verdict.SOFT: "soft no-go", Verdict.NOGO: "no-go",
            Verdict.DIAGNOSE: "stop", Verdict.KILL: "kill", Verdict.INVALIDATED: "kill"}
_STYLE = {"kill": "bold red", "stop": "bold red", "no-go": "red", "soft no-go": "yellow", "go": "green",
          "undecided": "yellow", "not run": "dim"}
