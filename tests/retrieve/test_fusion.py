"""Fusion: RRF and weighted fusion against hand-computed numbers, ranx, and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data import Run
from hcrbench.errors import InputError
from hcrbench.retrieve import normalise_scores, rrf, trec_ranks, weighted_fusion

A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"x": 1.0}}
B = {"q1": {"d3": 0.9, "d1": 0.5, "d4": 0.1}, "q3": {"y": 5.0, "z": 4.0}}


def test_rrf_hand_computed():
    fused = rrf([Run.from_dict(A), Run.from_dict(B)], k=60)
    assert fused.query_ids == ["q1", "q2", "q3"]  # union, first-seen order
    q1 = fused["q1"]
    assert q1["d1"] == pytest.approx(1 / 61 + 1 / 62)
    assert q1["d2"] == pytest.approx(1 / 62)
    assert q1["d3"] == pytest.approx(1 / 63 + 1 / 61)
    assert q1["d4"] == pytest.approx(1 / 63)
    assert fused["q3"] == pytest.approx({"y": 1 / 61, "z": 1 / 62})
    assert [d for d, _ in fused.ranked("q1")] == ["d1", "d3", "d2", "d4"]
    assert rrf([Run.from_dict(A)], k=0)["q1"] == pytest.approx({"d1": 1.0, "d2": 0.5, "d3": 1 / 3})


def test_rrf_weights_and_depth():
    fused = rrf([Run.from_dict(A), Run.from_dict(B)], k=10, weights=[2.0, 1.0], depth=1)
    assert fused["q1"] == pytest.approx({"d1": 2 / 11, "d3": 1 / 11})


def test_ties_ranked_by_doc_id_descending():
    run = Run.from_dict({"q": {"a": 1.0, "c": 1.0, "b": 1.0, "z": 0.5}})
    ranks = dict(zip((run.doc_vocab[c] for c in run.doc_index), trec_ranks(run).tolist()))
    assert ranks == {"c": 1, "b": 2, "a": 3, "z": 4}  # trec_eval order: score desc, doc id desc
    assert rrf([run], k=60)["q"]["c"] == pytest.approx(1 / 61)


def test_weighted_fusion_hand_computed():
    fused = weighted_fusion([Run.from_dict(A), Run.from_dict(B)], [0.3, 0.7], norm="minmax")
    assert fused["q1"] == pytest.approx({"d1": 0.3 + 0.7 * 0.5, "d2": 0.15, "d3": 0.7, "d4": 0.0})
    z = weighted_fusion([Run.from_dict(A), Run.from_dict(B)], [0.3, 0.7], norm="zscore")
    s = (2 / 3) ** 0.5  # population sd of 3, 2, 1
    assert z["q1"]["d1"] == pytest.approx(0.3 * (1 / s))
    assert z["q1"]["d3"] == pytest.approx(0.3 * (-1 / s) + 0.7 * (1 / s))
    # a query whose scores are all equal: minmax gives 1, zscore 0
    flat = Run.from_dict({"q": {"a": 2.0, "b": 2.0}})
    assert normalise_scores(flat, "minmax").tolist() == [1.0, 1.0]
    assert normalise_scores(flat, "zscore").tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "call",
    [lambda: rrf([]), lambda: rrf([Run.from_dict(A)], k=-1), lambda: weighted_fusion([Run.from_dict(A)], [1, 2]),
     lambda: weighted_fusion([Run.from_dict(A)], norm="softmax")],
)
def test_fusion_errors(call):
    with pytest.raises(InputError):
        call()


runs_strategy = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3"]),
    st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]),
                    st.integers(-5, 5).map(float), min_size=1, max_size=8),
    min_size=1, max_size=3,
)


@settings(max_examples=30, deadline=None)
@given(a=runs_strategy, b=runs_strategy, k=st.integers(0, 100))
def test_rrf_matches_a_plain_python_reference(a, b, k):
    runs = [Run.from_dict(a), Run.from_dict(b)]
    fused = rrf(runs, k=k)
    ref: dict[str, dict[str, float]] = {}
    for run in runs:
        for q in run.query_ids:
            for rank, (d, _) in enumerate(run.ranked(q), 1):
                ref.setdefault(q, {}).setdefault(d, 0.0)
                ref[q][d] += 1 / (k + rank)
    assert set(fused.query_ids) == set(ref)
    for q in ref:
        assert fused[q] == pytest.approx(ref[q])


@settings(max_examples=20, deadline=None)
@given(a=runs_strategy)
def test_rrf_of_one_run_keeps_its_order(a):
    run = Run.from_dict(a)
    fused = rrf([run])
    for q in run.query_ids:
        assert [d for d, _ in fused.ranked(q)] == [d for d, _ in run.ranked(q)]


@pytest.mark.slow  # ranx imports numba and JIT-compiles: seconds to minutes on a busy 2-core machine
def test_against_ranx():
    import ranx
    a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d5": 0.2}, "q2": {"x": 1.0, "w": 0.4}}
    b = {"q1": {"d3": 0.9, "d1": 0.5, "d4": 0.1}, "q2": {"w": 2.0, "v": 1.0}}
    ra, rb = ranx.Run.from_dict(a), ranx.Run.from_dict(b)
    ours = rrf([Run.from_dict(a), Run.from_dict(b)], k=60).to_dict()
    theirs = ranx.fuse(runs=[ra, rb], method="rrf", params={"k": 60}).to_dict()
    assert set(ours) == set(theirs)
    for q in ours:
        assert ours[q] == pytest.approx(dict(theirs[q]))
    for norm, rx_norm in (("minmax", "min-max"), ("zscore", "zmuv")):
        ours = weighted_fusion([Run.from_dict(a), Run.from_dict(b)], [0.3, 0.7], norm=norm).to_dict()
        theirs = ranx.fuse(runs=[ra, rb], method="wsum", norm=rx_norm, params={"weights": [0.3, 0.7]}).to_dict()
        for q in ours:
            assert ours[q] == pytest.approx(dict(theirs[q]))
