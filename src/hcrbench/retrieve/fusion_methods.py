"""ranx's main fusion methods, exact: ``fuse(runs, method, norm, weights=..., k=..., phi=...)``.

Each run is first normalised per query (``norm``, ranx's definitions, its 1e-9 floor on every denominator):
``min-max`` (s - min) / (max - min); ``max`` s / max; ``sum`` (s - min) / (sum - n * min); ``z-score`` (ranx's
``zmuv``) (s - mean) / sd (population sd); ``rank`` 1 - i/n; ``none``. A query whose scores are all equal
normalises to 0 (min-max, sum, z-score), as in ranx; :func:`~hcrbench.retrieve.fusion.weighted_fusion` keeps its own
convention (1 for min-max, s/total for sum). Then, per (query, doc), over the runs that retrieved the doc:

* ``sum`` / ``max`` / ``min`` / ``anz`` (CombSUM, CombMAX, CombMIN, CombANZ = sum / count), ``mnz`` (CombMNZ =
  sum x count); Fox & Shaw, TREC 1993.
* ``isr``: sum of 1/rank^2 x count; ``log_isr``: sum of 1/rank^2 x ln(count) (Mourão et al., 2015; a document
  one run retrieved gets 0, as in ranx).
* ``bordafuse``: a run gives n_candidates - rank + 1 points to its rank-th document and (n_candidates - len + 1)/2
  to each candidate it did not retrieve (candidates: the union over runs; Aslam & Montague, SIGIR 2001).
* ``rbc``: sum of (1 - phi) phi^(rank-1) (Bailey et al., SIGIR 2017); ``rrf``: sum of w / (k + rank).
* ``wsum``: sum of w x score (a missing document gets 0).

Ranks follow trec_eval's order (score descending, then doc id descending), as everywhere in hcrbench; ranx breaks
ties by its own sort, so runs with tied scores may rank tied documents differently. Queries are the union over runs
in first-seen order (ranx refuses runs with different query sets; a run without a query contributes nothing to it,
and to ``bordafuse`` the same (n + 1)/2 points to every candidate).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hcrbench.data.types import Run
from hcrbench.errors import InputError
from hcrbench.retrieve.fusion import trec_ranks
from hcrbench.retrieve.util import finite_float, finite_nonneg

METHODS = ("sum", "max", "min", "anz", "mnz", "isr", "log_isr", "bordafuse", "rbc", "rrf", "wsum")
#: Accepted spellings -> the canonical name (ranx's names first).
METHOD_ALIASES = {"combsum": "sum", "comb_sum": "sum", "combmax": "max", "comb_max": "max", "combmin": "min",
                  "comb_min": "min", "combanz": "anz", "comb_anz": "anz", "combmnz": "mnz", "comb_mnz": "mnz",
                  "log-isr": "log_isr", "logisr": "log_isr", "borda": "bordafuse", "weighted_sum": "wsum",
                  "w_rrf": "rrf", "weighted_rrf": "rrf"}  # fmt: skip
NORMS = ("min-max", "max", "sum", "z-score", "rank", "none")
NORM_ALIASES = {"minmax": "min-max", "min_max": "min-max", "zscore": "z-score", "zmuv": "z-score",
                "z_score": "z-score", "None": "none"}  # fmt: skip
#: Methods that take one weight per run (``wsum``, ``rrf``); the others refuse weights.
WEIGHTED = ("wsum", "rrf")
EPS = 1e-9


def method_name(method: str) -> str:
    """The canonical method name for any accepted spelling, or InputError listing them."""
    m = METHOD_ALIASES.get(str(method).lower(), str(method).lower())
    if m not in METHODS:
        raise InputError(f"unknown fusion method {method!r} (expected one of {', '.join(METHODS)})", field="method")
    return m


def norm_name(norm: str | None) -> str:
    n = "none" if norm is None else NORM_ALIASES.get(str(norm), str(norm).lower())
    if n not in NORMS:
        raise InputError(f"unknown normalisation {norm!r} (expected one of {', '.join(NORMS)})", field="norm")
    return n


def ranx_normalise(run: Run, norm: str = "min-max") -> np.ndarray:
    """Per-query normalised scores of ``run`` (storage order), with ranx's definitions (see the module doc)."""
    norm = norm_name(norm)
    s = run.scores.astype(np.float64)
    if norm == "none" or run.n_entries == 0:
        return s.copy()
    if norm == "rank":
        n = run.lengths()[run.entry_query_index()]
        return 1.0 - (trec_ranks(run) - 1) / n
    qi = run.entry_query_index()
    nq = len(run.query_ids)
    counts = np.maximum(np.bincount(qi, minlength=nq), 1)
    lo = np.full(nq, np.inf)
    hi = np.full(nq, -np.inf)
    np.minimum.at(lo, qi, s)
    np.maximum.at(hi, qi, s)
    if norm == "min-max":
        return (s - lo[qi]) / np.maximum(hi - lo, EPS)[qi]
    if norm == "max":
        return s / np.maximum(hi, EPS)[qi]
    total = np.bincount(qi, weights=s, minlength=nq)
    if norm == "sum":
        return (s - lo[qi]) / np.maximum(total - lo * counts, EPS)[qi]
    mean = total / counts
    sd = np.sqrt(np.bincount(qi, weights=(s - mean[qi]) ** 2, minlength=nq) / counts)
    return (s - mean[qi]) / np.maximum(sd, EPS)[qi]


class _Table:
    """Every (query, doc) any run retrieved, with each run's value there (NaN where the run did not retrieve it)."""

    def __init__(self, runs: Sequence[Run], values: Sequence[np.ndarray]) -> None:
        qcode: dict[str, int] = {}
        dcode: dict[str, int] = {}
        per_run = []
        for run in runs:
            qmap = np.array([qcode.setdefault(q, len(qcode)) for q in run.query_ids], dtype=np.int64)
            dmap = np.array([dcode.setdefault(d, len(dcode)) for d in run.doc_vocab], dtype=np.int64)
            q = qmap[run.entry_query_index()] if run.n_entries else np.zeros(0, np.int64)
            d = dmap[run.doc_index] if run.n_entries else np.zeros(0, np.int64)
            per_run.append((q, d))
        self.nd = max(len(dcode), 1)
        keys = [q * self.nd + d for q, d in per_run]
        self.keys = np.unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
        self.matrix = np.full((len(self.keys), len(runs)), np.nan)
        for j, (k, v) in enumerate(zip(keys, values)):
            self.matrix[np.searchsorted(self.keys, k), j] = v
        self.query = self.keys // self.nd
        self.queries = list(qcode)
        self.docs = list(dcode)
        self.run_has_query = np.zeros((len(qcode), len(runs)), dtype=bool)
        self.run_length = np.zeros((len(qcode), len(runs)), dtype=np.int64)
        for j, run in enumerate(runs):
            idx = [qcode[q] for q in run.query_ids]
            self.run_has_query[idx, j] = True
            self.run_length[idx, j] = run.lengths()

    def to_run(self, scores: np.ndarray, name: str) -> Run:
        counts = np.bincount(self.query, minlength=len(self.queries))
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        return Run(self.queries, offsets, (self.keys % self.nd).astype(np.int32), scores, self.docs, name=name)


def _weights(runs: Sequence[Run], weights: Sequence[float] | None, method: str) -> np.ndarray:
    if weights is None:
        return np.ones(len(runs))
    if method not in WEIGHTED:
        raise InputError(f"method {method!r} takes no weights (weighted methods: {', '.join(WEIGHTED)})",
                         field="weights")
    if len(weights) != len(runs):
        raise InputError(f"{len(weights)} weights for {len(runs)} runs", field="weights")
    return np.array([finite_float(w, "weights") for w in weights], dtype=np.float64)


def fuse(runs: Sequence[Run], method: str = "wsum", norm: str | None = "min-max", *,
         weights: Sequence[float] | None = None, k: float = 60, phi: float = 0.8, name: str | None = None) -> Run:
    """Fuse ``runs`` with ``method`` after per-query ``norm`` (ranx's ``fuse(runs, norm, method, params)``)."""
    method = method_name(method)
    norm = norm_name(norm)
    runs = list(runs)
    if not runs:
        raise InputError("fusion needs at least one run", field="runs")
    w = _weights(runs, weights, method)
    k = finite_nonneg(k, "k")
    phi = finite_float(phi, "phi")
    if method == "rbc" and not 0 < phi < 1:
        raise InputError(f"must be in (0, 1), got {phi}", field="phi")
    normed = [ranx_normalise(r, norm) for r in runs]
    if method in ("isr", "log_isr", "bordafuse", "rbc", "rrf"):
        ranked = [Run(r.query_ids, r.offsets, r.doc_index, v, r.doc_vocab, name=r.name) for r, v in zip(runs, normed)]
        ranks = [trec_ranks(r).astype(np.float64) for r in ranked]
        if method in ("isr", "log_isr"):
            values = [1.0 / rk**2 for rk in ranks]
        elif method == "rbc":
            values = [(1.0 - phi) * phi ** (rk - 1.0) for rk in ranks]
        elif method == "rrf":
            values = [wi / (float(k) + rk) for rk, wi in zip(ranks, w)]
        else:
            values = ranks  # bordafuse: points need the candidate count, filled in below
    else:
        values = normed
    table = _Table(runs, values)
    m = table.matrix
    present = ~np.isnan(m)
    count = present.sum(axis=1)
    filled = np.where(present, m, 0.0)
    if method == "bordafuse":
        n_cand = np.bincount(table.query, minlength=len(table.queries))[table.query].astype(np.float64)
        length = table.run_length[table.query].astype(np.float64)
        points = np.where(present, n_cand[:, None] - m + 1.0, (n_cand[:, None] - length + 1.0) / 2.0)
        scores = points.sum(axis=1)
    elif method == "wsum":
        scores = (filled * w).sum(axis=1)
    elif method == "max":
        scores = np.where(present, m, -np.inf).max(axis=1)
    elif method == "min":
        scores = np.where(present, m, np.inf).min(axis=1)
    else:
        total = filled.sum(axis=1)
        scores = {"sum": total, "rrf": total, "rbc": total, "anz": total / np.maximum(count, 1),
                  "mnz": total * count, "isr": total * count, "log_isr": total * np.log(count)}[method]
    return table.to_run(scores, name or method)
