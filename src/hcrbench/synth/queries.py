"""The 300-query suite: slots per category and difficulty, stratified tune/dev/test splits with no project or key
entity (and no relevant-document set) shared between splits, qrels derived from fact provenance, the minimal
evidence set, and the final rows (metadata, evidence, graded qrels).

Grades: 3 = the document states every needed fact, 2 = at least one, 1 = it is about a query entity without a
needed fact (topical), 0 = a judged hard negative (same kinds of document as the relevant ones, other entities).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from hcrbench.data.evidence import BUDGET_TOKENS, EvidenceSpan, QueryEvidence
from hcrbench.synth.adversarial import with_patterns
from hcrbench.synth.catalog import Catalog, QueryPlan
from hcrbench.synth.properties import violations
from hcrbench.synth.query_gen import CATEGORIES
from hcrbench.synth.seeds import rng, sub_seed
from hcrbench.synth.stems import overlap
from hcrbench.synth.world import CORE_PROJECTS, World

DIFFICULTY_SHARES = {"easy": 0.40, "medium": 0.35, "hard": 0.25}
SPLIT_SHARES = {"tune": 0.6, "dev": 0.2, "test": 0.2}
MAX_TRIES = 400
TOPICAL_CAP = 30
NEGATIVES = 5
EXACT_COVER_MAX_FACTS = 12


def difficulty_counts(n: int) -> dict[str, int]:
    e, m = round(n * 0.40), round(n * 0.35)
    return {"easy": e, "medium": m, "hard": n - e - m}


def split_counts(n: int) -> list[str]:
    tune, dev = round(n * 0.6), round(n * 0.2)
    return ["tune"] * tune + ["dev"] * dev + ["test"] * (n - tune - dev)


def entity_pools(world: World, seed: int) -> dict[str, str]:
    """Each project and key entity belongs to one split's pool; tune and test queries draw only from their own."""
    r = rng(seed, "split_pools")
    pool: dict[str, str] = {}
    for group in ([p.id for p in world.projects[:CORE_PROJECTS]],
                  [k for k in world.key_entities if not k.startswith("PRJ")]):
        group = list(group)
        r.shuffle(group)
        labels = split_counts(len(group))
        pool.update(zip(group, labels))
    for p in world.projects[CORE_PROJECTS:]:
        pool[p.id] = ["tune", "tune", "tune", "dev", "test"][sub_seed(seed, "pool", p.id) % 5]
    return pool


def _fits(plan: QueryPlan, split: str, pool: dict[str, str]) -> bool:
    if split == "dev":
        return True
    return all(pool.get(e, split) == split for e in plan.entities)


def plan_violations(plan: QueryPlan, cat: Catalog) -> list[str]:
    """The category property check of :mod:`properties`, fed from the catalog's provenance."""
    def stated(f: str):
        return ((st.doc, cat.specs[st.doc].doc_type, st.text) for st in cat.stated(f))
    return violations(plan.category, plan.origin, plan.text, plan.answer, plan.facts, stated,
                      len(plan.interpretations))


def plan_queries(cat: Catalog, seed: int) -> list[QueryPlan]:
    """Draw the 300 queries. Every slot (category, difficulty, split) is filled by rejection sampling from its
    generator: a draw is rejected when its text or fact set repeats an earlier query, when its relevant documents
    equal those of a query in another split, when it breaks its category's property, or when it uses another
    split's entities. A slot that cannot be filled is a generator bug and raises."""
    pool = entity_pools(cat.w, seed)
    out: list[QueryPlan] = []
    seen: dict[str, set] = {"texts": set(), "facts": set()}
    relevant: dict[frozenset, str] = {}
    for cname, (n, base) in CATEGORIES.items():
        gen = with_patterns(cname, base)
        for diff, k in difficulty_counts(n).items():
            splits = split_counts(k)
            rng(seed, "split_order", f"{cname}|{diff}").shuffle(splits)
            for slot, split in enumerate(splits):
                plan = _draw(cat, gen, seed, cname, diff, slot, split, pool, seen, relevant)
                plan.split = split
                seen["texts"].add(plan.text)
                if plan.facts:
                    seen["facts"].add(tuple(sorted(plan.facts)))
                    relevant.setdefault(_relevant_set(plan, cat), split)
                out.append(plan)
    for i, p in enumerate(out):
        p.query_id = f"MQ{i + 1:03d}"
    return out


def _relevant_set(plan: QueryPlan, cat: Catalog) -> frozenset:
    return frozenset(d for f in plan.facts for d in cat.docs_stating(f))


def _draw(cat: Catalog, gen: Callable, seed: int, cname: str, diff: str, slot: int, split: str,
          pool: dict[str, str], seen: dict[str, set], relevant: dict[frozenset, str]) -> QueryPlan:
    for attempt in range(MAX_TRIES):
        r = rng(seed, f"query|{cname}|{diff}|{slot}", attempt)
        plan = gen(cat, r, diff)
        if plan is None or plan.text in seen["texts"] or not _fits(plan, split, pool):
            continue
        if plan.facts and (tuple(sorted(plan.facts)) in seen["facts"]
                           or relevant.get(_relevant_set(plan, cat), split) != split):
            continue
        if plan_violations(plan, cat):
            continue
        return plan
    raise RuntimeError(f"meridian: could not fill query slot {cname}/{diff}/{split} #{slot}")


def derive_qrels(plan: QueryPlan, cat: Catalog, facts: list[str] | None = None) -> dict[int, int]:
    """Graded qrels from provenance: 3 states every needed fact, 2 some, 1 topical, 0 judged hard negative."""
    need = set(plan.facts if facts is None else facts)
    if not need:
        return {}
    stated: dict[int, set[str]] = {}
    for f in need:
        for d in cat.docs_stating(f):
            stated.setdefault(d, set()).add(f)
    grades = {d: 3 if fs == need else 2 for d, fs in stated.items()}
    for e in plan.entities:
        for d in cat.mentions(e)[:TOPICAL_CAP]:
            grades.setdefault(d, 1)
    types = sorted({cat.specs[d].doc_type for d in stated})
    cands = sorted(d for t in types for d in cat.by_type[t] if d not in grades)
    r = rng(cat.w.seed, "negatives", "|".join(sorted(need)))
    for d in r.sample(cands, min(NEGATIVES, len(cands))):
        grades[d] = 0
    return dict(sorted(grades.items()))


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
            "design_difficulty": p.difficulty,
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
