"""Tukey's honestly significant difference (HSD) test over k systems: ranx's ``stat_test="tukey"``.

Each system's per-query values are one group; the p-value of every pair comes from the studentized range
distribution with the pooled within-group variance (``scipy.stats.tukey_hsd``, which ranx calls). The groups are
treated as independent samples (as ranx does), so this is more conservative than a paired test on the same queries;
it controls the family-wise error over all k(k-1)/2 pairs by itself (no Holm on top).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hcrbench.errors import InputError


def tukey_hsd_pvalues(groups: Sequence[object]) -> np.ndarray:
    """The k x k matrix of Tukey HSD p-values (1 on the diagonal) for ``groups`` (k >= 2 arrays of values).

    Every group constant and equal to the others (zero pooled variance) gives p = 1 everywhere, where scipy
    returns NaN.
    """
    arrays = [np.asarray(g, dtype=np.float64).ravel() for g in groups]
    if len(arrays) < 2:
        raise InputError(f"Tukey's HSD needs at least 2 groups, got {len(arrays)}", field="groups")
    if any(a.size < 2 for a in arrays):
        raise InputError("Tukey's HSD needs at least 2 values per group", field="groups")
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise InputError("Tukey's HSD needs finite values", field="groups")
    from scipy.stats import tukey_hsd

    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.array(tukey_hsd(*arrays).pvalue, dtype=np.float64)
    means = np.array([a.mean() for a in arrays])
    p = np.where(np.isnan(p), np.where(means[:, None] == means[None, :], 1.0, 0.0), p)
    np.fill_diagonal(p, 1.0)
    return p
