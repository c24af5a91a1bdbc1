"""Small vectorised helpers over arrays grouped by query (sorted by query, then rank)."""

from __future__ import annotations

import numpy as np


def group_starts(groups: np.ndarray) -> np.ndarray:
    """For an array sorted by group, the index where each element's group starts."""
    n = groups.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    return np.repeat(first, np.diff(np.r_[first, n]))


def count_before(groups: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """For each element, how many earlier elements of its group have ``mask`` set (exclusive running count)."""
    c = np.cumsum(mask, dtype=np.int64)
    excl = c - mask
    starts = group_starts(groups)
    return excl - (c[starts] - mask[starts]) if groups.size else excl


def suffix_max(groups: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each element, the maximum of ``values`` over it and the later elements of its group.

    Exact and independent of the other groups: values are replaced by their rank among the distinct values (an
    integer), groups are kept apart by an integer offset, and the running maximum of the ranks maps back to the
    values, so no float is ever shifted (a float offset would round, differently with a different set of groups).
    """
    if values.size == 0:
        return values.astype(np.float64)
    uniq, inv = np.unique(values, return_inverse=True)
    rev_g = groups[::-1]
    # Reversed, groups appear in decreasing order; an offset growing along the scan keeps groups apart.
    offset = (rev_g.max() - rev_g).astype(np.int64) * (len(uniq) + 1)
    acc = np.maximum.accumulate(inv.ravel()[::-1].astype(np.int64) + offset)
    return uniq[acc - offset][::-1]
