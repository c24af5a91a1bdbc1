"""Go/no-go verdicts for one comparison (system vs baseline, or a feature on vs off).

Rules, applied in this order (``alpha`` 0.05, ``power`` 0.8 by default; ``min_delta`` is the smallest delta
that would matter to you, in metric units):

1. **NULL-FAIL** — the system fails the falsification gate: its score is not distinguishable from a null
   predictor, so no comparison of it means anything.
2. **HIT** — Holm-adjusted p < alpha AND the CI of the delta excludes 0; the sign says better (+) or worse (-).
3. **MISS** — not a HIT, the bench is adequately powered for ``min_delta`` (minimum detectable effect at
   ``power`` <= ``min_delta``) and |delta| < ``min_delta``: whatever effect there is, it is too small to matter.
4. **UNDER-NS** — otherwise (not significant and not powered to rule out ``min_delta``): reports the N needed
   for ``power`` to detect ``min_delta`` (and the observed delta), and the SE-projected CI half-width at that N.

The per-query SD of the differences comes from ``diffs`` when given, else from the comparison's Cohen's d, else
from its CI width (normal approximation).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from hcrbench.errors import InputError

VERDICTS = ("HIT", "UNDER-NS", "MISS", "NULL-FAIL")


@dataclass(frozen=True)
class Verdict:
    """A verdict and the figures behind it."""

    label: str
    sign: str               # "+", "-" or "0" (no significant direction)
    delta: float
    ci_low: float
    ci_high: float
    p_holm: float
    n: int
    sd: float
    min_delta: float
    mde: float | None          # minimum detectable effect at this n
    n_needed: int | None       # N for `power` to detect min_delta (UNDER-NS)
    n_needed_observed: int | None  # N for `power` to detect the observed |delta| (UNDER-NS)
    projected_half_width: float | None  # SE projection of the CI half-width at n_needed
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _sd(comparison: Any, diffs: np.ndarray | None) -> float:
    if diffs is not None:
        d = np.asarray(diffs, dtype=np.float64)
        return float(d.std(ddof=1)) if d.size > 1 else 0.0
    cd = float(getattr(comparison, "cohens_d", float("nan")))
    if math.isfinite(cd) and cd != 0.0 and comparison.delta != 0.0:
        return abs(comparison.delta / cd)
    width = comparison.ci_high - comparison.ci_low
    return float(width / (2 * 1.959963984540054) * math.sqrt(comparison.n)) if comparison.n > 0 else 0.0


def verdict(
    comparison: Any,
    gate_pass: bool,
    *,
    min_delta: float,
    power: float = 0.8,
    alpha: float = 0.05,
    diffs: np.ndarray | None = None,
) -> Verdict:
    """Classify ``comparison`` (a :class:`hcrbench.stats.Comparison`) as HIT / UNDER-NS / MISS / NULL-FAIL."""
    from hcrbench.stats import minimum_detectable_effect, project_ci, required_n

    if not (isinstance(min_delta, (int, float)) and math.isfinite(min_delta) and min_delta > 0):
        raise InputError(f"must be a positive number, got {min_delta!r}", field="min_delta")
    c = comparison
    sd = _sd(c, diffs)
    base = dict(delta=float(c.delta), ci_low=float(c.ci_low), ci_high=float(c.ci_high), p_holm=float(c.p_holm),
                n=int(c.n), sd=sd, min_delta=float(min_delta))
    sign = "+" if c.delta > 0 else "-" if c.delta < 0 else "0"
    if not gate_pass:
        return Verdict("NULL-FAIL", "0", **base, mde=None, n_needed=None, n_needed_observed=None,
                       projected_half_width=None, reason="the system fails the falsification gate")
    excludes0 = c.ci_low > 0 or c.ci_high < 0
    if c.p_holm < alpha and excludes0:
        return Verdict("HIT", sign, **base, mde=None, n_needed=None, n_needed_observed=None,
                       projected_half_width=None,
                       reason=f"Holm p={c.p_holm:.3g} < {alpha} and the CI excludes 0 ({sign})")
    if sd <= 0 or c.n < 2:  # every query tied: nothing varies, the delta is exactly what it is
        label = "MISS" if abs(c.delta) < min_delta else "UNDER-NS"
        return Verdict(label, "0", **base, mde=0.0, n_needed=None, n_needed_observed=None,
                       projected_half_width=None, reason="no per-query variation in the differences")
    mde = minimum_detectable_effect(sd, c.n, power=power, alpha=alpha)
    if mde <= min_delta and abs(c.delta) < min_delta:
        return Verdict("MISS", "0", **base, mde=mde, n_needed=None, n_needed_observed=None,
                       projected_half_width=None,
                       reason=f"|delta|={abs(c.delta):.4f} < min_delta={min_delta} with power {power} "
                              f"(MDE {mde:.4f})")
    n_needed = required_n(min_delta, sd, power=power, alpha=alpha)
    n_obs = required_n(c.delta, sd, power=power, alpha=alpha) if c.delta != 0 else None
    proj = project_ci(sd, c.n, max(n_needed, 2)).half_width_new
    return Verdict("UNDER-NS", "0", **base, mde=mde, n_needed=n_needed, n_needed_observed=n_obs,
                   projected_half_width=proj,
                   reason=f"not significant; {n_needed} queries give power {power} for min_delta={min_delta} "
                          f"(CI half-width there ~{proj:.4f})")
