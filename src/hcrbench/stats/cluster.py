"""Cluster-robust inference for a mean paired difference when queries are not independent (Meridian
small's 59 test queries fall in 11 entity clusters), with the effective n beside n.

- :func:`cluster_ci`: the CR2 (Bell & McCaffrey 2002) standard error of the mean with the Bell-McCaffrey
  small-sample degrees of freedom, and the effective n = n / design effect, where the design effect is the CR
  variance over the independent-queries variance, never below 1 (so the effective n never exceeds n): clustered
  sampling with queries of a cluster alike (the nested model of :mod:`variance_components`, whose design effect
  is >= 1 by construction) cannot carry more than independent queries, and a ratio below 1 is the variance
  estimate's noise: two worlds' CR2 on 1 df comes out below the independent one whenever their means happen to
  agree (a pilot printed "effective n 8529.7 of 570"). Over worlds the ratio is floored by the topic-clustered
  variance, as :func:`hcrbench.protocol.registry.world_sd` floors the world sd; the interval itself is unchanged. CR1 (Liang-Zeger with the G / (G - 1) factor, t on G - 1 df)
  erred ~4.7% per side at nominal 2.5% when one cluster dominates a few (Meridian small: 59 test queries in 11-16
  clusters, one holding a quarter of them); CR2 scales each cluster's residual sum by (1 - n_g / n)^(-1/2) (the
  leverage of its block of the hat matrix) and the BM df shrinks with the imbalance (G - 1 for equal clusters),
  the small-sample correction Imbens & Kolesar (2016) and Pustejovsky & Tipton (2018) recommend. For a mean
  (OLS on a constant) both have the closed forms of :func:`cr2_mean`; tests/stats/test_cluster_robust.py checks
  them against the general matrix formulas, and :func:`cr1_ci` against statsmodels' ``cov_type="cluster"``.
- Worlds as well as topics (:func:`cluster_ci` with ``worlds``, :func:`nested_cr2_rows`): when the queries come
  from several independently generated worlds and the truth is the mean over the population of worlds, a
  difference that moves from world to world makes every topic of a world share that world's shift, which topic
  clusters do not hold (on real Meridian differences over fresh worlds the topic-clustered CR2 decided falsely
  6-12% at nominal 5%, growing with the queries per world). From two worlds on the variance is therefore the CR2
  with the worlds as clusters, on its Bell-McCaffrey df (W - 1 for equal worlds): the worlds are the replicates.
  Borrowing the within-world variance when the world one comes out smaller (the truncated variance-component
  estimate) gains power only where it is not valid: with few worlds and a real between-world component the world
  variance comes out small by chance in many draws, and those draws then decide on the topic t (12.6% false
  decisions at nominal 5% with two worlds of 30 queries whose world means spread with sd 0.03). One world alone carries no
  between-world information: the interval is then the topic CR2, about that world's queries.
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
    df: float = 0.0
    method: str = "cluster-robust CR2 t 95%, Bell-McCaffrey df"
    n_worlds: int = 0        # worlds the queries come from (0: not given)
    by_world: bool = False   # the worlds are the clusters (two worlds or more)
    skew_shift: float = 0.0  # how far both ends moved for the differences' skew (:func:`skew_shift`)
    #: the standard error over the topic clusters alone (the queries' own sampling, no between-world term): what the
    #: mean varies by when the worlds do not differ; equal to ``se`` when the worlds are not the clusters
    topic_se: float = 0.0


def _groups(d: np.ndarray, clusters: Sequence[object]) -> tuple[np.ndarray, np.ndarray]:
    if len(clusters) != d.size:
        raise InputError(f"{len(clusters)} cluster ids for {d.size} values", field="clusters")
    keys = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    return np.asarray([keys[c] for c in clusters]), np.arange(len(keys))


def cr2_mean(d: np.ndarray, g: np.ndarray, G: int) -> tuple[float, float, float]:
    """``(mean, CR2 variance of the mean, Bell-McCaffrey df)`` of ``d`` with cluster index ``g`` (0..G-1).

    For OLS on a constant the hat matrix's cluster block is J_g / n, so (I - H_gg)^(-1/2) multiplies the cluster's
    residual sum S_g by q_g^(1/2), q_g = 1 / (1 - n_g / n): V = sum_g q_g S_g^2 / n^2. Under working independence
    V is sigma^2 times a weighted sum of chi^2_1 whose weights are the eigenvalues of M = W (D - n n' / n) W
    (W = diag(q_g^(1/2)), D = diag(n_g)); the BM df is (tr M)^2 / tr(M^2) = n^2 / (sum q^2 n_g^2 - 2 sum q^2
    n_g^3 / n + (sum q n_g^2)^2 / n^2), exactly G - 1 for equal clusters."""
    n = d.size
    m = float(d.mean())
    sums = np.bincount(g, weights=d - m, minlength=G)
    ng = np.bincount(g, minlength=G).astype(np.float64)
    q = 1.0 / (1.0 - ng / n)
    var = float(np.sum(q * sums ** 2)) / n ** 2
    return m, var, float(bm_df(ng)[0])


def bm_df(ng: np.ndarray) -> np.ndarray:
    """Row-wise Bell-McCaffrey df of the CR2 variance of a mean from cluster sizes ``ng`` (rows: samples; n is
    each row's sum)."""
    ng = np.atleast_2d(np.asarray(ng, dtype=np.float64))
    n = ng.sum(axis=1)
    q = 1.0 / (1.0 - ng / n[:, None])
    den = (q * q * ng * ng).sum(axis=1) - 2 * (q * q * ng ** 3).sum(axis=1) / n + (q * ng * ng).sum(axis=1) ** 2 / n ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, n ** 2 / den, 1.0)


def cluster_ci(a: object, b: object | None, clusters: Sequence[object], confidence: float = 0.95,
               worlds: Sequence[object] | None = None, skew: bool = False) -> ClusterCI:
    """The cluster-robust (CR2, Bell-McCaffrey df) interval of the mean of ``a - b`` (or ``a``), clusters given per
    value; ``worlds`` (the world of each value, topics nested in worlds): from two worlds on the worlds are the
    clusters, so the between-world component is held (module docstring). ``skew``: both ends moved by
    :func:`skew_shift`, so that each one-sided claim holds its half of the error when the differences are skewed."""
    d = as_vector(a, "a") if b is None else as_vector(a, "a") - as_vector(b, "b")
    g, ids = _groups(d, clusters)
    n, G = d.size, ids.size
    if G < 2:
        raise InputError("need at least 2 clusters", field="clusters")
    m, var, df = cr2_mean(d, g, G)
    topic_se = math.sqrt(var)
    n_worlds, by_world = 0, False
    if worlds is not None:
        wg, wids = _groups(d, worlds)
        n_worlds = int(wids.size)
        if n_worlds >= 2:
            _, var, df = cr2_mean(d, wg, n_worlds)
            by_world = True
    se = math.sqrt(var)
    iid = float(d.var(ddof=1)) / n if n > 1 else 0.0
    deff = max(var, topic_se ** 2) / iid if iid > 0 else 1.0
    deff = max(deff, 1.0)  # an estimate below 1 is noise, not queries worth more than independent ones (docstring)
    h = float(sps.t.ppf(0.5 + confidence / 2, df)) * se
    shift = skew_shift(d, confidence) if skew else 0.0
    method = ClusterCI.method + (", skew-corrected" if skew else "")
    return ClusterCI(m, m - h + shift, m + h + shift, se, n, G, deff, n / deff if deff > 0 else float(n), df,
                     method=method, n_worlds=n_worlds, by_world=by_world, skew_shift=shift, topic_se=topic_se)


def skew_shift_rows(d: np.ndarray, confidence: float) -> np.ndarray:
    """Row-wise :func:`skew_shift` of each row of ``d``."""
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    n = d.shape[1]
    if n < 3:
        return np.zeros(d.shape[0])
    r = d - d.mean(axis=1, keepdims=True)
    k3 = n * (r ** 3).sum(axis=1) / ((n - 1) * (n - 2))  # unbiased third cumulant of one value
    s2 = (r ** 2).sum(axis=1) / (n - 1)
    m2, m3, m4, m6 = ((r ** k).mean(axis=1) for k in (2, 3, 4, 6))
    noise = np.maximum(m6 - m3 * m3 - 6 * m4 * m2 + 9 * m2 ** 3, 0.0) / n  # the sampling variance of k3
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = k3 * k3 / (k3 * k3 + noise)
        out = (2 * z * z + 1) / 6 * k3 / (s2 * n) * keep
    return np.where(np.isfinite(out) & (s2 > 0), out, 0.0)


def skew_shift(d: object, confidence: float = 0.95) -> float:
    """How far a studentized interval of the mean of ``d`` (two-sided ``confidence``) moves both its ends for the
    skew of ``d``: (2 z^2 + 1) / 6 x k3 / (s^2 n) x k3^2 / (k3^2 + v), k3 and s^2 the values' third cumulant and
    variance (unbiased), v the sampling variance of k3 (from the sample's 2nd, 3rd, 4th and 6th moments), z the
    normal quantile of one side.

    The first Cornish-Fisher term of a studentized mean (Hall 1992, sec. 3.5; Johnson's 1978 modified t, its
    centre and variance-correlation terms): a right-skewed difference (a few queries gain much, the sparse effect
    of IR) has a mean that is low exactly when its variance estimate is low, so the t statistic's lower tail is
    heavy and the plain interval's upper end falls below the truth more often than its half of the error (a false
    "short of the margin"), its lower end less often; the shift moves both ends up by what evens the two tails to
    first order. Its moments are the queries' own, on n - 1 df, whatever the clusters: with few worlds the worlds'
    variance comes out small by chance in many draws, and a shift over that variance grows without bound exactly
    there (about 10% false decisions on the exact null at two worlds, measured), while a few worlds' sums carry no
    third moment (two are equal and opposite). The factor k3^2 / (k3^2 + v) shrinks the shift where the sample's
    third moment is mostly noise (many ties and a few large differences either way), where a full shift only
    moves the interval at random and raises both tails. The shift is in the mean's units, beside the interval's
    own t quantile (12.7 at 1 df), which the skew does not scale."""
    return float(skew_shift_rows(as_vector(d, "d")[None, :], confidence)[0])


def cr2_rows(d: np.ndarray, c: np.ndarray, g: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise :func:`cr2_mean`: the CR2 variance of each row's mean and its Bell-McCaffrey df (cluster index
    ``c`` in 0..g-1 per value, the same shape as ``d``); NaN variance for a row with one cluster."""
    d = np.asarray(d, dtype=np.float64)
    r, n = d.shape
    c = np.broadcast_to(np.asarray(c), d.shape)
    flat = (c + g * np.arange(r)[:, None]).ravel()
    resid = d - d.mean(axis=1, keepdims=True)
    s = np.bincount(flat, resid.ravel(), minlength=r * g).reshape(r, g)
    ng = np.bincount(flat, minlength=r * g).reshape(r, g).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # one cluster: no variance estimate
        q = 1.0 / (1.0 - ng / n)
        var = np.where((ng > 0).sum(axis=1) >= 2, np.nansum(np.where(ng > 0, q * s * s, 0.0), axis=1), np.nan)
        return var / n ** 2, bm_df(ng)


def nested_cr2_rows(d: np.ndarray, topics: np.ndarray, n_topics: int, worlds: np.ndarray, n_worlds: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise the variance :func:`cluster_ci` uses with ``worlds``: ``(var, df, by_world)``, the world-clustered
    CR2 and its Bell-McCaffrey df where a row holds two worlds or more, the topic-clustered one where it holds
    one."""
    w = np.broadcast_to(np.asarray(worlds), np.shape(d))
    present = np.zeros((w.shape[0], n_worlds), dtype=bool)
    np.put_along_axis(present, w, True, axis=1)
    by_world = present.sum(axis=1) >= 2
    vt, dft = cr2_rows(d, topics, n_topics)
    if not by_world.any():
        return vt, dft, by_world
    vw, dfw = cr2_rows(d, w, n_worlds)
    return np.where(by_world, vw, vt), np.where(by_world, dfw, dft), by_world


def cluster_p(c: ClusterCI) -> float:
    """The two-sided p of "mean = 0" from the same CR2 t on the BM df (the interval excludes 0 exactly when
    p < 1 - confidence)."""
    return float(2 * sps.t.sf(abs(c.mean / c.se), c.df)) if c.se > 0 else (1.0 if c.mean == 0 else 0.0)


def cr1_ci(a: object, b: object | None, clusters: Sequence[object], confidence: float = 0.95
           ) -> tuple[float, float, float, float]:
    """``(mean, low, high, se)``: the CR1 interval (G / (G - 1) factor, t on G - 1 df), kept for comparison
    (docs/statistics.md: why CR2 replaced it)."""
    d = as_vector(a, "a") if b is None else as_vector(a, "a") - as_vector(b, "b")
    g, ids = _groups(d, clusters)
    n, G = d.size, ids.size
    if G < 2:
        raise InputError("need at least 2 clusters", field="clusters")
    m = float(d.mean())
    sums = np.bincount(g, weights=d - m, minlength=G)
    se = math.sqrt(G / (G - 1) * float(np.sum(sums ** 2)) / n ** 2)
    h = float(sps.t.ppf(0.5 + confidence / 2, G - 1)) * se
    return m, m - h, m + h, se


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
