"""Cluster-robust inference for a mean paired difference when queries are not independent (issue #33: Meridian
small's 59 test queries fall in 11 entity clusters), with the effective n beside n.

- :func:`cluster_ci`: the CR1 (Liang-Zeger with the G / (G - 1) small-sample factor) standard error of the mean,
  a t interval on G - 1 degrees of freedom, and the effective n = n / design effect, where the design effect is
  the CR variance over the independent-queries variance. Equal to statsmodels' OLS on a constant with
  ``cov_type="cluster"`` (tests/stats/test_cluster.py).
- :func:`cluster_permutation_test`: the studentized sign-flip test with one sign per cluster (a cluster's queries
  move together under the null), exact over 2^G for G <= 16.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from hcrbench.data.display import ResultDisplay
from hcrbench.errors import InputError
from hcrbench.stats._arrays import as_vector, check_resamples, check_seed

MAX_EXACT = 16


@dataclass(frozen=True)
class ClusterCI(ResultDisplay):
    mean: float
    low: float
    high: float
    se: float
    n: int
    n_clusters: int
    design_effect: float
    effective_n: float
    method: str = "cluster-robust (CR1) t 95%, df = clusters - 1"


def _groups(d: np.ndarray, clusters: Sequence[object]) -> tuple[np.ndarray, np.ndarray]:
    if len(clusters) != d.size:
        raise InputError(f"{len(clusters)} cluster ids for {d.size} values", field="clusters")
    keys = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    return np.asarray([keys[c] for c in clusters]), np.arange(len(keys))


def cluster_ci(a: object, b: object | None, clusters: Sequence[object], confidence: float = 0.95) -> ClusterCI:
    """The cluster-robust interval of the mean of ``a - b`` (or ``a``), clusters given per value."""
    d = as_vector(a, "a") if b is None else as_vector(a, "a") - as_vector(b, "b")
    g, ids = _groups(d, clusters)
    n, G = d.size, ids.size
    if G < 2:
        raise InputError("need at least 2 clusters", field="clusters")
    m = float(d.mean())
    sums = np.bincount(g, weights=d - m, minlength=G)
    var = G / (G - 1) * float(np.sum(sums ** 2)) / n ** 2
    se = math.sqrt(var)
    iid = float(d.var(ddof=1)) / n if n > 1 else 0.0
    deff = var / iid if iid > 0 else 1.0
    h = float(sps.t.ppf(0.5 + confidence / 2, G - 1)) * se
    return ClusterCI(m, m - h, m + h, se, n, G, deff, n / deff if deff > 0 else float(n))


def cluster_permutation_test(a: object, b: object | None, clusters: Sequence[object], *,
                             alternative: str = "two-sided", n_resamples: int = 10_000, seed: int = 0
                             ) -> tuple[float, float, bool]:
    """``(t, p, exact)``: sign flips per cluster of the centred-free differences, the CR1 t statistic."""
    d = as_vector(a, "a") if b is None else as_vector(a, "a") - as_vector(b, "b")
    g, ids = _groups(d, clusters)
    G = ids.size
    if G < 2:
        raise InputError("need at least 2 clusters", field="clusters")
    n = d.size

    def tstat(x: np.ndarray) -> np.ndarray:  # rows of x: one sign-flipped sample each
        m = x.mean(axis=1, keepdims=True)
        s = np.zeros((x.shape[0], G))
        for j in range(G):
            s[:, j] = (x[:, g == j] - m).sum(axis=1)
        se = np.sqrt(G / (G - 1) * (s ** 2).sum(axis=1)) / n
        with np.errstate(divide="ignore", invalid="ignore"):
            t = m[:, 0] / se
        return np.where(np.isnan(t), 0.0, t)

    t0 = float(tstat(d[None, :])[0])
    if G <= MAX_EXACT:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=G)))
        exact = True
    else:
        rng = np.random.default_rng(check_seed(seed))
        signs = np.where(rng.random((check_resamples(n_resamples), G)) < 0.5, -1.0, 1.0)
        exact = False
    null = tstat(signs[:, g] * d)
    eps = 1e-12 * max(1.0, abs(t0))
    k = int(np.sum(null >= t0 - eps)) if alternative == "greater" else int(np.sum(null <= t0 + eps)) \
        if alternative == "less" else int(np.sum(np.abs(null) >= abs(t0) - eps))
    p = k / null.size if exact else (k + 1) / (null.size + 1)
    return t0, p, exact
