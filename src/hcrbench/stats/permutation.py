"""Paired permutation (sign-flip) test.

Under the null hypothesis "system A and system B are exchangeable on every query", the sign of each per-query
difference ``a_i - b_i`` is a fair coin. The test statistic is the mean difference; its null distribution is
the mean over all ``2^n`` sign vectors. For ``n`` non-zero differences up to ``exact_threshold`` every sign
vector is enumerated (meet-in-the-middle: two half enumerations and a sorted search, so memory stays at
``2^(n/2)`` floats); above it ``n_resamples`` random sign vectors are drawn in bounded chunks and the p-value
carries the ``(b + 1) / (B + 1)`` correction, which is never zero and is a valid p-value (Phipson & Smyth 2010).

Zero differences do not change under a sign flip, so they are dropped from the enumeration: the p-value is
exactly the one over all ``2^n`` vectors (each distinct value repeats ``2^zeros`` times). This is the same
null distribution as ``scipy.stats.permutation_test(..., permutation_type="samples")`` on a paired mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hcrbench.data.display import ResultDisplay
from hcrbench.errors import InputError
from hcrbench.stats._arrays import check_resamples, check_seed, paired_differences

ALTERNATIVES = ("two-sided", "greater", "less")
MAX_EXACT = 40  # 2^20 floats per half: the most exact enumeration we allow
_CHUNK_ENTRIES = 1 << 21  # sign bits per Monte Carlo chunk (≈ 16 MB as float64)


@dataclass(frozen=True)
class TestResult(ResultDisplay):
    """Outcome of a paired test: the statistic (mean difference), the p-value, and how it was obtained."""

    __test__ = False  # not a pytest class

    statistic: float
    pvalue: float
    n_resamples: int  # sign vectors enumerated (exact) or drawn (Monte Carlo)
    exact: bool

    def to_dict(self) -> dict:
        return {
            "statistic": float(self.statistic),
            "pvalue": float(self.pvalue),
            "n_resamples": int(self.n_resamples),
            "exact": bool(self.exact),
        }


def _all_sign_sums(x: np.ndarray) -> np.ndarray:
    """Sums ``s · x`` over all ``2^len(x)`` sign vectors ``s`` (unsorted)."""
    vals = np.zeros(1)
    for xi in x:
        vals = np.concatenate([vals + xi, vals - xi])
    return vals


def _tolerance(d: np.ndarray) -> float:
    """Absolute slack for comparing sums: re-ordered float sums of the same terms differ by rounding only."""
    n = d.size
    return max(1e-12, 8.0 * n * np.finfo(np.float64).eps) * float(np.abs(d).sum())


def _exact_count(d: np.ndarray, observed: float, tol: float, alternative: str) -> int:
    """Number of sign vectors whose sum is at least as extreme as ``observed`` (exact enumeration)."""
    h = (d.size + 1) // 2
    left = np.sort(_all_sign_sums(d[:h]))
    right = _all_sign_sums(d[h:])
    nl = left.size
    count = 0
    step = 1 << 16
    for start in range(0, right.size, step):
        o = right[start : start + step]
        if alternative == "greater":
            c = nl - np.searchsorted(left, observed - tol - o, side="left")
        elif alternative == "less":
            c = np.searchsorted(left, observed + tol - o, side="right")
        else:
            t = abs(observed) - tol
            if t <= 0:
                return nl * right.size
            c = (nl - np.searchsorted(left, t - o, side="left")) + np.searchsorted(left, -t - o, side="right")
        count += int(c.sum())
    return count


def _monte_carlo_count(
    d: np.ndarray, observed: float, tol: float, alternative: str, n_resamples: int, seed: int
) -> int:
    """Number of random sign vectors (of ``n_resamples``) at least as extreme as ``observed``."""
    rng = np.random.default_rng(seed)
    n = d.size
    nbytes = (n + 7) // 8
    total = float(d.sum())
    chunk = max(1, min(n_resamples, _CHUNK_ENTRIES // max(n, 1)))
    count = 0
    done = 0
    while done < n_resamples:
        rows = min(chunk, n_resamples - done)
        bits = np.unpackbits(rng.integers(0, 256, size=(rows, nbytes), dtype=np.uint8), axis=1, count=n)
        # s = 1 - 2*bit, so s·d = sum(d) - 2 * bit·d (one BLAS matrix-vector product per chunk).
        sums = total - 2.0 * (bits.astype(np.float64) @ d)
        if alternative == "greater":
            count += int(np.count_nonzero(sums >= observed - tol))
        elif alternative == "less":
            count += int(np.count_nonzero(sums <= observed + tol))
        else:
            count += int(np.count_nonzero(np.abs(sums) >= abs(observed) - tol))
        done += rows
    return count


def permutation_test(
    a: object,
    b: object | None = None,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    exact_threshold: int = 20,
    alternative: str = "two-sided",
) -> TestResult:
    """Paired sign-flip permutation test of ``mean(a - b) == 0`` (or ``mean(a) == 0`` when ``b`` is None).

    Exact (all ``2^n`` sign vectors) when the number of non-zero differences is at most ``exact_threshold``;
    otherwise Monte Carlo with ``n_resamples`` draws from ``seed`` and p = (b + 1) / (B + 1).
    ``alternative`` is ``"two-sided"`` (default), ``"greater"`` (a > b) or ``"less"`` (a < b).
    All differences zero gives p = 1.
    """
    d = paired_differences(a, b)
    n_resamples = check_resamples(n_resamples)
    seed = check_seed(seed)
    if alternative not in ALTERNATIVES:
        raise InputError(f"must be one of {', '.join(ALTERNATIVES)}; got {alternative!r}", field="alternative")
    if (
        isinstance(exact_threshold, bool)
        or not isinstance(exact_threshold, (int, np.integer))
        or not 0 <= exact_threshold <= MAX_EXACT
    ):
        raise InputError(f"must be an integer in [0, {MAX_EXACT}], got {exact_threshold!r}", field="exact_threshold")
    statistic = float(d.mean())
    nz = d[d != 0.0]
    if nz.size == 0:
        return TestResult(statistic=statistic, pvalue=1.0, n_resamples=1, exact=True)
    observed = float(nz.sum())
    tol = _tolerance(nz)
    if nz.size <= exact_threshold:
        total = 1 << nz.size
        count = _exact_count(nz, observed, tol, alternative)
        return TestResult(statistic=statistic, pvalue=min(1.0, count / total), n_resamples=total, exact=True)
    count = _monte_carlo_count(nz, observed, tol, alternative, n_resamples, seed)
    pvalue = min(1.0, (count + 1) / (n_resamples + 1))
    return TestResult(statistic=statistic, pvalue=pvalue, n_resamples=n_resamples, exact=False)
