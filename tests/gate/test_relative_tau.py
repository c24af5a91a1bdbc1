"""A PASS that means something (finding 8): tau relative to the null-to-oracle gap."""

from __future__ import annotations

import subprocess
import warnings

import numpy as np
import pytest
from gate_bench import good_run, make_bench

from hcrbench.data import Run
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.gate import build_controls, gate_runs


def _dilute(run: Run, rnd: Run, share: float, seed: int, name: str) -> Run:
    """``run`` on a seeded ``share`` of the queries, the random control elsewhere (the "3%-BM25" system)."""
    a, b = run.to_dict(), rnd.to_dict()
    keep = np.random.default_rng(seed).random(len(b)) < share
    return Run.from_dict({q: (a[q] if k and q in a else b[q]) for q, k in zip(sorted(b), keep)}, name=name)


@pytest.fixture(scope="module")
def gated():
    qrels, pool = make_bench(n_queries=200, n_docs=2000, seed=8, skew=0.6)
    good = good_run(qrels, pool, seed=1, hit=0.7, name="good")
    ctl = build_controls(qrels, pool, k=10, seed=0)
    runs = {"good": good, "diluted": _dilute(good, ctl["random"], 0.05, 3, "diluted")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        rel = gate_runs(qrels, runs, item_pool=pool, n_trials=100, seed=0)
        absolute = gate_runs(qrels, runs, item_pool=pool, n_trials=100, seed=0, tau_rel=0.0)
    return rel, absolute


def test_diluted_system_passed_the_absolute_tau_and_fails_the_relative_one(gated):
    rel, absolute = gated
    assert absolute["diluted"].gate_pass  # the weak PASS of finding 8
    assert not rel["diluted"].gate_pass and rel["good"].gate_pass
    d = rel["diluted"]
    assert d.oracle_mean == pytest.approx(1.0)  # nDCG@10 of the ideal ranking
    for x in d.failed_nulls:
        n = d.nulls[x]
        assert n.gap_share < 0.1 and n.margin == pytest.approx(0.1 * (d.oracle_mean - n.mean))
        assert n.delta == pytest.approx(n.gap_share * (d.oracle_mean - n.mean))
    out = d.to_dict()
    assert out["tau_rel"] == 0.1 and "gap_share" in out["nulls"]["A"] and "margin" in out["nulls"]["A"]


def test_oracle_mean_of_recall_counts_what_fits_in_the_cutoff():
    qrels = {"q1": {"a": 1, "b": 1, "c": 1}, "q2": {"d": 2}}
    pool = list("abcdefghijklmnop")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        r = gate_runs(qrels, {"q1": {"a": 1.0}, "q2": {"d": 1.0}}, item_pool=pool, metric="R@2", n_trials=5, k=2)
    assert r["run"].oracle_mean == pytest.approx((2 / 3 + 1) / 2)


def test_bad_tau_rel_is_one_line_error(tmp_path):
    with pytest.raises(InputError, match="tau_rel"):
        gate_runs({"q": {"a": 1}}, {"q": {"a": 1.0}}, item_pool=list("abcdefghijk"), n_trials=5, tau_rel=2)
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 a\n")
    (tmp_path / "pool.txt").write_text("\n".join(f"d{i}" for i in range(20)) + "\n")
    r = subprocess.run(["hcrbench", "gate", str(tmp_path / "a.run"), "--qrels", str(tmp_path / "q.qrels"),
                        "--item-pool", str(tmp_path / "pool.txt"), "--tau-rel", "1.5"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 2 and "--tau-rel" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", ["scifact", "nfcorpus-processed"])
def test_bm25_passes_and_3_percent_bm25_fails_on_real_benchmarks(shared_dir, name):
    from hcrbench.data import load_beir
    from hcrbench.retrieve import make_retriever

    ds = load_beir(shared_dir / "datasets" / name, "test")
    pool = list(ds.corpus.doc_ids)
    r = make_retriever("bm25")
    r.index(ds.corpus)
    bm25 = r.search(ds.queries, k=100).run.rename("bm25")
    ctl = build_controls(ds.qrels, pool, k=10, seed=0)
    runs = {"bm25": bm25, "bm25_3pct": _dilute(bm25, ctl["random"], 0.03, 1, "bm25_3pct")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        from hcrbench.gate import gate_pairs

        res = gate_pairs(ds.qrels, runs, item_pool=pool, n_trials=200, seed=0)
    assert res["bm25"].graded.gate_pass and res["bm25"].strict.gate_pass
    assert not res["bm25_3pct"].graded.gate_pass and not res["bm25_3pct"].strict.gate_pass
