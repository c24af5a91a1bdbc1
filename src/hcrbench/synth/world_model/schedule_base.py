"""What the schedule plans a document as (:class:`DocSpec`) and the calendar its events keep: the last day of the
world's year, the quarters of 2024 and when a project is still running."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from hcrbench.synth.world_model import lexicon as lx

CLUSTERS = {"C1": "access_review", "C2": "onboarding", "C3": "release_notes", "C4": "ops_digest"}
SNAPSHOT_SYSTEMS = 6
CORE_TICKETS, CORE_DECISIONS = 70, 35
QUARTER_END_ISO = {"2024-Q1": "2024-03-31", "2024-Q2": "2024-06-30", "2024-Q3": "2024-09-30"}


@dataclass
class DocSpec:
    """One planned document: its type, routing metadata and the world facts it will state."""

    index: int
    doc_type: str
    domains: list[str]
    entities: list[str]
    ref: dict[str, Any] = field(default_factory=dict)
    quarter: str | None = None
    cluster: str | None = None
    date: str | None = None  # ISO date of a dated document (events, notes, policies, status reports)
    mentions: tuple[str, ...] = ()  # entities it names in passing, no fact (synth/corpus/mentions.py; set by iter_specs)

    @property
    def doc_id(self) -> str:
        return f"MER-{self.index:06d}"

    @property
    def domain(self) -> str:
        return self.domains[0]


LAST_DAY = date(2024, 9, 30)


def _day(r, lo: str, hi: date = LAST_DAY) -> str:
    """A day from ``lo`` (ISO) to ``hi``, inclusive."""
    a = date.fromisoformat(lo)
    return (a + timedelta(days=r.randint(0, max(0, (hi - a).days)))).isoformat()


def quarter_of(day: str) -> str:
    return f"{day[:4]}-Q{(int(day[5:7]) - 1) // 3 + 1}"


def open_until(project) -> str:
    """The last day of the last quarter in which ``project`` is not yet completed."""
    return QUARTER_END_ISO[[q for q in lx.QUARTERS if project.status[q] != "completed"][-1]]


def open_on(project, day: str) -> bool:
    """Whether ``project`` is still running on ``day`` (not completed in that quarter)."""
    return project.status.get(quarter_of(day)) != "completed"


def _uniq(xs: list[str]) -> list[str]:
    return list(dict.fromkeys(x for x in xs if x))
