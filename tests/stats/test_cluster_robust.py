"""Cluster-robust intervals and the cluster sign-flip test (stats/cluster.py): CR2 with Bell-McCaffrey df checked
against the general matrix formulas, CR1 against statsmodels' cluster covariance, the effective n beside n."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from hcrbench.errors import InputError
from hcrbench.stats.cluster import bm_df, cluster_ci, cluster_p, cluster_permutation_test, cr1_ci


def _cr2_by_matrices(d: np.ndarray, g: np.ndarray) -> tuple[float, float]:
    """CR2 variance and Bell-McCaffrey df of OLS on a constant, by the general formulas (Bell & McCaffrey 2002;
    Imbens & Kolesar 2016): A_g = (I - H_gg)^(-1/2), V = B sum_g X_g' A_g e_g e_g' A_g X_g B with B = (X'X)^-1, and
    df = tr(M)^2 / tr(M^2) for M = G'G, G's columns (I - H)' [A_g X_g B on g's rows, 0 elsewhere]."""
    n = d.size
    X = np.ones((n, 1))
    B = np.linalg.inv(X.T @ X)
    H = X @ B @ X.T
    e = d - (H @ d)
    meat = np.zeros((1, 1))
    cols = []
    for c in np.unique(g):
        rows = np.flatnonzero(g == c)
        w, v = np.linalg.eigh(np.eye(rows.size) - H[np.ix_(rows, rows)])
        A = v @ np.diag(w ** -0.5) @ v.T
        u = X[rows].T @ A @ e[rows]
        meat += np.outer(u, u)
        a = np.zeros(n)
        a[rows] = (A @ X[rows] @ B)[:, 0]
        cols.append((np.eye(n) - H).T @ a)
    M = np.column_stack(cols).T @ np.column_stack(cols)
    return float((B @ meat @ B)[0, 0]), float(np.trace(M) ** 2 / np.trace(M @ M))


def test_cluster_ci_is_cr2_with_bell_mccaffrey_df_by_the_general_matrix_formulas():
    rng = np.random.default_rng(0)
    clusters = np.concatenate([np.repeat(np.arange(10), rng.integers(2, 6, 10)), np.full(15, 10)])  # one dominates
    d = rng.normal(0, 0.2, 11)[clusters] + rng.normal(0.03, 0.1, clusters.size)
    mine = cluster_ci(d, None, clusters.tolist())
    var, df = _cr2_by_matrices(d, clusters)
    assert mine.se == pytest.approx(var ** 0.5, rel=1e-10)
    assert mine.df == pytest.approx(df, rel=1e-10)
    assert mine.df < 10  # the dominant cluster costs degrees of freedom below CR1's G - 1
    h = stats.t.ppf(0.975, df) * var ** 0.5
    assert (mine.low, mine.high) == pytest.approx((d.mean() - h, d.mean() + h), rel=1e-10)
    assert cluster_p(mine) == pytest.approx(2 * stats.t.sf(abs(d.mean()) / var ** 0.5, df), rel=1e-10)


def test_bell_mccaffrey_df_is_clusters_minus_one_for_equal_clusters():
    assert bm_df(np.full((1, 7), 4.0))[0] == pytest.approx(6.0)
    assert bm_df(np.array([[1.0, 1.0, 10.0]]))[0] < 2.0


def test_cr2_errs_less_than_cr1_when_one_cluster_dominates():
    # 11 clusters, one holding half the queries: CR1's one-sided error at truth 0 is well above 2.5%
    rng = np.random.default_rng(5)
    g = np.concatenate([np.repeat(np.arange(10), 3), np.full(30, 10)])
    reps, cr1_low, cr2_low = 400, 0, 0
    for _ in range(reps):
        d = rng.normal(0, 0.2, 11)[g] + rng.normal(0, 0.05, g.size)
        cr1_low += cr1_ci(d, None, g.tolist())[2] < 0
        cr2_low += cluster_ci(d, None, g.tolist()).high < 0
    assert cr2_low < cr1_low


def test_cr1_ci_equals_statsmodels_cluster_robust_ols_on_a_constant():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(0)
    clusters = np.repeat(np.arange(11), rng.integers(2, 9, 11))
    effect = rng.normal(0, 0.2, 11)[clusters]
    d = effect + rng.normal(0.03, 0.1, clusters.size)
    m, _lo, _hi, se = cr1_ci(d, None, clusters.tolist())
    mine = cluster_ci(d, None, clusters.tolist())
    fit = sm.OLS(d, np.ones((d.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": clusters,
                                                                            "use_correction": True,
                                                                            "df_correction": True})
    assert m == pytest.approx(fit.params[0])
    # statsmodels' CR1 also scales by (n - 1) / (n - k) with k = 1: the same factor
    assert se == pytest.approx(float(fit.bse[0]), rel=1e-9)
    assert mine.n == d.size and mine.n_clusters == 11
    assert mine.design_effect > 1 and mine.effective_n < mine.n  # clustered queries carry less information


def test_independent_clusters_of_one_give_the_plain_interval_and_full_effective_n():
    rng = np.random.default_rng(1)
    d = rng.normal(0.0, 0.3, 50)
    c = cluster_ci(d, None, list(range(50)))
    # CR2 with one query per cluster: sum((d - m)^2) / (1 - 1 / n) / n^2 = s^2 / n, the iid variance exactly,
    # on n - 1 df: the paired t interval
    assert c.design_effect == pytest.approx(1.0) and c.effective_n == pytest.approx(50)
    assert c.df == pytest.approx(49)


def test_the_cluster_permutation_test_flips_whole_clusters():
    rng = np.random.default_rng(2)
    clusters = np.repeat(np.arange(8), 6)
    d = rng.normal(0, 0.3, 8)[clusters] + rng.normal(0, 0.05, 48)
    _t, p, exact = cluster_permutation_test(d, None, clusters.tolist())
    assert exact and 0 < p <= 1
    # with 8 clusters the smallest two-sided p is 2 / 256: a per-query flip would claim far more
    assert p >= 2 / 256
    with pytest.raises(InputError):
        cluster_ci(d, None, [0] * 48)


def test_the_effective_n_never_exceeds_n_when_the_clustered_variance_comes_out_small_by_chance():
    # two test worlds whose means happen to agree: the world CR2 on 1 df is near 0 (a pilot printed "effective n
    # 8529.7 of 570"); the interval stands on it, but the design effect is floored by the topic-clustered variance
    rng = np.random.default_rng(1)
    d = rng.normal(0, 0.15, 570)
    w = np.repeat([0, 1], 285)
    d[w == 1] += d[w == 0].mean() - d[w == 1].mean() + 1e-4
    c = cluster_ci(d, None, np.arange(570) // 3, worlds=w)
    assert c.by_world and c.df == pytest.approx(1.0) and c.se < 0.01 * c.topic_se  # the 1-df world variance
    iid = d.var(ddof=1) / d.size
    assert c.design_effect == pytest.approx(max(c.topic_se ** 2 / iid, 1.0)) and c.effective_n <= c.n
    # one world whose pairs of queries move in opposite directions: the CR2 variance under the independent one
    x = np.repeat(rng.normal(0, 0.1, 20), 2) * np.tile([1, -1], 20) + rng.normal(0, 0.01, 40)
    c2 = cluster_ci(x, None, np.arange(40) // 2)
    assert c2.se ** 2 < x.var(ddof=1) / 40  # the raw ratio is below 1 ...
    assert c2.design_effect == 1.0 and c2.effective_n == pytest.approx(40)  # ... the effective n stays n
