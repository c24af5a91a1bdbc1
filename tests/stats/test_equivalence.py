"""TOST equivalence test against statsmodels, its degenerate cases, and the no-crash required N."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.weightstats import ttost_paired

from hcrbench.errors import InputError
from hcrbench.stats import format_n, required_n, required_n_or_inf, tost


@pytest.mark.parametrize("seed", range(5))
def test_tost_equals_statsmodels(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(50)
    b = np.clip(a + rng.normal(0.005 * seed, 0.05, 50), 0, 1)
    res = tost(a, b, margin=0.03)
    p, low, high = ttost_paired(a, b, -0.03, 0.03)
    assert res.pvalue == pytest.approx(p, rel=1e-9)
    assert res.p_low == pytest.approx(low[1], rel=1e-9) and res.p_high == pytest.approx(high[1], rel=1e-9)


def test_tost_p_below_alpha_iff_the_1_minus_2alpha_ci_is_inside_the_margin():
    rng = np.random.default_rng(3)
    for _ in range(200):
        d = rng.normal(rng.normal(0, 0.02), 0.1, int(rng.integers(3, 200)))
        r = tost(d, margin=0.02)
        assert r.equivalent() == (r.ci_low > -0.02 and r.ci_high < 0.02)


def test_tost_degenerate():
    z = tost(np.zeros(10), margin=0.01)  # zero spread, inside: known exactly
    assert z.pvalue == 0.0 and z.sd == 0.0
    assert tost(np.full(10, 0.02), margin=0.01).pvalue == 1.0
    assert tost([0.001], margin=0.01).pvalue == 1.0
    with pytest.raises(InputError, match="margin"):
        tost([0.1, 0.2], margin=0)


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False), st.floats(0, 1e6, allow_nan=False))
def test_required_n_or_inf_never_raises_on_finite_input(effect, sd):
    """Finding 3: a tiny but non-zero |delta|/sd made required_n raise and the gate exit 2."""
    n = required_n_or_inf(effect, sd)
    assert n == math.inf or (isinstance(n, int) and n >= 2)
    assert format_n(n)


def test_required_n_or_inf_at_the_crash_point():
    sd = 0.2
    with pytest.raises(InputError):
        required_n(sd * 1e-5, sd)  # the library function still says why, as documented
    assert required_n_or_inf(sd * 1e-5, sd) == math.inf and format_n(math.inf) == "> 10^9"
    assert required_n_or_inf(0.0, sd) == math.inf
    assert required_n_or_inf(0.05, sd) == required_n(0.05, sd)
    assert required_n_or_inf(0.05, 0.0) == 2
