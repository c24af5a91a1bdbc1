"""Cluster-robust intervals and the cluster sign-flip test (stats/cluster.py), checked against statsmodels'
cluster covariance, with the effective n beside n."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.errors import InputError
from hcrbench.stats.cluster import cluster_ci, cluster_permutation_test


def test_cluster_ci_equals_statsmodels_cluster_robust_ols_on_a_constant():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(0)
    clusters = np.repeat(np.arange(11), rng.integers(2, 9, 11))
    effect = rng.normal(0, 0.2, 11)[clusters]
    d = effect + rng.normal(0.03, 0.1, clusters.size)
    mine = cluster_ci(d, None, clusters.tolist())
    fit = sm.OLS(d, np.ones((d.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": clusters,
                                                                            "use_correction": True,
                                                                            "df_correction": True})
    assert mine.mean == pytest.approx(fit.params[0])
    # statsmodels' CR1 also scales by (n - 1) / (n - k) with k = 1: the same factor
    assert mine.se == pytest.approx(float(fit.bse[0]), rel=1e-9)
    assert mine.n == d.size and mine.n_clusters == 11
    assert mine.design_effect > 1 and mine.effective_n < mine.n  # clustered queries carry less information


def test_independent_clusters_of_one_give_the_plain_interval_and_full_effective_n():
    rng = np.random.default_rng(1)
    d = rng.normal(0.0, 0.3, 50)
    c = cluster_ci(d, None, list(range(50)))
    # CR1 with one query per cluster: G / (G - 1) * sum((d - m)^2) / n^2 = s^2 / n, the iid variance exactly
    assert c.design_effect == pytest.approx(1.0) and c.effective_n == pytest.approx(50)


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
