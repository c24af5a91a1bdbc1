"""Budget feasibility of a Meridian folder per query category, in the units a system can deliver.

A query is feasible at budget B in a unit set when the cheapest set of its units stating every needed fact costs
at most B tokens (:func:`hcrbench.metrics.sufficiency.cheapest_cover`, as the experiment's oracle counts it). The
sentence-level count is the folder's own ``budget_feasible`` (minimal evidence, the issue's definition); the
deliverable counts are in the context step's default chunks (128 tokens, no overlap: ``chunks-128``) and in the
chunked systems' default chunking (128 tokens, 32 overlap, structure-aware: ``chunks-128o32s``, HCR's and the
examples'). ``hcrbench describe`` prints them beside the design's per-category shares
(:data:`hcrbench.synth.checks.describe.FEASIBLE_DESIGN`) and writes them to ``describe.json``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hcrbench.data import iter_jsonl
from hcrbench.data.beir import read_corpus
from hcrbench.data.evidence import read_evidence
from hcrbench.data.tokens import default_counter
from hcrbench.experiment.context_deliver import make_unit_set, unit_feasibility
from hcrbench.metrics.sufficiency import BUDGET_TOKENS, is_budget_feasible
from hcrbench.synth.checks.describe import FEASIBLE_DESIGN

#: The unit sets counted by default: the context step's chunks and the chunked systems' default chunking.
DEFAULT_UNIT_SETS: dict[str, dict[str, Any]] = {
    "chunks-128": {"max_tokens": 128, "overlap": 0},
    "chunks-128o32s": {"max_tokens": 128, "overlap": 32, "structure_aware": True},
}


def deliverable_feasibility(folder: str | Path, budget: int = BUDGET_TOKENS,
                            unit_sets: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """``{"budget", "unit_sets", "by_category": {category: {"n", "design", "sentences", <unit set>...}}, "all"}``:
    the share of a category's queries (those with needed facts) feasible at ``budget``, per unit set."""
    folder = Path(folder)
    sets = dict(DEFAULT_UNIT_SETS if unit_sets is None else unit_sets)
    evidence = read_evidence(folder / "evidence.jsonl")
    category = {str(m.get("query_id", m.get("_id"))): m.get("category")
                for _, m in iter_jsonl(folder / "queries.meta.jsonl")}
    qids = [q for q, ev in evidence.items() if ev.facts and q in category]
    corpus = read_corpus(folder / "corpus.jsonl")
    needed = {sp.doc_id for q in qids for sp in evidence[q].evidence}
    corpus = corpus.subset(d for d in corpus.doc_ids if d in needed)  # a cover only uses units stating a fact
    doc_texts = dict(zip(corpus.doc_ids, corpus.texts))
    counter = default_counter()
    feasible: dict[str, dict[str, bool]] = {"sentences": {q: is_budget_feasible(evidence[q], budget, counter)
                                                          for q in qids}}
    for name, params in sets.items():
        covers = unit_feasibility(make_unit_set(name, corpus, counter, params), evidence, qids, doc_texts)
        feasible[name] = {q: covers.get(q, {}).get("cover_tokens") is not None
                          and covers[q]["cover_tokens"] <= budget for q in qids}
    groups: dict[str, list[str]] = defaultdict(list)
    for q in qids:
        groups[str(category[q])].append(q)

    def shares(members: list[str]) -> dict[str, float]:
        return {k: round(sum(v[q] for q in members) / len(members), 3) for k, v in feasible.items()}

    by_cat = {c: {"n": len(m), "design": FEASIBLE_DESIGN.get(c), **shares(m)} for c, m in sorted(groups.items())}
    return {"budget": budget, "unit_sets": {k: dict(v) for k, v in sets.items()}, "by_category": by_cat,
            "all": {"n": len(qids), **(shares(qids) if qids else {})}}
