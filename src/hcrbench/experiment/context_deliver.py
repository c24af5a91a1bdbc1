"""Feasibility in deliverable units, and the two controls of the context step: the oracle and the perfect retriever.

What a system delivers is :mod:`hcrbench.context.delivery`'s (its own ranked units, or its documents round robin,
best passage first); the names it defined are re-exported here for the code that imported them from this module.
This module adds what needs the evidence and :mod:`hcrbench.metrics`:

- Feasibility, counted in the units a system delivers: a query is budget-feasible at B for a unit set when the
  cheapest cover of its needed facts by those units costs at most B tokens (:func:`unit_feasibility`).
- The oracle control delivers the cheapest cover of the needed facts by the context chunks that fits the budget
  (:func:`hcrbench.metrics.sufficiency.cheapest_cover`), or the most facts that fit when none does. It passes by
  construction (its context *is* the feasibility witness), so it checks the judge, not the delivery.
- The perfect-retriever control (:func:`perfect_run`) is a document ranking: every relevant document by grade,
  ties in a given system's order. It goes through the same delivery and selection as any document-level system,
  so its failures are the harness's: a perfect ranking that the delivery turns into an insufficient context.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hcrbench.context.candidates import Candidate
from hcrbench.context.delivery import (  # noqa: F401  (re-exported: the names' old home)
    PASSAGE_SCORER,
    Delivery,
    UnitSet,
    best_passage_first,
    chunking_unit_set,
    context_unit_set,
    document_delivery,
    load_unit_set,
    load_units,
    make_unit_set,
    round_robin,
    spans_unit_set,
    unit_delivery,
)
from hcrbench.data.evidence import QueryEvidence
from hcrbench.data.types import Qrels, Run
from hcrbench.metrics.sufficiency import MAX_EXACT_FACTS, cheapest_cover


def perfect_run(qrels: Qrels, qids: Sequence[str], threshold: int = 1, order: Run | None = None,
                name: str = "perfect") -> Run:
    """The perfect document ranking: per query every document judged ``>= threshold``, by grade (higher first),
    ties in ``order``'s ranking (a system's run: the kill baseline's), then by document id. Scores are
    descending integers, so trec_eval order is this order."""
    ranked: dict[str, list[tuple[str, float]]] = {}
    for q in qids:
        if q not in qrels:
            continue
        rel = {d: g for d, g in qrels[q].items() if g >= threshold}
        if not rel:
            continue
        pos = {d: i for i, (d, _) in enumerate(order.ranked(q))} if order is not None and q in order else {}
        docs = sorted(rel, key=lambda d: (-rel[d], pos.get(d, len(pos)), d))
        ranked[q] = [(d, float(len(docs) - i)) for i, d in enumerate(docs)]
    return Run.from_ranked(ranked, name=name)


class _Units:
    """Candidates of a unit set, indexed the way :func:`cheapest_cover` wants them."""

    def __init__(self, us: UnitSet) -> None:
        self.index = us.index
        self.units = [us.index.candidate(i, 0.0, i) for i in range(len(us.index.tokens))]
        if us.index.tokens is not None:  # recounted tokens (another counter) replace the chunker's
            self.units = [u._replace(n_tokens=int(t)) for u, t in zip(self.units, us.index.tokens)]
        self.by_doc = us.index.by_doc


def unit_feasibility(us: UnitSet, evidence: Mapping[str, QueryEvidence], qids: Sequence[str],
                     doc_texts: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Per query with facts: ``{"cover_tokens": int | None, "exact": bool}`` — the cheapest complete cover by
    this unit set (``None``: no set of units states every fact)."""
    u = _Units(us)
    out: dict[str, dict[str, Any]] = {}
    for q in qids:
        ev = evidence.get(q)
        if ev is None or not ev.facts:
            continue
        c = cheapest_cover(ev, u.units, u.by_doc, None, doc_texts)
        out[q] = {"cover_tokens": c.tokens if c.complete else None, "exact": len(ev.facts) <= MAX_EXACT_FACTS}
    return out


def oracle_candidates(us: UnitSet, evidence: Mapping[str, QueryEvidence], qids: Sequence[str],
                      budgets: Sequence[int | None], doc_texts: Mapping[str, str]
                      ) -> dict[str | None, dict[str, list[Candidate]]]:
    """``{budget: {query: candidates}}``: the cheapest cover that fits each budget (the most facts when none
    does), in text order; a query without evidence gets no candidates."""
    u = _Units(us)
    out: dict[str | None, dict[str, list[Candidate]]] = {}
    for b in budgets:
        per: dict[str, list[Candidate]] = {}
        for q in qids:
            ev = evidence.get(q)
            if ev is None or not ev.facts:
                per[q] = []
                continue
            c = cheapest_cover(ev, u.units, u.by_doc, b, doc_texts)
            per[q] = [u.units[i]._replace(score=1.0, rank=r) for r, i in enumerate(c.units)]
        out[b] = per  # type: ignore[index]
    return out
