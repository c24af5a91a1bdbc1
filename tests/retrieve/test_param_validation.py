"""Every numeric or typed retriever parameter is checked at construction: NaN/inf, wrong types and out-of-range
values are one-line InputErrors naming the field, never a traceback or a silently poisoned score."""

from __future__ import annotations

import math

import pytest

from hcrbench.data import Run
from hcrbench.errors import InputError
from hcrbench.retrieve import base, make_retriever, rrf
from hcrbench.retrieve.fusion import weighted_fusion
from hcrbench.retrieve.util import finite_nonneg, finite_pos, int_at_least

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("system", "params", "field"),
    [("bm25", {"k1": NAN}, "k1"), ("bm25", {"k1": INF}, "k1"), ("bm25", {"b": NAN}, "b"),
     ("bm25", {"delta": -INF}, "delta"), ("bm25", {"k1": "abc"}, "k1"), ("bm25", {"threads": "abc"}, "threads"),
     ("bm25", {"threads": 1.5}, "threads"),
     ("hybrid", {"systems": "bm25", "rrf_k": NAN}, "rrf_k"), ("hybrid", {"systems": "bm25", "rrf_k": "abc"}, "rrf_k"),
     ("hybrid", {"systems": "bm25", "rrf_k": -1}, "rrf_k"),
     ("hybrid", {"systems": "bm25", "weights": "nan"}, "weights"),
     ("hybrid", {"systems": "bm25", "weights": INF}, "weights"),
     ("hybrid", {"systems": "bm25", "system_params": [1]}, "system_params"),
     ("hybrid", {"systems": "bm25", "system_params": {"bm25": 3}}, "system_params"),
     ("dense", {"seed": "abc"}, "seed"), ("dense", {"seed": -1}, "seed"),
     ("dense", {"max_seq_length": "abc"}, "max_seq_length"), ("dense", {"max_seq_length": 0}, "max_seq_length"),
     ("dense", {"nlist": "abc"}, "nlist"), ("dense", {"nlist": 0}, "nlist"), ("dense", {"nlist": -4}, "nlist"),
     ("dense", {"device": 5}, "device"),
     ("rerank", {"rrf_k": NAN}, "rrf_k"), ("rerank", {"rrf_k": "abc"}, "rrf_k"),
     ("rerank", {"max_seq_length": "x"}, "max_seq_length"), ("rerank", {"backend": "tf"}, "backend"),
     ("rerank", {"first_stage_params": [1]}, "first_stage_params")],
)
def test_bad_parameters_are_one_line_errors_naming_the_field(system, params, field):
    with pytest.raises(InputError) as e:
        make_retriever(system, **params)
    assert e.value.field == field, str(e.value)
    assert "\n" not in str(e.value)


def test_good_values_still_pass_and_are_cast():
    r = make_retriever("bm25", k1="1.2", b=0.75, threads=-1)
    assert (r.k1, r.b, r.threads) == (1.2, 0.75, -1)
    h = make_retriever("hybrid", systems="bm25", weights=2, rrf_k=10)
    assert h.weights == [2.0] and h.rrf_k == 10.0
    d = make_retriever("dense", nlist="8", seed=3.0, max_seq_length=128, backend="onnx")
    assert (d.nlist, d.seed, d.max_seq_length) == (8, 3, 128)


def test_helpers():
    assert finite_nonneg(0, "x") == 0.0 and finite_pos("2.5", "x") == 2.5 and int_at_least("7", "x", 1) == 7
    for bad in (NAN, INF, -INF, True, None, "1e999", [1]):
        with pytest.raises(InputError):
            finite_nonneg(bad, "x")
    with pytest.raises(InputError):
        finite_pos(0, "x")
    for bad in ("²", "1.5", 2.5, "", NAN):
        with pytest.raises(InputError):
            int_at_least(bad, "x", 0)


def test_fusion_rejects_nan_k_and_weights():
    a = Run.from_dict({"q": {"d1": 2.0, "d2": 1.0}})
    for k in (NAN, INF, "abc"):
        with pytest.raises(InputError) as e:
            rrf([a], k=k)
        assert e.value.field == "rrf_k"
    with pytest.raises(InputError) as e:
        rrf([a, a], weights=[1.0, NAN])
    assert e.value.field == "weights"
    with pytest.raises(InputError):
        weighted_fusion([a], [INF])
    assert all(math.isfinite(v) for v in rrf([a], k=0).scores)


def test_constructor_casts_becoming_value_errors_are_input_errors(monkeypatch):
    class Picky:
        def __init__(self, n: int = 1) -> None:
            self.n = int(n)  # ValueError on "abc": the safety net turns it into an InputError

    monkeypatch.setitem(base._REGISTRY, "picky", Picky)
    with pytest.raises(InputError) as e:
        make_retriever("picky", n="abc")
    assert e.value.field == "param" and "picky" in str(e.value) and "\n" not in str(e.value)
    assert make_retriever("picky", n="4").n == 4


def test_depth_and_k_below_one_are_rejected(tmp_path, corpus, queries):
    from hcrbench.data import Queries, write_run

    a = Run.from_dict({"q1": {"d01": 2.0, "d02": 1.0}})
    for bad in (0, -1):
        with pytest.raises(ValueError, match="k must be an integer >= 1"):
            a.top_k(bad)
        with pytest.raises(InputError) as e:
            rrf([a], depth=bad)
        assert e.value.field == "depth"
        with pytest.raises(InputError):
            weighted_fusion([a], depth=bad)
    assert a.top_k(1).to_dict() == {"q1": {"d01": 2.0}}
    hyb = make_retriever("hybrid", systems="bm25")
    hyb.index(corpus)
    write_run(a, tmp_path / "a.trec")
    rf = make_retriever("runfile", path=str(tmp_path / "a.trec"))
    rf.index(corpus)
    q = Queries.from_dict({"q1": "cats"})
    for r in (hyb, rf):
        with pytest.raises(InputError) as e:
            r.search(q, 0)
        assert e.value.field == "k"
        assert len(r.search(q, 1).run["q1"]) == 1
