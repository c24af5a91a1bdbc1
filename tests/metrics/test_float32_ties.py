"""trec_eval stores run scores as C float: scores equal in float32 tie, and the tie goes to doc id descending."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import pytrec_eval

from hcrbench.data import Run, read_run, trec_score_key, write_run
from hcrbench.errors import HcrbenchWarning
from hcrbench.gate._kernels import ranked_matrix
from hcrbench.metrics import evaluate
from hcrbench.retrieve.fusion import trec_ranks

# (low doc, high doc): the two scores are distinct in float64, equal in float32, and "aaa" < "rel" by strcmp.
PAIRS = [(1.0, 1.0 + 1e-9), (0.3, 0.1 + 0.2), (1e30, 1e30 * (1 + 1e-12)), (-2.0, -2.0 + 1e-12)]


@pytest.mark.parametrize(("s_rel", "s_aaa"), PAIRS)
def test_float32_tie_matches_pytrec_eval(s_rel, s_aaa):
    assert s_rel != s_aaa and np.float32(s_rel) == np.float32(s_aaa)
    qrels = {"q": {"rel": 1}}
    run = {"q": {"rel": s_rel, "aaa": s_aaa, "zzz": s_rel - 1.0}}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    want = ev.evaluate(run)["q"]["recip_rank"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        for r in (run, Run.from_dict(run)):
            got = evaluate(qrels, r, "RR").means
            assert got[next(iter(got))]["RR"] == want


def test_ranked_top_k_and_written_file_use_float32_order(tmp_path):
    run = Run.from_dict({"q": {"aaa": 1.0 + 1e-9, "rel": 1.0, "b": 0.5}})
    assert run.ranked("q") == [("rel", 1.0), ("aaa", 1.0 + 1e-9), ("b", 0.5)]  # scores unchanged
    assert list(run.top_k(1)["q"]) == ["rel"]
    write_run(run, tmp_path / "r.trec")
    lines = (tmp_path / "r.trec").read_text().splitlines()
    assert [ln.split()[2] for ln in lines] == ["rel", "aaa", "b"]
    assert read_run(tmp_path / "r.trec")["q"]["aaa"] == 1.0 + 1e-9


def test_gate_matrix_and_rrf_ranks_use_float32_order():
    scores = np.array([1.0, 1.0 + 1e-9])
    docs = np.array([1, 0])  # code 1 ("rel") > code 0 ("aaa") in a sorted vocabulary
    m = ranked_matrix(np.array([0, 0]), docs, scores, 1, 2)
    assert m.tolist() == [[1, 0]]
    run = Run.from_dict({"q": {"rel": 1.0, "aaa": 1.0 + 1e-9}})
    assert trec_ranks(run).tolist() == [1, 2]


def test_score_key_keeps_order_of_float32_distinct_scores():
    s = np.array([3.0, -1.0, 1e-9, 0.0, -0.0, 1e300, -1e300])
    k = trec_score_key(s)
    assert k.dtype == np.float64
    assert k.tolist() == [3.0, -1.0, float(np.float32(1e-9)), 0.0, 0.0, np.inf, -np.inf]
