"""User-model measures over graded gains: ERR@k, nERR@k (cascade) and RBP (rank-biased precision), vectorised.

- ERR@k (Chapelle et al., CIKM 2009), as gdeval (TREC Web track) computes it: stop probability
  ``R = (2^g - 1) / 2^max`` for grade ``g`` (``max`` = 4 by default, grades above it are clipped, negative
  grades are 0), ERR = sum over ranks i <= k of ``R_i / i * prod_{j<i} (1 - R_j)``.
- nERR@k: ERR@k divided by the ERR@k of the ideal ranking (all judged grades, descending).
- RBP (Moffat & Zobel, TOIS 2008), as ir_measures' ``RBP(rel=, p=)``: ``(1 - p) * sum_i rel_i * p^(i-1)`` with
  binary relevance at the threshold, over the whole ranking or the top k.
"""

from __future__ import annotations

import numpy as np


def _err(query: np.ndarray, rank: np.ndarray, grade: np.ndarray, k: int, gmax: int, nq: int) -> np.ndarray:
    """ERR@k from (query, 0-based rank, grade) triples sorted by query then rank; unlisted ranks have gain 0."""
    keep = (rank < k) & (grade > 0)
    q, r, g = query[keep], rank[keep].astype(np.float64), np.minimum(grade[keep], gmax).astype(np.float64)
    stop = (np.exp2(g) - 1.0) / 2.0**gmax
    # prod_{j<i}(1 - R_j) per query: exclusive cumulative product, done as a cumulative sum of logs along each
    # query's row of a padded matrix, so a query's sum never depends on the queries before it.
    log_cont = np.log1p(-np.minimum(stop, 1.0 - 1e-300))
    excl = np.zeros(q.size)
    if q.size:
        first = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
        sizes = np.diff(np.r_[first, q.size])
        row = np.repeat(np.arange(first.size), sizes)
        col = np.arange(q.size) - np.repeat(first, sizes)
        mat = np.zeros((first.size, int(sizes.max()) + 1))
        mat[row, col + 1] = log_cont
        excl = np.cumsum(mat, axis=1)[row, col]
    return np.bincount(q, weights=stop * np.exp(excl) / (r + 1.0), minlength=nq)


def err_values(query: np.ndarray, rank: np.ndarray, grade: np.ndarray, k: int, gmax: int, nq: int) -> np.ndarray:
    return _err(query, rank, grade, k, gmax, nq)


def nerr_values(query: np.ndarray, rank: np.ndarray, grade: np.ndarray, ideal: tuple[np.ndarray, ...], k: int,
                gmax: int, nq: int) -> np.ndarray:
    iq, irank, igain = ideal
    best = _err(iq, irank, igain.astype(np.int64), k, gmax, nq)
    got = _err(query, rank, grade, k, gmax, nq)
    return np.divide(got, best, out=np.zeros(nq), where=best > 0)


def rbp_values(query: np.ndarray, rank: np.ndarray, rel: np.ndarray, p: float, k: int | None, nq: int
               ) -> np.ndarray:
    keep = rel if k is None else rel & (rank < k)
    return (1.0 - p) * np.bincount(query[keep], weights=np.power(p, rank[keep].astype(np.float64)), minlength=nq)
