"""A planned suite's labels: qrels derived from fact provenance, the minimal evidence set, difficulty tiers,
topic clusters and the final rows (metadata, evidence, graded qrels). The planner (slots per category,
difficulty and split, the join budget) is :mod:`hcrbench.synth.questions.planner`; its names are re-exported here.

Primary grades (``qrels/``) are evidence-first and follow :mod:`hcrbench.synth.questions.grades`: 3 = the document states a
needed fact about its own subject (the page the question is about), 2 = it states needed facts only in passing,
0 = a judged negative checked to be off-topic. Documents about a query entity without a needed fact (topical, 1)
go, uncapped, to the secondary view ``qrels-topical/`` (``qrels_topical`` in the metadata), where pages planned to
name a query entity in passing (``DocSpec.mentions``, :mod:`hcrbench.synth.corpus.mentions`; the lines a page renders are a
subset) and judged nowhere else are judged 0.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from hcrbench.data.evidence import BUDGET_TOKENS, EvidenceSpan, QueryEvidence
from hcrbench.synth.corpus.stems import overlap
from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.questions.fit import plan_evidence, plan_tier
from hcrbench.synth.questions.grades import evidence_grade, spec_subject
from hcrbench.synth.questions.planner import (  # noqa: F401  (the planner's names, re-exported: callers import them here)
    DESIGN_QUERIES,
    DIFFICULTY_SHARES,
    SPLIT_SHARES,
    SuiteTooLarge,
    bridge_cap,
    category_counts,
    chain_of,
    difficulty_counts,
    entity_pools,
    plan_queries,
    plan_suite,
    plan_violations,
    split_counts,
)
from hcrbench.synth.questions.properties import bridges
from hcrbench.synth.questions.topics import NameIndex, clusters, world_names
from hcrbench.synth.world_model.seeds import rng

NEGATIVES = 5
EXACT_COVER_MAX_FACTS = 12


def assign_clusters(meta_rows: list[dict], cat: Catalog) -> None:
    """Write each query's topic ``cluster`` (:func:`hcrbench.synth.questions.topics.clusters`, names in the text included)."""
    of = clusters(meta_rows, NameIndex(world_names(cat.w.to_json())))
    for m in meta_rows:
        m["cluster"] = of[m["query_id"]]


def derive_qrels(plan: QueryPlan, cat: Catalog, facts: list[str] | None = None) -> dict[int, int]:
    """Evidence-first graded qrels from provenance (:func:`~hcrbench.synth.questions.grades.evidence_grade`): 3 states a
    needed fact about the document's own subject, 2 states needed facts only in passing, 0 a judged negative (a
    document of the same kinds as the evidence that is checked to be off-topic: it is about none of the query's
    entities and its text names none of them). Topical documents are in :func:`topical_docs`, never here."""
    need = set(plan.facts if facts is None else facts)
    if not need:
        return {}
    stated: dict[int, set[str]] = {}
    for f in need:
        for d in cat.docs_stating(f):
            stated.setdefault(d, set()).add(f)
    grades = {d: evidence_grade(fs, spec_subject(cat.w, cat.specs[d])) for d, fs in stated.items()}
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


def _needed_facts(plan: QueryPlan) -> set[str]:
    """Every fact the query needs, over its interpretations too (none: no topical or passing judgments)."""
    return set(plan.facts) | {f for i in plan.interpretations for f in i["facts"]}


def topical_docs(plan: QueryPlan, cat: Catalog) -> list[int]:
    """Every document about a query entity (its routing metadata names it) that states no needed fact: the
    secondary, topical view (``qrels-topical/``), exhaustive and uncapped."""
    need = _needed_facts(plan)
    evidence = {d for f in need for d in cat.docs_stating(f)}
    return sorted({d for e in plan.entities for d in cat.mentions(e)} - evidence) if need else []


def passing_docs(plan: QueryPlan, cat: Catalog) -> list[int]:
    """Documents naming a query entity only in passing (``Catalog.in_passing``), judged 0 in the topical view."""
    return sorted({d for e in plan.entities for d in cat.in_passing(e)}) if _needed_facts(plan) else []


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
        # judged 0 in the topical view: pages naming a query entity only in passing (a mention line) were looked
        # at and state no needed fact (an audit reads an unjudged page holding every key term as a false negative)
        topical.update({cat.specs[d].doc_id: 0 for d in passing_docs(p, cat)
                        if cat.specs[d].doc_id not in topical and cat.specs[d].doc_id not in qrels})
        ev_docs = list(dict.fromkeys(s.doc_id for s in minimal)) + sorted({s.doc_id for s in spans})
        domains = list(dict.fromkeys(cat.specs[int(d[4:])].domain for d in ev_docs))
        scores[p.query_id] = _difficulty_score(p, minimal, len({s.doc_id for s in spans}))
        ce = plan_evidence(p, cat)
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
            "facts": p.facts, "minimal_tokens": n_tok, "n_minimal_docs": len({s.doc_id for s in minimal}),
            "hops": len(chain_of(p)) if p.chain else 1,
            "design_difficulty": p.difficulty, "qrels_topical": topical,
            "intent": p.intent, "params": p.params, "bridges": bridges(chain_of(p), p.chain),
            "chain": chain_of(p) if p.chain else [],
        }
        if ce is not None:  # new in 4.0: the minimal evidence in 128-token chunks (synth/questions/tiers.py)
            meta.update({"n_chunks": ce.n_chunks, "chunk_tokens": ce.tokens, "chunk_domains": list(ce.domains),
                         "budget_feasible_chunks": ce.feasible, "evidence_tier": plan_tier(p, cat, ce)})
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
    """Difficulty tiers with the design's meaning, from the evidence in chunks (:func:`tiers.evidence_tier`):
    easy = one chunk, medium = two or three chunks of one document domain (at most two hops), hard = the rest.
    A query without needed facts (out of distribution) keeps its designed difficulty. ``difficulty_score`` (hops,
    evidence documents, lexical overlap) is still reported."""
    for m, q in zip(meta_rows, q_rows, strict=True):
        tier = m.pop("evidence_tier", None) or m["design_difficulty"]
        m["difficulty"] = q["metadata"]["difficulty"] = tier
        m["difficulty_score"] = scores[m["query_id"]]
