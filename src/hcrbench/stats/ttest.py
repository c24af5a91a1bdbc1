"""Paired Student t-test on per-query differences.

Assumes the differences are independent draws from a distribution whose mean is roughly normal (by the CLT this
holds for the usual few dozen or more queries). It is reported next to the permutation test because reviewers
expect it; the permutation p-value is the primary one because it needs no normality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hcrbench.data.display import ResultDisplay
from hcrbench.stats._arrays import paired_differences


@dataclass(frozen=True)
class TTestResult(ResultDisplay):
    """t statistic, two-sided p-value and degrees of freedom (``n - 1``)."""

    statistic: float
    pvalue: float
    df: int

    def to_dict(self) -> dict:
        return {"statistic": float(self.statistic), "pvalue": float(self.pvalue), "df": int(self.df)}


def paired_ttest(a: object, b: object | None = None) -> TTestResult:
    """Two-sided paired t-test of ``mean(a - b) == 0`` (equals ``scipy.stats.ttest_rel``).

    Degenerate cases, where scipy returns NaN, are defined: all differences equal to zero gives t = 0, p = 1;
    identical non-zero differences (zero spread) give t = ±inf, p = 0; a single pair gives t = NaN, p = NaN
    (no variance estimate exists).
    """
    d = paired_differences(a, b)
    n = d.size
    if n < 2:
        return TTestResult(statistic=float("nan"), pvalue=float("nan"), df=0)
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    df = n - 1
    if np.all(d == 0.0):
        return TTestResult(statistic=0.0, pvalue=1.0, df=df)
    if sd == 0.0 or sd <= 1e-14 * abs(mean):  # identical non-zero differences, up to rounding
        return TTestResult(statistic=float(np.copysign(np.inf, mean)), pvalue=0.0, df=df)
    t = mean / (sd / np.sqrt(n))
    from scipy import stats as _st  # here, not at import: `hcrbench evaluate` of one run never needs scipy

    p = float(2.0 * _st.t.sf(abs(t), df))
    return TTestResult(statistic=float(t), pvalue=min(1.0, p), df=df)
