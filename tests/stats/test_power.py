"""Power analysis against statsmodels' TTestPower (paired / one-sample t-test, two-sided)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

from hcrbench.errors import InputError
from hcrbench.stats import minimum_detectable_effect, paired_power, project_ci, required_n


@pytest.mark.parametrize(("effect", "sd"), [(0.02, 0.1), (0.05, 0.2), (0.01, 0.25), (0.3, 0.5), (-0.04, 0.15)])
@pytest.mark.parametrize(("power", "alpha"), [(0.8, 0.05), (0.9, 0.01)])
def test_required_n_equals_ceil_of_statsmodels(effect, sd, power, alpha):
    n_ref = TTestPower().solve_power(effect_size=abs(effect) / sd, alpha=alpha, power=power, alternative="two-sided")
    n = required_n(effect, sd, power=power, alpha=alpha)
    assert n == max(2, math.ceil(n_ref - 1e-9))
    assert paired_power(effect, sd, n, alpha=alpha) >= power > paired_power(effect, sd, n - 1, alpha=alpha) if n > 2 else True


@pytest.mark.parametrize("n", [5, 30, 100, 323, 5000])
@pytest.mark.parametrize("sd", [0.1, 0.3])
def test_mde_equals_statsmodels(n, sd):
    es = TTestPower().solve_power(nobs=n, alpha=0.05, power=0.8, alternative="two-sided")
    mde = minimum_detectable_effect(sd, n)
    # statsmodels' root finder stops a little early (its power is 0.8 only within ~5e-5 at n=5000); ours solves tighter.
    assert mde == pytest.approx(es * sd, rel=1e-4)
    assert paired_power(mde, sd, n) == pytest.approx(0.8, abs=1e-9)


def test_power_equals_statsmodels():
    for es, n in [(0.2, 50), (0.5, 10), (0.05, 1000)]:
        ref = TTestPower().power(effect_size=es, nobs=n, alpha=0.05, alternative="two-sided")
        assert paired_power(es * 0.3, 0.3, n) == pytest.approx(ref, rel=1e-10)


def test_mde_and_required_n_are_inverse():
    for n in (12, 80, 400):
        mde = minimum_detectable_effect(0.2, n)
        assert required_n(mde * 1.0001, 0.2) == n


def test_project_ci_matches_t_interval_and_scales():
    rng = np.random.default_rng(0)
    d = rng.normal(0.02, 0.2, 50)
    sd = d.std(ddof=1)
    pr = project_ci(sd, 50, 800)
    lo, hi = stats.t.interval(0.95, 49, loc=d.mean(), scale=stats.sem(d))
    assert pr.half_width == pytest.approx((hi - lo) / 2, rel=1e-12)
    assert pr.scale == pytest.approx(0.25)
    assert pr.half_width_new == pytest.approx(stats.t.ppf(0.975, 799) * sd / math.sqrt(800), rel=1e-12)
    assert pr.half_width_new < pr.half_width * 0.26  # sqrt(50/800) plus a slightly smaller t quantile


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: required_n(0.0, 0.1), "effect"),
        (lambda: required_n(0.1, 0.0), "sd"),
        (lambda: required_n(0.1, 0.1, power=1.0), "power"),
        (lambda: required_n(0.1, 0.1, power=0.01, alpha=0.05), "power"),
        (lambda: required_n(1e-9, 1.0), "effect"),
        (lambda: minimum_detectable_effect(0.1, 1), "n"),
        (lambda: minimum_detectable_effect(-0.1, 10), "sd"),
        (lambda: project_ci(0.1, 10, 1), "n_new"),
        (lambda: project_ci(0.1, 10, 20, confidence=95), "confidence"),
    ],
)
def test_bad_input(call, field):
    with pytest.raises(InputError) as ei:
        call()
    assert ei.value.field == field
