"""ranx's fusion methods: hand-computed values, equality with ranx.fuse on SciFact runs, tuning, the command."""

from __future__ import annotations

import math
import subprocess
from math import comb
from pathlib import Path

import numpy as np
import pytest

from hcrbench.data import Run, read_qrels, read_run
from hcrbench.errors import InputError
from hcrbench.experiment.fusion_tuning import optimize_fusion, weight_grid
from hcrbench.retrieve.fusion_methods import METHODS, fuse, ranx_normalise

A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"x": 1.0}}
B = {"q1": {"d3": 0.9, "d1": 0.5, "d4": 0.1}, "q2": {"x": 2.0, "y": 1.0}}
EX = Path(__file__).resolve().parents[2] / "examples"
SCIFACT = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "scifact"


def _runs():
    return [Run.from_dict(A), Run.from_dict(B)]


def test_normalisations_hand_computed():
    a = Run.from_dict(A)
    assert ranx_normalise(a, "min-max").tolist() == pytest.approx([1.0, 0.5, 0.0, 0.0])  # q2 constant -> 0
    assert ranx_normalise(a, "max").tolist() == pytest.approx([1.0, 2 / 3, 1 / 3, 1.0])
    assert ranx_normalise(a, "sum").tolist() == pytest.approx([2 / 3, 1 / 3, 0.0, 0.0])  # (s-min)/(sum-n*min)
    sd = math.sqrt(2 / 3)
    assert ranx_normalise(a, "z-score").tolist() == pytest.approx([1 / sd, 0.0, -1 / sd, 0.0])
    assert ranx_normalise(a, "rank").tolist() == pytest.approx([1.0, 2 / 3, 1 / 3, 1.0])


def test_methods_hand_computed():
    runs = _runs()
    f = {m: fuse(runs, m, "none") for m in METHODS}
    assert f["sum"]["q1"] == pytest.approx({"d1": 3.5, "d2": 2.0, "d3": 1.9, "d4": 0.1})
    assert f["max"]["q1"]["d3"] == 1.0 and f["min"]["q1"]["d3"] == 0.9 and f["min"]["q1"]["d2"] == 2.0
    assert f["anz"]["q1"]["d1"] == pytest.approx(1.75) and f["mnz"]["q1"]["d1"] == pytest.approx(7.0)
    # ranks: A = d1, d2, d3; B = d3, d1, d4
    assert f["isr"]["q1"]["d1"] == pytest.approx((1 + 1 / 4) * 2)
    assert f["log_isr"]["q1"]["d3"] == pytest.approx((1 / 9 + 1) * math.log(2))
    assert f["log_isr"]["q1"]["d2"] == 0.0  # one run: ln(1) = 0, as ranx
    # borda: 4 candidates; A gives d1 4, d2 3, d3 2, d4 (4-3+1)/2 = 1; B gives d3 4, d1 3, d4 2, d2 1
    assert f["bordafuse"]["q1"] == pytest.approx({"d1": 7.0, "d2": 4.0, "d3": 6.0, "d4": 3.0})
    assert f["rbc"]["q1"]["d1"] == pytest.approx(0.2 + 0.2 * 0.8)
    assert f["rrf"]["q1"]["d1"] == pytest.approx(1 / 61 + 1 / 62)
    w = fuse(runs, "wsum", "none", weights=[0.25, 0.75])
    assert w["q1"]["d4"] == pytest.approx(0.075) and w["q2"]["y"] == pytest.approx(0.75)
    wr = fuse(runs, "rrf", "none", weights=[2.0, 1.0], k=10)
    assert wr["q1"]["d3"] == pytest.approx(2 / 13 + 1 / 11)
    assert f["med"]["q1"]["d1"] == pytest.approx(1.75) and f["gmnz"]["q1"]["d1"] == pytest.approx(7.0)
    assert f["logn_isr"]["q1"]["d2"] == pytest.approx(1 / 4 * math.log(1.01))
    w2 = {m: fuse(runs, m, "none", weights=[0.25, 0.75]) for m in ("wmnz", "mixed", "w_bordafuse")}
    assert w2["wmnz"]["q1"]["d1"] == pytest.approx(3.5 * 1.0) and w2["wmnz"]["q1"]["d2"] == pytest.approx(0.5)
    assert w2["mixed"]["q1"]["d1"] == pytest.approx((0.75 + 0.375) * math.sqrt(2))
    assert w2["w_bordafuse"]["q1"]["d4"] == pytest.approx(0.25 * 1 + 0.75 * 2)


@pytest.mark.parametrize("call", [
    lambda: fuse(_runs(), "condorcet"), lambda: fuse(_runs(), "sum", "softmax"), lambda: fuse(_runs(), "probfuse"),
    lambda: fuse(_runs(), "rrf", "borda"), lambda: fuse(_runs(), "rrf", ties="random"),
    lambda: fuse(_runs(), "logn_isr", sigma=2),
    lambda: fuse(_runs(), "isr", weights=[1, 1]), lambda: fuse(_runs(), "wsum", weights=[1]),
    lambda: fuse(_runs(), "rbc", phi=1.5), lambda: fuse([], "sum"), lambda: weight_grid(2, 0.3),
])
def test_fusion_errors(call):
    with pytest.raises(InputError):
        call()


@pytest.mark.parametrize("n,step", [(2, 0.1), (3, 0.1), (4, 0.25)])
def test_weight_grid_is_every_composition(n, step):
    grid = weight_grid(n, step)
    parts = round(1 / step)
    assert len(grid) == len(set(grid)) == comb(parts + n - 1, n - 1)
    assert all(abs(sum(w) - 1) < 1e-9 and min(w) >= 0 for w in grid)


def test_tuning_prefers_the_good_run_over_its_reverse():
    qrels = read_qrels(EX / "cranfield.qrels")
    good = read_run(EX / "bm25.trec")
    broken = Run(good.query_ids, good.offsets, good.doc_index, -good.scores, good.doc_vocab, name="reversed")
    tuned = optimize_fusion(qrels, [good, broken], "wsum", metric="nDCG@10")
    w_good, w_broken = tuned.params["weights"]
    assert w_good > w_broken  # min-max makes any w_good > w_broken rank as the good run; the first such point wins
    scores = dict((tuple(p["weights"]), s) for p, s in tuned.trials)
    assert tuned.score == max(scores.values()) == scores[(1.0, 0.0)] > scores[(0.0, 1.0)]
    assert len(tuned.trials) == 11
    copy = optimize_fusion(qrels, [good, good.rename("copy")], "wsum", metric="nDCG@10")
    assert copy.score == pytest.approx(max(s for _, s in copy.trials))  # a copy: every mix ties
    assert np.ptp([s for _, s in copy.trials]) < 1e-12
    assert optimize_fusion(qrels, [good, broken], "rrf").params["k"] in range(10, 101, 10)


def test_fuse_command(tmp_path):
    out = tmp_path / "f.trec"
    good = EX / "bm25.trec"
    rev = tmp_path / "rev.trec"
    rev.write_text("".join(f"{ln.split()[0]} Q0 {ln.split()[2]} 1 {-float(ln.split()[4])} rev\n"
                           for ln in good.read_text().splitlines()))
    r = subprocess.run(["hcrbench", "fuse", str(good), str(rev), "--method", "wsum", "--tune-qrels",
                        str(EX / "cranfield.qrels"), "--out", str(out)], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert "weights=0.6,0.4" in r.stdout and r.stdout.strip().splitlines()[-1].startswith("fused 2 runs with wsum")
    assert [d for d, _ in read_run(out).ranked("1")][:5] == [d for d, _ in read_run(good).ranked("1")][:5]
    for ties in ("ranx", "trec"):
        r = subprocess.run(["hcrbench", "fuse", str(good), str(rev), "--method", "rrf", "--ties", ties, "--out",
                            str(tmp_path / f"{ties}.trec")], capture_output=True, text=True, check=False)
        assert r.returncode == 0 and "normalisation" not in r.stdout and f"ties in {ties}" in r.stdout.replace(
            "ranx's", "ranx").replace("trec_eval's", "trec"), r.stdout
    tied = [Run.from_dict({"q": {f"d{i:02d}": float(i % 2) for i in range(20)}}, name=n) for n in ("a", "b")]
    for t in tied:
        (tmp_path / f"{t.name}.trec").write_text("".join(f"q Q0 {d} 1 {v} {t.name}\n" for d, v in t["q"].items()))
    outs = {}
    for ties in ("ranx", "trec"):
        subprocess.run(["hcrbench", "fuse", str(tmp_path / "a.trec"), str(tmp_path / "b.trec"), "--ties", ties,
                        "--out", str(tmp_path / f"t{ties}.trec")], check=True, capture_output=True)
        outs[ties] = read_run(tmp_path / f"t{ties}.trec").to_dict()
    assert outs["ranx"]["q"] == pytest.approx(fuse(tied, "rrf", None)["q"]) and outs["ranx"] != outs["trec"]
    for bad in (["--method", "nope"], ["--method", "isr", "--weights", "1,2"], ["--method", "condorcet"],
                ["--ties", "x"]):
        e = subprocess.run(["hcrbench", "fuse", str(good), str(rev), "--out", str(out), *bad],
                           capture_output=True, text=True, check=False)
        assert e.returncode == 2 and "Traceback" not in e.stderr and e.stderr.count("\n") == 1, e.stderr


@pytest.fixture(scope="module")
def scifact_runs():
    from hcrbench.data import load_beir
    from hcrbench.retrieve import make_retriever

    ds = load_beir(SCIFACT, "test")
    out = []
    for name, params in (("bm25", {}), ("bm25_flat", {"k1": 0.6, "b": 0.3}), ("bm25_nostem", {"stemmer": "none"})):
        r = make_retriever("bm25", **params)
        r.index(ds.corpus)
        out.append(r.search(ds.queries, 100).run.rename(name))
    return out


def _tied_synthetic(seed: int) -> list[Run]:
    """Three runs of 12 queries whose integer scores tie everywhere (as BM25's do on SciFact)."""
    rng = np.random.default_rng(seed)
    return [Run.from_dict({f"q{q}": {f"d{x}": float(rng.integers(0, 5)) for x in rng.choice(50, n, replace=False)}
                           for q in range(12)}, name=f"r{j}") for j, n in enumerate((30, 25, 40))]


CASES = [
    *[(m, "min-max", {}) for m in ("sum", "max", "min", "anz", "mnz", "med", "isr", "log_isr", "bordafuse")],
    ("gmnz", "min-max", {"gamma": 1.5}), ("logn_isr", "min-max", {"sigma": 0.05}),
    ("rbc", "min-max", {"phi": 0.8}), ("rrf", "min-max", {"k": 60}), ("rrf", None, {"k": 10}),
    *[(m, "max", {"weights": [0.5, 0.3, 0.2]}) for m in ("wmnz", "mixed", "w_bordafuse")],
    *[("wsum", n, {"weights": [0.5, 0.3, 0.2]}) for n in ("min-max", "max", "sum", "zmuv", "rank", "borda",
                                                           "min-max-inverted", None)],
    ("rrf", "rank", {}), ("isr", "min-max-inverted", {}), ("sum", "borda", {}),
]


def _assert_equal_to_ranx(runs, method, norm, params):
    import ranx

    rx = [ranx.Run.from_dict(r.to_dict(), name=r.name) for r in runs]
    theirs = ranx.fuse(rx, norm=norm, method=method, params=params).to_dict()
    ours = fuse(runs, method, norm, **params).to_dict()
    assert set(theirs) == set(ours)
    for q, docs in theirs.items():
        assert set(docs) == set(ours[q])
        for d, v in docs.items():
            assert ours[q][d] == pytest.approx(v, rel=1e-9, abs=1e-12), (method, norm, q, d)
    return ours


@pytest.mark.slow  # ranx JIT-compiles one numba kernel per method: minutes on a busy 2-core machine
@pytest.mark.parametrize("method,norm,params", CASES)
def test_equal_to_ranx_fuse_on_tied_runs(method, norm, params):
    for seed in (0, 1):
        _assert_equal_to_ranx(_tied_synthetic(seed), method, norm, params)


@pytest.mark.slow
@pytest.mark.parametrize("method,norm,params", [c for c in CASES if c[0] in ("rrf", "bordafuse", "isr", "sum")])
def test_equal_to_ranx_fuse_on_scifact_bm25_ties(scifact_runs, method, norm, params):
    """BM25 runs tie (40% of these SciFact queries somewhere): the default tie order is ranx's, so they agree."""
    ours = _assert_equal_to_ranx(scifact_runs, method, norm, params)
    assert len(ours) == 300
    if method in ("rrf", "bordafuse", "isr") and norm != "min-max-inverted":
        trec = fuse(scifact_runs, method, norm, ties="trec", **params).to_dict()
        assert trec != ours  # trec_eval's tie order is a different fusion on these runs


@pytest.mark.slow
def test_weighted_rrf_equals_ranx_wsum_of_rrf_scores(scifact_runs):
    import ranx

    from hcrbench.retrieve.ranx_order import ranx_positions

    scored = [Run(r.query_ids, r.offsets, r.doc_index, 1.0 / (60 + ranx_positions(r)), r.doc_vocab, name=r.name)
              for r in scifact_runs]  # ties included: both sides read ranx's order of them
    rx = [ranx.Run.from_dict(r.to_dict(), name=r.name) for r in scored]
    theirs = ranx.fuse(rx, norm=None, method="wsum", params={"weights": [0.6, 0.3, 0.1]}).to_dict()
    ours = fuse(scifact_runs, "rrf", "none", weights=[0.6, 0.3, 0.1], k=60).to_dict()
    for q, docs in theirs.items():
        assert ours[q] == pytest.approx(docs, rel=1e-9)
