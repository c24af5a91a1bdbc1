"""ranx's fusion methods, exact: ``fuse(runs, method, norm, weights=..., k=..., phi=..., ties="ranx")``.

Each run is first normalised per query (``norm``, ranx's definitions, its 1e-9 floor on every denominator):
``min-max`` (s - min) / (max - min); ``max`` s / max; ``sum`` (s - min) / (sum - n * min); ``z-score`` (ranx's
``zmuv``) (s - mean) / sd (population sd); ``rank`` 1 - i/n; ``min-max-inverted`` (max - s) / (max - min) (the
run re-sorted on it); ``borda`` 1 - i/n_candidates, and 0.5 - (n - 1) / (2 n_candidates) for each candidate the run
did not retrieve (candidates: the union over runs; every run then holds every candidate); ``none``. A query whose scores are all equal
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
* ``gmnz``: sum x count^gamma; ``med``: median; ``wmnz``: sum x (sum of the weights of the runs that retrieved it);
  ``mixed``: sum of w x score x sqrt(count); ``logn_isr``: sum of 1/rank^2 x ln(count + sigma);
  ``w_bordafuse``: sum of w x Borda points.

Ties (``ties=``): a rank-based method (isr, log_isr, logn_isr, bordafuse, w_bordafuse, rbc, rrf, and the ``rank`` /
``borda`` normalisations) needs an order among tied scores. ``"ranx"`` (the default) reproduces ranx's own: its
numba quicksort of the run as added (a file's line order), :mod:`hcrbench.retrieve.ranx_order`; the fused scores then
equal ``ranx.fuse`` on runs with ties too. ``"trec"`` uses trec_eval's order (score descending, doc id descending),
as the rest of hcrbench does: independent of file order, but different from ranx wherever scores tie. Score-based
methods are the same in both modes. Queries are the union over runs in first-seen order (ranx refuses runs with
different query sets; a run without a query contributes nothing to it, and to ``bordafuse`` the same (n + 1)/2
points to every candidate).

Not here (ranx has them): ``condorcet`` and ``w_condorcet`` (ranx sorts candidates from a Python set with a
non-transitive comparison, so its result changes with the interpreter's hash seed), and the methods ranx trains on
qrels first (``bayesfuse``, ``mapfuse``, ``posfuse``, ``probfuse``, ``segfuse``, ``slidefuse``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hcrbench.data.types import Run
from hcrbench.errors import InputError
from hcrbench.retrieve.fusion import trec_ranks
from hcrbench.retrieve.ranx_order import ranx_argsort, ranx_positions
from hcrbench.retrieve.util import finite_float, finite_nonneg

METHODS = ("sum", "max", "min", "anz", "mnz", "gmnz", "med", "wmnz", "mixed", "isr", "log_isr", "logn_isr",
           "bordafuse", "w_bordafuse", "rbc", "rrf", "wsum")
#: Accepted spellings -> the canonical name (ranx's names first).
METHOD_ALIASES = {"combsum": "sum", "comb_sum": "sum", "combmax": "max", "comb_max": "max", "combmin": "min",
                  "comb_min": "min", "combanz": "anz", "comb_anz": "anz", "combmnz": "mnz", "comb_mnz": "mnz",
                  "combgmnz": "gmnz", "comb_gmnz": "gmnz", "combmed": "med", "comb_med": "med",
                  "log-isr": "log_isr", "logisr": "log_isr", "logn-isr": "logn_isr", "borda": "bordafuse",
                  "weighted_bordafuse": "w_bordafuse", "weighted_sum": "wsum", "w_rrf": "rrf",
                  "weighted_rrf": "rrf"}  # fmt: skip
#: What ranx has and hcrbench does not, and why (named in errors and ``hcrbench fuse --help``).
NOT_HERE = {"condorcet": "ranx orders its candidates from a Python set: its result changes with the hash seed",
            "w_condorcet": "ranx orders its candidates from a Python set: its result changes with the hash seed",
            **{m: "ranx trains it on qrels first" for m in ("bayesfuse", "mapfuse", "posfuse", "probfuse",
                                                             "segfuse", "slidefuse")}}  # fmt: skip
NORMS = ("min-max", "min-max-inverted", "max", "sum", "z-score", "rank", "borda", "none")
NORM_ALIASES = {"minmax": "min-max", "min_max": "min-max", "zscore": "z-score", "zmuv": "z-score",
                "z_score": "z-score", "min_max_inverted": "min-max-inverted", "None": "none"}  # fmt: skip
#: Methods that take one weight per run; the others refuse weights.
WEIGHTED = ("wsum", "rrf", "wmnz", "mixed", "w_bordafuse")
#: Methods that read ranks, not scores: tied scores need an order (``ties``).
RANK_BASED = ("isr", "log_isr", "logn_isr", "bordafuse", "w_bordafuse", "rbc", "rrf")
TIES = ("ranx", "trec")
EPS = 1e-9


def method_name(method: str) -> str:
    """The canonical method name for any accepted spelling, or InputError listing them."""
    m = METHOD_ALIASES.get(str(method).lower(), str(method).lower())
    if m in NOT_HERE:
        raise InputError(f"fusion method {method!r} is ranx's but not hcrbench's ({NOT_HERE[m]}); "
                         f"expected one of {', '.join(METHODS)}", field="method")
    if m not in METHODS:
        raise InputError(f"unknown fusion method {method!r} (expected one of {', '.join(METHODS)})", field="method")
    return m


def norm_name(norm: str | None) -> str:
    n = "none" if norm is None else NORM_ALIASES.get(str(norm), str(norm).lower())
    if n not in NORMS:
        raise InputError(f"unknown normalisation {norm!r} (expected one of {', '.join(NORMS)})", field="norm")
    return n


def ties_name(ties: str) -> str:
    if ties not in TIES:
        raise InputError(f"unknown tie order {ties!r} (expected one of {', '.join(TIES)})", field="ties")
    return ties


def run_positions(run: Run, norm: str = "none", ties: str = "ranx") -> np.ndarray:
    """Each entry's 1-based position in the run as the rank-based methods read it, after ``norm``.

    ``ties="trec"``: trec_eval's order of the normalised scores. ``"ranx"``: ranx's sorted run (its quicksort of
    the run's order); every normalisation keeps that order but ``min-max-inverted``, which ranx sorts again.
    """
    if ties_name(ties) == "trec":
        values = ranx_normalise(run, norm, ties="trec") if norm not in ("borda", "none") else run.scores
        return trec_ranks(Run(run.query_ids, run.offsets, run.doc_index, values, run.doc_vocab, name=run.name))
    pos = ranx_positions(run)
    if norm != "min-max-inverted":
        return pos
    inv = ranx_normalise(run, norm)
    out = np.empty_like(pos)
    for lo, hi in zip(run.offsets[:-1].tolist(), run.offsets[1:].tolist()):
        current = np.empty(hi - lo, dtype=np.int64)
        current[pos[lo:hi] - 1] = np.arange(hi - lo)  # entries in ranx's first order
        again = ranx_argsort(-inv[lo:hi][current])
        out[lo + current[again]] = np.arange(1, hi - lo + 1)
    return out


def ranx_normalise(run: Run, norm: str = "min-max", *, ties: str = "ranx") -> np.ndarray:
    """Per-query normalised scores of ``run`` (storage order), with ranx's definitions (see the module doc).

    ``borda`` needs the other runs (:func:`fuse` applies it); here it is 1 - (position - 1) / n, as ``rank``.
    """
    norm = norm_name(norm)
    s = run.scores.astype(np.float64)
    if norm == "none" or run.n_entries == 0:
        return s.copy()
    if norm in ("rank", "borda"):
        n = run.lengths()[run.entry_query_index()]
        return 1.0 - (run_positions(run, "none", ties) - 1) / n
    qi = run.entry_query_index()
    nq = len(run.query_ids)
    counts = np.maximum(np.bincount(qi, minlength=nq), 1)
    lo = np.full(nq, np.inf)
    hi = np.full(nq, -np.inf)
    np.minimum.at(lo, qi, s)
    np.maximum.at(hi, qi, s)
    if norm == "min-max":
        return (s - lo[qi]) / np.maximum(hi - lo, EPS)[qi]
    if norm == "min-max-inverted":
        return (hi[qi] - s) / np.maximum(hi - lo, EPS)[qi]
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


def _borda_points(table: _Table, ranks: np.ndarray, normalised: bool) -> np.ndarray:
    """Borda points (or ranx's ``borda`` normalisation) of every candidate in every run."""
    n_cand = np.bincount(table.query, minlength=len(table.queries))[table.query].astype(np.float64)[:, None]
    length = table.run_length[table.query].astype(np.float64)
    present = ~np.isnan(ranks)
    if normalised:
        return np.where(present, 1.0 - (ranks - 1.0) / n_cand, 0.5 - (length - 1.0) / (2.0 * n_cand))
    return np.where(present, n_cand - ranks + 1.0, (n_cand - length + 1.0) / 2.0)


def _int_power(base: float, exponent: np.ndarray) -> np.ndarray:
    """``base ** exponent`` for whole exponents as numba computes ``float ** int`` in ranx's rbc (squaring and
    multiplying, not libm's pow), so the fused scores and the tie order they make equal ranx's to the last bit."""
    e = np.asarray(exponent).astype(np.int64)
    out = np.ones(e.shape)
    a = np.full(e.shape, float(base))
    while np.any(e):
        out = np.where(e & 1, out * a, out)
        e = e >> 1
        a = a * a
    return out


def fuse(runs: Sequence[Run], method: str = "wsum", norm: str | None = "min-max", *,
         weights: Sequence[float] | None = None, k: float = 60, phi: float = 0.8, gamma: float = 1.0,
         sigma: float = 0.01, ties: str = "ranx", name: str | None = None) -> Run:
    """Fuse ``runs`` with ``method`` after per-query ``norm`` (ranx's ``fuse(runs, norm, method, params)``).

    ``ties`` orders tied scores for the rank-based methods and normalisations: ``"ranx"`` as ranx does (equal to
    ``ranx.fuse``), ``"trec"`` as trec_eval does (see the module doc).
    """
    method = method_name(method)
    norm = norm_name(norm)
    ties = ties_name(ties)
    runs = list(runs)
    if not runs:
        raise InputError("fusion needs at least one run", field="runs")
    w = _weights(runs, weights, method)
    k = finite_nonneg(k, "k")
    phi = finite_float(phi, "phi")
    gamma = finite_float(gamma, "gamma")
    sigma = finite_float(sigma, "sigma")
    if method == "rbc" and not 0 < phi < 1:
        raise InputError(f"must be in (0, 1), got {phi}", field="phi")
    if method == "logn_isr" and not 0 <= sigma <= 1:
        raise InputError(f"must be in [0, 1], got {sigma}", field="sigma")
    if method in RANK_BASED and norm == "borda":
        raise InputError(f"{method} after the borda normalisation is refused: ranx ranks the candidates it adds in "
                         "a Python set's order, which changes with the hash seed", field="norm")
    if method in RANK_BASED:
        ranks = [run_positions(r, norm, ties).astype(np.float64) for r in runs]
        if method in ("isr", "log_isr", "logn_isr"):
            values = [1.0 / rk**2 for rk in ranks]
        elif method == "rbc":
            values = [(1.0 - phi) * _int_power(phi, rk - 1.0) for rk in ranks]
        elif method == "rrf":
            values = [wi / (float(k) + rk) for rk, wi in zip(ranks, w)]
        else:
            values = ranks  # Borda: points need the candidate count, filled in below
    elif norm == "borda":
        values = [run_positions(r, "none", ties).astype(np.float64) for r in runs]
    else:
        values = [ranx_normalise(r, norm, ties=ties) for r in runs]
    table = _Table(runs, values)
    m = table.matrix
    if norm == "borda" and method not in RANK_BASED:
        m = _borda_points(table, m, normalised=True)  # every run now holds every candidate
    present = ~np.isnan(m)
    count = present.sum(axis=1)
    filled = np.where(present, m, 0.0)
    if method in ("bordafuse", "w_bordafuse"):
        scores = (_borda_points(table, m, normalised=False) * w).sum(axis=1)
    elif method in ("wsum", "mixed"):
        scores = (filled * w).sum(axis=1)
        scores = scores * np.sqrt(count) if method == "mixed" else scores
    elif method == "max":
        scores = np.where(present, m, -np.inf).max(axis=1)
    elif method == "min":
        scores = np.where(present, m, np.inf).min(axis=1)
    elif method == "med":
        scores = np.nanmedian(m, axis=1)
    else:
        total = filled.sum(axis=1)
        scores = {"sum": total, "rrf": total, "rbc": total, "anz": total / np.maximum(count, 1),
                  "mnz": total * count, "gmnz": total * count.astype(np.float64) ** gamma,
                  "wmnz": total * (present * w).sum(axis=1), "isr": total * count,
                  "log_isr": total * np.log(count), "logn_isr": total * np.log(count + sigma)}[method]
    return table.to_run(scores, name or method)
