"""A rule's row, typed: what every reader of ``verdicts.json``'s checkpoints and hypotheses reads, without asking
which key holds the word (a checkpoint writes ``status``, a hypothesis ``verdict``) nor parsing its text.

The document keeps the rows as the rules write them (:func:`rules.checkpoint`, :func:`rules.hypothesis`), so its
bytes do not depend on this view; :meth:`Row.of` reads one, :meth:`Row.as_dict` gives it back with any field
changed in place (the key order kept).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hcrbench.protocol.verdict import Verdict


@dataclass(frozen=True)
class Undecided:
    """Why a row is "not decidable at n = N (needs ~ M)", as fields: the n it was judged at, the n power 0.8 at
    its margin needs (None: no n in reach decides it) and the unit when n does not count queries."""

    at_n: int | None
    needs_n: int | None
    unit: str | None = None
    #: where the run adds test worlds (:func:`hcrbench.protocol.batches.price_undecided`): the test worlds judged,
    #: the test worlds ``needs_n`` takes at this run's queries per world, how many more that is, and their minutes
    at_worlds: int | None = None
    needs_worlds: int | None = None
    more_worlds: int | None = None
    needs_minutes: float | None = None
    #: a row judged over worlds: the sd of one world's mean its ``needs_worlds`` is sized on
    #: (:func:`hcrbench.protocol.registry.undecided_worlds`)
    world_sd: float | None = None

    @classmethod
    def of(cls, d: dict[str, Any] | None) -> Undecided | None:
        if not isinstance(d, dict):
            return None
        return cls(d.get("at_n"), d.get("needs_n"), d.get("unit"), d.get("at_worlds"), d.get("needs_worlds"),
                   d.get("more_worlds"), d.get("needs_minutes"), d.get("world_sd"))

    def as_dict(self) -> dict[str, Any]:
        out = {"at_n": self.at_n, "needs_n": self.needs_n, "unit": self.unit}
        for k in WORLD_FIELDS:  # only where a run priced them, so a row judged alone keeps its bytes
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        return out


WORLD_FIELDS = ("at_worlds", "needs_worlds", "more_worlds", "needs_minutes", "world_sd")


@dataclass(frozen=True)
class Row:
    """One checkpoint or hypothesis row."""

    id: str
    name: str
    stage: str                 # "checkpoint" (writes ``status``) or "hypothesis" (writes ``verdict``)
    word: str                  # the status or verdict as written ("stop and diagnose: routing")
    text: str
    n: int | None = None
    interval: list[float] | None = None
    interval_kind: str | None = None
    component: str | None = None
    criterion: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    undecided: Undecided | None = None

    @staticmethod
    def key(d: dict[str, Any]) -> str:
        """The key that holds a row dict's word."""
        return "status" if "status" in d else "verdict"

    @staticmethod
    def word_of(d: dict[str, Any] | None) -> str:
        """A row dict's status or verdict as written (``not run`` for no row)."""
        return Verdict.NOT_RUN.value if d is None else str(d.get(Row.key(d)))

    @classmethod
    def of(cls, d: dict[str, Any]) -> Row:
        return cls(id=str(d.get("id")), name=str(d.get("name") or d.get("id")),
                   stage="checkpoint" if "status" in d else "hypothesis", word=cls.word_of(d),
                   text=str(d.get("text") or ""), n=d.get("n"), interval=d.get("interval"),
                   interval_kind=d.get("interval_kind"), component=d.get("component"),
                   criterion=str(d.get("criterion") or ""), evidence=dict(d.get("evidence") or {}),
                   undecided=Undecided.of(d.get("undecided")))

    @property
    def verdict(self) -> Verdict:
        return Verdict.parse(self.word)

    def as_dict(self, base: dict[str, Any], **changes: Any) -> dict[str, Any]:
        """``base`` (the row dict this was read from) with ``changes`` (``word`` writes the stage's key;
        ``undecided=None`` drops the field), in its key order."""
        out = dict(base)
        for k, v in changes.items():
            if k == "word":
                out[self.key(base)] = v
            elif k == "undecided":
                if v is None:
                    out.pop("undecided", None)
                else:
                    out["undecided"] = v.as_dict() if isinstance(v, Undecided) else dict(v)
            else:
                out[k] = v
        return out
