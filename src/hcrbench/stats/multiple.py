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


def benjamini_hochberg(pvalues: object) -> np.ndarray:
    """Benjamini-Hochberg step-up adjusted p-values (false discovery rate), in the input order.

    Sorted ascending, the i-th smallest of m p-values (1-based) becomes ``min_{j>=i} min(1, m p_(j) / j)``;
    equals statsmodels' ``multipletests(method="fdr_bh")[1]`` and scipy's ``false_discovery_control(method="bh")``.
    It controls the expected share of false discoveries among the "significant" (independent or positively
    dependent tests), a weaker promise than Holm's family-wise error rate, hence more discoveries.
    """
    p = _probabilities(pvalues)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted_sorted = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    out = np.empty(m)
    out[order] = adjusted_sorted
    return out


CORRECTIONS = ("holm", "bh", "none")


def adjust(pvalues: object, correction: str = "holm") -> np.ndarray:
    """``holm`` (family-wise error), ``bh`` (false discovery rate) or ``none`` (the raw p-values, checked)."""
    if correction == "holm":
        return holm(pvalues)
    if correction == "bh":
        return benjamini_hochberg(pvalues)
    if correction == "none":
        return _probabilities(pvalues).copy()
    raise InputError(f"must be one of {', '.join(CORRECTIONS)}, got {correction!r}", field="correction")


def _probabilities(pvalues: object) -> np.ndarray:
    try:
        p = np.asarray(pvalues, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputError(f"not a numeric array ({e})", field="pvalues") from None
    p = p.reshape(1) if p.ndim == 0 else p
    if p.ndim != 1:
        raise InputError(f"expected a 1-D array, got shape {p.shape}", field="pvalues")
    bad = np.isnan(p) | (p < 0.0) | (p > 1.0)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"value at position {i} is not a probability ({p[i]})", field="pvalues")
    return p
