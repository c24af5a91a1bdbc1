"""Bootstrap and t confidence intervals for a mean and for a paired mean difference.

Queries are resampled with replacement (the query, not the document, is the unit of sampling), ``n_resamples``
times; the interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of the resampled
means (linear interpolation, as ``numpy.percentile`` and ``scipy.stats.bootstrap(method="percentile")``).
The percentile method assumes the sampling distribution of the mean is roughly symmetric and under-covers at
small n on sparse, skewed per-query differences (0.80 at n = 20 on SciFact). Measured on real SciFact and
NFCorpus differences, the paired Student t interval covers best below 300 queries (BCa, bias-corrected and
accelerated, Efron 1987, under-covers there: its jackknife acceleration is erratic when few queries differ), and
all three agree from ~300. :func:`paired_ci` therefore picks automatically (``method="auto"``): t below
``T_BELOW`` queries, BCa from there on, and names the method it used. Coverage on real per-query data is in
docs/statistics.md (``benchmarks/verdict_calibration.py``). Resampling runs in bounded chunks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hcrbench.data.display import ResultDisplay
from hcrbench.errors import InputError
from hcrbench.stats._arrays import (
    as_vector,
    check_probability,
    check_resamples,
    check_seed,
    paired_differences,
)

_CHUNK_ENTRIES = 1 << 21  # resampled indices per chunk
METHODS = ("auto", "percentile", "bca", "t")
T_BELOW = 300  # method="auto": paired t below this many queries, BCa from here (coverage: docs/statistics.md)


@dataclass(frozen=True)
class ConfidenceInterval(ResultDisplay):
    """Point estimate (the sample mean) and interval ``[low, high]``; ``method`` names how it was computed
    (``percentile``, ``bca`` or ``t``)."""

    estimate: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    method: str = "percentile"

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
            "method": self.method,
        }


def bootstrap_means(x: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` bootstrap resamples of ``x`` (resampling indices, in chunks).

    The indices are drawn as 32-bit integers: numpy draws a bounded integer below 2^32 by the same Lemire
    rejection on the same 32-bit words whatever the output width, so the indices (and the generator's state
    after) are those of the default 64-bit draw, at half the memory traffic. A 0/1 sample (a rate) is counted
    instead of summed: its resampled sums are exact integers either way, so ``count / n`` is bit for bit the
    mean the float sum gives (tests)."""
    n = x.size
    out = np.empty(n_resamples)
    chunk = max(1, min(n_resamples, _CHUNK_ENTRIES // n))
    dtype = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    ones = x == 1.0
    binary = bool(np.all(ones | (x == 0.0))) and not bool(np.signbit(x).any())  # -0.0 sums to -0.0, not 0
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        idx = rng.integers(0, n, size=(rows, n), dtype=dtype)
        if binary:
            out[start : start + rows] = np.count_nonzero(ones[idx], axis=1) / n
        else:
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


def _bca_ci(x: np.ndarray, n_resamples: int, confidence: float, seed: int) -> ConfidenceInterval:
    """BCa interval of the mean: percentiles shifted by the bias correction z0 and the jackknife acceleration a.

    Same resamples as the percentile interval for the same seed; equals ``scipy.stats.bootstrap(method="BCa")``
    up to Monte Carlo error (tests).
    """
    estimate = float(x.mean())
    n = x.size
    if n < 2 or np.all(x == x[0]):
        return ConfidenceInterval(estimate, estimate, estimate, confidence, n_resamples, "bca")
    means = bootstrap_means(x, n_resamples, np.random.default_rng(seed))
    # bias correction: share of resampled means below the estimate (ties count half, as scipy does not; the
    # difference is O(1/B) and only matters on lattice data)
    below = (np.count_nonzero(means < estimate) + 0.5 * np.count_nonzero(means == estimate)) / n_resamples
    below = min(max(below, 0.5 / n_resamples), 1.0 - 0.5 / n_resamples)
    from scipy import special  # here, not at import: `hcrbench evaluate` of one run never needs scipy
    from scipy import stats as _st

    z0 = float(_st.norm.ppf(below))
    jack = (x.sum() - x) / (n - 1)  # leave-one-out means
    dev = jack.mean() - jack
    den = float((dev**2).sum())
    a = float((dev**3).sum() / (6.0 * den**1.5)) if den > 0 else 0.0
    alpha = 1.0 - confidence
    qs = []
    for z_a in (_st.norm.ppf(alpha / 2.0), _st.norm.ppf(1.0 - alpha / 2.0)):
        num = z0 + z_a
        qs.append(float(special.ndtr(z0 + num / (1.0 - a * num))))
    low, high = np.percentile(means, [100.0 * qs[0], 100.0 * qs[1]])
    return ConfidenceInterval(estimate, float(low), float(high), confidence, n_resamples, "bca")


def _t_ci(x: np.ndarray, n_resamples: int, confidence: float) -> ConfidenceInterval:
    """Student t interval ``mean ± t_{(1+c)/2, n-1} · sd / sqrt(n)`` (the paired-t interval on differences)."""
    estimate = float(x.mean())
    n = x.size
    if n < 2:
        return ConfidenceInterval(estimate, -math.inf, math.inf, confidence, n_resamples, "t")
    if np.all(x == x[0]):  # zero spread: the mean is known exactly
        return ConfidenceInterval(estimate, estimate, estimate, confidence, n_resamples, "t")
    from scipy import stats as _st

    half = float(_st.t.ppf((1.0 + confidence) / 2.0, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return ConfidenceInterval(estimate, estimate - half, estimate + half, confidence, n_resamples, "t")


def choose_method(n: int, method: str = "auto") -> str:
    """The interval ``method="auto"`` uses for ``n`` values: ``t`` below :data:`T_BELOW`, else ``bca``."""
    if method not in METHODS:
        raise InputError(f"must be one of {', '.join(METHODS)}; got {method!r}", field="ci_method")
    if method != "auto":
        return method
    return "t" if n < T_BELOW else "bca"


def mean_ci(
    x: object, *, method: str = "auto", n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0
) -> ConfidenceInterval:
    """CI of ``mean(x)`` by ``method``: ``auto`` (t below T_BELOW values, else BCa), ``percentile``, ``bca``, ``t``."""
    v = as_vector(x, "x")
    n_resamples = check_resamples(n_resamples)
    confidence = check_probability(confidence, "confidence")
    seed = check_seed(seed)
    m = choose_method(v.size, method)
    if m == "t":
        return _t_ci(v, n_resamples, confidence)
    if m == "bca":
        return _bca_ci(v, n_resamples, confidence, seed)
    return _percentile_ci(v, n_resamples, confidence, seed)


def paired_ci(
    a: object, b: object, *, method: str = "auto", n_resamples: int = 10_000, confidence: float = 0.95,
    seed: int = 0,
) -> ConfidenceInterval:
    """CI of ``mean(a - b)`` (queries resampled jointly) by ``method``; see :func:`mean_ci`."""
    return mean_ci(paired_differences(a, b), method=method, n_resamples=n_resamples, confidence=confidence,
                   seed=seed)
