"""One context step's cover memo (:class:`hcrbench.experiment.context_deliver.Covers`): feasibility, the passage
controls and the oracle read each unit set's covers from it, and get exactly what each computes alone."""

from __future__ import annotations

from hcrbench.context.delivery import make_unit_set
from hcrbench.data.cover import _cover_items, cheapest_cover
from hcrbench.data.evidence import EvidenceSpan, QueryEvidence
from hcrbench.data.tokens import get_counter
from hcrbench.data.types import Corpus
from hcrbench.experiment.context_deliver import (
    COVER_RUN,
    Covers,
    _Units,
    oracle_candidates,
    passage_rankings,
    unit_feasibility,
)

TEXTS = {"d1": "Alpha beta gamma delta. The key rotates every quarter. Epsilon zeta eta theta iota. The vault "
               "opens at dawn only.",
         "d2": "Kappa lambda mu nu xi. Backups last thirty days. Omicron pi rho sigma tau. Logs go to the east.",
         "d3": "Upsilon phi chi psi. Nothing here is needed at all. Omega ends it."}


def _world(max_tokens: int):
    corpus = Corpus(list(TEXTS), list(TEXTS.values()))
    us = make_unit_set(f"chunks-{max_tokens}", corpus, get_counter(None), {"max_tokens": max_tokens, "overlap": 0})

    def span(d: str, sent: str, f: str) -> EvidenceSpan:
        a = TEXTS[d].index(sent)
        return EvidenceSpan(d, a, a + len(sent), sent, f)

    ev = {"q1": QueryEvidence("q1", ["F1", "F2"], [span("d1", "The key rotates every quarter.", "F1"),
                                                    span("d2", "Backups last thirty days.", "F2")], []),
          "q2": QueryEvidence("q2", ["F1", "F2", "F3"], [span("d1", "The vault opens at dawn only.", "F1"),
                                                          span("d2", "Logs go to the east.", "F2"),
                                                          span("d2", "Backups last thirty days.", "F3")], []),
          "q3": QueryEvidence("q3", [], [], [])}
    return us, ev


def test_shared_covers_equal_each_computed_alone():
    qids = ["q1", "q2", "q3", "q4"]
    grades = {"q1": {"d1": 1, "d2": 2}, "q2": {"d2": 1, "d3": 1}}
    for max_tokens in (8, 11, 40):
        us, ev = _world(max_tokens)
        shared = Covers()
        budgets = [8, 20, 60, None]
        assert unit_feasibility(us, ev, qids, TEXTS, shared) == unit_feasibility(us, ev, qids, TEXTS)
        assert passage_rankings(us, ev, qids, grades, TEXTS, 5, {"q2"}, shared) == \
            passage_rankings(us, ev, qids, grades, TEXTS, 5, {"q2"})
        assert oracle_candidates(us, ev, qids, budgets, TEXTS, shared) == oracle_candidates(us, ev, qids, budgets,
                                                                                            TEXTS)
        u = _Units(us)
        for q in ("q1", "q2"):
            assert shared.items(us, q, ev[q], TEXTS) == _cover_items(ev[q], u.units, u.by_doc, TEXTS, COVER_RUN)
            for b in budgets:
                assert shared.cover(us, q, ev[q], b, TEXTS) == cheapest_cover(ev[q], u.units, u.by_doc, b, TEXTS)


def test_a_new_evidence_object_is_computed_anew():
    us, ev = _world(9)
    shared = Covers()
    first = shared.cover(us, "q1", ev["q1"], None, TEXTS)
    other = QueryEvidence("q1", ["F2"], [s for s in ev["q1"].evidence if s.fact_id == "F2"], [])
    again = shared.cover(us, "q1", other, None, TEXTS)
    assert again != first and again.facts == ("F2",)


def test_unit_sets_of_the_same_units_share_their_covers(monkeypatch):
    import hcrbench.experiment.context_deliver as cd

    us, ev = _world(11)
    twin, _ = _world(11)  # another object, the same units (as every HCR variant declares its tree's chunks)
    other, _ = _world(40)
    calls = []
    real = cd.cheapest_cover
    monkeypatch.setattr(cd, "cheapest_cover", lambda *a, **k: calls.append(1) or real(*a, **k))
    shared = Covers()
    first = unit_feasibility(us, ev, ["q1", "q2"], TEXTS, shared)
    assert unit_feasibility(twin, ev, ["q1", "q2"], TEXTS, shared) == first and len(calls) == 2
    assert unit_feasibility(other, ev, ["q1", "q2"], TEXTS, shared) == unit_feasibility(other, ev, ["q1", "q2"],
                                                                                        TEXTS)
    assert len(calls) == 6  # the other units: computed (twice: shared, then alone)
    u = _Units(twin)
    assert shared.cover(twin, "q2", ev["q2"], 20, TEXTS) == real(ev["q2"], u.units, u.by_doc, 20, TEXTS)
