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
    """For each element, the maximum of ``values`` over it and the later elements of its group."""
    if values.size == 0:
        return values.astype(np.float64)
    span = float(np.max(values) - np.min(values)) + 1.0
    # Reversed, groups appear in decreasing order; an offset growing along the scan keeps groups apart.
    rev_g = groups[::-1]
    offset = (rev_g.max() - rev_g).astype(np.float64) * span
    acc = np.maximum.accumulate(values[::-1] - np.min(values) + offset)
    return (acc - offset + np.min(values))[::-1]
