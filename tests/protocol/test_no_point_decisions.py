"""No verdict cell is decided by a point estimate (issue #33, "Done when"): for every rule in the registry, inputs
whose point estimate lies past a threshold while the interval the rule decides on reaches it get "not decidable"
(hypothesis, few examples each). A rule added to the registry without a case here fails
:func:`test_every_registered_rule_has_a_point_past_threshold_case`."""

from __future__ import annotations

import math
from collections.abc import Callable

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hcrbench.protocol import checkpoints as cp
from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import (
    EASY_EPS_MAX,
    FAIL_CONCERN,
    FAIL_OK,
    H1A_MIN_RATE,
    H1A_SOFT,
    H1B_ENTITY,
    H1B_OVER_RERANK,
    H1B_OVER_SINGLE,
    H1C_GO_R,
    H1C_KILL_R,
    KILL_MARGIN,
    TREE_SANITY_MIN,
    UNDECIDABLE,
    fisher_ci,
    pearson,
    wilson,
)

EX = settings(max_examples=25, deadline=None)
frac = st.floats(0.02, 0.98, allow_nan=False)
width = st.floats(0.005, 0.5, allow_nan=False)
side = st.sampled_from((-1.0, 1.0))


def _straddle(threshold: float, w: float, f: float, s: float) -> tuple[float, float, float]:
    """A point past ``threshold`` on side ``s`` and an interval of half-width ``w`` around it that still reaches
    the threshold: ``(point, low, high)``."""
    point = threshold + s * f * w
    return point, point - w, point + w


def _near(n: int, rate: float) -> st.SearchStrategy[int]:
    """Counts out of ``n`` within about 1.5 binomial sd of ``rate``: where a Wilson interval reaches it."""
    sd = math.sqrt(n * rate * (1 - rate))
    return st.integers(max(0, math.floor(n * rate - 1.5 * sd)), min(n, math.ceil(n * rate + 1.5 * sd)))


def _verdict(row: dict) -> str:
    return row.get("status", row.get("verdict"))


CASES: dict[str, Callable[..., None]] = {}


def case(rule_id: str):
    def wrap(fn):
        CASES[rule_id] = fn
        return fn
    return wrap


@case("tree_sanity")
@given(st.integers(2, 2000), st.floats(0.01, 0.5), frac, side)
@EX
def test_tree_sanity_point_past_its_threshold_is_not_decided(n, sd, f, s):
    h = 1.959963984540054 * sd / math.sqrt(n)
    mean = TREE_SANITY_MIN + s * f * h
    assert _verdict(cp.tree_sanity(mean, sd, n)) == UNDECIDABLE


@case("easy_routing")
@given(st.integers(5, 600), st.data())
@EX
def test_easy_routing_point_past_its_threshold_is_not_decided(n, data):
    k = data.draw(_near(n, EASY_EPS_MAX))
    lo, hi = wilson(k, n)
    assume(lo <= EASY_EPS_MAX <= hi and k / n != EASY_EPS_MAX)
    assert _verdict(cp.easy_routing([k / n], [n], n)) == UNDECIDABLE


@case("vs_kill_baseline")
@given(width, frac, side, st.integers(2, 2000))
@EX
def test_the_margin_checkpoint_point_past_its_threshold_is_not_decided(w, f, s, n):
    d, lo, hi = _straddle(-KILL_MARGIN, w, f, s)
    assert _verdict(cp.kill_baseline_margin(d, lo, hi, n)) == UNDECIDABLE


@case("token_efficiency")
@given(width, frac, side, st.integers(2, 2000))
@EX
def test_token_efficiency_point_past_its_threshold_is_not_decided(w, f, s, n):
    d, lo, hi = _straddle(0.0, w, f, s)
    assert _verdict(cp.token_efficiency(d, lo, hi, n, 0.5 + d / 2, 0.5 - d / 2)) == UNDECIDABLE


@case("H1a")
@given(width, frac, side, st.integers(20, 2000), st.data())
@EX
def test_h1a_point_past_its_threshold_is_not_decided(w, f, s, n, data):
    gap, lo, hi = _straddle(-H1A_SOFT, w, f, s)
    # the rate clause open too (its Wilson interval reaches 55%): nothing else decides the row
    k = data.draw(_near(n, H1A_MIN_RATE))
    wl, wh = wilson(k, n)
    assume(wl <= H1A_MIN_RATE <= wh)
    h = k / n
    assume(0 <= h - gap <= 1)
    assert _verdict(hy.h1a(h, h - gap, None, lo, hi, n, 0.0, n)) == UNDECIDABLE


@case("H1b")
@given(st.lists(st.tuples(width, frac, side), min_size=3, max_size=3), st.integers(10, 2000))
@EX
def test_h1b_point_past_its_margins_is_not_decided(draws, n):
    clauses = []
    for (w, f, s), margin in zip(draws, (H1B_OVER_SINGLE, H1B_OVER_RERANK, H1B_ENTITY)):
        # an interval that reaches both 0 and the clause's margin; the point past one of them
        w = max(w, margin + 0.01)
        point = (margin + f * w) if s > 0 else -f * w
        lo, hi = min(point - w, -1e-3), max(point + w, margin + 1e-3)
        clauses.append({"delta": point, "ci_low": lo, "ci_high": hi, "p_holm": 0.001, "d": 1.0, "n": n})
    row = hy.h1b({"beam-only": clauses[0]}, clauses[1], clauses[2])
    assert _verdict(row) == UNDECIDABLE


@case("H1c")
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=4, max_size=9, unique_by=lambda t: round(t[0], 3)))
@EX
def test_h1c_point_past_a_band_is_not_decided(points):
    acc, nd = [p[0] for p in points], [p[1] for p in points]
    from hcrbench.protocol.hypotheses import distinct_conditions

    _c, a2, n2 = distinct_conditions([f"c{i}" for i in range(len(acc))], acc, nd)
    r = pearson(a2, n2)
    assume(r is not None and len(a2) >= 4)
    lo, hi = fisher_ci(r, len(a2))
    assume(lo <= H1C_GO_R <= hi or lo <= H1C_KILL_R <= hi)
    assert _verdict(hy.h1c(acc, nd)) == UNDECIDABLE


@case("failure_rate")
@given(st.integers(5, 800), st.data())
@EX
def test_the_failure_rate_point_past_a_threshold_is_not_decided(n, data):
    k = data.draw(_near(n, data.draw(st.sampled_from((FAIL_OK, FAIL_CONCERN)))))
    lo, hi = wilson(k, n)
    assume(lo <= FAIL_OK <= hi or lo <= FAIL_CONCERN <= hi)
    assert _verdict(hy.failure_rate(k / n, n, oracle_failure=0.0)) == UNDECIDABLE


@case("corpus_size")
@given(width, frac, side, st.integers(2, 500))
@EX
def test_the_corpus_size_point_past_zero_is_not_decided(w, f, s, n):
    d, lo, hi = _straddle(0.0, w, f, s)
    point = {"size": "medium", "delta": d, "subset": {"delta": d, "p": 0.001, "ci_low": lo, "ci_high": hi, "n": n}}
    assert _verdict(hy.corpus_size([point])) == UNDECIDABLE


@case("kill")
@given(width, frac, side, st.integers(2, 2000), st.floats(0.0, 0.049))
@EX
def test_the_kill_point_past_zero_is_not_decided_even_with_a_small_p(w, f, s, n, p):
    d, lo, hi = _straddle(0.0, w, f, s)
    assert _verdict(hy.single_kill(d, p, lo, hi, 2.0 * s, n=n, full_size=True)) == UNDECIDABLE


def test_every_registered_rule_has_a_point_past_threshold_case():
    assert set(reg.REGISTRY) <= set(CASES), sorted(set(reg.REGISTRY) - set(CASES))


def test_h1b_names_the_clause_that_decided_it():
    ok = {"delta": 0.2, "ci_low": 0.1, "ci_high": 0.3, "p_holm": 0.001, "d": 1.0, "n": 80}
    short = {"delta": 0.01, "ci_low": -0.01, "ci_high": 0.02, "p_holm": 0.5, "d": 0.1, "n": 80}
    nogo = hy.h1b({"beam-only": short}, ok, ok)
    assert _verdict(nogo) == "no-go" and nogo["evidence"]["decided_by"] == "vs beam-only"
    assert "decided by vs beam-only" in nogo["text"]
    rerank_short = {"delta": 0.02, "ci_low": 0.01, "ci_high": 0.04, "p_holm": 0.01, "d": 0.3, "n": 80}
    soft = hy.h1b({"beam-only": ok}, rerank_short, ok)
    assert _verdict(soft) == "soft no-go" and soft["evidence"]["decided_by"] == "vs flat + reranker"
    go = hy.h1b({"beam-only": ok}, ok, ok)
    assert _verdict(go) == "go" and go["evidence"]["decided_by"] == "every clause"
