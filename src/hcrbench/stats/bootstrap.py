"""Percentile bootstrap confidence intervals for a mean and for a paired mean difference.

Queries are resampled with replacement (the query, not the document, is the unit of sampling), ``n_resamples``
times; the interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of the resampled
means (linear interpolation, as ``numpy.percentile`` and ``scipy.stats.bootstrap(method="percentile")``).
The percentile method assumes the sampling distribution of the mean is roughly symmetric; with very few
queries every CI is unreliable, which the report says rather than hides. Resampling runs in bounded chunks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hcrbench.stats._arrays import (
    as_vector,
    check_probability,
    check_resamples,
    check_seed,
    paired_differences,
)

_CHUNK_ENTRIES = 1 << 21  # resampled indices per chunk


@dataclass(frozen=True)
class ConfidenceInterval:
    """Point estimate (the sample mean) and percentile-bootstrap interval ``[low, high]``."""

    estimate: float
    low: float
    high: float
    confidence: float
    n_resamples: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0

    def to_dict(self) -> dict:
        return {
            "estimate": float(self.estimate),
            "low": float(self.low),
            "high": float(self.high),
            "confidence": float(self.confidence),
            "n_resamples": int(self.n_resamples),
        }


def bootstrap_means(x: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` bootstrap resamples of ``x`` (resampling indices, in chunks)."""
    n = x.size
    out = np.empty(n_resamples)
    chunk = max(1, min(n_resamples, _CHUNK_ENTRIES // n))
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        idx = rng.integers(0, n, size=(rows, n))
        out[start : start + rows] = x[idx].mean(axis=1)
    return out


def _percentile_ci(x: np.ndarray, n_resamples: int, confidence: float, seed: int) -> ConfidenceInterval:
    estimate = float(x.mean())
    if np.all(x == x[0]):  # every resample has the same mean: the interval is the point
        return ConfidenceInterval(estimate, estimate, estimate, confidence, n_resamples)
    means = bootstrap_means(x, n_resamples, np.random.default_rng(seed))
    alpha = 1.0 - confidence
    low, high = np.percentile(means, [100.0 * alpha / 2.0, 100.0 * (1.0 - alpha / 2.0)])
    return ConfidenceInterval(estimate, float(low), float(high), confidence, n_resamples)


def bootstrap_ci(
    x: object, *, n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0
) -> ConfidenceInterval:
    """Percentile bootstrap CI of ``mean(x)`` from ``n_resamples`` resamples drawn with ``seed``."""
    return _percentile_ci(
        as_vector(x, "x"), check_resamples(n_resamples), check_probability(confidence, "confidence"), check_seed(seed)
    )


def paired_bootstrap_ci(
    a: object, b: object, *, n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0
) -> ConfidenceInterval:
    """Percentile bootstrap CI of ``mean(a - b)``, resampling query indices jointly for both systems."""
    return _percentile_ci(
        paired_differences(a, b),
        check_resamples(n_resamples),
        check_probability(confidence, "confidence"),
        check_seed(seed),
    )
