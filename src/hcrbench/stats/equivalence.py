"""Equivalence testing (TOST): is the paired mean difference inside (-margin, +margin)?

Two one-sided paired t-tests (Schuirmann 1987): H0_low "mean <= -margin" and H0_high "mean >= +margin", each at
level alpha; equivalence is shown when both are rejected, i.e. ``p = max(p_low, p_high) < alpha``, which is the
same as the ``(1 - 2 alpha)`` t interval of the mean lying inside the margin. In a family of m comparisons the
TOST p-values are Holm-adjusted like any other, and the interval shown is the ``(1 - 2 alpha / m)`` one
(Bonferroni: inside the margin implies Holm-significant equivalence). Absence of evidence (a non-significant
difference test) is never evidence of absence; this test is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from hcrbench.data.display import ResultDisplay
from hcrbench.errors import InputError
from hcrbench.stats._arrays import check_probability, paired_differences


@dataclass(frozen=True)
class EquivalenceResult(ResultDisplay):
    """TOST of ``|mean(a - b)| < margin``: the two one-sided p-values, their max, and the (1 - 2 alpha) CI."""

    estimate: float
    margin: float
    p_low: float    # H0: mean <= -margin
    p_high: float   # H0: mean >= +margin
    pvalue: float   # max(p_low, p_high)
    ci_low: float   # (1 - 2 alpha) t interval
    ci_high: float
    alpha: float
    n: int
    sd: float

    def equivalent(self, alpha: float | None = None) -> bool:
        return bool(self.pvalue < (self.alpha if alpha is None else alpha))

    def to_dict(self) -> dict:
        return {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in self.__dict__.items()}


def tost(a: object, b: object | None = None, *, margin: float, alpha: float = 0.05) -> EquivalenceResult:
    """Paired TOST of ``-margin < mean(a - b) < margin`` with paired t-tests (equals statsmodels' ``ttost_paired``).

    Degenerate cases are defined, never NaN: with zero spread the mean is known exactly (p = 0 when it is inside
    the margin, 1 otherwise); a single pair gives p = 1 and an infinite interval.
    """
    d = paired_differences(a, b)
    sd = float(d.std(ddof=1)) if d.size > 1 else math.nan
    if d.size > 1 and np.all(d == d[0]):
        sd = 0.0
    return tost_from_summary(float(d.mean()), sd, int(d.size), margin=margin, alpha=alpha)


def tost_from_summary(mean: float, sd: float, n: int, *, margin: float, alpha: float = 0.05) -> EquivalenceResult:
    """:func:`tost` from the mean, SD (ddof=1) and number of the paired differences."""
    try:
        margin = float(margin)
    except (TypeError, ValueError):
        raise InputError(f"must be a positive number, got {margin!r}", field="margin") from None
    if not (math.isfinite(margin) and margin > 0):
        raise InputError(f"must be a positive finite number, got {margin!r}", field="margin")
    alpha = check_probability(alpha, "alpha")
    mean = float(mean)
    if n < 2 or not math.isfinite(sd):
        return EquivalenceResult(mean, margin, 1.0, 1.0, 1.0, -math.inf, math.inf, alpha, n, math.nan)
    if sd == 0.0:
        inside = -margin < mean < margin
        p_low = 0.0 if mean > -margin else 1.0
        p_high = 0.0 if mean < margin else 1.0
        p = 0.0 if inside else 1.0
        return EquivalenceResult(mean, margin, p_low, p_high, p, mean, mean, alpha, n, 0.0)
    se = sd / math.sqrt(n)
    df = n - 1
    p_low = float(_st.t.sf((mean + margin) / se, df))
    p_high = float(_st.t.cdf((mean - margin) / se, df))
    half = float(_st.t.ppf(1.0 - alpha, df) * se)
    return EquivalenceResult(mean, margin, p_low, p_high, max(p_low, p_high), mean - half, mean + half, alpha, n, sd)
