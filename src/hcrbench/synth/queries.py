"""The 300-query suite: slots per category and difficulty, tune/dev/test splits that share no needed fact,
expected entity or relevant-document set (:mod:`splits`), qrels derived from fact provenance, the minimal
evidence set, and the final rows (metadata, evidence, graded qrels).

Primary grades (``qrels/``) are evidence-first: 3 = the document states every needed fact, 2 = at least one,
0 = a judged negative checked to be off-topic. Documents about a query entity without a needed fact (topical, 1)
go, uncapped, to the secondary view ``qrels-topical/`` (``qrels_topical`` in the metadata).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from hcrbench.data.evidence import BUDGET_TOKENS, EvidenceSpan, QueryEvidence
from hcrbench.synth.adversarial import with_patterns
from hcrbench.synth.catalog import Catalog, QueryPlan
from hcrbench.synth.facts import fact_value
from hcrbench.synth.properties import bridges, violations
from hcrbench.synth.query_dedup import QuestionSet
from hcrbench.synth.query_gen import AMBIGUOUS_GROUPS, CATEGORIES
from hcrbench.synth.seeds import rng
from hcrbench.synth.splits import SplitLedger, nodes, pools
from hcrbench.synth.stems import overlap
from hcrbench.synth.topics import NameIndex, TopicGraph, clusters, world_names
from hcrbench.synth.world import CORE_PROJECTS

DIFFICULTY_SHARES = {"easy": 0.40, "medium": 0.35, "hard": 0.25}
SPLIT_SHARES = {"tune": 0.6, "dev": 0.2, "test": 0.2}
MAX_TRIES = 600
#: Draws of a slot that must open a new topic (touch no planned query's entity, fact or relevant set) before
#: joining an existing one is allowed (:class:`~hcrbench.synth.topics.TopicGraph`).
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
FRESH_BIAS_STEPS = ((FRESH_BIAS, NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES), (0.5, NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES),
                    (0.0, NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES), (0.0, NEW_TOPIC_TRIES, 0), (0.0, 0, 0))
NEGATIVES = 5
EXACT_COVER_MAX_FACTS = 12
MAX_RELEVANT = 100  # R@100 = 1 must be reachable: no query has more relevant documents than that
BRIDGE_SHARE = 0.10  # no bridge entity in more than ~10% of a chain category's queries
#: Categories whose slots need the most distinct world resources are filled first.
FILL_ORDER = ("ambiguous", "aggregation", "multi_hop", "entity_spanning", "two_hop", "temporal", "comparative",
              "thematic", "detail", "out_of_distribution")


DESIGN_QUERIES = 300  # the design's suite; CATEGORIES holds its counts


def category_counts(n: int = DESIGN_QUERIES) -> dict[str, int]:
    """Queries per category for a suite of ``n``: the design's shares (its 300-query counts) apportioned by
    largest remainder, so ``n = 300`` gives the design's counts exactly and every ``n`` sums to ``n``."""
    base = {c: k for c, (k, _) in CATEGORIES.items()}
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
    for cname in FILL_ORDER:
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


def plan_queries(cat: Catalog, seed: int, n_queries: int = DESIGN_QUERIES) -> list[QueryPlan]:
    """The suite of :func:`plan_suite`, planned with each step of :data:`FRESH_BIAS_STEPS` in turn until one fills
    every slot (the first on most seeds: the suite is then the same as with that preference alone); raises
    :class:`SuiteTooLarge` when none does."""
    for i, (bias, new_topic, new_evidence) in enumerate(FRESH_BIAS_STEPS):
        try:
            return plan_suite(cat, seed, n_queries, bias, (new_topic, new_evidence))
        except SuiteTooLarge:
            if i == len(FRESH_BIAS_STEPS) - 1:
                raise
    raise AssertionError("unreachable")


def plan_suite(cat: Catalog, seed: int, n_queries: int = DESIGN_QUERIES,
               fresh_bias: float = FRESH_BIAS,
               prefer: tuple[int, int] = (NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES)) -> list[QueryPlan]:
    """Draw ``n_queries`` queries in the design's category shares (:func:`category_counts`). Every slot (category, difficulty, split) is filled by rejection sampling from its
    generator: a draw is rejected when its text (or a near-duplicate of it, :mod:`query_dedup`) or its fact set
    repeats an earlier query, when it has more than
    :data:`MAX_RELEVANT` relevant documents, when it shares a needed fact, an expected entity or its relevant-document
    set with another split (:class:`SplitLedger`), when it goes through a bridge entity that already carries
    :func:`bridge_cap` queries of its category, or when it breaks its category's property. A slot that cannot be
    filled in its split goes to another one (``describe`` reports the split counts), then drops the topic
    preferences (:func:`_fallbacks`); one that cannot be filled at all raises :class:`SuiteTooLarge`."""
    ledger = SplitLedger(entity_pools(cat, seed))
    counts = category_counts(n_queries)
    slots = _slots(counts)
    topics = TopicGraph()
    names = NameIndex(world_names(cat.w.to_json()))
    planned: dict[tuple[str, str, int], QueryPlan] = {}
    seen: dict[str, Any] = {"texts": set(), "facts": set(), "questions": QuestionSet(), "topics": topics,
                            "names": names, "subjects": set(), "prefer": prefer}
    bridged: dict[str, Counter] = defaultdict(Counter)
    cat.claimed, cat.relaxed = set(), False  # a fresh plan: no entity is named yet
    cat.fresh_bias = fresh_bias
    for cname, diff, slot, split in slots:
        gen = with_patterns(cname, CATEGORIES[cname][1])
        for where, relaxed, loose in _fallbacks(split):
            cat.relaxed = relaxed
            cat.fresh_bias = 0.0 if loose else fresh_bias
            got = _draw(cat, gen, seed, cname, diff, slot, where, ledger, seen, bridged[cname],
                        bridge_cap(counts[cname]), loose)
            if got is not None:
                break
        else:
            raise SuiteTooLarge(f"could not fill query slot {cname}/{diff} #{slot} in any split")
        cat.relaxed = False
        cat.fresh_bias = fresh_bias
        plan, linked = got
        plan.split = split = where
        seen["texts"].add(plan.text)
        seen["questions"].add(plan.text)
        if plan.facts:
            seen["facts"].add(tuple(sorted(plan.facts)))
        ledger.claim(split, linked)
        topics.claim(linked)
        if plan.entities:
            seen["subjects"].add((cname, plan.entities[0]))
        cat.claimed.update(plan.entities)
        bridged[cname].update(bridges(chain_of(plan), plan.chain))
        planned[(cname, diff, slot)] = plan
    cat.fresh_bias = 0.0
    out: list[QueryPlan] = []
    for cname in CATEGORIES:  # ids in category order, as before
        for diff, k in difficulty_counts(counts[cname]).items():
            out += [planned[(cname, diff, slot)] for slot in range(k)]
    for i, p in enumerate(out):
        p.query_id = f"MQ{i + 1:03d}"
    return out


def _fallbacks(split: str) -> list[tuple[str, bool, bool]]:
    """The tries of a slot as (split, relaxed, loose), in order. A slot no draw can fill is tried once more
    without the generator's size targets (entity-spanning questions over 10+ documents), then in another split
    (the counts then show it); then, in its own split first, without the topic preferences (``loose``: no
    preference for entities no query names yet, for a new topic or for unrepeated evidence, and a fresh stream
    of draws), so a crowded world gives up topic spread before it gives up the suite. Label rules (split
    ledger, property checks, fact and text repeats, relevant-set cap) hold in every try."""
    others = [s for s in SPLIT_SHARES if s != split]
    return [(split, False, False), (split, True, False), *((s, True, False) for s in others),
            (split, True, True), *((s, True, True) for s in others)]


def assign_clusters(meta_rows: list[dict], cat: Catalog) -> None:
    """Write each query's topic ``cluster`` (:func:`hcrbench.synth.topics.clusters`, names in the text included)."""
    of = clusters(meta_rows, NameIndex(world_names(cat.w.to_json())))
    for m in meta_rows:
        m["cluster"] = of[m["query_id"]]


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


def _relevant_set(plan: QueryPlan, cat: Catalog) -> frozenset:
    return frozenset(d for f in plan.facts for d in cat.docs_stating(f))


def _draw(cat: Catalog, gen: Callable, seed: int, cname: str, diff: str, slot: int, split: str,
          ledger: SplitLedger, seen: dict[str, Any], bridged: Counter, cap: int,
          loose: bool = False) -> tuple[QueryPlan, list] | None:
    """One slot by rejection sampling. Besides the category's own checks, a draw is rejected when its fact set
    repeats a planned query's; in its first :data:`NEW_TOPIC_TRIES` attempts, when it touches a planned query's
    topic (an entity, fact or relevant set: :class:`TopicGraph`); in its first :data:`NEW_EVIDENCE_TRIES`, when
    its relevant-document set repeats one or its main subject (first expected entity) is one its category already
    has (six entity-spanning questions about one person are one topic, not six). Later attempts take what the world has left (a world too small for its
    queries shows in ``describe``'s topic figures). ``loose`` (a last try, :func:`_fallbacks`) drops the topic
    and evidence preferences and draws from its own random stream."""
    cat.split_owner, cat.split = ledger.owner, split
    topics: TopicGraph = seen["topics"]
    new_topic, new_evidence = (0, 0) if loose else seen.get("prefer", (NEW_TOPIC_TRIES, NEW_EVIDENCE_TRIES))
    stream = f"query|{cname}|{diff}|{slot}" + ("|loose" if loose else "")
    for attempt in range(MAX_TRIES):
        r = rng(seed, stream, attempt)
        plan = gen(cat, r, diff)
        if plan is None or plan.text in seen["texts"] or seen["questions"].repeats(plan.text):
            continue
        # every entity the words name is an expected entity (and a node of the split graph)
        plan.entities = list(dict.fromkeys([*plan.entities, *seen["names"].named(plan.text)]))
        rel = _relevant_set(plan, cat)
        if plan.facts and (tuple(sorted(plan.facts)) in seen["facts"] or len(rel) > MAX_RELEVANT):
            continue
        linked = nodes(plan.facts, plan.entities, rel)
        if not ledger.fits(split, linked):
            continue
        subject = (cname, plan.entities[0] if plan.entities else "")
        if attempt < new_evidence and (topics.reuses_evidence(linked) or subject in seen["subjects"]):
            continue
        if attempt < new_topic and plan.origin not in ("adversarial", "adversarial:ood") \
                and topics.loss(linked):
            continue  # hand-written patterns and the kinds of near-miss questions keep their share of the draws
        if any(bridged[b] >= cap for b in bridges(chain_of(plan), plan.chain)):
            continue
        if plan_violations(plan, cat):
            continue
        return plan, linked
    return None


def derive_qrels(plan: QueryPlan, cat: Catalog, facts: list[str] | None = None) -> dict[int, int]:
    """Evidence-first graded qrels from provenance: 3 states every needed fact, 2 some, 0 a judged negative (a
    document of the same kinds as the evidence that is checked to be off-topic: it is about none of the query's
    entities and its text names none of them). Topical documents are in :func:`topical_docs`, never here."""
    need = set(plan.facts if facts is None else facts)
    if not need:
        return {}
    stated: dict[int, set[str]] = {}
    for f in need:
        for d in cat.docs_stating(f):
            stated.setdefault(d, set()).add(f)
    grades = {d: 3 if fs == need else 2 for d, fs in stated.items()}
    about = set(topical_docs(plan, cat)) | set(grades)
    names = _names(plan, cat)
    types = sorted({cat.specs[d].doc_type for d in stated})
    cands = sorted(d for t in types for d in cat.by_type[t] if d not in about)
    r = rng(cat.w.seed, "negatives", "|".join(sorted(need)))
    r.shuffle(cands)
    picked = 0
    for d in cands:
        if picked == NEGATIVES:
            break
        text = cat.text(d)
        if text is not None and any(n in text for n in names):
            continue  # names a query entity: not checked off-topic, so not judged
        grades[d] = 0
        picked += 1
    return dict(sorted(grades.items()))


def _names(plan: QueryPlan, cat: Catalog) -> set[str]:
    """How the query's entities and its facts' subjects are written in text."""
    ents = set(plan.entities) | {f.split(":")[1] for f in plan.facts}
    out = {cat.display(e) for e in ents}
    for e in ents:
        obj = cat.w.index.get(e)
        if obj is not None and hasattr(obj, "title"):
            out.add(obj.title)
    return {n for n in out if n}


def topical_docs(plan: QueryPlan, cat: Catalog) -> list[int]:
    """Every document about a query entity (its routing metadata names it) that states no needed fact: the
    secondary, topical view (``qrels-topical/``), exhaustive and uncapped."""
    need = set(plan.facts) | {f for i in plan.interpretations for f in i["facts"]}
    evidence = {d for f in need for d in cat.docs_stating(f)}
    return sorted({d for e in plan.entities for d in cat.mentions(e)} - evidence) if need else []


def minimal_evidence(spans: list[EvidenceSpan], need: list[str], count_tokens: Callable[[str], int]
                     ) -> list[EvidenceSpan]:
    """Fewest tokens covering every needed fact (exact for up to 12 facts, greedy by tokens per new fact above).

    Statements are grouped by span (one sentence may state several facts); the result holds one entry per chosen
    span and fact it covers."""
    index = {f: i for i, f in enumerate(need)}
    by_span: dict[tuple[str, int, int], tuple[int, str]] = {}
    for s in spans:
        key = (s.doc_id, s.start, s.end)
        mask, text = by_span.get(key, (0, s.text))
        by_span[key] = (mask | (1 << index[s.fact_id]), text)
    options: dict[int, tuple[int, tuple[str, int, int]]] = {}  # cover mask -> cheapest span
    for key, (mask, text) in sorted(by_span.items()):
        cost = count_tokens(text)
        if mask not in options or cost < options[mask][0]:
            options[mask] = (cost, key)
    full = (1 << len(need)) - 1
    chosen: list[tuple[str, int, int]] = []
    if len(need) <= EXACT_COVER_MAX_FACTS:
        best: dict[int, tuple[int, list]] = {0: (0, [])}
        for mask in range(full + 1):
            if mask not in best:
                continue
            cost, picks = best[mask]
            for m, (c, key) in options.items():
                nxt = mask | m
                if nxt != mask and (nxt not in best or cost + c < best[nxt][0]):
                    best[nxt] = (cost + c, [*picks, key])
        chosen = best[full][1]
    else:  # lazy greedy: a popped ratio that is still current is the smallest (ratios only grow as facts get covered)
        heap = [(c / m.bit_count(), key, m, c) for m, (c, key) in options.items()]
        heapq.heapify(heap)
        covered = 0
        while covered != full:
            ratio, key, m, c = heapq.heappop(heap)
            new = (m & ~covered).bit_count()
            if not new:
                continue
            if c / new > ratio:
                heapq.heappush(heap, (c / new, key, m, c))
                continue
            covered |= m
            chosen.append(key)
    keep = set(chosen)
    return [s for s in spans if (s.doc_id, s.start, s.end) in keep]


def _difficulty_score(plan: QueryPlan, minimal: list[EvidenceSpan], n_docs: int) -> float:
    """Hops, evidence documents and lexical overlap: more hops and documents and fewer shared stems are harder."""
    hops = len(plan.facts) if plan.chain else 1
    return round(hops + 0.5 * min(n_docs, 20) ** 0.5 + 2.0 * (1.0 - overlap(plan.text, [s.text for s in minimal])), 4)


def query_rows(plans: list[QueryPlan], cat: Catalog) -> tuple[list[dict], list[dict], list[QueryEvidence]]:
    """``queries.jsonl`` and ``queries.meta.jsonl`` rows and ``evidence.jsonl`` records, from the provenance."""
    q_rows, meta_rows, ev_rows = [], [], []
    scores: dict[str, float] = {}
    for p in plans:
        spans = [EvidenceSpan(cat.specs[st.doc].doc_id, st.start, st.end, st.text, f)
                 for f in p.facts for st in cat.stated(f)]
        spans.sort(key=lambda s: (s.doc_id, s.start, s.fact_id))
        minimal = minimal_evidence(spans, p.facts, cat.count_tokens) if p.facts else []
        n_tok = sum(cat.count_tokens(s.text) for s in {(s.doc_id, s.start, s.end): s for s in minimal}.values())
        grades = derive_qrels(p, cat)
        qrels = {cat.specs[d].doc_id: g for d, g in grades.items()}
        topical = {cat.specs[d].doc_id: 1 for d in topical_docs(p, cat)}
        ev_docs = list(dict.fromkeys(s.doc_id for s in minimal)) + sorted({s.doc_id for s in spans})
        domains = list(dict.fromkeys(cat.specs[int(d[4:])].domain for d in ev_docs))
        scores[p.query_id] = _difficulty_score(p, minimal, len({s.doc_id for s in spans}))
        q_rows.append({"_id": p.query_id, "text": p.text,
                       "metadata": {"category": p.category, "difficulty": p.difficulty}})
        meta = {
            "query_id": p.query_id, "category": p.category, "difficulty": p.difficulty, "split": p.split,
            "origin": p.origin, "text": p.text, "answer": p.answer,
            "budget_feasible": bool(p.facts) and n_tok <= BUDGET_TOKENS, "evidence_tokens": n_tok,
            "n_evidence_docs": len({s.doc_id for s in spans}),
            "expected_domains": domains, "expected_entities": p.entities, "qrels": qrels,
            "evidence": [{"doc_id": s.doc_id, "start": s.start, "end": s.end} for s in
                         {(s.doc_id, s.start, s.end): s for s in spans}.values()],
            "facts": p.facts, "minimal_tokens": n_tok, "n_minimal_docs": len({s.doc_id for s in minimal}), "hops": len(p.facts) if p.chain else 1,
            "design_difficulty": p.difficulty, "qrels_topical": topical,
            "intent": p.intent, "params": p.params, "bridges": bridges(chain_of(p), p.chain),
            "chain": chain_of(p) if p.chain else [],
        }
        if p.extra.get("pattern"):
            meta["pattern"] = p.extra["pattern"]
        if p.interpretations:
            meta["interpretations"] = [{**i, "qrels": {cat.specs[d].doc_id: g for d, g in
                                                        derive_qrels(p, cat, i["facts"]).items() if g >= 2}}
                                       for i in p.interpretations]
        meta_rows.append(meta)
        ev_rows.append(QueryEvidence(p.query_id, list(p.facts), spans, minimal, n_tok,
                                     bool(p.facts) and n_tok <= BUDGET_TOKENS, p.answer))
    _tier(meta_rows, q_rows, scores)
    assign_clusters(meta_rows, cat)
    return q_rows, meta_rows, ev_rows


def _tier(meta_rows: list[dict], q_rows: list[dict], scores: dict[str, float]) -> None:
    """Difficulty tiers from the measured score: within each category, the easiest 40% are ``easy``, the next 35%
    ``medium``, the hardest 25% ``hard`` (ties broken by the designed difficulty, then query id)."""
    order = {"easy": 0, "medium": 1, "hard": 2}
    by_cat: dict[str, list[dict]] = {}
    for m in meta_rows:
        by_cat.setdefault(m["category"], []).append(m)
    tier: dict[str, str] = {}
    for rows in by_cat.values():
        rows = sorted(rows, key=lambda m: (scores[m["query_id"]], order[m["design_difficulty"]], m["query_id"]))
        counts = difficulty_counts(len(rows))
        labels = ["easy"] * counts["easy"] + ["medium"] * counts["medium"] + ["hard"] * counts["hard"]
        tier.update({m["query_id"]: lab for m, lab in zip(rows, labels, strict=True)})
    for m, q in zip(meta_rows, q_rows, strict=True):
        m["difficulty"] = q["metadata"]["difficulty"] = tier[m["query_id"]]
        m["difficulty_score"] = scores[m["query_id"]]
