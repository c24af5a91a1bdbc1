"""Nested variance components: unbiased on simulated designs with known components, equal to REML on balanced
designs (statsmodels MixedLM), the design effect's closed form, and the allocation's optimum."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hcrbench.errors import InputError
from hcrbench.stats.allocation import allocation
from hcrbench.stats.variance_components import variance_components


def _simulate(rng, s2w, s2t, s2e, worlds, topics=(4, 12), per_topic=(1, 8), mean=0.03):
    d, wl, tl = [], [], []
    for w in range(worlds):
        uw = rng.normal(0, math.sqrt(s2w))
        for t in range(int(rng.integers(*topics))):
            ut = rng.normal(0, math.sqrt(s2t))
            for _ in range(int(rng.integers(*per_topic))):
                d.append(mean + uw + ut + rng.normal(0, math.sqrt(s2e)))
                wl.append(f"w{w:02d}")
                tl.append(f"T{t}")  # the same label in two worlds: two topics
    return np.asarray(d), wl, tl


def test_variance_components_unbiased_on_unbalanced_simulation():
    rng = np.random.default_rng(7)
    truth = (0.004, 0.010, 0.050)
    est = np.array([[c.raw for c in variance_components(*_simulate(rng, *truth, worlds=12), n_boot=0).components]
                    for _ in range(300)])
    got = est.mean(axis=0)
    se = est.std(axis=0, ddof=1) / math.sqrt(len(est))
    for g, s, t in zip(got, se, truth, strict=True):
        assert abs(g - t) < 4 * s, (g, t, s)


def test_variance_components_match_reml_on_balanced_design():
    sm = pytest.importorskip("statsmodels.formula.api")
    import pandas as pd

    rng = np.random.default_rng(3)
    d, wl, tl = _simulate(rng, 0.02, 0.01, 0.04, worlds=10, topics=(6, 7), per_topic=(5, 6))
    vc = variance_components(d, wl, tl, n_boot=0)
    assert all(c.raw > 0 for c in vc.components)  # no truncation: REML and the moments coincide
    df = pd.DataFrame({"d": d, "world": wl, "topic": [f"{w}:{t}" for w, t in zip(wl, tl, strict=True)]})
    fit = sm.mixedlm("d ~ 1", df, groups="world", re_formula="1", vc_formula={"topic": "0 + C(topic)"}).fit(reml=True)
    assert vc.component("between_worlds").value == pytest.approx(float(fit.cov_re.iloc[0, 0]), rel=1e-3)
    assert vc.component("between_topics").value == pytest.approx(float(fit.vcomp[0]), rel=1e-3)
    assert vc.component("within_topic").value == pytest.approx(float(fit.scale), rel=1e-3)


def test_variance_components_close_to_reml_on_unbalanced_design():
    sm = pytest.importorskip("statsmodels.formula.api")
    import pandas as pd

    rng = np.random.default_rng(11)
    d, wl, tl = _simulate(rng, 0.02, 0.01, 0.04, worlds=30)
    vc = variance_components(d, wl, tl, n_boot=0)
    df = pd.DataFrame({"d": d, "world": wl, "topic": [f"{w}:{t}" for w, t in zip(wl, tl, strict=True)]})
    fit = sm.mixedlm("d ~ 1", df, groups="world", re_formula="1", vc_formula={"topic": "0 + C(topic)"}).fit(reml=True)
    assert vc.component("within_topic").value == pytest.approx(float(fit.scale), rel=0.05)
    assert vc.component("between_worlds").value == pytest.approx(float(fit.cov_re.iloc[0, 0]), rel=0.35)
    assert vc.component("between_topics").value == pytest.approx(float(fit.vcomp[0]), rel=0.35)


def test_design_effect_balanced_closed_form():
    rng = np.random.default_rng(5)
    d, wl, tl = _simulate(rng, 0.02, 0.01, 0.04, worlds=8, topics=(5, 6), per_topic=(4, 5))
    vc = variance_components(d, wl, tl, n_boot=0)
    s2w, s2t, s2e = (c.value for c in vc.components)
    tot = s2w + s2t + s2e
    assert vc.design_effect == pytest.approx(1 + (20 - 1) * s2w / tot + (4 - 1) * s2t / tot)
    assert vc.effective_n == pytest.approx(len(d) / vc.design_effect)
    assert vc.same_topic_rate == pytest.approx(3 / 19)


def test_variance_components_bootstrap_is_seeded_and_brackets():
    rng = np.random.default_rng(9)
    d, wl, tl = _simulate(rng, 0.02, 0.01, 0.04, worlds=8)
    a = variance_components(d, wl, tl, n_boot=200, seed=1).to_dict()
    b = variance_components(d, wl, tl, n_boot=200, seed=1).to_dict()
    assert a == b
    for c in a["components"].values():
        assert c["se"] > 0 and c["low"] <= c["high"]
    assert math.isclose(sum(c["share"] for c in a["components"].values()), 1.0)


def test_variance_components_refuses_one_world_and_ragged_labels():
    with pytest.raises(InputError, match="2 worlds"):
        variance_components([0.1, 0.2, 0.3], ["w0"] * 3, ["a", "a", "b"])
    with pytest.raises(InputError, match="labels"):
        variance_components([0.1, 0.2], ["w0"], ["a", "b"])


def test_allocation_optimum_matches_brute_force():
    kw = dict(between_worlds=0.002, between_topics=0.01, within_topic=0.05, same_topic_rate=0.1,
              cost_world_s=40.0, cost_query_s=0.05)
    al = allocation(**kw, max_queries=1000)
    b = 0.002 + 0.1 * 0.01
    e = 0.9 * 0.01 + 0.05

    def cost(n):
        return (b + e / n) * (40.0 + 0.05 * n)

    assert al.queries_per_world == min(range(1, 1001), key=cost)
    assert al.n_star == pytest.approx(math.sqrt(40.0 * e / (0.05 * b)))
    assert al.gain_over_full_suite == pytest.approx(cost(1000) / cost(al.queries_per_world))


def test_allocation_caps_at_suite_and_fills_budget():
    al = allocation(0.0001, 0.0, 0.05, 0.0, cost_world_s=60.0, cost_query_s=0.01, max_queries=300, budget_s=480)
    assert al.queries_per_world == 300 and any("capped" in r for r in al.reasons)
    assert al.worlds_per_batch == math.floor(480 / (60 + 3.0))
    none = allocation(0.0, 0.0, 0.05, 0.0, cost_world_s=60.0, cost_query_s=0.01, max_queries=300, target_se=0.01)
    assert none.queries_per_world == 300 and none.n_star is None
    assert none.worlds_per_batch == max(2, math.ceil((0.05 / 300) / 0.01 ** 2))


def test_allocation_refuses_bad_costs():
    with pytest.raises(InputError, match="cost_query_s"):
        allocation(0.01, 0.01, 0.01, 0.1, cost_world_s=10.0, cost_query_s=-1.0, max_queries=300)


def test_world_floor_is_the_raw_sum_truncated_once_and_bracketed():
    rng = np.random.default_rng(21)
    d, wl, tl = _simulate(rng, 0.0, 0.02, 0.05, worlds=6)
    vc = variance_components(d, wl, tl, n_boot=300, seed=2)
    raw_w, raw_t = vc.component("between_worlds").raw, vc.component("between_topics").raw
    assert vc.world_floor == pytest.approx(max(0.0, raw_w + vc.same_topic_rate * max(0.0, raw_t)))
    assert 0.0 <= vc.world_floor_low <= vc.world_floor_high


def test_world_mean_check_agrees_with_the_model_when_the_model_holds():
    from hcrbench.stats.variance_components import world_mean_check

    rng = np.random.default_rng(13)
    obs, mod = [], []
    for _ in range(60):
        d, wl, tl = _simulate(rng, 0.01, 0.02, 0.05, worlds=10)
        chk = world_mean_check(d, wl, tl, variance_components(d, wl, tl, n_boot=0))
        obs.append(chk["observed"])
        mod.append(chk["model"])
    assert np.mean(obs) == pytest.approx(np.mean(mod), rel=0.15)


def test_allocation_reads_a_negative_world_component_as_part_of_b():
    al = allocation(-0.001, 0.02, 0.05, 0.1, cost_world_s=20.0, cost_query_s=0.1, max_queries=300)
    assert al.between == pytest.approx(0.001)
    zero = allocation(-0.01, 0.02, 0.05, 0.1, cost_world_s=20.0, cost_query_s=0.1, max_queries=300)
    assert zero.between == 0.0 and zero.queries_per_world == 300
