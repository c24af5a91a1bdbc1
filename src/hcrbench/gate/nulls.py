"""The four null predictors of the falsification gate, generalised to graded, multi-relevance qrels.

Notation: the gate's queries are the qrels queries with at least one doc at grade >= ``rel_threshold``; each
query q has a relevant set R_q = {(d, g): g > 0} (positive grades: they carry nDCG gain). L is the *label
pool*: every doc with a positive grade for at least one query (falsify-eval's set of gold labels), and
f(d) = number of queries for which d is in R_q (the empirical relevance frequency). One trial draws:

- **A, relevance permuted** — one uniform random bijection pi of L; every query's relevant set becomes
  {(pi(d), g)}. Same sizes, same grades, same frequency profile; only *which* docs are relevant moves.
  With one gold doc per query this is exactly falsify-eval's label bijection.
- **B, uniform from the judged pool** — per query, |R_q| distinct docs drawn uniformly from L (the query's
  own grades assigned to them in a random order). Single gold: falsify-eval's iid uniform label draw.
- **C, random retrieval** — the run is replaced: per query, ``k`` distinct docs drawn uniformly from the item
  pool (the corpus), in random order, scored against the *real* qrels.
- **D, marginal-matched** — the relevant (query, doc, grade) incidences are dealt at random within each
  grade: the docs judged at grade g (each d appearing f_g(d) times) are shuffled into the slots of grade g, so
  every query keeps its size and grades and every doc keeps its relevance frequency at every grade; a doc dealt
  twice to one query is swapped with a same-grade slot of another query where that creates no repeat (the
  fixed-degree bipartite null). A constant or popularity predictor, whose output does not depend on the query,
  scores the same against D as against the truth in expectation, so it cannot beat D.
  (Drawing iid from f per slot and skipping repeats — falsify-eval's rule generalised — under-represents
  popular docs when queries have several relevant docs, and dealing docs without their grades misses popular
  docs that carry high grades: in both cases a constant predictor beat D on test benches. The drop-in
  :func:`~hcrbench.gate.four_null_gate` keeps falsify-eval's iid draw, identical for one gold per query.)

A, B and D keep each query's grade multiset, so ideal DCG and the number of relevant docs do not change
between trials; only the gains of the (fixed) ranked list do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NULLS = ("A", "B", "C", "D")
NULL_TITLES = {
    "A": "relevance permuted (bijection of the label pool)",
    "B": "uniform draw from the label pool",
    "C": "random retrieval from the item pool",
    "D": "marginal-matched deal (every f(d) kept)",
}


def sample_distinct_rows(rng: np.random.Generator, counts: np.ndarray, n_items: int,
                         p: np.ndarray | None = None) -> np.ndarray:
    """For each row r, ``counts[r]`` distinct item indices in ``[0, n_items)``, flat and row-major.

    Each row is the first ``counts[r]`` distinct values of an iid stream drawn uniformly (``p`` None) or from
    ``p``: exactly successive sampling without replacement. Streams are extended, never restarted, so the
    result is exact whatever the skew of ``p``. ``counts[r]`` must not exceed the support of ``p``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    out = np.empty(int(counts.sum()), dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)])[:-1]
    cdf = None
    if p is not None:
        cdf = np.cumsum(p)
        cdf /= cdf[-1]
    if counts.size and np.all(counts == 1):  # one draw per row: numpy's own integers / choice(p=...) stream
        if cdf is None:
            return rng.integers(0, n_items, size=counts.size)
        return np.minimum(np.searchsorted(cdf, rng.random(counts.size), side="right"), n_items - 1)
    pending = np.flatnonzero(counts > 0)
    s_rows = np.zeros(0, dtype=np.int64)  # stream so far, for pending rows (row ids are global)
    s_vals = np.zeros(0, dtype=np.int64)
    factor = 1.25
    for _ in range(64):
        if pending.size == 0:
            return out
        c = counts[pending]
        extra = np.ceil(c * factor).astype(np.int64) + 1
        new_rows = np.repeat(pending, extra)
        if cdf is None:
            new_vals = rng.integers(0, n_items, size=new_rows.size)
        else:
            new_vals = np.minimum(np.searchsorted(cdf, rng.random(new_rows.size), side="right"), n_items - 1)
        s_rows = np.concatenate([s_rows, new_rows])
        s_vals = np.concatenate([s_vals, new_vals])
        # first occurrence of each (row, value) in stream order (old draws precede new ones)
        _, first = np.unique(s_rows * n_items + s_vals, return_index=True)
        first = first[np.lexsort((first, s_rows[first]))]
        fr = s_rows[first]
        grp_start = np.searchsorted(fr, fr, side="left")
        rank = np.arange(fr.size) - grp_start
        have = np.bincount(fr, minlength=counts.size)
        done = have >= counts
        take = done[fr] & (rank < counts[fr])
        out[starts[fr[take]] + rank[take]] = s_vals[first[take]]
        keep_stream = ~done[s_rows]
        s_rows, s_vals = s_rows[keep_stream], s_vals[keep_stream]
        pending = pending[~done[pending]]
        factor *= 2
    raise RuntimeError("sampling without replacement did not converge")  # pragma: no cover


@dataclass(frozen=True)
class Relevance:
    """The positive-grade qrels entries of the gate's queries, with the label pool and its frequencies."""

    rows: np.ndarray      # query row of each entry, non-decreasing
    docs: np.ndarray      # global doc code of each entry
    grades: np.ndarray    # positive grade of each entry
    n_rows: int
    labels: np.ndarray    # L: sorted distinct doc codes with a positive grade
    freq: np.ndarray      # f(d) for each label
    entry_label: np.ndarray  # index into labels of each entry

    @classmethod
    def build(cls, rows: np.ndarray, docs: np.ndarray, grades: np.ndarray, n_rows: int) -> Relevance:
        pos = grades > 0
        rows, docs, grades = rows[pos], docs[pos], grades[pos]
        order = np.lexsort((docs, rows))
        rows, docs, grades = rows[order].astype(np.int64), docs[order].astype(np.int64), grades[order]
        labels, entry_label, freq = np.unique(docs, return_inverse=True, return_counts=True)
        return cls(rows, docs, grades.astype(np.int64), n_rows, labels, freq, entry_label)

    @property
    def sizes(self) -> np.ndarray:
        return np.bincount(self.rows, minlength=self.n_rows)

    def _shuffled_grades(self, rng: np.random.Generator) -> np.ndarray:
        if self.grades.size == 0 or np.all(self.grades == self.grades[0]):
            return self.grades
        order = np.lexsort((rng.random(self.grades.size), self.rows))
        return self.grades[order]

    def null_a(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One trial of null A: (rows, docs, grades) after a random bijection of the label pool."""
        perm = rng.permutation(self.labels.size)
        return self.rows, self.labels[perm[self.entry_label]], self.grades

    def null_b(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One trial of null B: per query, |R_q| distinct labels drawn uniformly."""
        idx = sample_distinct_rows(rng, self.sizes, self.labels.size)
        return self.rows, self.labels[idx], self._shuffled_grades(rng)

    def null_d(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One trial of null D: the relevant docs dealt to the queries' slots (sizes and f(d) kept exactly)."""
        perm = np.lexsort((rng.random(self.docs.size), self.grades))  # a random order within each grade
        docs = np.empty_like(self.docs)
        docs[np.argsort(self.grades, kind="stable")] = self.docs[perm]
        return self.rows, _repair_repeats(rng, self.rows, docs, self.grades), self.grades

    def null_d_iid(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """falsify-eval's null D: per query, |R_q| distinct labels drawn with probability f(d) / sum f."""
        idx = sample_distinct_rows(rng, self.sizes, self.labels.size, p=self.freq / self.freq.sum())
        return self.rows, self.labels[idx], self._shuffled_grades(rng)


def _repair_repeats(rng: np.random.Generator, rows: np.ndarray, docs: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """Swap away docs that occur twice in one row with a slot of the same grade in another row (keeps counts)."""
    docs = docs.copy()
    n_rows = int(rows[-1]) + 1 if rows.size else 0
    starts = np.searchsorted(rows, np.arange(n_rows + 1))
    span = int(docs.max(initial=0)) + 1
    for _ in range(1000):
        key = rows * span + docs
        order = np.argsort(key, kind="stable")
        dup = order[1:][key[order[1:]] == key[order[:-1]]]
        if dup.size == 0:
            return docs
        for i in dup.tolist():
            ri = rows[i]
            for _try in range(200):
                j = int(rng.integers(0, docs.size))
                rj = rows[j]
                if rj == ri or grades[j] != grades[i]:
                    continue
                row_i, row_j = docs[starts[ri]:starts[ri + 1]], docs[starts[rj]:starts[rj + 1]]
                if docs[j] in row_i or docs[i] in row_j:
                    continue
                docs[i], docs[j] = docs[j], docs[i]
                break
    raise RuntimeError("null D: could not deal relevant docs without repeats")  # pragma: no cover


def null_c_ranked(rng: np.random.Generator, n_rows: int, k: int, pool: np.ndarray) -> np.ndarray:
    """One trial of null C: an ``(n_rows, k)`` matrix of distinct random pool docs per row (rank order)."""
    if pool.size < 4 * k:  # small pool: repeats are common, use the general sampler
        idx = sample_distinct_rows(rng, np.full(n_rows, k, dtype=np.int64), pool.size)
        return pool[idx].reshape(n_rows, k)
    # large pool: draw k with replacement and redraw the (rare) rows holding a repeat — exact, since
    # conditioning iid draws on being distinct gives a uniform ordered k-subset
    idx = rng.integers(0, pool.size, size=(n_rows, k))
    while True:
        s = np.sort(idx, axis=1)
        bad = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
        if bad.size == 0:
            return pool[idx]
        idx[bad] = rng.integers(0, pool.size, size=(bad.size, k))
