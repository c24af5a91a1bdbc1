"""The query planner: which query fills each slot (category, difficulty, split) of a suite of N.

Every slot is filled by rejection sampling from its category's generator (:mod:`generators`). Rules that hold in
every try (correctness): the split ledger (no needed fact, expected entity, entity named in the text or relevant
set in two splits, :mod:`splits`), the category's property (:mod:`properties`), 3+-hop chains of >= 3 hops through
distinct documents (:func:`~hcrbench.synth.questions.chain.distinct_hops`), no repeated text, near-duplicate wording or
needed-fact set, at most :data:`MAX_RELEVANT` relevant documents, the bridge cap, and no relevant-document set
repeated within a split (dropped only by the last of :data:`FRESH_BIAS_STEPS`).

Topic spread (preferences, relaxed in order before a slot fails): each split has a **join budget**
(:class:`JoinBudget`): a query that touches k existing topics of its split (a cluster: queries sharing an
expected entity, a needed fact or a relevant set, :mod:`topics`) changes the split's cluster count by 1 - k, and
the planner keeps clusters >= :data:`TOPIC_TARGET` of the split's queries, paced over the split's slots. Draws
that open a new topic are preferred outright for the first tries; generators prefer entities no query names yet
(``fresh_bias``). A slot no draw fills within budget is tried without the generator's size targets, in another
split, without the fresh preferences, and last without the budget (the split then misses the target, and
``describe`` reports it).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from hcrbench.synth.questions.adversarial import patterns, with_patterns
from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.questions.category import QueryCategory, RegistryView, categories, fill_order
from hcrbench.synth.questions.category import get as get_category
from hcrbench.synth.questions.chain import distinct_hops
from hcrbench.synth.questions.dedup import QuestionSet
from hcrbench.synth.questions.fit import FitLedger, fits, slot_targets_of
from hcrbench.synth.questions.generators import AMBIGUOUS_GROUPS, MAX_RELEVANT
from hcrbench.synth.questions.properties import VOCABULARY_ORIGIN, bridges, violations
from hcrbench.synth.questions.reach import reach
from hcrbench.synth.questions.scale import rescued, scale_share, scaled
from hcrbench.synth.questions.splits import SplitLedger, nodes, pools
from hcrbench.synth.questions.topics import NameIndex, TopicGraph, world_names
from hcrbench.synth.questions.wording import reword
from hcrbench.synth.world_model.entities import CORE_PROJECTS
from hcrbench.synth.world_model.facts import fact_value
from hcrbench.synth.world_model.seeds import rng

DIFFICULTY_SHARES = {"easy": 0.40, "medium": 0.35, "hard": 0.25}
SPLIT_SHARES = {"tune": 0.6, "dev": 0.2, "test": 0.2}
MAX_TRIES = 600
#: Draws of a slot that must open a new topic (touch no planned query's entity, fact or relevant set) before
#: joining an existing one is allowed (:class:`~hcrbench.synth.questions.topics.TopicGraph`).
NEW_TOPIC_TRIES = 10
#: Draws of a slot that must not repeat a planned query's relevant-document set.
NEW_EVIDENCE_TRIES = 100
#: Chance that a generator's pick/sample draws only from entities no planned query names yet.
FRESH_BIAS = 0.85
#: The fresh-entity preferences a suite is planned with, in order: spreading early queries over new entities
#: deals more of the world to the splits one by one, which on some seeds leaves a scarce category (aggregation)
#: no draw that fits; the suite is then planned again from scratch with a weaker preference.
#: Each step is (fresh bias, draws that must open a new topic, draws that must not repeat evidence); the last
#: ones also drop the preference for new evidence and new topics (Meridian 3's planner, named entities kept).
#: A step's fourth field says whether a relevant-document set may repeat within a split (only the last step's:
#: a world that cannot hold the suite otherwise gives up that rule before it gives up the suite).
FRESH_BIAS_STEPS = ((FRESH_BIAS, NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES, False),
                    (0.5, NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES, False),
                    (0.0, NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES, False), (0.0, NEW_TOPIC_TRIES, 0, False),
                    (0.0, 0, 0, False), (0.0, 0, 0, True))
#: The share of a split's queries the join budget keeps in distinct clusters (above the 2/3 that ``describe``
#: asks for, :data:`~hcrbench.synth.questions.topics.MIN_DISTINCT_SHARE`: slots filled outside the budget spend joins too)
#: and the joins a split may spend ahead of its pace (:class:`JoinBudget`).
TOPIC_TARGET = 0.72
JOIN_SLACK = 4
#: Draws a slot gets within the join budget (each of its two budget tries), before it is tried outside it.
BUDGET_TRIES = 120
#: Outside the budget a slot takes the draw that joins the fewest topics among this many valid draws (one that
#: opens a new topic at once), so a fallback merges as few clusters as it can.
BEST_OF = 12
BRIDGE_SHARE = 0.10  # no bridge entity in more than ~10% of a chain category's queries
#: Categories in the order the planner fills them: those whose slots need the most distinct world resources first
#: (each category's ``fill_rank``, :mod:`~hcrbench.synth.questions.category`).
FILL_ORDER = RegistryView(lambda cats: {n: i for i, n in enumerate(fill_order())})


DESIGN_QUERIES = 300  # the design's suite; each category's ``count`` is its share of it


def category_counts(n: int = DESIGN_QUERIES) -> dict[str, int]:
    """Queries per category for a suite of ``n``: the design's shares (its 300-query counts) apportioned by
    largest remainder, so ``n = 300`` gives the design's counts exactly and every ``n`` sums to ``n``."""
    base = {c.name: c.count for c in categories()}
    total = sum(base.values())
    exact = {c: n * k / total for c, k in base.items()}
    out = {c: int(v) for c, v in exact.items()}
    for c in sorted(exact, key=lambda c: (-(exact[c] - out[c]), list(base).index(c)))[:n - sum(out.values())]:
        out[c] += 1
    return out


def difficulty_counts(n: int) -> dict[str, int]:
    e, m = round(n * 0.40), round(n * 0.35)
    return {"easy": e, "medium": m, "hard": n - e - m}


def split_counts(n: int) -> list[str]:
    tune, dev = round(n * 0.6), round(n * 0.2)
    return ["tune"] * tune + ["dev"] * dev + ["test"] * (n - tune - dev)


class SuiteTooLarge(RuntimeError):
    """The world cannot hold the requested suite (a slot no draw fills in any split)."""


def bridge_cap(n: int) -> int:
    """The most queries of a chain category (``n`` queries) that may go through one bridge entity."""
    return max(2, math.ceil(BRIDGE_SHARE * n))


def plan_violations(plan: QueryPlan, cat: Catalog) -> list[str]:
    """The category property check of :mod:`properties`, fed from the catalog's provenance, titles and text."""
    def stated(f: str):
        return ((st.doc, cat.specs[st.doc].doc_type, st.text) for st in cat.stated(f))
    hops = chain_of(plan)
    final = fact_value(cat.w, hops[-1]) if plan.chain and hops else None
    return violations(plan.category, plan.origin, plan.text, plan.answer, plan.facts, stated,
                      len(plan.interpretations), title=cat.title, text_of=cat.text, final_value=final,
                      chain_facts=hops)


def chain_of(plan: QueryPlan) -> list[str]:
    """A chain query's hops in order (a pattern may need a further fact beside its chain)."""
    return list(plan.extra.get("chain") or plan.facts)


def _slots(counts: dict[str, int]) -> list[tuple[str, str, int, str]]:
    """Every (category, difficulty, slot, split), categories in :data:`FILL_ORDER`; within a category the splits
    take turns (each split's k-th slot comes at the k-th share of the category), so no split is served last."""
    out = []
    for cname in fill_order():
        n = counts[cname]
        rows = []
        for diff, k in difficulty_counts(n).items():
            splits = split_counts(k)
            for slot, split in enumerate(splits):
                rows.append((cname, diff, slot, split))
        rank: dict[str, int] = {}
        total = {s: sum(r[3] == s for r in rows) for s in SPLIT_SHARES}
        keyed = []
        for r in rows:
            i = rank.get(r[3], 0)
            rank[r[3]] = i + 1
            keyed.append(((i + 0.5) / total[r[3]], -list(SPLIT_SHARES).index(r[3]), r))
        out += [r for *_, r in sorted(keyed, key=lambda x: x[:2])]
    return out


def entity_pools(cat: Catalog, seed: int) -> dict[str, str]:
    """Policies (the ones an ambiguous word covers together), systems, products, core projects and key people
    dealt to the splits 60/20/20 kind by kind; other entities are owned by the first split that draws them."""
    w = cat.w
    grouped = [[p.id for p in w.policies if p.concept in concepts] for _, concepts in AMBIGUOUS_GROUPS]
    in_group = {e for g in grouped for e in g}
    kinds = [grouped + [[p.id] for p in w.policies if p.id not in in_group],
             [[s.id] for s in w.systems], [[p.id] for p in w.products],
             [[p.id] for p in w.projects[:CORE_PROJECTS]], [[k] for k in w.key_entities if k[1:].isdigit()]]
    out: dict[str, str] = {}
    for i, units in enumerate(kinds):
        out.update(pools([u for u in units if u], SPLIT_SHARES, rng(seed, "split_pools", i)))
    return out


class JoinBudget:
    """Per split: slots, queries planned, and clusters among them. A draw that touches ``loss`` existing topics
    of its split fits when the split's deficit (queries - clusters) after it stays within its paced allowance:
    the split's spare joins (slots - ceil(target x slots)) times the share of its slots filled, plus
    :data:`JOIN_SLACK`, never more than the spare joins."""

    def __init__(self, slots: list[tuple[str, str, int, str]], target: float = TOPIC_TARGET) -> None:
        self.size = Counter(s for *_, s in slots)
        self.target = target
        self.queries: Counter = Counter()
        self.clusters: Counter = Counter()
        self.misses: Counter = Counter()  # slots of the split in a row that no draw filled within the budget

    def tries(self, split: str) -> int:
        """Draws a budget try gets: :data:`BUDGET_TRIES`, few once the split's last slots found none (a spent
        budget is not searched 300 draws a slot: generation stays seconds)."""
        return BUDGET_TRIES if not self.misses[split] else BUDGET_TRIES // 15

    def fits(self, split: str, loss: int) -> bool:
        if loss <= 0:  # a new topic never widens the deficit (even where fallbacks outside the budget spent it)
            return True
        n = max(self.size[split], self.queries[split] + 1)
        spare = n - math.ceil(self.target * n - 1e-9)
        allowed = min(spare, math.floor(spare * (self.queries[split] + 1) / n) + JOIN_SLACK)
        return self.queries[split] - self.clusters[split] + loss <= allowed

    def add(self, split: str, loss: int) -> None:
        self.queries[split] += 1
        self.clusters[split] += 1 - loss


def plan_queries(cat: Catalog, seed: int, n_queries: int = DESIGN_QUERIES) -> list[QueryPlan]:
    """The suite of :func:`plan_suite`, planned with each step of :data:`FRESH_BIAS_STEPS` in turn until one fills
    every slot (the first on most seeds: the suite is then the same as with that preference alone); raises
    :class:`SuiteTooLarge` when none does."""
    for i, (bias, new_topic, new_evidence, repeat_ok) in enumerate(FRESH_BIAS_STEPS):
        try:
            return plan_suite(cat, seed, n_queries, bias, (new_topic, new_evidence), repeat_ok)
        except SuiteTooLarge:
            if i == len(FRESH_BIAS_STEPS) - 1:
                raise
    raise AssertionError("unreachable")


def plan_suite(cat: Catalog, seed: int, n_queries: int = DESIGN_QUERIES,
               fresh_bias: float = FRESH_BIAS,
               prefer: tuple[int, int] = (NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES),
               repeat_ok: bool = False) -> list[QueryPlan]:
    """Draw ``n_queries`` queries in the design's category shares (:func:`category_counts`), each slot by
    :func:`_draw` under the rules and preferences of the module docstring; a slot that cannot be filled at all
    raises :class:`SuiteTooLarge`."""
    ledger = SplitLedger(entity_pools(cat, seed))
    counts = category_counts(n_queries)
    slots = _slots(counts)
    topics = TopicGraph()
    budget = JoinBudget(slots)
    names = NameIndex(world_names(cat.w.to_json()))
    planned: dict[tuple[str, str, int], QueryPlan] = {}
    seen: dict[str, Any] = {"texts": set(), "facts": set(), "questions": QuestionSet(), "topics": topics,
                            "names": names, "subjects": set(), "prefer": prefer, "repeat_ok": repeat_ok}
    bridged: dict[str, Counter] = defaultdict(Counter)
    state = cat.state
    state.claimed, state.relaxed = set(), False  # a fresh plan: no entity is named yet
    state.epoch += 1  # (and the lists filtered for the last plan's splits are stale: Catalog.memo)
    state.fresh_bias = fresh_bias
    state.scale_share = scale_share(n_queries, DESIGN_QUERIES)  # a larger suite draws more of the numerous kinds
    targets = slot_targets_of(slots)  # each slot's (tier, feasible) target
    drafts = {c.name: category_draw(c) for c in categories()}
    seen["fit"] = FitLedger(targets)
    for cname, diff, slot, split in slots:
        gen = drafts[cname]
        seen["target"] = state.target = targets.get((cname, diff, slot))
        for where, relaxed, loose, within, repeat in _fallbacks(split):
            state.relaxed = relaxed
            state.fresh_bias = 0.0 if loose else fresh_bias
            seen["repeat_ok"] = repeat_ok or repeat
            got = _draw(cat, gen, seed, cname, diff, slot, where, ledger, seen, bridged[cname],
                        bridge_cap(counts[cname]), loose, budget if within else None)
            if got is not None:
                break
        else:
            raise SuiteTooLarge(f"could not fill query slot {cname}/{diff} #{slot} in any split")
        budget.misses[split] = 0 if within else budget.misses[split] + 1
        state.relaxed = False
        state.fresh_bias = fresh_bias
        plan, linked, loss = got
        seen["fit"].record(cname, seen["target"], fits(plan, cat, seen["target"]), plan, split)
        seen["patterns"][cname][0] += 1
        seen["patterns"][cname][1] += plan.origin == "adversarial"
        plan.split = split = where
        seen["texts"].add(plan.extra["plain"])
        seen["questions"].add(plan.extra["plain"])
        if plan.facts:
            seen["facts"].add(tuple(sorted(plan.facts)))
        budget.add(split, loss)
        ledger.claim(split, linked)
        topics.claim(linked)
        if plan.entities:
            seen["subjects"].add((cname, plan.entities[0]))
        state.claimed.update(plan.entities)
        bridged[cname].update(bridges(chain_of(plan), plan.chain))
        planned[(cname, diff, slot)] = plan
    state.fresh_bias, state.target, state.scale_share = 0.0, None, 0.0
    out: list[QueryPlan] = []
    for cname in (c.name for c in categories()):  # ids in registration order
        for diff, k in difficulty_counts(counts[cname]).items():
            out += [planned[(cname, diff, slot)] for slot in range(k)]
    for i, p in enumerate(out):
        p.query_id = f"MQ{i + 1:03d}"
    return out


def _fallbacks(split: str) -> list[tuple[str, bool, bool, bool, bool]]:
    """The tries of a slot as (split, relaxed, loose, within budget, relevant set may repeat), in order: its own
    split within the join budget (:data:`BUDGET_TRIES` draws each), with and without the fresh preferences
    (``loose``: no preference for entities no query names yet, for a new topic or a new main subject, and a
    fresh stream of draws); then outside the budget, in its own split with and without the preferences, and
    without the generator's size targets (``relaxed``: a larger suite's variants over the world's numerous
    kinds, :func:`~hcrbench.synth.questions.scale.rescued`, where a category's own kinds are capped: policies,
    systems), still without repeating a relevant set; then as Meridian 4.0's planner did, where a relevant set may repeat within
    the split after :data:`NEW_EVIDENCE_TRIES` draws: in its own split, without the generator's size targets
    (entity-spanning questions over 10+ documents), in another split (the counts then show it), and without the
    preferences. A crowded world gives up topic spread before it gives up the suite, and ``describe`` reports
    what it gave up. The label rules hold in every try."""
    others = [s for s in SPLIT_SHARES if s != split]
    return [(split, False, False, True, False), (split, False, True, True, False),
            (split, False, False, False, False), (split, False, True, False, False),
            (split, True, False, False, False),
            (split, False, False, False, True), (split, True, False, False, True),
            *((s, True, False, False, True) for s in others),
            (split, True, True, False, True), *((s, True, True, False, True) for s in others)]


def _pattern_share(cname: str) -> float:
    """The share of a category's draws its hand-written patterns take (``adversarial.toml``)."""
    return sum(float(p["share"]) for p in patterns() if p["category"] == cname)


def category_draw(spec: QueryCategory) -> Callable:
    """One draw of ``spec``'s slots: its generator, with a larger suite's variant taking its share
    (:func:`~hcrbench.synth.questions.scale.scaled`), the variants reaching the slot's target theirs
    (:func:`~hcrbench.synth.questions.reach.reach`), its hand-written patterns theirs
    (:func:`~hcrbench.synth.questions.adversarial.with_patterns`), and in the planner's last tries the larger suite's
    variant first (:func:`~hcrbench.synth.questions.scale.rescued`)."""
    name = spec.name
    return rescued(name, with_patterns(name, reach(name, scaled(name, spec.generate))))


def _relevant_set(plan: QueryPlan, cat: Catalog) -> frozenset:
    return frozenset().union(*(cat.docs_stating(f) for f in plan.facts))


def _reword(cat: Catalog, plan: QueryPlan, r, names: NameIndex) -> bool:
    """The words a person would type for ``plan`` (:mod:`wording`); False when the draw is turned down (an
    identifier drawn to be described has no description that picks it out). The generator's plain form is kept
    in ``plan.extra["plain"]``, which the repeat checks compare (two wordings of one question are one question).
    A vocabulary-mismatch question whose new wording shares a stem with its evidence keeps its plain form."""
    plain = plan.extra["plain"] = plan.text
    text = reword(cat, plan, r, names.named)
    if text is None:
        return False
    plan.text = text
    if plan.text != plain and plan.origin == VOCABULARY_ORIGIN and plan_violations(plan, cat):
        plan.text = plain
    return True


def _draw(cat: Catalog, gen: Callable, seed: int, cname: str, diff: str, slot: int, split: str,
          ledger: SplitLedger, seen: dict[str, Any], bridged: Counter, cap: int,
          loose: bool = False, budget: JoinBudget | None = None) -> tuple[QueryPlan, list, int] | None:
    """One slot by rejection sampling: the plan, its graph nodes and the number of existing topics it joins, or
    None. Besides the category's own checks (rules), a draw is rejected when it does not fit the split's join
    budget (``budget``, when given); in its first :data:`NEW_TOPIC_TRIES` attempts when it touches any planned
    topic; in its first :data:`NEW_EVIDENCE_TRIES` when its main subject (first expected entity) is one its
    category already has (six entity-spanning questions about one person are one topic, not six). ``loose``
    drops those two preferences and draws from its own random stream. Outside the budget the draw that touches
    the fewest topics among :data:`BEST_OF` valid ones is taken."""
    cat.state.split_owner, cat.state.split = ledger.owner, split
    spec = get_category(cname)
    topics: TopicGraph = seen["topics"]
    new_topic, new_evidence = (0, 0) if loose else seen.get("prefer", (NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES))
    stream = f"query|{cname}|{diff}|{slot}" + ("|loose" if loose else "")
    adv = seen.setdefault("patterns", defaultdict(lambda: [0, 0]))[cname]  # [filled, by a pattern]
    best: tuple[QueryPlan, list, int] | None = None
    spare: tuple[QueryPlan, list, int] | None = None  # the fewest joins among draws turned down for their fit
    found = turned = 0
    turned_down: set[str] = set()  # texts of this slot's draws turned down for their fit (not counted twice)
    for attempt in range(MAX_TRIES if budget is None else budget.tries(split)):
        r = rng(seed, stream, attempt)
        plan = gen(cat, r, diff)
        if plan is None or plan.text in seen["texts"] or plan.text in turned_down:
            continue
        if not _reword(cat, plan, rng(seed, stream + "|wording", attempt), seen["names"]):
            continue
        # every entity the words name is an expected entity (and a node of the split graph)
        plan.entities = list(dict.fromkeys([*plan.entities, *seen["names"].named(plan.text)]))
        rel = _relevant_set(plan, cat)
        if plan.facts and (tuple(sorted(plan.facts)) in seen["facts"] or len(rel) > MAX_RELEVANT):
            continue
        linked = nodes(plan.facts, plan.entities, rel)
        if not ledger.fits(split, linked):
            continue
        if (budget is not None or attempt < new_evidence or not seen.get("repeat_ok")) \
                and topics.reuses_evidence(linked):
            continue  # a relevant-document set is owned by one split: a repeat would be within this one
        subject = (cname, plan.entities[0] if plan.entities else "")
        if attempt < new_evidence and subject in seen["subjects"]:
            continue
        loss = topics.loss(linked)
        if attempt < new_topic and loss:
            continue
        if budget is not None and not budget.fits(split, loss) and not (
                plan.origin == "adversarial" and adv[1] < _pattern_share(cname) * (adv[0] + 1)):
            continue  # hand-written patterns keep (up to) their share of the draws; they still spend the budget
        if any(bridged[b] >= cap for b in bridges(chain_of(plan), plan.chain)):
            continue
        if spec is not None and spec.distinct_hops and not distinct_hops(chain_of(plan), cat.docs_stating):
            continue
        if plan_violations(plan, cat) or seen["questions"].repeats(plan.extra["plain"]):
            continue  # (the wording check last: it is the slowest, and every check is a pure filter)
        if seen["fit"].rejects(plan, cat, cname, seen.get("target"), turned, budget is not None):
            turned += 1  # (the fit window counts distinct valid draws, not attempts: query_fit)
            turned_down.add(plan.extra["plain"])
            if spare is None or loss < spare[2]:
                spare = (plan, linked, loss)
            continue  # the slot's (tier, feasible) target, in chunks (query_fit): other draws first
        if budget is not None or loss == 0:
            return plan, linked, loss
        if best is None or loss < best[2]:  # outside the budget: the fewest joins of a few valid draws
            best = (plan, linked, loss)
        found += 1
        if found >= BEST_OF:
            return best
    return best if best is not None or budget is not None else spare
