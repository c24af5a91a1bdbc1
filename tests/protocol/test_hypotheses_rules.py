"""The design's decision rules on hand-made numbers: every boundary of every checkpoint and hypothesis."""

from __future__ import annotations

import pytest

from hcrbench.protocol import rules as hy


@pytest.mark.parametrize("value, status", [(0.15, "pass"), (0.1499, "kill"), (0.6, "pass"), (None, "not run"),
                                           (float("nan"), "not run")])
def test_tree_sanity_boundary(value, status):
    c = hy.tree_sanity(value)
    assert c["status"] == status and c["threshold"] == 0.15 and c["id"] == "tree_sanity"
    if status == "not run":
        assert c["value"] is None and c["text"].startswith("not run:")


@pytest.mark.parametrize("eps, status", [([0.0, 0.10, 0.05], "pass"), ([0.0, 0.1001, 0.0], "kill"),
                                         ([0.2], "kill"), ([], "not run"), (None, "not run")])
def test_easy_routing_every_level_must_hold(eps, status):
    c = hy.easy_routing(eps, n_queries=12)
    assert c["status"] == status
    if eps:
        assert c["value"] == max(eps)


def test_easy_routing_without_queries_is_not_run():
    assert hy.easy_routing([0.0], n_queries=0, why_missing="3 queries")["text"] == "not run: 3 queries"


@pytest.mark.parametrize("delta, status", [(-0.02, "pass"), (-0.0201, "kill"), (0.05, "pass"), (None, "not run")])
def test_kill_baseline_margin_boundary(delta, status):
    assert hy.kill_baseline_margin(delta)["status"] == status


@pytest.mark.parametrize("hcr, flat, status", [(0.51, 0.50, "pass"), (0.50, 0.50, "kill"), (0.4, 0.5, "kill"),
                                               (None, 0.5, "not run"), (0.5, None, "not run")])
def test_token_efficiency_needs_hcr_to_beat_flat(hcr, flat, status):
    assert hy.token_efficiency(hcr, flat)["status"] == status


@pytest.mark.parametrize("hcr, rerank, flat600, verdict", [
    (0.60, 0.58, 0.59, "go"),             # >= rerank, >= 55%, >= flat@600
    (0.55, 0.55, 0.55, "go"),             # every bound met with equality
    (0.5499, 0.50, 0.50, "soft no-go"),   # just under 55%
    (0.60, 0.58, 0.61, "soft no-go"),     # below flat@600
    (0.56, 0.61, 0.50, "soft no-go"),     # 0.05 below flat + reranker: within 5 points
    (0.56, 0.6101, 0.50, "kill"),         # worse by more than 5 points
    (0.60, 0.58, None, "inconclusive"),   # flat@600 not run, the rest met
    (None, 0.58, 0.59, "not run"),
])
def test_h1a_boundaries(hcr, rerank, flat600, verdict):
    h = hy.h1a(hcr, rerank, flat600)
    assert h["verdict"] == verdict and h["id"] == "H1a"
    assert h["evidence"]["hcr@400"] == hcr


def test_h1b_go_needs_every_improvement_significant_and_large():
    go = hy.h1b(0.03, 0.01, 0.3, 0.05, 0.049, 0.31, 0.08)
    assert go["verdict"] == "go"
    assert hy.h1b(0.0299, 0.01, 0.3, 0.05, 0.01, 0.31, 0.08)["verdict"] == "soft no-go"   # +0.03 over single
    assert hy.h1b(0.03, 0.05, 0.3, 0.05, 0.01, 0.31, 0.08)["verdict"] == "soft no-go"     # p not < 0.05
    assert hy.h1b(0.03, 0.01, 0.2999, 0.05, 0.01, 0.31, 0.08)["verdict"] == "soft no-go"  # d < 0.3
    assert hy.h1b(0.03, 0.01, 0.3, 0.0499, 0.01, 0.31, 0.08)["verdict"] == "soft no-go"   # +0.05 over rerank
    assert hy.h1b(0.03, 0.01, 0.3, 0.05, 0.01, 0.31, 0.0799)["verdict"] == "soft no-go"   # entity-spanning
    assert hy.h1b(0.03, 0.01, 0.3, 0.05, 0.01, 0.31, None)["verdict"] == "soft no-go"     # entity not run
    assert hy.h1b(0.0, 0.9, 0.0, 0.05, 0.01, 0.31, 0.08)["verdict"] == "no-go"            # dual no better
    assert hy.h1b(None, None, None, 0.05, 0.01, 0.31, 0.08)["verdict"] == "not run"


def test_pearson_matches_numpy_and_refuses_degenerate_input():
    import numpy as np

    x, y = [0.1, 0.5, 0.7, 0.9], [0.2, 0.3, 0.8, 0.7]
    assert hy.pearson(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert hy.pearson([1.0, 1.0], [0.0, 1.0]) is None and hy.pearson([1.0], [1.0]) is None


def _xy(r_target):
    """Three conditions whose Pearson r is ``r_target``: y = r x + sqrt(1 - r^2) z, with x and z orthonormal and
    both orthogonal to the constant."""
    import math

    x = [-1 / math.sqrt(2), 0.0, 1 / math.sqrt(2)]
    z = [1 / math.sqrt(6), -2 / math.sqrt(6), 1 / math.sqrt(6)]
    return x, [r_target * a + math.sqrt(1 - r_target ** 2) * b for a, b in zip(x, z)]


@pytest.mark.parametrize("r, verdict", [(0.7001, "go"), (0.6999, "soft no-go"), (0.3001, "soft no-go"),
                                        (0.2999, "kill"), (-0.5, "kill")])
def test_h1c_correlation_boundaries(r, verdict):
    x, y = _xy(r)
    h = hy.h1c(x, y)
    assert h["evidence"]["pearson_r"] == pytest.approx(r)
    assert h["verdict"] == verdict


def test_h1c_go_drops_to_soft_when_links_or_the_model_fail():
    x, y = _xy(0.9)
    assert hy.h1c(x, y, links_gain=0.15, observed=0.88, predicted=0.80)["verdict"] == "go"     # 10% off: holds
    assert hy.h1c(x, y, links_gain=0.1499)["verdict"] == "soft no-go"
    assert hy.h1c(x, y, observed=0.70, predicted=0.80)["verdict"] == "soft no-go"             # 12.5% off
    assert hy.h1c(x[:2], y[:2])["verdict"] == "not run"                                       # 2 conditions
    assert "needs >= 3" in hy.h1c(x[:2], y[:2])["text"]


@pytest.mark.parametrize("rate, verdict", [(0.05, "go"), (0.10, "go"), (0.20, "go"), (0.2001, "soft no-go"),
                                           (0.30, "soft no-go"), (0.3001, "kill"), (None, "not run")])
def test_failure_rate_bands(rate, verdict):
    assert hy.failure_rate(rate, n=40)["verdict"] == verdict


def test_corpus_size_needs_two_sizes_and_judges_the_trend():
    pts = lambda a, b: [{"size": "small", "delta": a}, {"size": "full", "delta": b}]  # noqa: E731
    assert hy.corpus_size(None)["verdict"] == "not run"
    assert hy.corpus_size(pts(0.01, None))["verdict"] == "not run"
    assert hy.corpus_size(pts(0.01, 0.01))["verdict"] == "go"
    assert hy.corpus_size(pts(0.01, -0.01))["verdict"] == "soft no-go"     # down by exactly 0.02
    assert hy.corpus_size(pts(0.01, -0.0101))["verdict"] == "no-go"


def test_single_kill_criterion():
    kill = hy.single_kill(-0.04, 0.003, -0.5, size="full", full_size=True, baseline="rerank")
    assert kill["verdict"] == "kill"
    assert kill["text"] == "HCR loses to rerank by 0.040 nDCG@10 (p = 0.003): kill"
    assert hy.single_kill(-0.04, 0.05, -0.5)["verdict"] == "inconclusive"          # p not < 0.05
    assert hy.single_kill(0.04, 0.01, 0.3)["verdict"] == "go"                       # claimed: d >= 0.3
    assert hy.single_kill(0.04, 0.01, 0.2999)["verdict"] == "inconclusive"          # d too small to claim
    assert "full size was not run" in hy.single_kill(-0.04, 0.003, size="small", full_size=False)["text"]
    assert hy.single_kill(None, None)["verdict"] == "not run"


def test_overall_is_the_worst_verdict_that_ran():
    ok = [hy.tree_sanity(0.5)]
    go = hy.single_kill(0.04, 0.01, 0.5)
    assert hy.overall(ok, [go]) == "go"
    assert hy.overall(ok, [go, hy.failure_rate(0.25)]) == "soft no-go"
    assert hy.overall(ok, [go, hy.corpus_size([{"size": "a", "delta": 0.1}, {"size": "b", "delta": 0.0}])]) == "no-go"
    assert hy.overall([hy.tree_sanity(0.1)], [go]) == "kill"                        # a checkpoint kill
    assert hy.overall(ok, [hy.corpus_size(None)]) == "inconclusive"                 # nothing but checkpoints ran
