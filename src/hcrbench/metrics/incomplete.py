"""Measures for incomplete judgments, trec_eval's ``bpref`` and ``infAP``, vectorised over a run's hits.

Both look only at judged docs: a retrieved doc without a qrels line is skipped. A judged doc with a negative
grade is "in the pool but unjudged" (trec_eval's -1); hcrbench treats every negative grade that way (trec_eval
treats -2 the same by accident of its sentinel values and counts grades <= -3 as relevant). ``R`` is the number of
relevant judged docs of the query (retrieved or not).

- bpref (Buckley & Voorhees, SIGIR 2004): mean over the relevant docs of 1 - min(n, R) / min(N, R), where n is
  the judged non-relevant docs ranked above it and N all judged non-relevant docs (1 when n = 0); sum / R.
- infAP (Yilmaz & Aslam, CIKM 2006): at a relevant doc at 0-based rank j > 0 add
  1/(j+1) + j/(j+1) * ((r + n + u)/j) * ((r + eps)/(r + n + 2 eps)), with r, n, u the relevant, non-relevant
  and pooled-unjudged judged docs above it and eps = 1e-5 (1 at j = 0); sum / R.
"""

from __future__ import annotations

import numpy as np

from hcrbench.metrics._groups import count_before

INFAP_EPSILON = 0.00001


def _split(grade: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pooled = grade < 0
    rel = (grade >= t) & ~pooled
    nonrel = ~rel & ~pooled
    return rel, nonrel, pooled


def bpref_values(query: np.ndarray, grade: np.ndarray, t: int, n_rel: np.ndarray, n_nonrel: np.ndarray,
                 nq: int) -> np.ndarray:
    """Per-query bpref from the hits (sorted by query, then rank) at relevance threshold ``t``."""
    rel, nonrel, _ = _split(grade, t)
    above = count_before(query, nonrel)[rel]
    rq = query[rel]
    r = n_rel[rq].astype(np.float64)
    denom = np.minimum(n_nonrel[rq], n_rel[rq]).astype(np.float64)
    frac = np.divide(np.minimum(above, r), denom, out=np.zeros(rq.size), where=denom > 0)
    contrib = np.where(above > 0, 1.0 - frac, 1.0)
    s = np.bincount(rq, weights=contrib, minlength=nq)
    return np.divide(s, n_rel, out=np.zeros(nq), where=n_rel > 0)


def infap_values(query: np.ndarray, rank: np.ndarray, grade: np.ndarray, t: int, n_rel: np.ndarray,
                 nq: int) -> np.ndarray:
    """Per-query infAP from the hits (sorted by query, then rank) at relevance threshold ``t``."""
    rel, nonrel, pooled = _split(grade, t)
    r = count_before(query, rel)[rel].astype(np.float64)
    n = count_before(query, nonrel)[rel].astype(np.float64)
    u = count_before(query, pooled)[rel].astype(np.float64)
    j = rank[rel].astype(np.float64)
    safe_j = np.where(j > 0, j, 1.0)
    term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r + n + u) / safe_j)
            * ((r + INFAP_EPSILON) / (r + n + 2 * INFAP_EPSILON)))
    contrib = np.where(j == 0, 1.0, term)
    s = np.bincount(query[rel], weights=contrib, minlength=nq)
    return np.divide(s, n_rel, out=np.zeros(nq), where=n_rel > 0)
