"""Permutation (sign-flip) test against scipy.stats.permutation_test(permutation_type="samples")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from hcrbench.errors import InputError
from hcrbench.stats import permutation_test


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def scipy_perm(a, b, alternative="two-sided", n_resamples=10**9, rng=None):
    return stats.permutation_test(
        (a, b), _mean_diff, permutation_type="samples", vectorized=True,
        n_resamples=n_resamples, alternative=alternative, rng=rng,
    )  # fmt: skip


@pytest.mark.parametrize("n", [2, 3, 5, 8, 11, 14])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_equals_scipy_continuous(n, alternative):
    rng = np.random.default_rng(n)
    a, b = rng.random(n), rng.random(n) * 0.8
    ours = permutation_test(a, b, alternative=alternative)
    ref = scipy_perm(a, b, alternative)
    assert ours.exact
    assert ours.n_resamples == 2**n
    assert ours.pvalue == pytest.approx(float(ref.pvalue), abs=1e-12)
    assert ours.statistic == pytest.approx(float(ref.statistic), abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_exact_equals_scipy_on_tied_metric_values(seed):
    """Metric-like values (many exact ties and zero differences) exercise the tie tolerance."""
    rng = np.random.default_rng(100 + seed)
    n = 13
    grid = np.array([0.0, 1 / 3, 0.5, 2 / 3, 1.0, 0.1, 0.2])
    a, b = rng.choice(grid, n), rng.choice(grid, n)
    b[:3] = a[:3]  # some zero differences
    for alternative in ("two-sided", "greater", "less"):
        ours = permutation_test(a, b, alternative=alternative)
        ref = scipy_perm(a, b, alternative)
        assert ours.pvalue == pytest.approx(float(ref.pvalue), abs=1e-12), alternative


def test_zero_differences_are_dropped_without_changing_p():
    rng = np.random.default_rng(7)
    a, b = rng.random(10), rng.random(10)
    base = permutation_test(a, b)
    pa, pb = np.r_[a, np.full(5, 0.4)], np.r_[b, np.full(5, 0.4)]
    padded = permutation_test(pa, pb)
    assert padded.exact and padded.n_resamples == 2**10
    assert padded.pvalue == pytest.approx(base.pvalue, abs=1e-15)
    # scipy enumerates all 2^15 vectors, zeros included: the same p-value
    assert padded.pvalue == pytest.approx(float(scipy_perm(pa, pb).pvalue), abs=1e-12)


def test_all_zero_differences_give_p_one():
    x = np.array([0.2, 0.5, 0.9])
    r = permutation_test(x, x.copy())
    assert r.pvalue == 1.0 and r.statistic == 0.0
    r = permutation_test(np.r_[x, x, x, x, x, x, x, x], np.r_[x, x, x, x, x, x, x, x], exact_threshold=0)
    assert r.pvalue == 1.0


def test_one_sample_form_is_the_difference():
    rng = np.random.default_rng(3)
    a, b = rng.random(9), rng.random(9)
    assert permutation_test(a - b).pvalue == permutation_test(a, b).pvalue


def test_monte_carlo_close_to_exact():
    """Forced Monte Carlo agrees with the exact p within 4 standard errors of a binomial proportion."""
    rng = np.random.default_rng(11)
    a = rng.random(18)
    b = a - rng.normal(0.08, 0.2, 18)
    exact = permutation_test(a, b)
    assert exact.exact
    B = 20_000
    mc = permutation_test(a, b, exact_threshold=0, n_resamples=B, seed=5)
    assert not mc.exact and mc.n_resamples == B
    se = math.sqrt(exact.pvalue * (1 - exact.pvalue) / B)
    assert abs(mc.pvalue - exact.pvalue) < 4 * se + 1 / B


def test_monte_carlo_close_to_scipy_monte_carlo():
    rng = np.random.default_rng(12)
    n = 300
    a = rng.random(n)
    b = a - rng.normal(0.01, 0.1, n)
    ours = permutation_test(a, b, n_resamples=20_000, seed=1)
    ref = scipy_perm(a, b, n_resamples=20_000, rng=np.random.default_rng(2))
    p = float(ref.pvalue)
    se = math.sqrt(max(p * (1 - p), 1e-4) * 2 / 20_000)  # two independent estimates
    assert abs(ours.pvalue - p) < 4 * se


def test_monte_carlo_correction_floor():
    """A huge effect: no resample is as extreme, so p = 1 / (B + 1) exactly (never 0)."""
    a = np.linspace(0.5, 1.0, 50)
    b = a - 0.3
    r = permutation_test(a, b, n_resamples=999, seed=0)
    assert r.pvalue == pytest.approx(1 / 1000)


def test_deterministic_and_seed_sensitive():
    rng = np.random.default_rng(13)
    a, b = rng.random(100), rng.random(100)
    r1 = permutation_test(a, b, seed=42, n_resamples=2000)
    r2 = permutation_test(a, b, seed=42, n_resamples=2000)
    assert r1 == r2
    others = {permutation_test(a, b, seed=s, n_resamples=2000).pvalue for s in range(5)}
    assert len(others) > 1


def test_chunking_does_not_change_result(monkeypatch):
    import hcrbench.stats.permutation as perm

    rng = np.random.default_rng(14)
    a, b = rng.random(64), rng.random(64)
    whole = permutation_test(a, b, n_resamples=3000, seed=9)
    monkeypatch.setattr(perm, "_CHUNK_ENTRIES", 64 * 7)  # 7 rows per chunk
    chunked = permutation_test(a, b, n_resamples=3000, seed=9)
    assert whole == chunked


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"a": [0.1, 0.2], "b": [0.1]}, "b"),
        ({"a": [], "b": []}, "a"),
        ({"a": [0.1, float("nan")], "b": [0.1, 0.2]}, "a"),
        ({"a": [[0.1]], "b": [[0.2]]}, "a"),
        ({"a": ["x"], "b": [0.2]}, "a"),
        ({"a": [0.1], "b": [0.2], "alternative": "bigger"}, "alternative"),
        ({"a": [0.1], "b": [0.2], "n_resamples": 0}, "n_resamples"),
        ({"a": [0.1], "b": [0.2], "seed": -1}, "seed"),
        ({"a": [0.1], "b": [0.2], "exact_threshold": 99}, "exact_threshold"),
    ],
)
def test_bad_input_is_one_line_input_error(kwargs, field):
    a, b = kwargs.pop("a"), kwargs.pop("b")
    with pytest.raises(InputError) as ei:
        permutation_test(a, b, **kwargs)
    assert ei.value.field == field
    assert "\n" not in str(ei.value) and str(ei.value).startswith(f"{field}: ")


_value = st.sampled_from([0.0, 0.1, 0.25, 1 / 3, 0.5, 0.75, 1.0])  # metric-like: ties and zero differences


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(_value, _value), min_size=1, max_size=40), seed=st.integers(0, 2**32))
def test_properties(pairs, seed):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    r = permutation_test(a, b, n_resamples=500, seed=seed, exact_threshold=12)
    assert 0.0 < r.pvalue <= 1.0
    swapped = permutation_test(b, a, n_resamples=500, seed=seed, exact_threshold=12)
    assert swapped.pvalue == r.pvalue  # two-sided: symmetric in swapping a and b
    assert permutation_test(a, b, n_resamples=500, seed=seed, exact_threshold=12) == r
    g = permutation_test(a, b, n_resamples=500, seed=seed, exact_threshold=12, alternative="greater")
    le = permutation_test(b, a, n_resamples=500, seed=seed, exact_threshold=12, alternative="less")
    assert g.pvalue == le.pvalue
    if r.exact:  # exact: the two one-sided p-values cover the distribution (with the tie mass counted twice)
        lo = permutation_test(a, b, exact_threshold=12, alternative="less")
        assert g.pvalue + lo.pvalue >= 1.0 - 1e-12


def test_single_pair():
    """One non-zero difference: the two sign vectors are equally extreme (two-sided p = 1; one-sided 1/2)."""
    assert permutation_test([0.7], [0.2]).pvalue == 1.0
    assert permutation_test([0.7], [0.2], alternative="greater").pvalue == 0.5
    assert permutation_test([0.7], [0.2], alternative="less").pvalue == 1.0


def test_exact_beyond_default_threshold_agrees_with_monte_carlo():
    """Meet-in-the-middle enumeration of 2^26 sign vectors (2 x 2^13 memory) against 20,000 random flips."""
    rng = np.random.default_rng(16)
    a = rng.random(26)
    b = a - rng.normal(0.05, 0.25, 26)
    exact = permutation_test(a, b, exact_threshold=26)
    assert exact.exact and exact.n_resamples == 2**26
    mc = permutation_test(a, b, n_resamples=20_000, seed=3)
    assert not mc.exact
    se = math.sqrt(exact.pvalue * (1 - exact.pvalue) / 20_000)
    assert abs(mc.pvalue - exact.pvalue) < 4 * se + 1 / 20_000
