"""Percentile bootstrap CIs against scipy.stats.bootstrap(method="percentile") within Monte Carlo error."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from hcrbench.errors import InputError
from hcrbench.stats import bootstrap_ci, paired_bootstrap_ci


def mc_tolerance(se: float, confidence: float, n_resamples: int = 10_000) -> float:
    """4 standard deviations of the difference of two independent MC estimates of the tail percentile.

    The sample q-quantile of B draws has sd ≈ sqrt(q(1-q)/B) / f(x_q); the bootstrap distribution of a mean
    is close to normal with sd = se, so f(x_q) = φ(z_q) / se.
    """
    q = (1 - confidence) / 2
    sd_one = np.sqrt(q * (1 - q) / n_resamples) / stats.norm.pdf(stats.norm.ppf(q)) * se
    return 4 * np.sqrt(2) * sd_one


@pytest.mark.parametrize(("n", "confidence"), [(30, 0.95), (200, 0.95), (200, 0.9), (1000, 0.99)])
def test_bootstrap_ci_matches_scipy_within_mc_error(n, confidence):
    rng = np.random.default_rng(n)
    x = rng.beta(0.7, 1.5, n)  # skewed, like per-query metric values
    ours = bootstrap_ci(x, n_resamples=10_000, confidence=confidence, seed=3)
    ref = stats.bootstrap((x,), np.mean, method="percentile", n_resamples=10_000,
                          confidence_level=confidence, rng=np.random.default_rng(4)).confidence_interval  # fmt: skip
    se = x.std(ddof=1) / np.sqrt(n)
    tol = mc_tolerance(se, confidence)
    assert tol < 0.3 * se  # the check is tight relative to the CI itself
    assert abs(ours.low - ref.low) < tol
    assert abs(ours.high - ref.high) < tol
    assert ours.low < ours.estimate < ours.high
    assert ours.estimate == pytest.approx(x.mean())


def test_paired_bootstrap_is_bootstrap_of_differences_and_matches_scipy_paired():
    rng = np.random.default_rng(21)
    a = rng.random(150)
    b = a - rng.normal(0.03, 0.2, 150)
    ours = paired_bootstrap_ci(a, b, seed=8)
    assert ours == bootstrap_ci(a - b, seed=8)
    ref = stats.bootstrap((a, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis), paired=True,
                          method="percentile", n_resamples=10_000, rng=np.random.default_rng(1)).confidence_interval  # fmt: skip
    se = (a - b).std(ddof=1) / np.sqrt(a.size)
    assert abs(ours.low - ref.low) < mc_tolerance(se, 0.95)
    assert abs(ours.high - ref.high) < mc_tolerance(se, 0.95)


def test_percentiles_are_numpy_linear_of_the_resampled_means():
    """Same resampled means (same generator), same percentile rule: identical numbers."""
    from hcrbench.stats.bootstrap import bootstrap_means

    x = np.random.default_rng(2).random(40)
    means = bootstrap_means(x, 2000, np.random.default_rng(77))
    ci = bootstrap_ci(x, n_resamples=2000, seed=77, confidence=0.9)
    assert (ci.low, ci.high) == tuple(np.percentile(means, [5.0, 95.0]))


def test_deterministic_chunked_and_seeded(monkeypatch):
    import hcrbench.stats.bootstrap as boot

    x = np.random.default_rng(5).random(300)
    r1 = bootstrap_ci(x, seed=11, n_resamples=3000)
    assert r1 == bootstrap_ci(x, seed=11, n_resamples=3000)
    assert r1 != bootstrap_ci(x, seed=12, n_resamples=3000)
    monkeypatch.setattr(boot, "_CHUNK_ENTRIES", 300 * 13)
    assert bootstrap_ci(x, seed=11, n_resamples=3000) == r1


def test_constant_and_single_value():
    ci = bootstrap_ci([0.5, 0.5, 0.5])
    assert (ci.low, ci.estimate, ci.high) == (0.5, 0.5, 0.5)
    ci = paired_bootstrap_ci([0.7], [0.2])
    assert ci.low == ci.high == pytest.approx(0.5)


def test_coverage_near_nominal():
    """Across 200 samples from a known distribution the 90% CI covers the true mean about 90% of the time."""
    rng = np.random.default_rng(99)
    hits = 0
    for i in range(200):
        x = rng.normal(0.3, 1.0, 60)
        ci = bootstrap_ci(x, n_resamples=1000, confidence=0.9, seed=i)
        hits += ci.low <= 0.3 <= ci.high
    assert 0.82 <= hits / 200 <= 0.96  # binomial sd ≈ 0.021; the percentile method under-covers slightly


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: bootstrap_ci([]), "x"),
        (lambda: bootstrap_ci([0.1, float("inf")]), "x"),
        (lambda: bootstrap_ci([0.1, 0.2], confidence=1.5), "confidence"),
        (lambda: bootstrap_ci([0.1, 0.2], n_resamples=-3), "n_resamples"),
        (lambda: paired_bootstrap_ci([0.1, 0.2], [0.1]), "b"),
    ],
)
def test_bad_input(call, field):
    with pytest.raises(InputError) as ei:
        call()
    assert ei.value.field == field


@pytest.mark.parametrize(("n", "n_resamples", "seed"), [(30, 10_000, 1), (77, 999, 4), (1000, 10_000, 3)])
def test_same_generator_seed_gives_scipys_interval(n, n_resamples, seed):
    """scipy draws its resample indices as ``rng.integers(0, n, (B, n))`` too, so with the same seed both
    resample the same queries and the intervals agree to rounding (a stricter check than the MC tolerance;
    if a scipy release changes its drawing scheme, only this test needs revisiting)."""
    x = np.random.default_rng(n).random(n)
    ref = stats.bootstrap((x,), np.mean, method="percentile", n_resamples=n_resamples,
                          rng=np.random.default_rng(seed)).confidence_interval  # fmt: skip
    ours = bootstrap_ci(x, n_resamples=n_resamples, seed=seed)
    assert ours.low == pytest.approx(float(ref.low), abs=1e-12)
    assert ours.high == pytest.approx(float(ref.high), abs=1e-12)
