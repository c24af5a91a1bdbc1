"""The betting confidence interval for a bounded mean (stats/bounded.py, Waudby-Smith & Ramdas 2023): the
hedged capital process transcribed from the paper in plain Python agrees with the vectorised one, the bisection
finds the edges a brute-force grid finds, coverage holds by simulation, and bad input is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hcrbench.errors import InputError
from hcrbench.stats.bounded import betting_ci, betting_ci_diff, betting_rows, rejects_rows


def _hedged_capital(xs: list[float], m: float, alpha: float = 0.05, c: float = 0.5) -> float:
    """The paper's hedged capital K_n(m) = max(K+ / 2, K- / 2) with the fixed-n predictable plug-in bets, one
    value at a time."""
    n = len(xs)
    kp = km = 1.0
    s_sum, sq_sum, prev_var = 0.0, 0.0, 0.25
    for i, x in enumerate(xs, start=1):
        lam = math.sqrt(2 * math.log(2 / alpha) / (n * prev_var))
        kp *= 1 + min(lam, c / m) * (x - m)
        km *= 1 - min(lam, c / (1 - m)) * (x - m)
        s_sum += x
        mu = (0.5 + s_sum) / (i + 1)
        sq_sum += (x - mu) ** 2
        prev_var = (0.25 + sq_sum) / (i + 1)
    return max(kp / 2, km / 2)


def test_the_capital_matches_the_papers_formulas_value_by_value():
    rng = np.random.default_rng(0)
    xs = rng.beta(2, 3, 25)
    for m in (0.1, 0.3, 0.42, 0.6, 0.9):
        want = _hedged_capital(xs.tolist(), m) >= 20
        assert bool(rejects_rows(xs[None, :], m)[0]) == want


def test_the_interval_edges_are_where_the_capital_crosses_one_over_alpha():
    rng = np.random.default_rng(1)
    xs = rng.beta(0.5, 0.8, 40)
    m, lo, hi = betting_ci(xs)
    assert lo < m < hi
    grid = np.linspace(0.001, 0.999, 999)
    accepted = [g for g in grid if _hedged_capital(xs.tolist(), float(g)) < 20]
    assert accepted[0] == pytest.approx(lo, abs=1.1e-3) and accepted[-1] == pytest.approx(hi, abs=1.1e-3)
    # and just inside / outside each edge
    assert _hedged_capital(xs.tolist(), lo + 1e-6) < 20 <= _hedged_capital(xs.tolist(), lo - 1e-6)
    assert _hedged_capital(xs.tolist(), hi - 1e-6) < 20 <= _hedged_capital(xs.tolist(), hi + 1e-6)


def test_one_value_decides_nothing_and_constant_values_keep_their_mean():
    # one value: the bet is capped (at most sqrt(2 log(2 / alpha) / (1/4)) = 5.4), never 20-fold: the whole unit interval
    assert betting_ci([1.0])[1:] == (0.0, 1.0)
    _m, lo, hi = betting_ci([0.5] * 200)
    assert lo < 0.5 < hi and hi - lo < 0.2


def test_coverage_by_simulation_at_small_n():
    rng = np.random.default_rng(2)
    for a, b, n in ((0.3, 0.3, 20), (5.0, 1.0, 40)):  # a U-shaped and a skewed law
        x = rng.beta(a, b, (400, n))
        lo, hi = betting_rows(x)
        mu = a / (a + b)
        assert np.mean((lo <= mu) & (mu <= hi)) >= 0.95 - 2.576 * math.sqrt(0.95 * 0.05 / 400)


def test_paired_differences_map_to_the_unit_interval_and_back():
    rng = np.random.default_rng(3)
    a, b = rng.random(80), rng.random(80)
    m, lo, hi = betting_ci_diff(a, b)
    _m2, lo2, hi2 = betting_ci((a - b + 1) / 2)
    assert m == pytest.approx(a.mean() - b.mean())
    assert (lo, hi) == pytest.approx((2 * lo2 - 1, 2 * hi2 - 1))
    with pytest.raises(InputError):
        betting_ci_diff([1.5, 0.0])
    with pytest.raises(InputError):
        betting_ci([0.2, 1.2])
