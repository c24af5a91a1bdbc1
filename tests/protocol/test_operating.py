"""Operating characteristics (protocol/operating.py): the vectorised replay equals a direct Monte Carlo through the
real rule functions, the gate turns rules that cannot decide at their n into "not decidable", the controls can
fail, and the perfect-retriever / delivery interface of the sufficiency rules (synthetic eval docs)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from hcrbench.protocol import checkpoints as cp
from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol import operating as op
from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import wilson
from hcrbench.protocol.subject import (
    Context,
    Subject,
    failure_row,
    passage_failure,
    perfect_failure,
    retrieval_failures,
)


def _mc_tol(p: float, reps: int) -> float:
    """Two independent estimates of one probability: 4.5 standard errors of their difference."""
    return 4.5 * np.sqrt(2 * max(p * (1 - p), 1e-4) / reps)


@pytest.mark.parametrize("truth", [-0.08, -0.02, 0.04])
def test_the_margin_checkpoint_replay_equals_a_direct_monte_carlo_through_the_real_rule(truth):
    from hcrbench.stats.bounded import betting_ci_diff

    rng = np.random.default_rng(5)
    diffs = np.clip(rng.gamma(0.6, 0.25, 60) - 0.15, -0.9, 0.6)  # skewed, as HCR's real per-query differences are
    n, reps = 200, 200
    got = op.operating(reg.get("vs_kill_baseline"), op.Inputs(n=n, diffs=diffs), reps=reps, seed=3)
    row = next(r for r in got["constructions"]["re-centred"] if np.isclose(r["truth"], truth))
    centred = diffs - diffs.mean() + truth
    direct = np.random.default_rng(99)
    counts = {"pass": 0, "stop": 0}
    for _ in range(reps):
        x = centred[direct.integers(0, centred.size, n)]
        m, lo, hi = betting_ci_diff(x)  # the checkpoint's betting interval, found by bisection
        v = cp.kill_baseline_margin(m, lo, hi, n)["status"]
        key = "pass" if v == "pass" else "stop" if v.startswith("stop") else "other"
        counts[key] = counts.get(key, 0) + 1
    if truth != -0.02:  # off the boundary the rule decides now and then
        assert row["p_go"] + row["p_nogo"] > 0
    for key, mine in (("pass", row["p_go"]), ("stop", row["p_nogo"])):
        assert abs(counts[key] / reps - mine) <= _mc_tol(mine, reps), (key, counts[key] / reps, mine)


@pytest.mark.parametrize("truth", [-0.06, 0.0])
def test_the_kill_replay_equals_a_direct_monte_carlo_through_its_one_cluster_path(truth):
    from hcrbench.stats.cluster import cluster_ci, cluster_p

    rng = np.random.default_rng(6)
    diffs = rng.gamma(0.6, 0.25, 40) - 0.15
    n, reps = 40, 600
    got = op.operating(reg.get("kill"), op.Inputs(n=n, diffs=diffs), reps=reps, seed=3)
    row = next(r for r in got["constructions"]["re-centred"] if np.isclose(r["truth"], truth))
    centred = diffs - diffs.mean() + truth
    direct = np.random.default_rng(98)
    counts = {"go": 0, "kill": 0}
    for _ in range(reps):
        x = centred[direct.integers(0, n, n)]
        c = cluster_ci(x, None, list(range(n)))  # no clusters known: each query its own
        v = hy.single_kill(c.mean, cluster_p(c), c.low, c.high, None, n=n, full_size=True)["verdict"]
        if v in counts:
            counts[v] += 1
    for key, mine in (("go", row["p_go"]), ("kill", row["p_nogo"])):
        assert abs(counts[key] / reps - mine) <= _mc_tol(mine, reps), (key, counts[key] / reps, mine)


@pytest.mark.parametrize("truth", [0.15, 0.25, 0.35])
def test_the_failure_rate_replay_equals_a_direct_monte_carlo(truth):
    n, reps = 300, 2000
    got = op.operating(reg.get("failure_rate"), op.Inputs(n=n), reps=reps, seed=1)
    row = next(r for r in got["constructions"]["binomial"] if np.isclose(r["truth"], truth))
    rng = np.random.default_rng(7)
    words = {"go": 0, "no-go": 0, "soft no-go": 0, "not decidable": 0}
    for _ in range(reps):
        k = rng.binomial(n, truth)
        words[hy.failure_rate(k / n, n, oracle_failure=0.0)["verdict"]] += 1
    for key, mine in (("go", row["p_go"]), ("no-go", row["p_nogo"]), ("soft no-go", row["p_soft"]),
                      ("not decidable", row["p_undecidable"])):
        assert abs(words[key] / reps - mine) <= _mc_tol(mine, reps), (key, words[key] / reps, mine)


def test_vectorised_wilson_equals_the_rules_wilson():
    for k, n in ((0, 9), (3, 58), (50, 50), (17, 40)):
        lo, hi = op.wilson_np(np.array([k]), n)
        assert (float(lo[0]), float(hi[0])) == pytest.approx(wilson(k, n), abs=1e-12)


def test_a_rule_is_decidable_only_with_power_at_its_margin_and_says_which_n_it_needs():
    rng = np.random.default_rng(0)
    diffs = rng.normal(0.0, 0.25, 400)
    small = op.operating(reg.get("corpus_size"), op.Inputs(n=59, diffs=diffs), reps=1000)
    assert not small["decidable"] and small["power_go"] < 0.8 and "power at the margin" in small["why"]
    need = small["needs_n"]
    # the registry's one n needed: the paired t's power 0.8 at the rule's margin on the run's own sd
    assert need == reg.n_for_power(float(np.std(diffs, ddof=1)), reg.get("corpus_size").margin)
    assert 400 < need < 800 and "required_n" in small["needs_n_how"]
    big = op.operating(reg.get("corpus_size"), op.Inputs(n=need, diffs=diffs), reps=3000)
    assert big["decidable"] and big["power_go"] >= 0.75 and big["false_go"] <= 0.025 + big["mc_error"]
    # a rule short of power keeps the verdict its interval decides; its row reports the replay's false rate on
    # the side it decided, with its Monte-Carlo interval
    kill = op.operating(reg.get("kill"), op.Inputs(n=59, diffs=diffs), reps=1000)
    row = hy.single_kill(-0.1, 0.001, -0.15, -0.05, -0.4, n=59, full_size=True)
    gated = op.gate_rows([row], {"kill": kill})[0]
    sc = gated["evidence"]["operating"]["side_check"]
    assert gated["verdict"] == "kill" and sc["side"] == "nogo" and sc["false_rate"] == kill["false_nogo"]
    assert sc["ci"][0] <= sc["false_rate"] <= sc["ci"][1] and "reported only: false kill" in gated["text"]
    # whatever the replay says about false decisions, the row keeps what its interval decided
    distrusted = dict(kill, decisions_trusted=False, decidable=False, false_nogo=0.09, false_nogo_ci=[0.07, 0.11],
                      why="false decisions 9.0% > nominal 2.5%")
    gated = op.gate_rows([row], {"kill": distrusted})[0]
    assert gated["verdict"] == "kill" and "before_operating" not in gated
    assert gated["evidence"]["operating"]["side_check"]["above_nominal"] and "false kill 9.0%" in gated["text"]
    cp_row = cp.kill_baseline_margin(-0.1, -0.15, -0.05, 59)
    margin = op.operating(reg.get("vs_kill_baseline"), op.Inputs(n=59, diffs=diffs), reps=200, search=False)
    out = op.gate_rows([cp_row], {"vs_kill_baseline": dict(margin, decidable=False, decisions_trusted=False)})[0]
    assert out["status"] == cp_row["status"] and out["evidence"]["operating"]["side_check"]["side"] == "nogo"


def _sparse(rng: np.random.Generator, n: int, effect: float = 0.06, share: float = 0.2) -> np.ndarray:
    """Per-query differences of a system whose gain sits on a minority of queries (the usual IR pattern): +effect /
    share on ``share`` of them, small noise elsewhere; the population mean is ``effect``."""
    return np.where(rng.random(n) < share, effect / share, 0.0) + rng.normal(0, 0.03, n)


def test_the_replays_null_keeps_the_shape_of_a_sparse_effect():
    """The null that decides the side checks flips each query's sign (a sparse effect stays a few large
    differences of either sign); shifting the centred differences instead makes a one-sided tail no real system
    with that truth has, and its false go runs far above nominal."""
    d = _sparse(np.random.default_rng(1), 112)
    got = op.operating(reg.get("corpus_size"), op.Inputs(n=112, diffs=d), reps=2000, search=False)
    at0 = {c: next(r for r in got["constructions"][c] if r["truth"] == 0.0) for c in ("sign-flip", "re-centred")}
    assert at0["re-centred"]["p_nogo"] > got["nominal"] + got["mc_error"]  # the shifted null's one-sided tail
    assert got["false_go"] == at0["sign-flip"]["p_go"] <= got["nominal"] + got["mc_error"]
    assert got["false_nogo"] == at0["sign-flip"]["p_nogo"] <= got["nominal"] + got["mc_error"]
    assert got["false_go_ci"][0] <= got["false_go"] <= got["false_go_ci"][1]


def test_a_sparse_plus_006_effect_is_decided_go_and_never_voided():
    """Known truth: +0.06 nDCG@10 on a fifth of the queries. On 112 queries the kill rule's interval decides go
    in most draws, and the row keeps every go its interval decides (the replay is reported beside it)."""
    rule = reg.get("kill")
    gos = kept = 0
    draws = 25
    for s in range(draws):
        d = _sparse(np.random.default_rng(100 + s), 112)
        lo, hi = (float(v[0]) for v in op._interval(rule, d[None, :], np.random.default_rng(s)))
        row = hy.single_kill(float(d.mean()), 0.01, lo, hi, None, n=d.size, full_size=True)
        if row["verdict"] != "go":
            continue
        gos += 1
        ops = {"kill": op.operating(rule, op.Inputs(n=d.size, diffs=d), reps=200, seed=s, search=False)}
        kept += op.gate_rows([row], ops)[0]["verdict"] == "go"
    assert gos >= 0.6 * draws and kept == gos


def test_the_noise_controls_can_fail_and_state_what_they_must_get():
    rng = np.random.default_rng(2)
    diffs = rng.normal(0.0, 0.3, 59)
    res = op.operating_all({"kill": op.Inputs(n=59, diffs=diffs)}, reps=2000, search=False)
    ctl = res["kill"]["controls"]
    assert set(ctl) == {"twin", "plus_margin", "minus_margin"}
    assert ctl["twin"]["expected"] == "not decidable or inconclusive"
    # the twin (truth 0) is sometimes called go or kill: a control that can fail
    assert 0.9 < ctl["twin"]["p_expected"] < 1.0
    assert ctl["plus_margin"]["p_nogo"] < 0.01 and ctl["minus_margin"]["p_go"] < 0.01


def test_every_rule_at_meridian_fulls_n_replays_in_seconds():
    """Meridian full scores 59 test queries (docs/hcr.md); benchmarks/protocol_operating.py prints the time at
    larger n too. A generous bound: the CI machine is shared."""
    rng = np.random.default_rng(3)
    n = 59
    d = rng.normal(0, 0.25, n)
    x = op.Inputs(n=n, diffs=d, base=rng.random(n), high=np.ones(n), low=np.zeros(n))
    ins = {"kill": x, "vs_kill_baseline": x, "H1b": x, "corpus_size": op.Inputs(n=15, diffs=d[:15]),
           "H1a": op.Inputs(n=n, diffs=rng.choice([-1.0, 0.0, 1.0], n)), "token_efficiency": x,
           "failure_rate": op.Inputs(n=47), "easy_routing": op.Inputs(n=60), "H1c": op.Inputs(n=5),
           "tree_sanity": op.Inputs(n=2000, sd=0.1)}
    t0 = time.perf_counter()
    res = op.operating_all(ins)
    assert time.perf_counter() - t0 < 30 and set(res) == set(ins)
    assert all(r["reps"] == 1000 for r in res.values())


def _ctx(systems: dict, perfect: str | None = None) -> Context:
    suff = {"headline": "exact", "systems": systems}
    if perfect:
        suff["perfect"] = perfect
    cfg = SimpleNamespace(protocol=SimpleNamespace(system="sys", kill_baseline="kb", flat="bm25"), seed=0)
    return Context(cfg, None, SimpleNamespace(runs={}, metrics=[]), {"sufficiency": suff}, None, Path("."))


@pytest.mark.parametrize("passage_rate, decided", [(0.45, False), (0.05, True)])
def test_the_passage_control_gates_the_sufficiency_rules_and_the_perfect_document_ranking_does_not(passage_rate,
                                                                                                   decided):
    systems = {"oracle": {"failure_on_feasible": {"rate": 0.0, "n": 42}},
               "perfect-run": {"control": "perfect", "failure_on_feasible": {"rate": 0.45, "n": 42}},
               "psg": {"control": "passage", "unit_set": "chunks-128",
                       "failure_on_feasible": {"rate": passage_rate, "n": 42}},
               "sys": {"unit_set": "chunks-128", "delivers": "documents"}}
    for ctx in (_ctx(systems), _ctx(systems, perfect="perfect-run")):
        assert perfect_failure(ctx) == (0.45, "perfect-run")
        assert passage_failure(ctx, "sys") == (passage_rate, 42, "psg")
        row = failure_row(ctx, Subject("sys", None, None, failure=(0.01, 400)))
        gf, _n, name = passage_failure(ctx, "sys")
        h1a = hy.h1a(0.9, 0.5, 0.5, 0.35, 0.45, 400, 0.0, 400, perfect_failure=0.45, passage_failure=gf,
                     passage=name)
        for r in (row, h1a):
            assert "on this harness" not in r["text"]
            if decided:
                assert r["verdict"] == "go"
            else:
                assert r["verdict"] == "not decidable"
                assert r["text"].startswith("not decidable: harness defect: the passage-level perfect retriever "
                                            "(control row psg) fails 45%")


def test_each_subject_is_gated_by_the_passage_control_of_its_own_units():
    systems = {"psg": {"control": "passage", "unit_set": "chunks-128", "failure_on_feasible": {"rate": 0.0, "n": 30}},
               "psg2": {"control": "passage", "unit_set": "chunks-128o32s",
                        "failure_on_feasible": {"rate": 0.2, "n": 46}},
               "docs": {"unit_set": "chunks-128", "delivers": "documents"},
               "chunks": {"unit_set": "chunks-128o32s", "delivers": "units"}}
    ctx = _ctx(systems)
    ctx.doc["sufficiency"]["passage_controls"] = {"chunks-128": "psg", "chunks-128o32s": "psg2"}
    assert passage_failure(ctx, "docs") == (0.0, 30, "psg")
    assert passage_failure(ctx, "chunks") == (0.2, 46, "psg2")
    del ctx.doc["sufficiency"]["passage_controls"]  # found by its unit set without the map
    assert passage_failure(ctx, "chunks")[2] == "psg2"
    assert passage_failure(ctx, "unknown")[2] == "psg"  # not in the run: the context chunks' control


def test_each_subject_is_gated_by_the_passage_control_under_its_own_selection():
    systems = {"psg": {"control": "passage", "unit_set": "chunks-128o32s", "selection": "greedy",
                       "failure_on_feasible": {"rate": 0.0, "n": 46}},
               "psg-sub": {"control": "passage", "unit_set": "chunks-128o32s", "selection": "submodular",
                           "failure_on_feasible": {"rate": 0.5, "n": 46}},
               "greedy": {"unit_set": "chunks-128o32s", "delivers": "units", "selection": "greedy"},
               "sub": {"unit_set": "chunks-128o32s", "delivers": "units", "selection": "submodular"}}
    ctx = _ctx(systems)
    ctx.doc["sufficiency"]["passage_controls"] = {"chunks-128o32s": "psg"}
    ctx.doc["sufficiency"]["passage_by_selection"] = {"chunks-128o32s": {"greedy": "psg", "submodular": "psg-sub"}}
    assert passage_failure(ctx, "greedy") == (0.0, 46, "psg")
    assert passage_failure(ctx, "sub") == (0.5, 46, "psg-sub")
    gf, n, name = passage_failure(ctx, "sub")
    assert hy.harness_gate(gf, n, name).startswith("not decidable: harness defect: the passage-level perfect "
                                                   "retriever (control row psg-sub) fails 50%")


def test_sufficiency_comparisons_use_the_queries_feasible_for_both():
    from hcrbench.protocol.subject import one_query_set

    systems = {"a": {"unit_set": "chunks-128", "budget_feasible": {"q1": True, "q2": True, "q3": False}},
               "b": {"unit_set": "chunks-128o32s", "budget_feasible": {"q1": True, "q2": False, "q3": True}}}
    ctx = _ctx(systems)
    (x, y), basis = one_query_set(ctx, ["a", "b"], {"q1": 1.0, "q2": 1.0, "q3": 0.0}, {"q1": 0.0, "q2": 0.0,
                                                                                       "q3": 1.0})
    assert x == {"q1": 1.0} and y == {"q1": 0.0}
    assert basis.startswith("the 1 queries budget-feasible at 400 for a and b")
    (x, _y), basis = one_query_set(_ctx({}), ["a", "b"], {"q1": 1.0}, None)
    assert x == {"q1": 1.0} and basis.startswith("all queries")


def test_the_failure_rate_judges_every_failure_and_shows_the_anatomy_beside_it():
    fails = {"budget": 8, "n_feasible": 200, "insufficient": 80, "retrieval": 12, "delivery": 50, "selection": 18,
             "by_category": {"lookup": 3}}
    systems = {"oracle": {"failure_on_feasible": {"rate": 0.0, "n": 200}},
               "sys": {"failure_on_feasible": {"rate": 0.40, "n": 200}, "failures": fails,
                       "unit_set": "chunks-128"}}
    ctx = _ctx(systems)
    rate, n, extra = retrieval_failures(ctx, ["sys"])  # type: ignore[misc]
    assert (rate, n) == (pytest.approx(0.06), 200)  # the retriever's own share, reported in the anatomy
    row = failure_row(ctx, Subject("sys", None, None, failure=(rate, n), failures=extra))
    assert row["evidence"]["failure_rate"] == pytest.approx(0.40) and row["verdict"] == "no-go"
    assert "retrieval 12, delivery 50, selection 18" in row["text"]
    assert row["evidence"]["basis"] == "budget-feasible queries in chunks-128"
    # without the split, every failure on a feasible query is judged all the same
    assert retrieval_failures(_ctx({"sys": {"failure_on_feasible": {"rate": 0.3, "n": 200}}}), ["sys"]) is None


def test_token_efficiency_across_delivery_modes_says_so_and_cannot_stop_the_run():
    from hcrbench.protocol import checkpoints as cp

    same = cp.token_efficiency(-0.2, -0.3, -0.1, 59, 0.2, 0.4, "flat", system="sys", modes=("units", "units"))
    assert same["status"].startswith("stop")
    cross = cp.token_efficiency(-0.2, -0.3, -0.1, 59, 0.2, 0.4, "flat", system="sys",
                                modes=("documents", "units"), basis="the 29 queries")
    assert cross["status"] == "not decidable" and "compares delivery modes (sys delivers documents, flat " \
        "delivers units)" in cross["text"] and "cannot stop the run" in cross["text"]
    assert cross["delivery_modes"] == {"sys": "documents", "flat": "units"} and cross["basis"] == "the 29 queries"
    assert cp.token_efficiency(0.2, 0.1, 0.3, 59, 0.4, 0.2, "flat", system="sys",
                               modes=("documents", "units"))["status"] == "pass"


def test_clustered_queries_widen_the_kill_interval_and_report_the_effective_n(tmp_path):
    from hcrbench.protocol.inputs import query_clusters
    from hcrbench.protocol.subject import cluster_row

    qids = [f"q{i}" for i in range(40)]
    (tmp_path / "queries.meta.jsonl").write_text("".join(
        f'{{"query_id": "{q}", "cluster": "c{i // 8}"}}\n' for i, q in enumerate(qids)))
    queries = SimpleNamespace(query_ids=qids, meta=lambda q: {})
    data = SimpleNamespace(queries=queries, root=tmp_path)
    assert query_clusters(data) == {q: f"c{i // 8}" for i, q in enumerate(qids)}
    rng = np.random.default_rng(0)
    shared = rng.normal(0, 0.2, 5)
    base = SimpleNamespace(query_ids=qids, values={"nDCG@10": rng.random(40)})
    sys_ = SimpleNamespace(query_ids=qids, values={"nDCG@10": base.values["nDCG@10"] + shared[np.arange(40) // 8]
                                                   + rng.normal(0, 0.02, 40)})
    ctx = SimpleNamespace(data=data, metric="nDCG@10")
    cl = cluster_row(ctx, sys_, base)  # type: ignore[arg-type]
    d = sys_.values["nDCG@10"] - base.values["nDCG@10"]
    t = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert cl.n_clusters == 5 and cl.effective_n < 40 and (cl.high - cl.low) > (t.high - t.low)
    assert cluster_row(SimpleNamespace(data=SimpleNamespace(queries=queries, root=tmp_path / "none"),
                                       metric="nDCG@10"), sys_, base) is None  # no clusters: nothing to add


def test_a_fixed_seed_component_widens_every_replayed_interval_and_lowers_power():
    rng = np.random.default_rng(8)
    d = rng.normal(0, 0.1, 200)
    plain = op.operating(reg.get("kill"), op.Inputs(n=200, diffs=d), reps=400, search=False)
    seeded = op.operating(reg.get("kill"), op.Inputs(n=200, diffs=d, extra_half=0.02), reps=400,
                          search=False)
    assert seeded["power_go"] < plain["power_go"] and seeded["false_go"] <= plain["false_go"] + 0.01


def test_reported_frequencies_are_the_rules_own_whatever_the_replay_finds():
    rng = np.random.default_rng(9)
    d = rng.normal(0, 0.25, 300)
    small = op.operating(reg.get("kill"), op.Inputs(n=40, diffs=d), reps=300, search=False)
    assert not small["decidable"] and small["reported"] == small["constructions"]["sign-flip"]
    # false decisions above nominal on the replay (rare large losses on a t interval): still the rule's own
    skew = np.where(np.random.default_rng(1).random(59) < 0.08, -0.9, 0.0) + rng.normal(0, 0.01, 59)
    bad = op.operating(reg.get("corpus_size"), op.Inputs(n=59, diffs=skew), reps=2000, search=False)
    assert bad["reported"] == bad["constructions"]["sign-flip"] and not bad["voids"]
    assert any(r["p_go"] + r["p_nogo"] > 0 for r in bad["reported"])


def test_the_clustered_kill_replay_equals_a_direct_cluster_bootstrap_through_the_real_rule():
    from hcrbench.stats.cluster import cluster_ci, cluster_p

    rng = np.random.default_rng(10)
    g = np.repeat(np.arange(12), 5)
    d = rng.normal(0, 0.15, 12)[g] + rng.normal(0, 0.05, g.size)
    reps = 1500
    got = op.operating(reg.get("kill"), op.Inputs(n=g.size, diffs=d, clusters=g), reps=reps, seed=2)
    assert set(got["constructions"]) == {"cluster bootstrap", "cluster sign-flip"}
    row = next(r for r in got["constructions"]["cluster bootstrap"] if np.isclose(r["truth"], 0.06))
    centred = d - d.mean() + 0.06
    direct = np.random.default_rng(77)
    go = 0
    for _ in range(reps):
        pick = direct.integers(0, 12, 12)
        vals = np.concatenate([centred[g == c] for c in pick])
        labels = np.concatenate([[j] * int(np.sum(g == c)) for j, c in enumerate(pick)])
        c = cluster_ci(vals, None, labels.tolist())
        p = cluster_p(c)
        go += hy.single_kill(c.mean, p, c.low, c.high, None, n=vals.size, full_size=True)["verdict"] == "go"
    assert abs(go / reps - row["p_go"]) <= _mc_tol(row["p_go"], reps)


def test_the_published_replay_column_never_reads_as_a_verdict():
    """Tree sanity said pass while the table's column said "no" (read: not decidable): the column is the replay's,
    reported only, and says whether the replay meets its targets, beside the rule's own verdict without
    contradicting it."""
    from hcrbench.protocol.operating_table import markdown

    row = {"truth": 0.15, "p_go": 0.005, "p_nogo": 0.0, "p_soft": 0.0, "p_undecidable": 0.995}
    ops = {"tree_sanity": {"n": 2031, "decidable": False, "why": "false decisions 0.5% > nominal 0.2%",
                           "needs_n": 130, "constructions": {"re-centred": [row]}},
           "H1a": {"n": 285, "decidable": True, "why": "", "needs_n": None, "constructions": {"re-centred": [row]}}}
    table = markdown(ops)
    head, _, first, second = table.splitlines()
    assert "replay at n (reported only, voids nothing)" in head and "decidable at n" not in head
    assert "| short of its targets: false decisions 0.5% > nominal 0.2% | 130 |" in first
    assert "| meets its targets | — |" in second
    assert "| no" not in table and "| yes" not in table
