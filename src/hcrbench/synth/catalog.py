"""A look-up index over the planned documents, used to write queries with exact ground truth.

Built from the specs alone (no text): which document is the charter of a project, the Q2 status report, the v3 of
a policy, every document that mentions an entity, and so on.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from hcrbench.synth.schedule import DocSpec
from hcrbench.synth.world import World


@dataclass
class QueryPlan:
    """One query before rendering. ``evidence`` holds ``(doc index, fact key)``; a key ``"@ID"`` means "the
    sentence that names entity ID". ``grades``: 3 answers, 2 needed evidence, 1 related."""

    category: str
    difficulty: str
    origin: str
    text: str
    answer: str
    evidence: list[tuple[int, str]]
    grades: dict[int, int]
    domains: list[str]
    entities: list[str]
    split: str = ""
    query_id: str = ""
    extra: dict = field(default_factory=dict)


class Catalog:
    """Where things are in the planned corpus."""

    def __init__(self, world: World, specs: list[DocSpec]) -> None:
        self.w = world
        self.specs = specs
        self.by_entity: dict[str, list[int]] = defaultdict(list)
        self.by_type: dict[str, list[int]] = defaultdict(list)
        self.policy_doc: dict[tuple[str, int], int] = {}
        self.status_doc: dict[tuple[str, str], int] = {}
        self.sys_status: dict[tuple[str, str], int] = {}
        self.single: dict[tuple[str, str], int] = {}  # (doc_type, entity id) -> first such doc
        for s in specs:
            for e in s.entities:
                self.by_entity[e].append(s.index)
            self.by_type[s.doc_type].append(s.index)
            ref = s.ref
            if s.doc_type == "policy":
                self.policy_doc[(ref["policy"], ref["version"])] = s.index
            elif s.doc_type == "project_status":
                self.status_doc[(ref["project"], ref["quarter"])] = s.index
            elif s.doc_type == "system_status":
                self.sys_status[(ref["system"], ref["quarter"])] = s.index
            for kind, k in (("project_charter", "project"), ("profile", "person"), ("team_page", "team"),
                            ("product_spec", "product"), ("system_overview", "system")):
                if s.doc_type == kind:
                    self.single.setdefault((kind, ref[k]), s.index)
        self.core_tickets = [t for t in world.tickets if t["doc"] < 500]
        self.core_decisions = [d for d in world.decisions if d["doc"] < 500]
        self.ticket_doc = {t["id"]: t["doc"] for t in world.tickets}
        self.decision_doc = {d["id"]: d["doc"] for d in world.decisions}

    def profile(self, pid: str) -> int | None:
        return self.single.get(("profile", pid))

    def charter(self, prj: str) -> int | None:
        return self.single.get(("project_charter", prj))

    def mentions(self, eid: str) -> list[int]:
        return self.by_entity.get(eid, [])

    def display(self, eid: str) -> str:
        """The string that names ``eid`` in text."""
        e = self.w.index.get(eid)
        if e is None:
            return eid  # tickets and decisions are named by their id
        if hasattr(e, "code_name"):
            return e.code_name
        if hasattr(e, "concept"):
            return e.id
        return e.name
