"""Paired t-test against scipy.stats.ttest_rel; Cohen's d for paired data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from hcrbench.errors import InputError
from hcrbench.stats import cohens_d_paired, paired_ttest


@pytest.mark.parametrize("n", [2, 3, 10, 57, 1000])
def test_ttest_equals_scipy(n):
    rng = np.random.default_rng(n)
    a = rng.random(n)
    b = a - rng.normal(0.02, 0.15, n)
    ours = paired_ttest(a, b)
    ref = stats.ttest_rel(a, b)
    assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
    assert ours.pvalue == pytest.approx(float(ref.pvalue), rel=1e-10, abs=1e-300)
    assert ours.df == n - 1


def test_ttest_degenerate_cases_are_defined():
    x = np.array([0.1, 0.4, 0.7])
    assert paired_ttest(x, x.copy()).pvalue == 1.0  # scipy: nan
    r = paired_ttest(x + 0.1, x)  # identical non-zero differences (up to rounding)
    assert r.pvalue == 0.0 and r.statistic == math.inf
    assert paired_ttest(x - 0.1, x).statistic == -math.inf
    one = paired_ttest([0.3], [0.1])
    assert math.isnan(one.pvalue) and one.df == 0


def test_ttest_bad_input():
    with pytest.raises(InputError, match="differ in length"):
        paired_ttest([0.1, 0.2], [0.1, 0.2, 0.3])


@pytest.mark.parametrize("n", [2, 5, 40])
def test_cohens_d_matches_definition_and_t(n):
    rng = np.random.default_rng(n + 1)
    a, b = rng.random(n), rng.random(n)
    d = a - b
    expected = d.mean() / d.std(ddof=1)
    assert cohens_d_paired(a, b) == pytest.approx(expected, rel=1e-12)
    # d_z * sqrt(n) is exactly the paired t statistic
    assert cohens_d_paired(a, b) * math.sqrt(n) == pytest.approx(float(stats.ttest_rel(a, b).statistic), rel=1e-10)
    assert cohens_d_paired(b, a) == pytest.approx(-expected, rel=1e-12)


def test_cohens_d_degenerate_cases():
    x = np.array([0.2, 0.5, 0.9])
    assert cohens_d_paired(x, x.copy()) == 0.0
    assert cohens_d_paired(x + 0.25, x) == math.inf
    assert cohens_d_paired(x - 0.25, x) == -math.inf
    assert math.isnan(cohens_d_paired([1.0], [0.0]))
