"""The kill criterion's operating replay uses the pair it was judged on (the strongest flat system when the kill
baseline is no value barrier), and the overall aggregation's replay resamples clusters when queries carry them."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from hcrbench.protocol import operating_inputs as oi
from hcrbench.protocol.operating_overall import operating_overall
from hcrbench.protocol.verdicts import overall


def _run(qids, vals):
    return SimpleNamespace(query_ids=list(qids), values={"nDCG@10": np.asarray(vals, dtype=float)})


def _ctx(runs, clusters=None):
    queries = SimpleNamespace(query_ids=list(runs["rerank"].query_ids),
                              meta=lambda q: {"cluster": clusters[q]} if clusters else {})
    return SimpleNamespace(metric="nDCG@10", p=SimpleNamespace(kill_baseline="rerank", beam_only=None,
                                                              collapsed_only=None),
                           evaluation=SimpleNamespace(runs=runs), cache={}, data=SimpleNamespace(queries=queries),
                           suff=lambda name: None, flat="bm25", routing=(None, None, 0, ""))


def _kill_row(judged_against=None):
    ev = {"judged_against": judged_against} if judged_against else {}
    return {"id": "kill", "verdict": "not decidable", "evidence": ev, "n": 40}


def test_the_kill_replay_uses_the_strongest_flat_system_when_the_kill_baseline_is_no_barrier():
    rng = np.random.default_rng(0)
    q = [f"q{i}" for i in range(40)]
    sysv = rng.uniform(0.3, 0.9, 40)
    runs = {"rerank": _run(q, sysv - 0.2), "bm25": _run(q, sysv - 0.01), "hcr": _run(q, sysv)}
    s = SimpleNamespace(scores=runs["hcr"], suff400=None, name="hcr")
    barrier = oi.gather(_ctx(runs), s, {"kill": _kill_row("bm25")})["kill"]
    assert np.allclose(barrier.diffs, 0.01) and np.allclose(barrier.base, sysv - 0.01)
    plain = oi.gather(_ctx(runs), s, {"kill": _kill_row()})["kill"]
    assert np.allclose(plain.diffs, 0.2)


def test_the_judged_pair_carries_its_clusters():
    q = [f"q{i}" for i in range(12)]
    clusters = {x: f"c{i % 3}" for i, x in enumerate(q)}
    runs = {"rerank": _run(q, np.zeros(12)), "bm25": _run(q, np.full(12, 0.1)), "hcr": _run(q, np.linspace(0, 1, 12))}
    s = SimpleNamespace(scores=runs["hcr"], suff400=None, name="hcr")
    x = oi.gather(_ctx(runs, clusters), s, {"kill": _kill_row("bm25")})["kill"]
    assert x.clusters is not None and sorted(set(x.clusters.tolist())) == [0, 1, 2]


def _rows():
    hs = [{"id": "kill", "verdict": "not decidable", "evidence": {}}]
    cps = [{"id": "vs_kill_baseline", "status": "pass"}]
    return hs, cps


def test_the_overall_replay_resamples_clusters_and_judges_the_kill_pair():
    rng = np.random.default_rng(3)
    g = np.concatenate([np.repeat(np.arange(10), 3), np.full(30, 10)])  # one cluster holds half the queries
    d = rng.normal(0, 0.2, 11)[g] + rng.normal(0, 0.05, g.size)
    hs, cps = _rows()
    clustered = operating_overall(hs, cps, d, d.size, full_size=True, overall_fn=overall, reps=200, seed=1,
                                  clusters=g)
    iid = operating_overall(hs, cps, d, d.size, full_size=True, overall_fn=overall, reps=200, seed=1)
    assert clustered["construction"] == "cluster bootstrap" and iid["construction"] == "re-centred"
    at0 = {r["truth"]: r for r in clustered["truths"]}[0.0]
    iid0 = {r["truth"]: r for r in iid["truths"]}[0.0]
    # the queries of a cluster move together: resampling queries as independent claims far more invalidations
    assert at0.get("invalidated", 0.0) < iid0.get("invalidated", 0.0)
    assert at0.get("invalidated", 0.0) <= 0.025 + 2.576 * (0.025 * 0.975 / 200) ** 0.5
    # the kill criterion is replayed on its own pair, re-centred at the same truth: a shift of the pair changes
    # nothing, its spread does (a pair four times as noisy is killed less often at truth -0.06)
    better = operating_overall(hs, cps, d, d.size, full_size=True, overall_fn=overall, reps=200, seed=1,
                               kill_diffs=d + 0.3, clusters=g)
    plain = clustered
    assert better["truths"] == plain["truths"]  # re-centred at the same truth: only the spread matters
    wide = operating_overall(hs, cps, d, d.size, full_size=True, overall_fn=overall, reps=200, seed=1,
                             kill_diffs=d * 4, clusters=g)
    assert {r["truth"]: r for r in wide["truths"]}[-0.06].get("invalidated", 0) < \
        {r["truth"]: r for r in plain["truths"]}[-0.06].get("invalidated", 0)


def test_the_corpus_size_row_carries_its_own_operating_characteristics():
    from hcrbench.protocol import hypotheses as hy
    from hcrbench.protocol.operating import Inputs
    from hcrbench.protocol.verdicts import apply_growth

    v = {"overall": "inconclusive", "checkpoints": [], "hypotheses": [hy.corpus_size(None)], "operating": {}}
    points = [{"size": "small", "delta": 0.02}, {"size": "medium", "delta": 0.05, "subset": {
        "delta": 0.05, "p": 0.01, "ci_low": 0.01, "ci_high": 0.09, "n": 15}}]
    plain = apply_growth(v, points)
    assert plain["hypotheses"][0]["verdict"] == "go"  # its interval alone says go ...
    d = np.random.default_rng(4).normal(0.05, 0.08, 15)
    gated = apply_growth(v, points, Inputs(n=15, diffs=d), seed=0)
    row = gated["hypotheses"][0]
    # ... at n = 15 the rule has no power at its margin; the go its interval makes stands, the replay's false go
    # beside it
    op = gated["operating"]["corpus_size"]
    assert not op["decidable"] and op["needs_n"] > 15
    assert row["verdict"] == "go" and row["evidence"]["operating"]["side_check"]["side"] == "go"
    assert f"false go {op['false_go']:.1%}" in row["text"]
    # an interval that decides nothing at n = 15 says "not decidable" with that n
    weak = [points[0], {"size": "medium", "delta": 0.02, "subset": {
        "delta": 0.02, "p": 0.4, "ci_low": -0.03, "ci_high": 0.07, "n": 15}}]
    row = apply_growth(v, weak, Inputs(n=15, diffs=d), seed=0)["hypotheses"][0]
    assert row["verdict"] == "not decidable" and f"{op['needs_n']:,}" in row["text"]


def test_an_undecided_rows_needs_n_is_the_replayed_one():
    from hcrbench.protocol import checkpoints as cp
    from hcrbench.protocol import operating as op

    row = cp.easy_routing([0.09], [50], 50)  # its Wilson interval reaches 0.10: not decidable by its own text
    assert row["status"] == "not decidable" and "(needs ~ " in row["text"]
    ops = op.operating_all({"easy_routing": op.Inputs(n=50)}, reps=300)
    gated = op.gate_rows([row], ops)[0]
    need = ops["easy_routing"]["needs_n"]
    assert need and f"(needs ~ {need:,})" in gated["text"]
