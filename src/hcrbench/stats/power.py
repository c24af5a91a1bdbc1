"""Power analysis for the paired two-sided t-test: required N, minimum detectable effect, CI projection.

Power is computed exactly with the noncentral t distribution (not the normal approximation): with
``df = n - 1``, noncentrality ``nc = (effect / sd) * sqrt(n)`` and ``c = t_{1 - alpha/2, df}``, power is
``P(T > c) + P(T < -c)`` for ``T ~ nct(df, nc)`` — the same formula as statsmodels' ``TTestPower``. Required N
is the smallest integer N reaching the target power (found by bracketing and bisection, power being increasing
in N); the minimum detectable effect solves power = target for the effect by Brent's method.
Defaults (power 0.8, alpha 0.05) are the conventional ones: a real effect is missed at most one time in five.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from hcrbench.data.display import ResultDisplay
from hcrbench.errors import InputError
from hcrbench.stats._arrays import check_probability

MAX_N = 10**9


def _positive(value: float, field: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"must be a positive number, got {value!r}", field=field) from None
    if not (math.isfinite(v) and v > 0.0):
        raise InputError(f"must be a positive finite number, got {value!r}", field=field)
    return v


def _count(value: int, field: str, minimum: int = 2) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"must be an integer >= {minimum}, got {value!r}", field=field)
    return int(value)


def _power(es: float, n: int | float, alpha: float) -> float:
    df = n - 1.0
    nc = es * math.sqrt(n)
    crit = stats.t.isf(alpha / 2.0, df)
    upper = float(stats.nct.sf(crit, df, nc))
    lower = float(stats.nct.cdf(-crit, df, nc))
    if math.isnan(lower):  # scipy's nct underflows to NaN far in the tail (large nc): the mass there is ~0
        lower = 0.0
    return upper + lower


def paired_power(effect: float, sd: float, n: int, *, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test with ``n`` queries to detect a mean difference ``effect``
    when the per-query differences have standard deviation ``sd``."""
    es = abs(float(effect)) / _positive(sd, "sd")
    return _power(es, _count(n, "n"), check_probability(alpha, "alpha"))


def required_n(effect: float, sd: float, *, power: float = 0.8, alpha: float = 0.05) -> int:
    """Smallest number of queries for which the two-sided paired t-test detects a true mean difference
    ``effect`` (differences with standard deviation ``sd``) with probability ``power`` at level ``alpha``.

    Equals ``ceil(TTestPower().solve_power(effect/sd, alpha=alpha, power=power))``, but never below 2.
    """
    try:
        eff = abs(float(effect))
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {effect!r}", field="effect") from None
    if not (math.isfinite(eff) and eff > 0.0):
        raise InputError(f"must be a non-zero finite number (no N detects a zero effect), got {effect!r}", field="effect")
    es = eff / _positive(sd, "sd")
    target = check_probability(power, "power")
    alpha = check_probability(alpha, "alpha")
    if target <= alpha:
        raise InputError(f"must exceed alpha ({alpha}), got {power!r}", field="power")
    lo, hi = 1, 2  # invariant: power(lo) < target (n = 1 has no test), power(hi) >= target once found
    while _power(es, hi, alpha) < target:
        lo, hi = hi, hi * 2
        if hi > MAX_N:
            raise InputError(f"needs more than {MAX_N} queries (effect/sd = {es:.3g})", field="effect")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _power(es, mid, alpha) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def required_n_or_inf(effect: float, sd: float, *, power: float = 0.8, alpha: float = 0.05) -> float:
    """:func:`required_n` that never raises on a finite input: ``math.inf`` when no N up to ``MAX_N`` (10^9)
    reaches ``power`` (a zero, tiny or non-finite effect, or zero spread with zero effect), else the int.

    Use :func:`format_n` to print it ("> 10^9" for inf). Zero spread with a non-zero effect needs 2 queries.
    """
    try:
        eff = abs(float(effect))
        s = float(sd)
    except (TypeError, ValueError):
        return math.inf
    if not (math.isfinite(eff) and eff > 0.0 and math.isfinite(s)):
        return math.inf
    if s <= 0.0:
        return 2
    try:
        return required_n(eff, s, power=power, alpha=alpha)
    except InputError:
        return math.inf


def format_n(n: float | int | None) -> str:
    """A required N for people: the integer, or "> 10^9" when it is infinite (no bench size reaches power)."""
    if n is None:
        return "—"
    if not math.isfinite(n):
        return f"> 10^{int(math.log10(MAX_N))}"
    return str(int(n))


def minimum_detectable_effect(sd: float, n: int, *, power: float = 0.8, alpha: float = 0.05) -> float:
    """Smallest true mean difference (in metric units) that ``n`` queries detect with probability ``power``
    at level ``alpha``, two-sided paired t-test, differences with standard deviation ``sd``.

    Equals ``TTestPower().solve_power(nobs=n, alpha=alpha, power=power) * sd``.
    """
    sd = _positive(sd, "sd")
    n = _count(n, "n")
    target = check_probability(power, "power")
    alpha = check_probability(alpha, "alpha")
    if target <= alpha:
        raise InputError(f"must exceed alpha ({alpha}), got {power!r}", field="power")
    hi = 1.0
    while _power(hi, n, alpha) < target:
        hi *= 2.0
    es = optimize.brentq(lambda e: _power(e, n, alpha) - target, 0.0, hi, xtol=1e-12, rtol=1e-12)
    return float(es * sd)


@dataclass(frozen=True)
class ProjectedCI(ResultDisplay):
    """Half-width of a t confidence interval of a mean difference now (``n``) and at ``n_new`` queries.

    ``scale = sqrt(n / n_new)`` is the pure standard-error ratio: multiply any current half-width (a bootstrap
    one included) by it to project that interval under the same per-query spread.
    """

    n: int
    n_new: int
    confidence: float
    half_width: float
    half_width_new: float
    scale: float

    def to_dict(self) -> dict:
        return {k: (float(v) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def project_ci(sd: float, n: int, n_new: int, confidence: float = 0.95) -> ProjectedCI:
    """Project the CI half-width of a mean difference from ``n`` to ``n_new`` queries by standard-error scaling.

    Half-width is ``t_{(1+confidence)/2, N-1} * sd / sqrt(N)``, assuming the per-query standard deviation
    ``sd`` stays the same on the new queries (same population of queries).
    """
    sd = _positive(sd, "sd")
    n = _count(n, "n")
    n_new = _count(n_new, "n_new")
    confidence = check_probability(confidence, "confidence")
    q = (1.0 + confidence) / 2.0
    hw = float(stats.t.ppf(q, n - 1) * sd / math.sqrt(n))
    hw_new = float(stats.t.ppf(q, n_new - 1) * sd / math.sqrt(n_new))
    return ProjectedCI(n, n_new, confidence, hw, hw_new, math.sqrt(n / n_new))
