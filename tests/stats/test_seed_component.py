"""The tree-seed variance component (stats.seeds.seed_component): no residual counted twice, Welch-Satterthwaite
df, and coverage at two seeds near nominal where the former t(k - 1) half-width added in quadrature over-covers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from hcrbench.errors import InputError
from hcrbench.stats.seeds import seed_component


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 5), st.integers(3, 40), st.integers(0, 2**31))
def test_the_component_plus_the_query_path_is_the_two_way_variance_of_the_grand_mean(k, n, seed):
    rng = np.random.default_rng(seed)
    d = rng.normal(0, 1, (k, n)) + rng.normal(0, 1, n)[None, :] + rng.normal(0, 0.5, k)[:, None]
    c = seed_component(d)
    qmeans = d.mean(axis=0)
    v_query = float(qmeans.var(ddof=1)) / n  # the query path on seed-averaged differences: MS_query / (n k)
    ms_query = k * float(qmeans.var(ddof=1))
    full = (ms_query + c.ms_seed - c.ms_resid) / (n * k)
    assert np.isclose(v_query + c.var, max(full, v_query))
    assert c.var >= 0


def test_seeds_that_shift_every_query_alike_add_exactly_their_between_seed_variance():
    rng = np.random.default_rng(0)
    a = rng.normal(0, 0.1, 30)
    shifts = np.array([-0.01, 0.0, 0.02])
    c = seed_component(a[None, :] + shifts[:, None])
    assert np.isclose(c.ms_resid, 0.0, atol=1e-20) and np.isclose(c.var, shifts.var(ddof=1) / 3)


def test_identical_seeds_leave_the_query_interval_unchanged():
    a = np.random.default_rng(1).normal(0.02, 0.1, 25)
    c = seed_component(np.vstack([a, a]))
    lo, hi, df, _se = c.combine(float(a.mean()), float(a.var(ddof=1)) / 25, 24)
    t = stats.ttest_1samp(a, 0.0).confidence_interval(0.95)
    assert c.var < 1e-20 and np.isclose(df, 24) and np.allclose([lo, hi], [t.low, t.high])


def test_bad_shapes_are_refused():
    with pytest.raises(InputError):
        seed_component(np.zeros((1, 5)))


def test_two_seeds_cover_near_nominal_where_the_t1_quadrature_over_covers():
    """Known truth: D_qs = mu + a_q + b_s + e_qs with a seed effect, n = 59, k = 2; the mean's 95% interval
    should miss mu ~5% of the time."""
    rng = np.random.default_rng(3)
    n, k, sims, mu = 59, 2, 4000, 0.0
    miss_new = miss_old = 0
    for _ in range(sims):
        d = mu + rng.normal(0, 0.15, n)[None, :] + rng.normal(0, 0.01, k)[:, None] + rng.normal(0, 0.05, (k, n))
        q = d.mean(axis=0)
        m, vq = float(q.mean()), float(q.var(ddof=1)) / n
        lo, hi, _df, _se = seed_component(d).combine(m, vq, n - 1)
        miss_new += not lo <= mu <= hi
        seed_means = d.mean(axis=1)
        old = np.hypot(stats.t.ppf(0.975, n - 1) * vq ** 0.5,
                       stats.t.ppf(0.975, k - 1) * seed_means.std(ddof=1) / np.sqrt(k))
        miss_old += not m - old <= mu <= m + old
    se = np.sqrt(0.05 * 0.95 / sims)
    assert abs(miss_new / sims - 0.05) < 3.5 * se
    assert miss_old / sims < 0.05 - 3.5 * se
