"""Wilcoxon signed-rank test on paired per-query values: scipy's ``wilcoxon``, with the degenerate cases named.

The test ranks the absolute per-query differences and asks whether positive and negative ranks balance; it
assumes a symmetric distribution of differences (weaker than the t-test's normality) and is what many IR papers
report beside the t-test. Zero differences are dropped before ranking (``zero_method="wilcox"``, scipy's default,
as in R's ``wilcox.test``); scipy picks the exact distribution at small n without ties, else the normal
approximation. When every difference is zero there is nothing to test: p = 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hcrbench.data.display import ResultDisplay


def wilcoxon_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p of ``a - b`` (``scipy.stats.wilcoxon(a, b).pvalue``; 1 if all tie)."""
    return wilcoxon_test(a, b).pvalue


@dataclass(frozen=True)
class WilcoxonResult(ResultDisplay):
    """scipy's ``WilcoxonResult`` fields: the signed-rank statistic (the smaller rank sum) and the two-sided p."""

    statistic: float
    pvalue: float
    n_nonzero: int  # differences left after dropping the zeros


def wilcoxon_test(a: np.ndarray, b: np.ndarray) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test of ``a - b``: ``scipy.stats.wilcoxon(a, b)``'s statistic and p (p = 1
    and statistic 0 when every difference is zero)."""
    from scipy import stats

    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    nz = int(np.count_nonzero(d))
    if nz == 0:
        return WilcoxonResult(0.0, 1.0, 0)
    res = stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided")
    return WilcoxonResult(float(res.statistic), float(min(1.0, res.pvalue)), nz)
