"""A drawn query's evidence in deliverable chunks (:mod:`tiers`), and whether it fits the slot the planner fills.

The planner (:mod:`planner`) gives each slot of a category a target ``(tier, feasible)``
(:func:`slot_targets_of`): the category's tier targets and budget-feasible share (:func:`tiers.slot_targets`). A
draw whose chunk evidence misses its slot's target is rejected for the slot's first :data:`FIT_TRIES` distinct
valid draws of each try (draws that pass every other rule of the planner); later draws take what the category's
generator gives (a category that cannot reach its target shows it in ``describe``); in the second half of those
draws only the feasibility must match (the design's feasible shares are a target within 10 points, the tier mix
one where the category allows), and within the split's join budget the feasibility must match at every draw. A
target a category has missed :data:`FIT_GIVE_UP` times in a row in one split gets :data:`FIT_FEW` draws there
(generation stays seconds when a split's share of the world cannot make such queries)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from hcrbench.data.evidence import EvidenceSpan, QueryEvidence
from hcrbench.data.tokens import default_counter
from hcrbench.synth.questions.adversarial import patterns
from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.questions.category import RegistryView
from hcrbench.synth.questions.tiers import (
    FEASIBLE_DESIGN,
    TIERS,
    ChunkEvidence,
    Unit,
    chunk_evidence,
    chunk_units,
    slot_targets,
    tier_of,
)

FIT_TRIES = 60
#: The order in which a category's designed difficulties take its targets (easiest first), and the categories
#: whose slots take no target: views of each category's ``slot_order`` and ``targeted``
#: (:mod:`~hcrbench.synth.questions.builtin`, where each choice is explained).
UNTARGETED = RegistryView(lambda cats: {c.name: True for c in cats if not c.targeted})
SLOT_ORDER = RegistryView(lambda cats: {c.name: c.slot_order for c in cats if tuple(c.slot_order) != TIERS})
FIT_FEW = 10
FIT_GIVE_UP = 2


def plan_evidence(plan: QueryPlan, cat: Catalog) -> ChunkEvidence | None:
    """The plan's minimal evidence in 128-token chunks (None when the catalog cannot render text)."""
    if not plan.facts or cat.text(0) is None:
        return None
    key = ("chunk_evidence", tuple(sorted(plan.facts)))
    if key not in cat.cache:
        spans = [EvidenceSpan(cat.specs[st.doc].doc_id, st.start, st.end, st.text, f)
                 for f in plan.facts for st in cat.stated(f)]
        spans.sort(key=lambda s: (s.doc_id, s.start, s.fact_id))
        index = {cat.specs[st.doc].doc_id: st.doc for f in plan.facts for st in cat.stated(f)}
        texts = {d: cat.text(i) or "" for d, i in index.items()}
        cat.cache[key] = chunk_evidence(QueryEvidence(plan.query_id, list(plan.facts), spans, []),
                                        lambda d: _units(cat, index[d]), lambda d: cat.specs[index[d]].domain, texts)
    return cat.cache[key]  # type: ignore[return-value]


def _units(cat: Catalog, doc: int) -> list[Unit]:
    key = ("chunks", doc)
    if key not in cat.cache:
        counter = cat.cache.setdefault("chunk_counter", default_counter())
        cat.cache[key] = chunk_units(cat.specs[doc].doc_id, cat.text(doc) or "", counter)  # type: ignore[arg-type]
    return cat.cache[key]  # type: ignore[return-value]


def plan_tier(plan: QueryPlan, cat: Catalog, ce: ChunkEvidence | None = None) -> str | None:
    """The design's tier of the plan from its chunk evidence (None when it cannot be measured)."""
    ce = plan_evidence(plan, cat) if ce is None else ce
    if ce is None:
        return None
    return tier_of(ce, len(plan.extra.get("chain") or plan.facts) if plan.chain else 1)


def slot_targets_of(slots: Iterable[tuple[str, str, int, str]]) -> dict[tuple[str, str, int], tuple[str, bool]]:
    """Each slot's ``(tier, feasible)`` target: per category, the slots in order of their designed difficulty
    (:data:`SLOT_ORDER`, then slot, split) take :func:`tiers.slot_targets` in order, easiest first."""
    by_cat: dict[str, list[tuple[str, str, int, str]]] = {}
    for s in slots:
        by_cat.setdefault(s[0], []).append(s)
    out: dict[tuple[str, str, int], tuple[str, bool]] = {}
    for cname, rows in by_cat.items():
        if cname not in FEASIBLE_DESIGN or cname in UNTARGETED:  # OOD: no evidence; see UNTARGETED
            continue
        order = SLOT_ORDER.get(cname, TIERS)
        rows = sorted(rows, key=lambda s: (order.index(s[1]) if s[1] in order else 3, s[2], s[3]))
        for s, t in zip(rows, slot_targets(cname, len(rows)), strict=True):
            out[(s[0], s[1], s[2])] = t
    return out


class FitLedger:
    """Per (category, target, split): slots in a row that found no draw fitting their target (to stop searching
    there: a split whose share of the world has run out of such draws does not stop the other splits')."""

    def __init__(self, targets: Mapping[tuple[str, str, int], tuple[str, bool]] | None = None) -> None:
        self.misses: Counter = Counter()
        self.patterns: Counter = Counter()  # queries of each hand-written pattern so far
        self.filled: Counter = Counter()  # queries of each category so far
        self.kinds: dict[str, set[tuple[str, bool]]] = {}  # the (tier, feasible) targets of each category's slots
        for (cname, *_), t in (targets or {}).items():
            self.kinds.setdefault(cname, set()).add(t)

    def tries(self, cname: str, target: tuple[str, bool] | None, split: str = "") -> int:
        if target is None:
            return 0
        return FIT_TRIES if self.misses[(cname, target, split)] < FIT_GIVE_UP else FIT_FEW

    def rejects(self, plan: QueryPlan, cat: Catalog, cname: str, target: tuple[str, bool] | None,
                attempt: int, within: bool = False) -> bool:
        """Whether the slot's ``attempt``-th distinct valid draw is turned down for its evidence: in the first half
        of the slot's fit tries unless it has the target's tier and feasibility, in the second half unless it has
        the target's feasibility (the design's feasible shares come before the tier mix), never after; within the
        join budget (``within``) a draw without the target's feasibility is turned down however many came before
        (the slot is then tried outside the budget before it gives the target up), unless the target was given up
        in this split. A vocabulary-mismatch draw needs only the feasibility (the design's 15 vocabulary-mismatch
        queries per 300 keep their slots) in the design's suite; in a larger one (``cat.state.scale_share``) its tier as
        well in the first half (at 900 queries temporal's designed-hard slots, aimed at medium targets, otherwise
        took the first feasible policy question: 10 medium of the 20 the design asks for). A hand-written
        pattern's draw needs only the feasibility while the pattern is below its share (:meth:`_short`); the
        first draw of a hand-written pattern nothing (every pattern shows up)."""
        n = self.tries(cname, target, cat.state.split)
        if attempt >= n and not (within and n == FIT_TRIES):
            return False
        if plan.origin == "adversarial" and not self.patterns[plan.extra.get("pattern")]:
            return False  # every hand-written pattern shows up at least once
        vocabulary = plan.origin == "adversarial:vocabulary" and not cat.state.scale_share
        if attempt < n // 2 and not vocabulary and not self._short(plan, cat, cname):
            return not fits(plan, cat, target)
        ce = plan_evidence(plan, cat) if plan.facts else None
        return ce is not None and target is not None and ce.feasible != target[1]

    def _short(self, plan: QueryPlan, cat: Catalog, cname: str) -> bool:
        """True for a hand-written pattern's draw while the pattern holds less than its share of its category's
        queries so far (``adversarial.toml``) and its evidence fits none of the category's slot targets: it then
        needs only its slot's feasibility. A draw that fits some target takes those slots (an outdated-version
        question, one chunk, takes easy temporal slots, not medium ones), and at its share every draw its slot's
        tier as well."""
        if plan.origin != "adversarial":
            return False
        name = plan.extra.get("pattern")
        share = next((float(p["share"]) for p in patterns() if p["name"] == name), 0.0)
        if self.patterns[name] >= share * (self.filled[cname] + 1):
            return False
        ce = plan_evidence(plan, cat) if plan.facts else None
        return ce is None or (plan_tier(plan, cat, ce), ce.feasible) not in self.kinds.get(cname, set())

    def record(self, cname: str, target: tuple[str, bool] | None, hit: bool, plan: QueryPlan | None = None,
               split: str = "") -> None:
        self.filled[cname] += 1
        if plan is not None and plan.origin == "adversarial":
            self.patterns[plan.extra.get("pattern")] += 1
        if target is not None:
            key = (cname, target, split)
            self.misses[key] = 0 if hit else self.misses[key] + 1


def fits(plan: QueryPlan, cat: Catalog, target: tuple[str, bool] | None) -> bool:
    """True when the plan's chunk evidence has the target's tier and feasibility (or nothing can be measured)."""
    if target is None or not plan.facts:
        return True
    ce = plan_evidence(plan, cat)
    if ce is None:
        return True
    return plan_tier(plan, cat, ce) == target[0] and ce.feasible == target[1]
