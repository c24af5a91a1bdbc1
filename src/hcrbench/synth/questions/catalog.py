"""A look-up index over the planned documents, used to write queries with exact ground truth.

Built from the specs and the recorded fact statements (provenance): where every fact is stated, which document is the charter of a project, the Q2 status report, the v3 of
a policy, every document that mentions an entity, and so on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from hcrbench.synth.questions.free_lists import FreeLists
from hcrbench.synth.questions.plan_state import PlanState
from hcrbench.synth.world_model.entities import World
from hcrbench.synth.world_model.facts import Statement
from hcrbench.synth.world_model.schedule import DocSpec


@dataclass
class QueryPlan:
    """One query, defined by the facts it needs (``facts``; for multi-hop queries, the chain in hop order).
    Qrels and evidence are derived from where those facts are stated (:meth:`Catalog.qrels`)."""

    category: str
    difficulty: str
    origin: str
    text: str
    answer: str | list[str]
    facts: list[str]
    entities: list[str]
    chain: bool = False
    interpretations: list[dict] = field(default_factory=list)  # ambiguous: [{"label", "answer", "facts"}]
    split: str = ""
    query_id: str = ""
    extra: dict = field(default_factory=dict)
    intent: str = ""  # what the words ask, evaluated over the world ("incidents_on_system", ...)
    params: dict = field(default_factory=dict)  # the intent's parameters (ids, quarter, severity ...)


def _ids(x) -> list[str]:
    """The entity ids an item of the world stands for (a ticket or decision: itself, its system and project)."""
    if isinstance(x, dict):
        return [v for v in (x.get("id"), x.get("system"), x.get("project")) if v]
    return [getattr(x, "id", x)]


class _StateField:
    """A catalogue attribute that is the planner's (:class:`~hcrbench.synth.questions.plan_state.PlanState`), read and set
    through ``catalog.state``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None):
        return self if obj is None else getattr(obj.state, self.name)  # type: ignore[attr-defined]

    def __set__(self, obj: object, value: object) -> None:
        setattr(obj.state, self.name, value)  # type: ignore[attr-defined]


class Catalog:
    """Where things are in the planned corpus."""

    def __init__(self, world: World, specs: list[DocSpec], statements: list[Statement] | None = None,
                 count_tokens: Callable[[str], int] | None = None, titles: list[str] | None = None,
                 text_of: Callable[[int], str] | None = None) -> None:
        self.w = world
        self.specs = specs
        self.titles = titles or []  # document titles by index (vocabulary checks)
        self._text_of = text_of  # a document's text by index (re-rendered on demand: the corpus is not kept)
        self._texts: dict[int, str] = {}
        self.state = PlanState()  # the planner's (plan_state): read by generators, set by the planner
        self.count_tokens = count_tokens or (lambda s: len(s.split()))
        self.cache: dict[object, object] = {}  # indexes the query generators build once
        # lists filtered by the split state (memo): valid while the planner's state is (:meth:`_memo_valid`)
        self._memo: dict[object, object] = {}
        self._memo_state: tuple = ()
        self._free_lists = FreeLists()  # lists filtered by the split ledger, updated as it grows (free_lists)
        self.prov: dict[str, list[Statement]] = defaultdict(list)
        self._docs_of: dict[str, frozenset[int]] = {}
        self.doc_facts: dict[int, set[str]] = defaultdict(set)
        for st in statements or []:
            self.prov[st.fact_id].append(st)
            self.doc_facts[st.doc].add(st.fact_id)
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
        # Meridian 4: queries draw from the whole world (a bigger corpus holds more independent topics and a
        # bigger suite); the names stay for the generators that use them
        self.core_tickets = list(world.tickets)
        self.core_decisions = list(world.decisions)
        self.projects = list(world.projects)
        self.ticket_doc = {t["id"]: t["doc"] for t in world.tickets}
        self.decision_doc = {d["id"]: d["doc"] for d in world.decisions}

    # the planner's state under the names callers set it by (``cat.split``, ``cat.target`` ...: kept)
    split_owner, split, relaxed, claimed = _StateField(), _StateField(), _StateField(), _StateField()
    fresh_bias, scale_share, target, epoch = _StateField(), _StateField(), _StateField(), _StateField()

    def stated(self, fid: str) -> list[Statement]:
        """Every statement of ``fid`` in the corpus (empty when no document states it)."""
        return self.prov.get(fid, [])

    def docs_stating(self, fid: str) -> frozenset[int]:
        """The documents stating ``fid`` (computed once per fact: the provenance does not change)."""
        got = self._docs_of.get(fid)
        if got is None:
            got = self._docs_of[fid] = frozenset(st.doc for st in self.prov.get(fid, []))
        return got

    def usable(self, eid: str) -> bool:
        """True unless ``eid`` already belongs to another split than the one being drawn for (set by the planner:
        ``split_owner`` maps ("entity", id) to a split, ``split`` is the slot's)."""
        return self.state.split_owner.get(("entity", eid), self.state.split) == self.state.split

    def _memo_valid(self) -> None:
        """Drop the memo when the split state changed. The planner only adds to ``split_owner`` and ``claimed``
        (and starts a plan with new ones, bumping ``epoch``), so their identities and sizes, the epoch and the
        slot's split fix every list filtered by them."""
        owner, claimed = self.state.split_owner, self.state.claimed
        state = (self.state.epoch, id(owner), len(owner), id(claimed), len(claimed), self.state.split)
        if state != self._memo_state:
            self._memo.clear()
            self._memo["_refs"] = (owner, claimed)  # held, so their ids are not reused while the memo lives
            self._memo_state = state
            self._free_lists.tick()

    def memo(self, key: object, fn: Callable[[], object]):
        """``fn()`` computed once per split state (see :meth:`_memo_valid`): for lists a generator filters by
        which entities and facts the slot's split may use (they change only when a query is planned, while a
        slot is drawn hundreds of times). ``key`` names everything else ``fn`` depends on."""
        self._memo_valid()
        if key not in self._memo:
            self._memo[key] = fn()
        return self._memo[key]

    def _fresh(self, r, ok: list, k: int) -> list:
        """With probability ``fresh_bias``, the usable items no planned query names yet (when ``k`` are left), so
        queries spread over many entities (independent topics) instead of piling onto a few."""
        if self.state.fresh_bias and r.random() < self.state.fresh_bias:
            fresh = self.memo(("fresh", id(ok)), lambda: (ok, [x for x in ok if not any(
                e in self.state.claimed for e in _ids(x))]))[1]
            if len(fresh) >= k:
                return fresh
        return ok

    def _usable_items(self, items: list) -> list:
        """The items whose entities are all usable (:meth:`usable`), in order (kept per list and split, and
        updated from the entities the ledger added since: :mod:`~hcrbench.synth.questions.free_lists`)."""
        if not self.state.split_owner:
            return items
        self._memo_valid()
        made = self._free_lists.origin(items)
        if made is not None:  # a list :meth:`free` made: one filter of its source, kept like it
            key, source, needs = made
            return self.free((key, "usable"), source, lambda x: [*needs(x), *self._entity_nodes(x)])
        return self.free(("usable", id(items), len(items)), items, self._entity_nodes)

    def _entity_nodes(self, x) -> list:
        return [("entity", e) for e in _ids(x)]

    def free(self, key: object, items: list, needs: Callable[[object], list]) -> list:
        """The items of ``items`` whose every ledger node in ``needs(item)`` (``("entity", id)``, ``("fact",
        id)``) no other split than the slot's owns, in order: the same list as filtering ``items`` with
        :meth:`usable` and the facts' owners, kept across planned queries (:class:`~hcrbench.synth.questions.free_lists.
        FreeLists`). ``key`` names the list, ``items`` and ``needs`` must be the same for a key."""
        self._memo_valid()
        return self._free_lists.filtered(key, items, needs, self.state.split_owner, self.state.split)

    def pick(self, r, items):
        """A random item whose entities are usable (any item when none is: the draw is then rejected), preferring
        entities no query names yet (:meth:`_fresh`)."""
        items = items if isinstance(items, list) else list(items)
        ok = self._usable_items(items)
        return r.choice(self._fresh(r, ok, 1) or items)

    def sample(self, r, items, k: int):
        items = items if isinstance(items, list) else list(items)
        ok = self._usable_items(items)
        ok = self._fresh(r, ok, k)
        return r.sample(ok if len(ok) >= k else items, k)

    def text(self, doc: int) -> str | None:
        """The text of document ``doc`` (None when the catalog was built without a renderer)."""
        if self._text_of is None:
            return None
        if doc not in self._texts:
            self._texts[doc] = self._text_of(doc)
        return self._texts[doc]

    def title(self, doc: int) -> str:
        return self.titles[doc] if doc < len(self.titles) else ""

    def profile(self, pid: str) -> int | None:
        return self.single.get(("profile", pid))

    def charter(self, prj: str) -> int | None:
        return self.single.get(("project_charter", prj))

    def mentions(self, eid: str) -> list[int]:
        return self.by_entity.get(eid, [])

    def in_passing(self, eid: str) -> list[int]:
        """The documents that name ``eid`` only in passing (a mention line: ``DocSpec.mentions``, no fact)."""
        idx = self.cache.get("in_passing")
        if idx is None:
            idx = defaultdict(list)
            for i, spec in enumerate(self.specs):
                for e in spec.mentions:
                    idx[e].append(i)
            self.cache["in_passing"] = idx
        return idx.get(eid, [])  # type: ignore[union-attr]

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
