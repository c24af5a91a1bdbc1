"""Wilcoxon signed-rank test on paired per-query values: scipy's ``wilcoxon``, with the degenerate cases named.

The test ranks the absolute per-query differences and asks whether positive and negative ranks balance; it
assumes a symmetric distribution of differences (weaker than the t-test's normality) and is what many IR papers
report beside the t-test. Zero differences are dropped before ranking (``zero_method="wilcox"``, scipy's default,
as in R's ``wilcox.test``); scipy picks the exact distribution at small n without ties, else the normal
approximation. When every difference is zero there is nothing to test: p = 1.
"""

from __future__ import annotations

import numpy as np


def wilcoxon_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p of ``a - b`` (``scipy.stats.wilcoxon(a, b).pvalue``; 1 if all tie)."""
    from scipy import stats

    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if not np.any(d != 0):
        return 1.0
    return float(min(1.0, stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue))
