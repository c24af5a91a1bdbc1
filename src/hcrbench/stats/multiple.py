"""Holm–Bonferroni step-down adjustment for a family of p-values.

Controls the family-wise error rate (the chance of any false "significant") at level alpha under any
dependence between the tests, and is uniformly more powerful than plain Bonferroni. The family is exactly the
list given: :func:`~hcrbench.stats.compare` passes every (system, metric) comparison of one call.
"""

from __future__ import annotations

import numpy as np

from hcrbench.errors import InputError


def holm(pvalues: object) -> np.ndarray:
    """Holm-adjusted p-values, in the input order (equals ``multipletests(method="holm")[1]``).

    Sorted ascending, the i-th smallest of m p-values becomes ``max_{j<=i} min(1, (m - j) * p_(j))``
    (0-based j), so adjusted values are monotone in the raw ones and never below them.
    """
    try:
        p = np.asarray(pvalues, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputError(f"not a numeric array ({e})", field="pvalues") from None
    if p.ndim == 0:
        p = p.reshape(1)
    if p.ndim != 1:
        raise InputError(f"expected a 1-D array, got shape {p.shape}", field="pvalues")
    if p.size == 0:
        return p.copy()
    if np.any(np.isnan(p)) or np.any(p < 0.0) or np.any(p > 1.0):
        bad = int(np.flatnonzero(np.isnan(p) | (p < 0.0) | (p > 1.0))[0])
        raise InputError(f"value at position {bad} is not a probability ({p[bad]})", field="pvalues")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    adjusted_sorted = np.minimum(1.0, np.maximum.accumulate(scaled))
    out = np.empty(m)
    out[order] = adjusted_sorted
    return out
