"""MaxSim (late interaction: sum over query tokens of the best document token), the definition and the fast
kernels HCR's cascade and the reranker use, many documents at once with exactly the definition's bytes.

:func:`maxsim_scores` is the definition: per document, numpy's own einsum products
(``"ik,jk->ij"``, no BLAS), the max over the document's tokens, the float64 sum over the query tokens. Its cost is
one 384-term dot product per (query token, document token), each a chain of dependent multiply-adds.

:func:`maxsim_exact` gives the same float64 numbers, bit for bit, faster:

1. one BLAS product of the query tokens against every document token (any BLAS, any thread count: it only
   *locates* the maxima), per document the approximate max of each query token;
2. the error bound of a float32 dot product of n terms, in any summation order, with or without fused
   multiply-adds: ``|computed - exact| <= gamma_n * sum |a_k b_k| <= gamma_n * |a| |b|`` with
   ``gamma_n = n u / (1 - n u)``, ``u = 2**-24``. Two computations of the same dot product (BLAS's, einsum's) are
   within twice that of each other, so a document token whose BLAS value is more than twice the bound below the
   BLAS max cannot hold the einsum max: only the few tokens within that window are candidates;
3. the candidates' products by the very einsum kernel of the definition (each product depends only on its two
   rows: the kernel reduces the 384 terms of one row pair in a fixed order, whatever the other rows), their max
   per (query token, document), and the same float64 sum per document.

A non-finite product anywhere (it would defeat the bound) falls back to the definition.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import numpy as np

_U = 2.0**-24  # float32 unit roundoff


def dot_error_bound(n: int) -> float:
    """gamma_n: the relative bound on a float32 dot product of ``n`` terms (any order, FMA or not), times the
    product of the two vectors' norms. A 1 % margin covers the float32 norms it multiplies."""
    nu = n * _U
    if nu >= 0.5:
        return float("inf")
    return 1.01 * nu / (1.0 - nu)


def one_thread_blas():
    """BLAS on one thread inside the block when threadpoolctl is installed (else a no-op): a product this size
    gains nothing from a second thread and, on a busy machine, the waiting thread burns more CPU than the
    product. The bytes do not depend on it: the product only locates the maxima."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return contextlib.nullcontext()
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")


_CONTROLLER = None


def maxsim_scores(query_tokens: np.ndarray, doc_blocks: list[np.ndarray]) -> np.ndarray:
    """Late-interaction scores of one query against documents: sum_i max_j cos(q_i, d_j).

    ``query_tokens`` (m, dim) and each ``doc_blocks[j]`` (n_j, dim) hold L2-normalised token vectors. A document
    or query with no tokens scores 0.

    Each document is scored on its own (one product per block, never one product over the candidates
    concatenated): a BLAS product's rounding depends on the shape it is handed, so a document's score would
    otherwise move in the last float bits with the other candidates of its query (1e-6 measured), and a
    candidate list that differs elsewhere could reorder near ties here. A score is a function of the query and
    the document alone. The products are numpy's own single-threaded loops (``einsum`` without BLAS): as fast
    as the one concatenated BLAS product was, where a BLAS call per document cost ~10x on a busy machine
    (its thread wake-ups), and independent of BLAS thread counts.
    """
    out = np.zeros(len(doc_blocks), dtype=np.float64)
    if len(query_tokens) == 0:
        return out
    q = np.asarray(query_tokens, dtype=np.float32)
    for j, block in enumerate(doc_blocks):
        if len(block):
            sims = np.einsum("ik,jk->ij", q, np.asarray(block, dtype=np.float32), optimize=False)  # (m, n_j)
            out[j] = sims.max(axis=1).sum(dtype=np.float64)
    return out


def maxsim_exact(query_tokens: np.ndarray, doc_blocks: Sequence[np.ndarray]) -> np.ndarray:
    """Late-interaction scores of one query against documents, equal bit for bit to
    :func:`maxsim_scores` (see the module docstring)."""
    out = np.zeros(len(doc_blocks), dtype=np.float64)
    q = np.asarray(query_tokens, dtype=np.float32)
    if len(q) == 0 or len(doc_blocks) == 0:
        return out
    keep = [j for j, b in enumerate(doc_blocks) if len(b)]
    if not keep:
        return out
    sizes = np.array([len(doc_blocks[j]) for j in keep], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    d = np.concatenate([doc_blocks[j] for j in keep], dtype=np.float32)
    if q.ndim != 2 or d.ndim != 2 or q.shape[1] != d.shape[1]:
        return maxsim_scores(q, list(doc_blocks))
    with one_thread_blas(), np.errstate(invalid="ignore", over="ignore"):
        approx = d @ q.T  # (N, m): only where the maxima are
    if not np.isfinite(approx).all():
        return maxsim_scores(q, list(doc_blocks))
    seg = np.repeat(np.arange(len(keep)), sizes)
    top = np.maximum.reduceat(approx, starts, axis=0)  # (blocks, m)
    # norms in float32 (relative error ~1e-5, inside the bound's 1 % margin)
    dn = np.sqrt(np.maximum.reduceat(np.einsum("ij,ij->i", d, d), starts).astype(np.float64))
    qn = np.sqrt(np.einsum("ij,ij->i", q, q).astype(np.float64))
    # a window of twice the bound, plus a tiny absolute term for products that underflow
    window = 2.0 * dot_error_bound(q.shape[1]) * np.outer(dn, qn) + 1e-30
    jj, ii = np.nonzero(approx >= (top - window)[seg])
    # the definition's own kernel on the candidate row pairs (one fixed-order reduction per pair)
    exact = np.einsum("ik,ik->i", q[ii], d[jj], optimize=False)
    best = np.full((len(keep), len(q)), -np.inf, dtype=np.float32)
    np.maximum.at(best, (seg[jj], ii), exact)
    out[keep] = best.sum(axis=1, dtype=np.float64)
    return out


def maxsim_exact_queries(queries: Sequence[np.ndarray], block: np.ndarray) -> np.ndarray:
    """One document against many queries: ``[maxsim_scores(q, [block])[0] for q in queries]``, bit for bit, by
    the same window (the document's tokens cast once, one product with every query's tokens). A caller with
    many documents wraps its loop in :func:`one_thread_blas`."""
    out = np.zeros(len(queries), dtype=np.float64)
    qs = [np.asarray(q, dtype=np.float32) for q in queries]
    keep = [k for k, q in enumerate(qs) if len(q)]
    if len(block) == 0 or not keep:
        return out
    b = np.asarray(block, dtype=np.float32)
    qcat = np.concatenate([qs[k] for k in keep])
    if b.ndim != 2 or qcat.ndim != 2 or b.shape[1] != qcat.shape[1]:
        return np.array([maxsim_scores(q, [block])[0] for q in qs], dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        approx = b @ qcat.T  # (rows, all query tokens)
    if not np.isfinite(approx).all():
        return np.array([maxsim_scores(q, [block])[0] for q in qs], dtype=np.float64)
    top = approx.max(axis=0)
    bn = float(np.sqrt(np.einsum("ij,ij->i", b, b).max()))
    qn = np.sqrt(np.einsum("ij,ij->i", qcat, qcat).astype(np.float64))
    window = 2.0 * dot_error_bound(b.shape[1]) * qn * bn + 1e-30
    rows, cols = np.nonzero(approx >= top - window)
    exact = np.einsum("ik,ik->i", qcat[cols], b[rows], optimize=False)
    best = np.full(len(qcat), -np.inf, dtype=np.float32)
    np.maximum.at(best, cols, exact)
    start = 0
    for k in keep:  # each query's maxima, a contiguous float32 run, summed as the definition sums them
        end = start + len(qs[k])
        out[k] = best[start:end].sum(dtype=np.float64)
        start = end
    return out
