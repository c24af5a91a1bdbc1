"""Run fusion: reciprocal rank fusion (RRF) and weighted score fusion with normalisation.

Both work on :class:`~hcrbench.data.Run` objects of any number and any query sets. Ranks inside a run follow
trec_eval's order (score descending, then doc id descending), so fusing is deterministic whatever the file order.

* ``rrf(runs, k=60)``: score(d) = sum over runs of ``w / (k + rank(d))`` (Cormack et al., SIGIR 2009); a doc absent
  from a run gets nothing from it. ``depth`` keeps only each run's top ``depth`` before fusing. Tied scores rank in
  trec_eval's order here (the hybrid system's choice); ``ties="ranx"`` ranks them as ranx does, and then equals
  ``ranx.fuse(runs, method="rrf")`` on runs with ties too (:mod:`hcrbench.retrieve.ranx_order`).
* ``weighted_fusion(runs, weights, norm)``: per query, each run's scores are normalised (``minmax`` to [0, 1],
  ``zscore``, ``sum``, or ``none``) and summed with ``weights``; a doc absent from a run gets 0 from it (ranx's
  ``wsum`` convention). A query where every score is equal normalises to 1 (minmax) / 0 (zscore).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hcrbench.data.interop import as_run
from hcrbench.data.types import Run, trec_score_key
from hcrbench.errors import InputError
from hcrbench.retrieve.util import finite_float, finite_nonneg, int_at_least

NORMS = ("minmax", "zscore", "sum", "none")


def trec_ranks(run: Run) -> np.ndarray:
    """For each entry of ``run`` (storage order), its 1-based rank within its query in trec_eval order."""
    n = run.n_entries
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    vocab_order = np.argsort(np.array(run.doc_vocab, dtype=object), kind="stable")
    vocab_rank = np.empty(len(run.doc_vocab), dtype=np.int64)
    vocab_rank[vocab_order] = np.arange(len(run.doc_vocab))
    qi = run.entry_query_index()
    order = np.lexsort((-vocab_rank[run.doc_index], -trec_score_key(run.scores), qi))
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.arange(n) - run.offsets[qi[order]] + 1
    return ranks


def _check(runs: Sequence[Run], weights: Sequence[float] | None) -> list[float]:
    if not runs:
        raise InputError("fusion needs at least one run", field="runs")
    if weights is None:
        return [1.0] * len(runs)
    if len(weights) != len(runs):
        raise InputError(f"{len(weights)} weights for {len(runs)} runs", field="weights")
    return [finite_float(w, "weights") for w in weights]


def _combine(runs: Sequence[Run], contributions: list[np.ndarray], name: str) -> Run:
    """Sum per-(query, doc) contributions over runs into one Run (queries in first-seen order)."""
    qcode: dict[str, int] = {}
    dcode: dict[str, int] = {}
    qs, ds, vs = [], [], []
    for run, contrib in zip(runs, contributions):
        qmap = np.array([qcode.setdefault(q, len(qcode)) for q in run.query_ids], dtype=np.int64)
        dmap = np.array([dcode.setdefault(d, len(dcode)) for d in run.doc_vocab], dtype=np.int64)
        qs.append(qmap[run.entry_query_index()] if run.n_entries else np.zeros(0, np.int64))
        ds.append(dmap[run.doc_index] if run.n_entries else np.zeros(0, np.int64))
        vs.append(contrib)
    q = np.concatenate(qs)
    d = np.concatenate(ds)
    v = np.concatenate(vs).astype(np.float64)
    keys = q * max(len(dcode), 1) + d
    uniq, inv = np.unique(keys, return_inverse=True)
    summed = np.zeros(len(uniq), dtype=np.float64)
    np.add.at(summed, inv, v)
    uq = uniq // max(len(dcode), 1)
    ud = uniq % max(len(dcode), 1)
    counts = np.bincount(uq, minlength=len(qcode))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return Run(list(qcode), offsets, ud.astype(np.int32), summed, list(dcode), name=name)


def _cut(run: Run, depth: int | None) -> Run:
    run = as_run(run)  # dicts, ranx runs, DataFrames, paths: hcrbench.data.interop
    return run if depth is None else run.top_k(int_at_least(depth, "depth", 1))


def rrf(runs: Sequence[Run], k: float = 60, *, weights: Sequence[float] | None = None,
        depth: int | None = None, name: str = "rrf", ties: str = "trec") -> Run:
    """Reciprocal rank fusion: ``sum_r w_r / (k + rank_r(d))``; ``depth`` cuts each run first (in trec_eval order).

    ``ties``: ``"trec"`` (doc id descending, as trec_eval) or ``"ranx"`` (ranx's own order of tied scores).
    """
    from hcrbench.retrieve.ranx_order import ranx_positions

    if ties not in ("trec", "ranx"):
        raise InputError(f"unknown tie order {ties!r} (expected trec or ranx)", field="ties")
    w = _check(runs, weights)
    k = finite_nonneg(k, "rrf_k")
    runs = [_cut(r, depth) for r in runs]
    ranks = ranx_positions if ties == "ranx" else trec_ranks
    contribs = [wi / (float(k) + ranks(r)) for r, wi in zip(runs, w)]
    return _combine(runs, contribs, name)


def normalise_scores(run: Run, norm: str = "minmax") -> np.ndarray:
    """Per-query normalised scores of ``run`` (storage order)."""
    if norm not in NORMS:
        raise InputError(f"unknown normalisation {norm!r} (expected one of {', '.join(NORMS)})", field="norm")
    s = run.scores.astype(np.float64)
    if norm == "none" or run.n_entries == 0:
        return s.copy()
    qi = run.entry_query_index()
    nq = len(run.query_ids)
    if norm == "minmax":
        lo = np.full(nq, np.inf)
        hi = np.full(nq, -np.inf)
        np.minimum.at(lo, qi, s)
        np.maximum.at(hi, qi, s)
        span = (hi - lo)[qi]
        return np.where(span > 0, (s - lo[qi]) / np.where(span > 0, span, 1.0), 1.0)
    counts = np.maximum(np.bincount(qi, minlength=nq), 1)
    if norm == "sum":
        tot = np.bincount(qi, weights=s, minlength=nq)[qi]
        return np.where(tot != 0, s / np.where(tot != 0, tot, 1.0), 0.0)
    mean = np.bincount(qi, weights=s, minlength=nq) / counts
    var = np.bincount(qi, weights=(s - mean[qi]) ** 2, minlength=nq) / counts
    sd = np.sqrt(var)[qi]
    return np.where(sd > 0, (s - mean[qi]) / np.where(sd > 0, sd, 1.0), 0.0)


def weighted_fusion(runs: Sequence[Run], weights: Sequence[float] | None = None, *, norm: str = "minmax",
                    depth: int | None = None, name: str = "wsum") -> Run:
    """Weighted sum of per-query normalised scores (``norm``: minmax, zscore, sum or none)."""
    w = _check(runs, weights)
    runs = [_cut(r, depth) for r in runs]
    contribs = [wi * normalise_scores(r, norm) for r, wi in zip(runs, w)]
    return _combine(runs, contribs, name)
