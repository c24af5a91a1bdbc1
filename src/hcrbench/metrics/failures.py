"""Failure anatomy: why a budget-feasible query's context at B was insufficient — the retriever, the delivery or the
selection.

Each insufficient context on a feasible query falls in exactly one class, tried in this order:

- ``retrieval`` — some needed fact is stated in none of the documents (or units) the system ranked within its top
  k: no delivery could have made this context sufficient. This is the retriever's failure.
- ``selection`` — every needed fact is stated somewhere in the documents the context drew its units from, but not
  in the units it delivered (the right documents, the wrong chunks).
- ``delivery`` — every needed fact is stated in the ranked top k, but the context did not keep a statement of each
  within B (the budget went to other documents or units).

"Stated in" reads the evidence as :func:`hcrbench.metrics.sufficiency.covered_facts` does: one of the fact's
statement spans lies inside the given spans (adjacent spans of a document count as one stretch). The failure-rate
rule judges a retriever on its retrieval misses; delivery and selection misses are the harness's context step.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from hcrbench.data.evidence import QueryEvidence
from hcrbench.metrics.sufficiency import SpanLike, covered_facts

#: The classes, in the order they are tried.
CLASSES = ("retrieval", "selection", "delivery")


class Span(NamedTuple):
    doc_id: str
    start: int
    end: int


def whole_documents(doc_ids: Iterable[str], doc_texts: Mapping[str, str]) -> list[Span]:
    """Spans covering each document's whole text (a document ranking's top k as spans)."""
    return [Span(d, 0, len(doc_texts[d])) for d in doc_ids if d in doc_texts]


def failure_class(evidence: QueryEvidence, ranked: Sequence[SpanLike], delivered: Sequence[SpanLike],
                  doc_texts: Mapping[str, str]) -> str | None:
    """The class of one context's failure (``None`` when the delivered spans state every needed fact).

    ``ranked``: the spans of what the system ranked within its top k (:func:`whole_documents` for a document
    ranking, its units otherwise); ``delivered``: the spans of the units in the context."""
    n = len(evidence.facts)
    if n == 0 or len(covered_facts(delivered, evidence, doc_texts)) == n:
        return None
    if len(covered_facts(ranked, evidence, doc_texts)) < n:
        return "retrieval"
    docs = {c.doc_id for c in delivered if c.doc_id}
    if len(covered_facts(whole_documents(sorted(docs), doc_texts), evidence, doc_texts)) == n:
        return "selection"
    return "delivery"


def failure_counts(classes: Mapping[str, str | None], categories: Mapping[str, str], budget: int | None
                   ) -> dict[str, Any]:
    """``{"budget", "n_feasible", "insufficient", "retrieval", "delivery", "selection", "by_category": {cat:
    {"n_feasible", "insufficient", "retrieval", "delivery", "selection"}}}`` over the feasible queries whose
    class (``None``: sufficient) is in ``classes``."""
    def count(qs: list[str]) -> dict[str, int]:
        out = {"n_feasible": len(qs), "insufficient": sum(classes[q] is not None for q in qs)}
        out.update({c: sum(classes[q] == c for q in qs) for c in CLASSES})
        return out

    qs = sorted(classes)
    cats = sorted({categories[q] for q in qs if q in categories})
    return {"budget": budget, **count(qs),
            "by_category": {c: count([q for q in qs if categories.get(q) == c]) for c in cats}}
