"""The world-aware cluster-robust interval (stats.cluster.cluster_ci with ``worlds``): on values from several
worlds whose mean difference moves from world to world it errs at most nominal where the topic-clustered CR2 does
not, and with no between-world component it errs at most nominal too, at a power below the topic interval's (the
price of a claim about the population of worlds from W - 1 df)."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from hcrbench.stats.cluster import cluster_ci, cr2_mean, cr2_rows, nested_cr2_rows

W, T, Q = 6, 10, 4  # worlds, topics per world, queries per topic


def _design(reps: int, sd_world: float, shift: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``reps`` rows of W worlds x T topics x Q queries with skewed (centred exponential) query noise."""
    rng = np.random.default_rng(seed)
    n = W * T * Q
    world = np.repeat(np.arange(W), T * Q)
    topic = np.repeat(np.arange(W * T), Q)
    d = (shift + sd_world * rng.standard_normal((reps, W))[:, world]
         + 0.05 * rng.standard_normal((reps, W * T))[:, topic]
         + 0.25 * (rng.exponential(size=(reps, n)) - 1.0))
    return d, topic, world


def _reject(d, topic, world, nested: bool) -> np.ndarray:
    if nested:
        var, df, _ = nested_cr2_rows(d, topic, W * T, world, W)
    else:
        var, df = cr2_rows(d, topic, W * T)
    t = np.abs(d.mean(axis=1)) / np.sqrt(var)
    return t > sps.t.ppf(0.975, df)


def test_between_world_differences_err_at_most_nominal_where_topic_clusters_do_not():
    reps = 4000
    d, topic, world = _design(reps, sd_world=0.03, shift=0.0, seed=11)
    mc = 3 * math.sqrt(0.05 * 0.95 / reps)
    nested, topic_only = _reject(d, topic, world, True).mean(), _reject(d, topic, world, False).mean()
    assert nested <= 0.05 + mc, nested
    assert topic_only > 0.05 + mc, topic_only  # the defect the world term fixes is there to fix


def test_without_a_world_component_the_nested_interval_keeps_its_level_and_most_of_the_power():
    reps = 4000
    mc = 3 * math.sqrt(0.05 * 0.95 / reps)
    d, topic, world = _design(reps, sd_world=0.0, shift=0.0, seed=12)
    assert _reject(d, topic, world, True).mean() <= 0.05 + mc
    d, topic, world = _design(reps, sd_world=0.0, shift=0.05, seed=13)
    p_nested, p_topic = _reject(d, topic, world, True).mean(), _reject(d, topic, world, False).mean()
    assert p_topic > 0.7 and 0.5 * p_topic <= p_nested < p_topic, (p_nested, p_topic)


def test_cluster_ci_with_worlds_is_the_rows_computation():
    d, topic, world = _design(3, sd_world=0.03, shift=0.01, seed=14)
    var, df, by = nested_cr2_rows(d, topic, W * T, world, W)
    for r in range(3):
        c = cluster_ci(d[r], None, topic.tolist(), worlds=world.tolist())
        assert c.se ** 2 == pytest.approx(var[r]) and c.df == pytest.approx(df[r])
        assert c.by_world and bool(by[r]) and c.n_worlds == W
        _, vw, dfw = cr2_mean(d[r], world, W)
        assert c.se ** 2 == pytest.approx(vw) and c.df == pytest.approx(dfw) == pytest.approx(W - 1)
        h = sps.t.ppf(0.975, c.df) * c.se
        assert (c.low, c.high) == pytest.approx((c.mean - h, c.mean + h))
    one = nested_cr2_rows(d[:, :T * Q], topic[:T * Q], W * T, world[:T * Q], W)  # one world: the topic CR2
    vt, dft = cr2_rows(d[:, :T * Q], topic[:T * Q], W * T)
    assert not one[2].any() and np.allclose(one[0], vt) and np.allclose(one[1], dft)


def test_one_world_is_the_topic_interval():
    d, topic, _ = _design(1, sd_world=0.03, shift=0.0, seed=15)
    one = cluster_ci(d[0], None, topic.tolist(), worlds=[0] * d.shape[1])
    plain = cluster_ci(d[0], None, topic.tolist())
    assert (one.low, one.high, one.df) == (plain.low, plain.high, plain.df)
    assert one.n_worlds == 1 and not one.by_world
