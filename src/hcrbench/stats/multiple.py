"""Multiple-comparison corrections of a family of p-values, by statsmodels' names.

:func:`adjust` takes any name ``statsmodels.stats.multitest.multipletests`` takes for these methods (and
hcrbench's older ``bh`` / ``none``) and returns the same adjusted p-values, in the input order:

- family-wise error rate (the chance of *any* false "significant"): ``bonferroni`` (m·p), ``sidak``,
  ``holm`` (Holm–Bonferroni step-down, any dependence), ``holm-sidak`` (step-down Šidák: independent or
  positively dependent tests), ``hommel`` (Hommel 1988: more powerful than Holm under positive dependence);
- false discovery rate (the expected share of false discoveries among the "significant"): ``fdr_bh``
  (Benjamini–Hochberg, independent or positively dependent tests), ``fdr_by`` (Benjamini–Yekutieli, any
  dependence);
- ``none``: the raw p-values, checked.

The family is exactly the list given: :func:`~hcrbench.stats.compare` passes each declared family.
"""

from __future__ import annotations

import numpy as np

from hcrbench.errors import InputError

#: Canonical correction names (statsmodels' spellings, plus hcrbench's ``bh`` and ``none``).
CORRECTIONS = ("holm", "bh", "none", "bonferroni", "sidak", "holm-sidak", "hommel", "fdr_bh", "fdr_by")
#: Every other spelling statsmodels' ``multipletests`` accepts for them (case-insensitive) -> canonical name.
ALIASES = {"b": "bonferroni", "bonf": "bonferroni", "s": "sidak", "hs": "holm-sidak", "h": "holm",
           "ho": "hommel", "fdr_i": "fdr_bh", "fdr_p": "fdr_bh", "fdri": "fdr_bh", "fdrp": "fdr_bh",
           "fdr_n": "fdr_by", "fdr_c": "fdr_by", "fdrn": "fdr_by", "fdrcorr": "fdr_by"}
#: Corrections that control the family-wise error rate (their adjusted p < alpha is a simultaneous claim).
FWER = frozenset({"holm", "bonferroni", "sidak", "holm-sidak", "hommel"})
#: Corrections that control the false discovery rate.
FDR = frozenset({"bh", "fdr_bh", "fdr_by"})
#: How each correction is named in legends and table headers.
LABELS = {"holm": "Holm", "bh": "BH", "fdr_bh": "BH", "fdr_by": "BY", "bonferroni": "Bonferroni",
          "sidak": "Šidák", "holm-sidak": "Holm-Šidák", "hommel": "Hommel", "none": "unadjusted"}
DESCRIPTIONS = {"holm": "Holm-adjusted", "bh": "Benjamini-Hochberg-adjusted", "fdr_bh": "Benjamini-Hochberg-adjusted",
                "fdr_by": "Benjamini-Yekutieli-adjusted", "bonferroni": "Bonferroni-adjusted",
                "sidak": "Šidák-adjusted", "holm-sidak": "Holm-Šidák-adjusted", "hommel": "Hommel-adjusted"}


def correction_name(name: object, field: str = "correction") -> str:
    """The canonical name of a correction spelled any way statsmodels or hcrbench accepts; InputError otherwise."""
    text = str(name).strip().lower() if isinstance(name, str) else None
    if text in CORRECTIONS:
        return text
    if text in ALIASES:
        return ALIASES[text]
    raise InputError(f"must be one of {', '.join(CORRECTIONS)} (or statsmodels' short names: "
                     f"{', '.join(ALIASES)}), got {name!r}", field=field)


def holm(pvalues: object) -> np.ndarray:
    """Holm-adjusted p-values, in the input order (equals ``multipletests(method="holm")[1]``).

    Sorted ascending, the i-th smallest of m p-values becomes ``max_{j<=i} min(1, (m - j) * p_(j))``
    (0-based j), so adjusted values are monotone in the raw ones and never below them.
    """
    p, order = _sorted(pvalues)
    m = p.size
    return _unsort(np.maximum.accumulate(p * np.arange(m, 0, -1)), order)


def benjamini_hochberg(pvalues: object) -> np.ndarray:
    """Benjamini-Hochberg step-up adjusted p-values (false discovery rate), in the input order.

    Sorted ascending, the i-th smallest of m p-values (1-based) becomes ``min_{j>=i} min(1, m p_(j) / j)``;
    equals statsmodels' ``multipletests(method="fdr_bh")[1]`` and scipy's ``false_discovery_control(method="bh")``.
    It controls the expected share of false discoveries among the "significant" (independent or positively
    dependent tests), a weaker promise than Holm's family-wise error rate, hence more discoveries.
    """
    return _step_up(pvalues, harmonic=False)


def benjamini_yekutieli(pvalues: object) -> np.ndarray:
    """Benjamini-Yekutieli adjusted p-values (false discovery rate under any dependence): Benjamini-Hochberg's
    times ``c(m) = 1 + 1/2 + ... + 1/m``; equals ``multipletests(method="fdr_by")[1]``."""
    return _step_up(pvalues, harmonic=True)


def bonferroni(pvalues: object) -> np.ndarray:
    """``min(1, m p)``: equals ``multipletests(method="bonferroni")[1]``."""
    p = _probabilities(pvalues)
    return np.minimum(1.0, p * float(p.size))


def sidak(pvalues: object) -> np.ndarray:
    """``1 - (1 - p)^m``: equals ``multipletests(method="sidak")[1]``."""
    p = _probabilities(pvalues)
    with np.errstate(divide="ignore"):  # p = 1: log1p(-1) = -inf, and the adjusted value is 1
        return np.minimum(1.0, -np.expm1(p.size * np.log1p(-p)))


def holm_sidak(pvalues: object) -> np.ndarray:
    """Step-down Šidák: the i-th smallest (0-based) becomes ``max_{j<=i} 1 - (1 - p_(j))^(m - j)``; equals
    ``multipletests(method="holm-sidak")[1]``."""
    p, order = _sorted(pvalues)
    with np.errstate(divide="ignore"):  # p = 1: log1p(-1) = -inf, and the adjusted value is 1
        raw = -np.expm1(np.arange(p.size, 0, -1) * np.log1p(-p))
    return _unsort(np.maximum.accumulate(raw), order)


def hommel(pvalues: object) -> np.ndarray:
    """Hommel's (1988) adjusted p-values, as statsmodels computes them (``multipletests(method="hommel")``): for
    each subset size k = m..2 the Simes p ``min_j k p_(m-k+j) / j`` of the k largest raises every adjusted value."""
    p, order = _sorted(pvalues)
    a = p.copy()
    for k in range(p.size, 1, -1):
        cim = np.min(k * p[-k:] / np.arange(1, k + 1.0))
        a[-k:] = np.maximum(a[-k:], cim)
        a[:-k] = np.maximum(a[:-k], np.minimum(k * p[:-k], cim))
    return _unsort(a, order)


def adjust(pvalues: object, correction: str = "holm") -> np.ndarray:
    """``pvalues`` adjusted by ``correction`` (any name of :data:`CORRECTIONS` or :data:`ALIASES`; ``none`` gives
    the raw p-values, checked), in the input order; equal to statsmodels' ``multipletests(method=...)[1]``."""
    name = correction_name(correction)
    if name == "none":
        return _probabilities(pvalues).copy()
    return {"holm": holm, "bh": benjamini_hochberg, "fdr_bh": benjamini_hochberg, "fdr_by": benjamini_yekutieli,
            "bonferroni": bonferroni, "sidak": sidak, "holm-sidak": holm_sidak, "hommel": hommel}[name](pvalues)


def _step_up(pvalues: object, harmonic: bool) -> np.ndarray:
    p, order = _sorted(pvalues)
    m = p.size
    factor = np.arange(1, m + 1) / float(m)  # statsmodels' ecdf factor, so the numbers agree bit for bit
    if harmonic:
        factor = factor / np.sum(1.0 / np.arange(1, m + 1))
    return _unsort(np.minimum.accumulate((p / factor)[::-1])[::-1], order)


def _sorted(pvalues: object) -> tuple[np.ndarray, np.ndarray]:
    p = _probabilities(pvalues)
    order = np.argsort(p, kind="stable")
    return p[order], order


def _unsort(adjusted_sorted: np.ndarray, order: np.ndarray) -> np.ndarray:
    out = np.empty(order.size)
    out[order] = np.minimum(1.0, adjusted_sorted)
    return out


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
