"""Go/no-go verdicts for one comparison (system vs baseline, or a feature on vs off).

Rules, applied in this order (``alpha`` 0.05, ``power`` 0.8 by default; ``min_delta`` is the smallest delta
that would matter to you, in metric units; m is the size of the comparison's declared Holm family):

1. **NULL-FAIL** — the system fails the falsification gate: its score is not distinguishable from a null
   predictor, so no comparison of it means anything.
2. **HIT** — Holm-adjusted p < alpha AND the CI of the delta excludes 0; the sign says better (+) or worse (-).
3. **UNDER-NS (degenerate)** — fewer than ``min_n`` (20) paired queries, or zero spread in the per-query
   differences (every query moved by the same amount, e.g. all tied): no equivalence claim can rest on that.
4. **MISS** — equivalence shown (TOST): the Holm-adjusted TOST p-value over the family is below alpha, i.e. the
   delta is shown to lie inside (-min_delta, +min_delta). Without the family's other p-values it is the
   Bonferroni bound m x p_TOST, which is the same as the (1 - 2 alpha / m) paired-t CI lying inside the margin.
5. **UNDER-NS** — otherwise: neither a difference nor an equivalence is shown. Reports the N needed for
   ``power`` to detect ``min_delta`` (and the observed delta) at level alpha / m, and the SE-projected CI
   half-width there; an N beyond 10^9 (or infinite) is reported as "> 10^9", never raised.

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
MIN_N = 20  # fewest paired queries for a MISS (an equivalence claim)


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
    mde: float | None          # minimum detectable effect at this n (level alpha / m)
    n_needed: int | None       # N for `power` to detect min_delta (UNDER-NS); None when > 10^9
    n_needed_observed: int | None  # N for `power` to detect the observed |delta| (UNDER-NS); None when > 10^9
    projected_half_width: float | None  # SE projection of the CI half-width at n_needed
    reason: str
    family_size: int = 1       # m: comparisons in the declared Holm family
    p_equiv: float | None = None       # TOST p-value (max of the two one-sided t-tests) for |delta| < min_delta
    p_equiv_holm: float | None = None  # ... Holm-adjusted over the family (MISS when < alpha)
    eq_ci_low: float | None = None     # (1 - 2 alpha / m) paired-t CI of the delta (the TOST interval)
    eq_ci_high: float | None = None
    n_needed_text: str = ""            # n_needed for people: "123", "> 10^9"
    n_needed_observed_text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _sd(comparison: Any, diffs: np.ndarray | None) -> float:
    if diffs is not None:
        d = np.asarray(diffs, dtype=np.float64)
        if d.size < 2 or np.all(d == d[0]):
            return 0.0
        return float(d.std(ddof=1))
    cd = float(getattr(comparison, "cohens_d", float("nan")))
    if math.isfinite(cd) and cd != 0.0 and comparison.delta != 0.0:
        return abs(comparison.delta / cd)
    width = comparison.ci_high - comparison.ci_low
    return float(width / (2 * 1.959963984540054) * math.sqrt(comparison.n)) if comparison.n > 0 else 0.0


def equivalence_p(comparison: Any, *, min_delta: float, alpha: float = 0.05, diffs: np.ndarray | None = None) -> float:
    """The TOST p-value of ``|delta| < min_delta`` for one comparison (1.0 when it cannot be computed)."""
    from hcrbench.stats import tost_from_summary

    sd = _sd(comparison, diffs)
    if comparison.n < 2:
        return 1.0
    return tost_from_summary(comparison.delta, sd, int(comparison.n), margin=min_delta, alpha=alpha).pvalue


def verdict(
    comparison: Any,
    gate_pass: bool,
    *,
    min_delta: float,
    power: float = 0.8,
    alpha: float = 0.05,
    diffs: np.ndarray | None = None,
    family_size: int | None = None,
    p_equiv_holm: float | None = None,
    min_n: int = MIN_N,
) -> Verdict:
    """Classify ``comparison`` (a :class:`hcrbench.stats.Comparison`) as HIT / UNDER-NS / MISS / NULL-FAIL.

    ``family_size`` (default: the comparison's own ``family_size``, else 1) is m of the declared Holm family;
    ``p_equiv_holm`` the Holm-adjusted TOST p of this comparison over that family (see :func:`verdicts`),
    default the Bonferroni bound ``m * p_TOST``. Never raises on finite input.
    """
    from hcrbench.stats import (
        format_n,
        minimum_detectable_effect,
        project_ci,
        required_n_or_inf,
        tost_from_summary,
    )

    if not (isinstance(min_delta, (int, float)) and math.isfinite(min_delta) and min_delta > 0):
        raise InputError(f"must be a positive number, got {min_delta!r}", field="min_delta")
    c = comparison
    m = int(family_size or getattr(c, "family_size", 0) or 1)
    a_fam = alpha / m
    sd = _sd(c, diffs)
    base = dict(delta=float(c.delta), ci_low=float(c.ci_low), ci_high=float(c.ci_high), p_holm=float(c.p_holm),
                n=int(c.n), sd=sd, min_delta=float(min_delta), family_size=m)
    sign = "+" if c.delta > 0 else "-" if c.delta < 0 else "0"
    none = dict(mde=None, n_needed=None, n_needed_observed=None, projected_half_width=None)
    if not gate_pass:
        return Verdict("NULL-FAIL", "0", **base, **none, reason="the system fails the falsification gate")
    eq = tost_from_summary(c.delta, sd, int(c.n), margin=min_delta, alpha=a_fam) if c.n >= 2 else None
    eqd: dict[str, Any] = {}
    if eq is not None:
        p_adj = min(1.0, m * eq.pvalue) if p_equiv_holm is None else float(p_equiv_holm)
        eqd = dict(p_equiv=eq.pvalue, p_equiv_holm=p_adj, eq_ci_low=eq.ci_low, eq_ci_high=eq.ci_high)
    excludes0 = c.ci_low > 0 or c.ci_high < 0
    if c.p_holm < alpha and excludes0:
        return Verdict("HIT", sign, **base, **none, **eqd,
                       reason=f"Holm p={c.p_holm:.3g} < {alpha} (family m={m}) and the CI excludes 0 ({sign})")
    if c.n < min_n or sd <= 0:
        why = (f"only {c.n} paired queries (an equivalence verdict needs >= {min_n})" if c.n < min_n else
               "zero spread in the per-query differences (every query moved by the same amount): "
               "nothing to test equivalence on")
        n_need = required_n_or_inf(min_delta, sd, power=power, alpha=a_fam) if sd > 0 else math.inf
        return Verdict("UNDER-NS", "0", **base, mde=None, n_needed=_int_or_none(n_need), n_needed_observed=None,
                       projected_half_width=None, reason=f"not decidable: {why}", **eqd,
                       n_needed_text=format_n(n_need) if sd > 0 else "")
    assert eq is not None
    mde = minimum_detectable_effect(sd, c.n, power=power, alpha=a_fam) if c.n >= 2 else None
    if eqd["p_equiv_holm"] < alpha:
        return Verdict("MISS", "0", **base, mde=mde, n_needed=None, n_needed_observed=None,
                       projected_half_width=None, **eqd,
                       reason=f"equivalent within ±{min_delta:g}: TOST Holm p={eqd['p_equiv_holm']:.3g} < {alpha}, "
                              f"{100 * (1 - 2 * a_fam):.4g}% CI [{eq.ci_low:+.4f}, {eq.ci_high:+.4f}] inside the margin")
    n_needed = required_n_or_inf(min_delta, sd, power=power, alpha=a_fam)
    n_obs = required_n_or_inf(c.delta, sd, power=power, alpha=a_fam)
    proj = project_ci(sd, c.n, int(n_needed)).half_width_new if math.isfinite(n_needed) and c.n >= 2 else None
    why = ("the CI excludes 0 but the delta is not Holm-significant" if excludes0 else
           "neither a difference nor equivalence within the margin is shown")
    at = f"CI half-width there ~{proj:.4f}" if proj is not None else "no finite N"
    return Verdict("UNDER-NS", "0", **base, mde=mde, n_needed=_int_or_none(n_needed),
                   n_needed_observed=_int_or_none(n_obs), projected_half_width=proj, **eqd,
                   n_needed_text=format_n(n_needed), n_needed_observed_text=format_n(n_obs),
                   reason=f"{why}; {format_n(n_needed)} queries give power {power} for min_delta={min_delta:g} "
                          f"at alpha/m={a_fam:.3g} ({at})")


def _int_or_none(n: float) -> int | None:
    return int(n) if math.isfinite(n) else None


def verdicts(
    items: list[tuple[Any, bool, np.ndarray | None]],
    *,
    min_delta: float,
    power: float = 0.8,
    alpha: float = 0.05,
    min_n: int = MIN_N,
) -> list[Verdict]:
    """Verdicts for one declared family: ``items`` are (comparison, gate_pass, diffs) of that family.

    The TOST p-values are Holm-adjusted over the family (as the difference p-values are), so MISS controls the
    family-wise rate of false equivalence claims at ``alpha``.
    """
    from hcrbench.stats import holm

    if not items:
        return []
    ps = [equivalence_p(c, min_delta=min_delta, alpha=alpha, diffs=d) for c, _, d in items]
    adj = holm(ps)
    m = len(items)
    return [verdict(c, g, min_delta=min_delta, power=power, alpha=alpha, diffs=d, family_size=m,
                    p_equiv_holm=float(a), min_n=min_n) for (c, g, d), a in zip(items, adj)]
