"""stats.cluster.skew_shift: the skew-corrected interval evens the two one-sided errors of a skewed mean, moves a
symmetric sample by nothing, and cluster_ci(skew=True) is the plain interval moved by that shift."""

from __future__ import annotations

import numpy as np
from scipy import stats as sps

from hcrbench.stats.cluster import cluster_ci, cr2_rows, skew_shift, skew_shift_rows


def test_the_shift_evens_the_tails_of_a_right_skewed_mean():
    rng = np.random.default_rng(0)
    reps, n = 20_000, 40
    d = rng.exponential(1.0, (reps, n)) - 1.0  # mean 0, skew 2: the sparse-gain shape
    var, df = cr2_rows(d, np.arange(n), n)
    m, h = d.mean(axis=1), sps.t.ppf(0.975, df) * np.sqrt(var)
    sh = skew_shift_rows(d, 0.95)
    plain_hi, plain_lo = np.mean(m + h < 0), np.mean(m - h > 0)
    fixed_hi, fixed_lo = np.mean(m + h + sh < 0), np.mean(m - h + sh > 0)
    assert plain_hi > 0.05 and plain_lo < 0.012  # the defect: the upper end misses twice its 2.5%
    assert abs(fixed_hi - 0.025) < abs(plain_hi - 0.025) / 2 and abs(fixed_lo - 0.025) < abs(plain_lo - 0.025) / 2
    assert np.mean(sh > 0) > 0.9  # right skew moves the ends up


def test_a_symmetric_sample_is_not_moved():
    x = np.r_[np.arange(10.0), -np.arange(10.0)]
    assert skew_shift(x) == 0.0
    assert skew_shift(np.array([1.0, 2.0])) == 0.0  # too few values to hold a third moment


def test_cluster_ci_with_skew_is_the_plain_interval_moved():
    rng = np.random.default_rng(3)
    d = rng.exponential(0.2, 90) - 0.15
    topics, worlds = np.arange(90) // 3, np.arange(90) // 30
    plain = cluster_ci(d, None, topics, worlds=worlds)
    moved = cluster_ci(d, None, topics, worlds=worlds, skew=True)
    sh = skew_shift(d)
    assert sh > 0 and moved.skew_shift == sh and plain.skew_shift == 0.0
    assert np.isclose(moved.low, plain.low + sh) and np.isclose(moved.high, plain.high + sh)
    assert moved.mean == plain.mean and moved.by_world and "skew-corrected" in moved.method
