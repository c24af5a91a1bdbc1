"""Vectorised trec_eval-exact metric kernels over a top-k gain matrix, used for the null trials.

A null trial changes either the qrels (nulls A, B, D) or the run (null C) of *every* query at once; evaluating
it with a generic per-query evaluator is what makes falsify-eval slow. Here a trial is a set of integer arrays:
the run is an ``(n_queries, depth)`` matrix of global doc codes (-1 = no doc) in trec_eval order, the qrels a
sorted key array ``row * V + doc`` with grades, and a metric is a few numpy reductions over the gain matrix.
The kernels are checked against ``hcrbench.metrics.evaluate`` and pytrec_eval in ``tests/gate``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hcrbench.data.types import trec_score_key
from hcrbench.errors import InputError

#: Measure kinds the batched kernels compute. Names, aliases and semantics come from the one registry,
#: :mod:`hcrbench.metrics.measures`; a measure it knows but the kernels do not is refused here.
GATE_KINDS = ("nDCG", "P", "R", "RR", "AP")


@dataclass(frozen=True)
class GateMetric:
    """A metric the gate kernels compute: ``family`` in nDCG, P, R, RR, AP; ``cutoff`` None = whole run."""

    family: str
    cutoff: int | None

    @property
    def name(self) -> str:
        """Canonical name, the one ``hcrbench.metrics`` uses (``nDCG@10``, ``R@5``, ``RR``, ``AP``)."""
        return self.family if self.cutoff is None else f"{self.family}@{self.cutoff}"


def check_rel_threshold(rel_threshold: object, *, field: str = "rel_threshold") -> int:
    """The relevance threshold as an int >= 1, else InputError.

    The gate's kernels score empty (padding) slots as grade 0 and unjudged docs below every positive grade, so a
    threshold <= 0 would make padding relevant and every null score 1.0.
    """
    if isinstance(rel_threshold, bool) or not isinstance(rel_threshold, (int, np.integer)) or rel_threshold < 1:
        raise InputError(f"must be an integer >= 1, got {rel_threshold!r}: the gate defines relevance on positive "
                         "grades", field=field)
    return int(rel_threshold)


def parse_gate_metric(spec: str, *, field: str = "--metric") -> GateMetric:
    """Parse a gate metric through the measure registry (``nDCG@10``, ``ndcg_cut_10``, ``recall@5``, ``MRR@10``,
    ``map``...) and keep it only if the kernels compute it: nDCG@k / nDCG, P@k, R@k, RR[@k], AP[@k]."""
    from hcrbench.metrics.measures import parse_measure

    if not isinstance(spec, str):
        raise InputError(f"metric must be a string like 'nDCG@10', got {spec!r}", field=field)
    try:
        m = parse_measure(spec)
    except InputError as e:
        raise InputError(e.problem, field=field) from None
    if m.kind not in GATE_KINDS or m.rel is not None or m.params:
        raise InputError(f"the gate cannot compute {m.name!r} (a valid measure for evaluate); use nDCG@k, P@k, "
                         "R@k, RR[@k] or AP[@k]", field=field)
    return GateMetric(m.kind, m.cutoff)


# ------------------------------------------------------------------------------------------ ranked matrices


def ranked_matrix(rows: np.ndarray, docs: np.ndarray, scores: np.ndarray, n_rows: int, depth: int) -> np.ndarray:
    """Top-``depth`` doc codes per row in trec_eval order (score desc, then doc code desc), -1 padded.

    ``docs`` must be codes into a vocabulary sorted by doc id, so "doc code desc" is "doc id desc". Scores are
    compared as 32-bit floats, as trec_eval stores them.
    """
    out = np.full((n_rows, max(depth, 1)), -1, dtype=np.int64)
    if len(rows) == 0:
        return out[:, :depth]
    order = np.lexsort((-docs, -trec_score_key(scores), rows))
    r = rows[order]
    starts = np.searchsorted(r, np.arange(n_rows))
    pos = np.arange(len(r)) - starts[r]
    keep = pos < depth
    out[r[keep], pos[keep]] = docs[order][keep]
    return out[:, :depth]


# ------------------------------------------------------------------------------------------ qrels as keys


@dataclass(frozen=True)
class KeyedQrels:
    """Qrels of one trial as sorted keys ``row * V + doc`` with their grades (only positive grades kept)."""

    keys: np.ndarray
    grades: np.ndarray
    n_vocab: int

    @classmethod
    def build(cls, rows: np.ndarray, docs: np.ndarray, grades: np.ndarray, n_vocab: int) -> KeyedQrels:
        keys = rows.astype(np.int64) * n_vocab + docs.astype(np.int64)
        order = np.argsort(keys, kind="stable")
        return cls(keys[order], grades[order].astype(np.int64), n_vocab)

    def gains(self, ranked: np.ndarray) -> np.ndarray:
        """Grade of each ranked doc for its row (0 when not judged relevant or when the slot is empty)."""
        n_rows, depth = ranked.shape
        if self.keys.size == 0 or depth == 0:
            return np.zeros(ranked.shape, dtype=np.int64)
        rk = np.arange(n_rows, dtype=np.int64)[:, None] * self.n_vocab + ranked
        pos = np.searchsorted(self.keys, rk)
        pos_c = np.minimum(pos, self.keys.size - 1)
        hit = (self.keys[pos_c] == rk) & (ranked >= 0)
        return np.where(hit, self.grades[pos_c], 0)


@dataclass(frozen=True)
class RankedIndex:
    """A fixed ranked matrix indexed by ``row * V + doc``, to score many null qrels against it fast."""

    keys: np.ndarray   # sorted keys of the non-empty slots
    slots: np.ndarray  # flat slot index of each key
    shape: tuple[int, int]

    @classmethod
    def build(cls, ranked: np.ndarray, n_vocab: int) -> RankedIndex:
        flat = ranked.ravel()
        slots = np.flatnonzero(flat >= 0)
        keys = (slots // max(ranked.shape[1], 1)).astype(np.int64) * n_vocab + flat[slots]
        order = np.argsort(keys, kind="stable")
        return cls(keys[order], slots[order], ranked.shape)

    def gains(self, rows: np.ndarray, docs: np.ndarray, grades: np.ndarray, n_vocab: int) -> np.ndarray:
        """The gain matrix of this ranking under the qrels entries (rows, docs, grades)."""
        out = np.zeros(self.shape[0] * self.shape[1], dtype=np.int64)
        if self.keys.size and rows.size:
            q = rows.astype(np.int64) * n_vocab + docs
            pos = np.minimum(np.searchsorted(self.keys, q), self.keys.size - 1)
            hit = self.keys[pos] == q
            out[self.slots[pos[hit]]] = grades[hit]
        return out.reshape(self.shape)


@dataclass(frozen=True)
class QueryConstants:
    """Per-query quantities a null leaves unchanged: number relevant and ideal DCG (whole and cut)."""

    n_rel: np.ndarray
    idcg: np.ndarray

    @classmethod
    def build(cls, rows: np.ndarray, grades: np.ndarray, n_rows: int, metric: GateMetric,
              rel_threshold: int) -> QueryConstants:
        n_rel = np.bincount(rows, weights=(grades >= rel_threshold), minlength=n_rows).astype(np.int64)
        idcg = np.zeros(n_rows)
        if metric.family == "nDCG":
            pos = grades > 0
            r, g = rows[pos], grades[pos].astype(np.float64)
            order = np.lexsort((-g, r))
            r, g = r[order], g[order]
            starts = np.searchsorted(r, np.arange(n_rows))
            rank = np.arange(len(r)) - starts[r]
            keep = rank < metric.cutoff if metric.cutoff is not None else np.ones(len(r), bool)
            np.add.at(idcg, r[keep], g[keep] / np.log2(rank[keep] + 2.0))
        return cls(n_rel, idcg)


def metric_values(gains: np.ndarray, metric: GateMetric, const: QueryConstants, rel_threshold: int) -> np.ndarray:
    """Per-row metric values from a gain matrix (rows = queries, columns = ranks 1..depth)."""
    n_rows = gains.shape[0]
    g = gains if metric.cutoff is None else gains[:, : metric.cutoff]
    fam = metric.family
    if fam == "nDCG":
        disc = 1.0 / np.log2(np.arange(g.shape[1]) + 2.0)
        dcg = np.clip(g, 0, None) @ disc
        return np.divide(dcg, const.idcg, out=np.zeros(n_rows), where=const.idcg > 0)
    rel = g >= rel_threshold
    if fam == "P":
        return rel.sum(axis=1) / float(metric.cutoff)
    if fam == "R":
        return np.divide(rel.sum(axis=1), const.n_rel, out=np.zeros(n_rows), where=const.n_rel > 0)
    if fam == "RR":
        any_rel = rel.any(axis=1)
        first = np.argmax(rel, axis=1)
        return np.where(any_rel, 1.0 / (first + 1.0), 0.0)
    if fam == "AP":
        cum = np.cumsum(rel, axis=1)
        prec = cum / np.arange(1, g.shape[1] + 1)
        s = (prec * rel).sum(axis=1)
        return np.divide(s, const.n_rel, out=np.zeros(n_rows), where=const.n_rel > 0)
    raise AssertionError(fam)  # pragma: no cover - parse_gate_metric admits only the families above


# ------------------------------------------------------------------------------------------ one gold per query


def single_gold_weights(family: str, depth: int) -> np.ndarray:
    """Value of finding the (only) gold doc at rank ``j + 1``: R 1, RR ``1/(j+1)``, nDCG ``1/log2(j+2)``.

    With one relevant doc per query trec_eval's recall@k, RR@k and nDCG@k (ideal DCG = grade / log2(2)) reduce to
    these: the metric of a query is ``weights[j]`` where j is the gold doc's first rank, 0 when not in the top k.
    """
    j = np.arange(depth, dtype=np.float64)
    if family == "R":
        return np.ones(depth)
    if family == "RR":
        return 1.0 / (j + 1.0)
    if family == "nDCG":
        return 1.0 / np.log2(j + 2.0)
    raise ValueError(f"no single-gold kernel for {family}")


def single_gold_values(ranked: np.ndarray, gold: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per-query metric values of one gold code per query: ``weights[j]`` at the gold's first rank, else 0.

    ``ranked`` is ``(N, depth)`` integer codes (negative = no doc / never relevant), ``gold`` is ``(N,)`` or
    ``(T, N)`` non-negative codes (T null trials scored at once); the result has ``gold``'s shape. Ranks are
    visited from the deepest up, so a repeated doc counts at its first rank (as a TREC run would keep it).
    """
    out = np.zeros(gold.shape, dtype=np.float64)
    for j in range(min(ranked.shape[1], weights.size) - 1, -1, -1):
        np.copyto(out, weights[j], where=gold == ranked[:, j])
    return out
