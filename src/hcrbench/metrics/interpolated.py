"""Interpolated precision at recall levels (trec_eval 10.0's ``iprec_at_recall`` and ``11pt_avg``), vectorised.

The recall level ``x`` becomes a number of relevant docs ``c = lround(x * R)`` (trec_eval 10.0; version 9 and
pytrec_eval used ``(long)(x * R + 0.9)``, which differs when the fractional part of ``x * R`` lies in
(0.1, 0.5)). The value at ``c`` is the highest precision at any rank at or below the ``c``-th relevant retrieved
doc: ``max over j >= c of j / rank_j`` (``rank_j`` the 1-based rank of the j-th relevant retrieved doc); for
``c = 0`` the same from the first relevant doc; 0 when fewer than ``c`` relevant docs are retrieved or nothing
relevant is retrieved. ``11pt_avg`` averages the 11 levels 0.0, 0.1, ..., 1.0.
"""

from __future__ import annotations

import math

import numpy as np

from hcrbench.metrics._groups import count_before, suffix_max

ELEVEN_POINTS = tuple(i / 10 for i in range(11))


def lround(x: float) -> int:
    """C's ``lround``: nearest integer, halves away from zero."""
    return math.floor(abs(x) + 0.5) * (1 if x >= 0 else -1)


def iprec_values(query: np.ndarray, rank: np.ndarray, rel: np.ndarray, n_rel: np.ndarray, nq: int,
                 levels: tuple[float, ...]) -> np.ndarray:
    """``(len(levels), nq)`` interpolated precision; hits sorted by query then rank, ``rel`` their relevance."""
    rq, rr = query[rel], rank[rel]
    j = count_before(rq, np.ones(rq.size, dtype=bool)) + 1  # 1-based index among the query's relevant hits
    best = suffix_max(rq, j / (rr + 1.0))  # max precision at or below each relevant hit
    n_rel_ret = np.bincount(rq, minlength=nq)
    out = np.zeros((len(levels), nq))
    starts = np.r_[0, np.cumsum(n_rel_ret)[:-1]] if nq else np.zeros(0, dtype=np.int64)
    for li, level in enumerate(levels):
        c = np.array([lround(level * r) for r in n_rel.tolist()], dtype=np.int64)
        ok = (n_rel_ret > 0) & (c <= n_rel_ret)
        idx = starts[ok] + np.maximum(c[ok], 1) - 1  # the c-th relevant hit (the first one for c = 0)
        out[li, ok] = best[idx]
    return out
