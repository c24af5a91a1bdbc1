"""The betting confidence interval for the mean of a bounded variable (Waudby-Smith & Ramdas 2023, "Estimating
means of bounded random variables by betting", JRSS-B 86(1)): valid at every n and every distribution on the
bounds, with no normal approximation.

For values x_1..x_n in [0, 1] and a candidate mean m, two gamblers bet that the mean is above / below m; their
capitals K+_n(m) = prod(1 + l+_i (x_i - m)) and K-_n(m) = prod(1 - l-_i (x_i - m)) are nonnegative martingales
when the mean is m, so the **hedged capital** K_n(m) = max(theta K+, (1 - theta) K-) (theta = 1/2) exceeds 1 / alpha
with probability at most alpha (Markov): the interval is {m : K_n(m) < 1 / alpha}. The bets are the paper's
predictable plug-in for a fixed n (its Section 5 remark): l_i = sqrt(2 log(2 / alpha) / (n s2_{i-1})) with the
running variance s2_i = (1/4 + sum_{j<=i} (x_j - mu_j)^2) / (i + 1), mu_i = (1/2 + sum_{j<=i} x_j) / (i + 1),
truncated at c / m (gambler +) and c / (1 - m) (gambler -), c = 1/2. The bets use only earlier values, so the
interval depends on the order of the values (the queries' order: deterministic).

A paired difference of two metrics in [0, 1] lies in [-1, 1]: :func:`betting_ci_diff` maps it to [0, 1]. The
interval is an interval for the hedged process (the paper's Proposition 4); its ends are found by bisection
between 0 and the sample mean and between the sample mean and 1 (tests/stats/test_bounded.py checks them against
a brute-force grid and a closed-form case). :func:`betting_rows` does the same row-wise on a (reps x n) matrix
for the protocol's operating replay.
"""

from __future__ import annotations

import math

import numpy as np

from hcrbench.errors import InputError
from hcrbench.stats._arrays import as_vector

C_TRUNC = 0.5
THETA = 0.5
ITERS = 40  # bisection steps: 2^-40 of the unit interval


def _bets(x: np.ndarray, valid: np.ndarray, alpha: float) -> np.ndarray:
    """Row-wise predictable plug-in bets (before truncation) for a fixed n (the valid count of each row)."""
    w = valid.astype(np.float64)
    t = np.cumsum(w, axis=1)                                   # values seen up to and including i
    mu = (0.5 + np.cumsum(x * w, axis=1)) / (t + 1)
    s2 = (0.25 + np.cumsum(w * (x - mu) ** 2, axis=1)) / (t + 1)
    prev = np.concatenate([np.full((x.shape[0], 1), 0.25), s2[:, :-1]], axis=1)  # s2_{i-1}; s2_0 = 1/4
    n = np.maximum(w.sum(axis=1, keepdims=True), 1.0)
    return np.sqrt(2 * math.log(2 / alpha) / (n * prev))


def _rejects(x: np.ndarray, valid: np.ndarray, lam: np.ndarray, m: np.ndarray, alpha: float) -> np.ndarray:
    """Row-wise: does the hedged capital at candidate mean ``m`` (one per row) reach 1 / alpha?"""
    mm = m[:, None]
    lp = np.minimum(lam, C_TRUNC / mm)
    lm = np.minimum(lam, C_TRUNC / (1 - mm))
    dx = np.where(valid, x - mm, 0.0)
    kp = np.log1p(lp * dx).sum(axis=1)
    km = np.log1p(-lm * dx).sum(axis=1)
    return np.maximum(math.log(THETA) + kp, math.log(1 - THETA) + km) >= math.log(1 / alpha)


def betting_rows(x: np.ndarray, valid: np.ndarray | None = None, confidence: float = 0.95
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise betting intervals of the mean of a (reps x n) matrix of values in [0, 1]; ``valid`` masks padded
    entries (rows of different n)."""
    x = np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0)
    valid = np.ones_like(x, dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    alpha = 1 - confidence
    lam = _bets(x, valid, alpha)
    cnt = np.maximum(valid.sum(axis=1), 1)
    mean = np.where(valid, x, 0.0).sum(axis=1) / cnt
    eps = 1e-12
    centre = np.clip(mean, eps, 1 - eps)
    inside = ~_rejects(x, valid, lam, centre, alpha)
    out = []
    for edge in (eps, 1 - eps):
        e = np.full_like(centre, edge)
        rej_edge = _rejects(x, valid, lam, e, alpha)
        a, b = e.copy(), centre.copy()        # a: rejected end, b: accepted end
        for _ in range(ITERS):
            mid = (a + b) / 2
            r = _rejects(x, valid, lam, mid, alpha)
            a, b = np.where(r, mid, a), np.where(r, b, mid)
        out.append(np.where(rej_edge, b, e))  # the whole side accepted: the interval reaches the bound
    lo, hi = out
    lo, hi = np.where(inside, lo, mean), np.where(inside, hi, mean)
    return np.where(lo < 2 * eps, 0.0, lo), np.where(hi > 1 - 2 * eps, 1.0, hi)


def rejects_rows(x: np.ndarray, m: float, valid: np.ndarray | None = None, confidence: float = 0.95
                 ) -> np.ndarray:
    """Row-wise: is the candidate mean ``m`` outside the betting interval of each row of values in [0, 1]? (One
    capital per row, no bisection: how the operating replay decides a rule with one threshold.)"""
    x = np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0)
    valid = np.ones_like(x, dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    alpha = 1 - confidence
    mm = np.full(x.shape[0], min(max(float(m), 1e-12), 1 - 1e-12))
    return _rejects(x, valid, _bets(x, valid, alpha), mm, alpha)


def betting_ci(values: object, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)``: the betting interval of the mean of ``values`` in [0, 1]."""
    x = as_vector(values, "values")
    if x.size < 1:
        raise InputError("need at least 1 value", field="values")
    if np.any(x < -1e-12) or np.any(x > 1 + 1e-12):
        raise InputError("values must lie in [0, 1]", field="values")
    lo, hi = betting_rows(x[None, :], confidence=confidence)
    return float(x.mean()), float(lo[0]), float(hi[0])


def betting_ci_diff(a: object, b: object | None = None, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)`` of the paired differences ``a - b`` (or ``a``) in [-1, 1], by :func:`betting_ci` on
    (d + 1) / 2."""
    d = as_vector(a, "a") if b is None else as_vector(a, "a") - as_vector(b, "b")
    if np.any(np.abs(d) > 1 + 1e-12):
        raise InputError("paired differences must lie in [-1, 1] (metrics in [0, 1])", field="a")
    _m, lo, hi = betting_ci((np.clip(d, -1, 1) + 1) / 2, confidence)
    return float(d.mean()), 2 * lo - 1, 2 * hi - 1


def betting_rows_diff(d: np.ndarray, valid: np.ndarray | None = None, confidence: float = 0.95
                      ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`betting_rows` for row-wise paired differences in [-1, 1]."""
    lo, hi = betting_rows((np.clip(np.asarray(d, dtype=np.float64), -1, 1) + 1) / 2, valid, confidence)
    return 2 * lo - 1, 2 * hi - 1
