"""The single kill criterion's interval (protocol/subject.kill_row) goes through one path: the CR2 cluster-robust t
on Bell-McCaffrey df, each query its own cluster when no clusters are known (exactly the paired t there), and the
tree seeds add their variance component on Welch-Satterthwaite df (stats.seeds.seed_component)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from scipy import stats

from hcrbench.protocol.subject import Subject, kill_row
from hcrbench.stats.cluster import cluster_ci
from hcrbench.stats.seeds import seed_component

M = "nDCG@10"


def _scores(qids: list[str], v: np.ndarray) -> SimpleNamespace:
    return SimpleNamespace(query_ids=qids, values={M: np.asarray(v, dtype=float)})


def _ctx(tmp_path, runs: dict, systems: list, clusters: dict[str, str] | None = None) -> SimpleNamespace:
    qids = runs["base"].query_ids
    if clusters:
        (tmp_path / "queries.meta.jsonl").write_text("".join(
            f'{{"query_id": "{q}", "cluster": "{clusters[q]}"}}\n' for q in qids))
    data = SimpleNamespace(queries=SimpleNamespace(query_ids=qids, meta=lambda q: {}), root=tmp_path)
    cfg = SimpleNamespace(systems=systems, n_resamples=999, seed=0)
    return SimpleNamespace(cfg=cfg, data=data, evaluation=SimpleNamespace(runs=runs), metric=M, cache={},
                           p=SimpleNamespace(kill_baseline="base", system="sys"), size="full", full_size=True)


def test_without_clusters_the_kill_interval_is_the_paired_t_through_the_cluster_path(tmp_path):
    rng = np.random.default_rng(0)
    qids = [f"q{i}" for i in range(59)]
    base = rng.random(59)
    d = np.where(rng.random(59) < 0.1, 0.5, 0.0) + rng.normal(0, 0.05, 59)  # skewed: a bootstrap-t would bend
    runs = {"base": _scores(qids, base), "sys": _scores(qids, base + d)}
    ctx = _ctx(tmp_path, runs, [SimpleNamespace(name="sys", seed_group=None)])
    row = kill_row(ctx, Subject("sys", runs["sys"], {"delta": float(d.mean()), "n": 59}))  # type: ignore[arg-type]
    t = stats.ttest_1samp(d, 0.0)
    ci = t.confidence_interval(0.95)
    assert np.allclose(row["interval"], [ci.low, ci.high], atol=1e-12)
    assert np.isclose(row["evidence"]["p_holm"], t.pvalue)
    assert "each of the 59 queries its own cluster" in row["interval_kind"]


def test_with_clusters_the_kill_interval_is_cr2_on_the_same_path(tmp_path):
    rng = np.random.default_rng(1)
    qids = [f"q{i}" for i in range(40)]
    cl = {q: f"c{i // 8}" for i, q in enumerate(qids)}
    base = rng.random(40)
    d = rng.normal(0, 0.1, 5)[np.arange(40) // 8] + rng.normal(0.05, 0.02, 40)
    runs = {"base": _scores(qids, base), "sys": _scores(qids, base + d)}
    ctx = _ctx(tmp_path, runs, [SimpleNamespace(name="sys", seed_group=None)], cl)
    row = kill_row(ctx, Subject("sys", runs["sys"], {"delta": float(d.mean()), "n": 40}))  # type: ignore[arg-type]
    want = cluster_ci(d, None, [cl[q] for q in qids])
    assert np.allclose(row["interval"], [want.low, want.high], atol=1e-12)
    assert row["evidence"]["clusters"]["n_clusters"] == 5


def test_two_tree_seeds_add_their_component_on_satterthwaite_df_not_t1(tmp_path):
    rng = np.random.default_rng(2)
    n = 59
    qids = [f"q{i}" for i in range(n)]
    base = rng.random(n)
    a = rng.normal(0.03, 0.15, n)
    seeds = [base + a + 0.004 * s + rng.normal(0, 0.03, n) for s in (-1, 1)]
    runs = {"base": _scores(qids, base), "s0": _scores(qids, seeds[0]), "s1": _scores(qids, seeds[1])}
    systems = [SimpleNamespace(name=f"s{i}", seed_group="g") for i in range(2)]
    ctx = _ctx(tmp_path, runs, systems)
    ctx.p.system = "s0"
    avg = _scores(qids, (seeds[0] + seeds[1]) / 2)
    row = kill_row(ctx, Subject("s0", avg, {"delta": 0.0, "n": n}, n_seeds=2))  # type: ignore[arg-type]
    d = avg.values[M] - base
    t_half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)
    half = (row["interval"][1] - row["interval"][0]) / 2
    seed = row["evidence"]["tree_seeds"]
    # the former term: t(1) = 12.7 times sd / sqrt(2) of the two seed means, in quadrature with the query half
    old = np.hypot(t_half, stats.t.ppf(0.975, 1) * seed["sd_between_seeds"] / np.sqrt(2))
    assert t_half <= half < old and seed["df"] > 20
    comp = seed_component(np.vstack([s - base for s in seeds]))
    lo, hi, _df, _se = comp.combine(float(d.mean()), float(d.var(ddof=1)) / n, n - 1)
    assert np.allclose(row["interval"], [lo, hi])


def test_queries_of_several_worlds_add_the_between_world_component(tmp_path):
    rng = np.random.default_rng(3)
    qids = [f"w{w:02d}-q{i}" for w in range(2, 6) for i in range(30)]
    cl = {q: f"{q[:3]}-c{int(q.split('q')[-1]) // 5}" for q in qids}  # topics nested in worlds
    base = rng.random(len(qids))
    world = np.repeat(np.arange(4), 30)
    d = np.array([0.08, -0.05, 0.06, -0.04])[world] + rng.normal(0.01, 0.05, world.size)
    runs = {"base": _scores(qids, base), "sys": _scores(qids, base + d)}
    ctx = _ctx(tmp_path, runs, [SimpleNamespace(name="sys", seed_group=None)], cl)
    row = kill_row(ctx, Subject("sys", runs["sys"], {"delta": float(d.mean()), "n": d.size}))  # type: ignore[arg-type]
    topic_only = cluster_ci(d, None, [cl[q] for q in qids])
    want = cluster_ci(d, None, [cl[q] for q in qids], worlds=list(world))
    assert want.by_world and want.high - want.low > topic_only.high - topic_only.low
    assert np.allclose(row["interval"], [want.low, want.high], atol=1e-12)
    assert row["evidence"]["clusters"]["worlds"] == 4 and row["evidence"]["clusters"]["by_world"]
    assert "its 4 worlds as the clusters" in row["interval_kind"]
    # undecided: "needs ~ n" is sized in worlds, on one world's sd floored by the topic-clustered sampling
    from hcrbench.protocol import registry as reg

    assert row["verdict"] == "not decidable"
    wsd = reg.world_sd(want.se, want.topic_se, 4)
    und = row["undecided"]
    assert und["world_sd"] == round(wsd, 6) and wsd >= want.se * 2
    need_w = reg.get("kill").worlds_needed(wsd)
    assert und["needs_n"] == need_w * 30 and und.get("needs_worlds", 4) == max(need_w, 4)


def test_the_other_paired_rules_read_the_kill_rule_s_clustered_interval(tmp_path):
    from hcrbench.protocol.subject import clustered_interval

    rng = np.random.default_rng(4)
    qids = [f"w{w:02d}-q{i}" for w in range(2, 5) for i in range(20)]
    cl = {q: f"{q[:3]}-c{int(q.split('q')[-1]) // 4}" for q in qids}
    base = rng.random(len(qids))
    d = rng.normal(0.02, 0.1, len(qids))
    runs = {"base": _scores(qids, base), "sys": _scores(qids, base + d)}
    ctx = _ctx(tmp_path, runs, [SimpleNamespace(name="sys", seed_group=None)], cl)
    got = clustered_interval(ctx, runs["sys"], runs["base"])
    want = cluster_ci(d, None, [cl[q] for q in qids], worlds=[int(q[1:3]) for q in qids])
    assert np.allclose([got["ci_low"], got["ci_high"]], [want.low, want.high], atol=1e-12)
    assert got["ci_method"].startswith("cluster-robust CR2 t") and "its 3 worlds as the clusters" in got["ci_method"]
    assert np.isclose(got["sd"], want.se * np.sqrt(d.size))  # what "needs ~ n" reads, not the t(2) half-width
    from hcrbench.stats.cluster import skew_shift

    moved = clustered_interval(ctx, runs["sys"], runs["base"], skew=True)  # H1b's: its two claims' own tails
    sh = skew_shift(d)
    assert np.allclose([moved["ci_low"], moved["ci_high"]], [want.low + sh, want.high + sh], atol=1e-12)
    assert f"skew-corrected by {sh:+.4f}" in moved["ci_method"]
    plain = [f"q{i}" for i in range(30)]
    runs = {"base": _scores(plain, base[:30]), "sys": _scores(plain, base[:30] + d[:30])}
    assert clustered_interval(_ctx(tmp_path / "x", runs, []), runs["sys"], runs["base"]) is None
