"""Failure anatomy (hcrbench.metrics.failures): every insufficient context is one of retrieval / selection /
delivery miss, and the counts add up to the insufficient contexts, per category too."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data.evidence import EvidenceSpan, QueryEvidence
from hcrbench.metrics.failures import CLASSES, Span, failure_class, failure_counts, whole_documents
from hcrbench.metrics.sufficiency import evidence_coverage

TEXTS = {"A": "alpha fact one. filler text here.", "B": "beta fact two. more filler here.", "C": "nothing at all."}


def _ev() -> QueryEvidence:
    spans = [EvidenceSpan("A", 0, 15, "alpha fact one.", "F1"), EvidenceSpan("B", 0, 14, "beta fact two.", "F2")]
    return QueryEvidence("q", ["F1", "F2"], spans, spans)


def test_each_class_on_an_example():
    ev = _ev()
    both = whole_documents(["A", "B", "C"], TEXTS)
    fact_a, fact_b, filler_b = Span("A", 0, 15), Span("B", 0, 14), Span("B", 15, 32)
    assert failure_class(ev, both, [fact_a, fact_b], TEXTS) is None  # sufficient
    assert failure_class(ev, whole_documents(["A", "C"], TEXTS), [fact_a], TEXTS) == "retrieval"  # B not ranked
    assert failure_class(ev, both, [fact_a, filler_b], TEXTS) == "selection"  # B delivered, its wrong chunk
    assert failure_class(ev, both, [fact_a, Span("C", 0, 15)], TEXTS) == "delivery"  # B ranked, never delivered
    empty = QueryEvidence("q", [], [], [])
    assert failure_class(empty, both, [], TEXTS) is None


SPANS = [Span("A", 0, 15), Span("A", 16, 33), Span("B", 0, 14), Span("B", 15, 32), Span("C", 0, 15)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 4), max_size=5), st.lists(st.integers(0, 4), max_size=5),
                          st.sampled_from(["x", "y"])), min_size=1, max_size=12))
def test_classes_partition_the_insufficient_contexts(cases):
    ev = _ev()
    classes, cats = {}, {}
    for i, (ranked, delivered, cat) in enumerate(cases):
        r = [SPANS[j] for j in ranked]
        d = [SPANS[j] for j in delivered]
        c = failure_class(ev, r, d, TEXTS)
        assert (c is None) == evidence_coverage(d, ev, TEXTS)  # a class exactly when the judge says insufficient
        classes[f"q{i}"], cats[f"q{i}"] = c, cat
    f = failure_counts(classes, cats, 400)
    assert f["budget"] == 400 and f["n_feasible"] == len(cases)
    assert sum(f[c] for c in CLASSES) == f["insufficient"] == sum(c is not None for c in classes.values())
    assert sum(v["n_feasible"] for v in f["by_category"].values()) == f["n_feasible"]
    for c in CLASSES:
        assert sum(v[c] for v in f["by_category"].values()) == f[c]
