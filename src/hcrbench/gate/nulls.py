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
  *stratum* (number of relevant docs of the query, grade): the docs judged at grade g in queries with s relevant
  docs (each d appearing f_{s,g}(d) times) are shuffled into the slots of grade g of those queries, so every
  query keeps its size and grades and every doc keeps its relevance frequency at every grade *and its link to
  query size*; a doc dealt twice to one query is swapped with a slot of the same stratum in another query where
  that creates no repeat (the fixed-degree bipartite null; if a stratum cannot be repaired, the rest are swapped
  within the grade). A constant or popularity predictor, whose output does not depend on the query, scores the
  same against D as against the truth in expectation, so it cannot beat D. Dealing within the grade only
  broke the link between a doc's popularity and the size of the queries it serves: on SciFact the most popular
  docs belong to single-relevant-doc queries (where a hit is worth most), and the constant control beat that D
  in 200/200 trials (nDCG@10 0.0488 vs 0.0444).
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
    "D": "marginal-matched deal (f(d) kept per query size, grade)",
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
        stratum = self.strata
        perm = np.lexsort((rng.random(self.docs.size), stratum))  # a random order within each stratum
        docs = np.empty_like(self.docs)
        docs[np.argsort(stratum, kind="stable")] = self.docs[perm]
        try:
            return self.rows, _repair_repeats(rng, self.rows, docs, stratum, max_rounds=100), self.grades
        except RuntimeError:  # a stratum too small to deal without repeats: finish within the grade
            return self.rows, _repair_repeats(rng, self.rows, docs, self.grades), self.grades

    @property
    def strata(self) -> np.ndarray:
        """Stratum of each entry for null D: (number of positive-grade docs of its query, grade) as one int."""
        size = self.sizes[self.rows]
        return size * (int(self.grades.max(initial=0)) + 1) + self.grades

    def null_d_iid(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """falsify-eval's null D: per query, |R_q| distinct labels drawn with probability f(d) / sum f."""
        idx = sample_distinct_rows(rng, self.sizes, self.labels.size, p=self.freq / self.freq.sum())
        return self.rows, self.labels[idx], self._shuffled_grades(rng)


#: How many random partners :func:`_repair_repeats` tries for one repeated slot before moving on.
REPAIR_TRIES = 200


def _repair_repeats(rng: np.random.Generator, rows: np.ndarray, docs: np.ndarray, grades: np.ndarray,
                    max_rounds: int = 1000) -> np.ndarray:
    """Swap away docs that occur twice in one row with a slot of the same key (``grades``: grade or stratum) in
    another row (keeps counts); RuntimeError when ``max_rounds`` rounds leave a repeat.

    For each repeated slot ``i`` (in order), partners ``j = rng.integers(0, n)`` are drawn one at a time, up to
    :data:`REPAIR_TRIES`, until one lies in another row, has the same key, and swapping keeps both rows free of
    repeats. The draws are made in one batch (``integers(0, n, size=k)`` gives the same values as ``k`` scalar
    calls), checked at once, and the generator is then left exactly where the one-at-a-time loop leaves it (state
    restored, the used draws redrawn), so the result and the stream afterwards are the loop's.
    ``rows`` must be non-decreasing (each row's slots contiguous), as :class:`Relevance` keeps them."""
    docs = docs.copy()
    n_rows = int(rows[-1]) + 1 if rows.size else 0
    starts = np.searchsorted(rows, np.arange(n_rows + 1))
    span = int(docs.max(initial=0)) + 1
    n = docs.size
    for _ in range(max_rounds):
        key = rows * span + docs
        order = np.argsort(key, kind="stable")
        dup = order[1:][key[order[1:]] == key[order[:-1]]]
        if dup.size == 0:
            return docs
        for i in dup.tolist():
            ri = rows[i]
            state = rng.bit_generator.state
            js = rng.integers(0, n, size=REPAIR_TRIES)
            cand = js[(rows[js] != ri) & (grades[js] == grades[i])]
            if cand.size:  # swapping must not repeat docs[j] in row i, nor docs[i] in row j
                row_i, holders = docs[starts[ri]:starts[ri + 1]], rows[docs == docs[i]]
                ok = ~(docs[cand][:, None] == row_i).any(axis=1) & ~(rows[cand][:, None] == holders).any(axis=1)
                cand = cand[ok]
            if cand.size:
                j = int(cand[0])
                used = int(np.flatnonzero(js == j)[0]) + 1  # the first draw equal to j is the one accepted
                rng.bit_generator.state = state
                rng.integers(0, n, size=used)
                docs[i], docs[j] = docs[j], docs[i]
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


# ------------------------------------------------------------------------------------------ one gold per query
# falsify-eval's nulls for one gold label per query, drawn on integer label codes (labels sorted as falsify-eval
# sorts them) from the very numpy calls falsify-eval makes, so A, B and D give falsify-eval's trials exactly.


class InverseCdf:
    """``rng.choice(n, size, p=p)`` without its binary search: the same uniforms, a guide table, exact result.

    numpy's ``choice`` returns ``searchsorted(cdf, rng.random(size), side="right")``; a random-key binary search
    costs ~80 ns a key. Here ``M`` (a power of two, so ``floor(u * M)`` and ``b / M`` are exact) buckets of
    [0, 1) each know the first index with ``cdf > b / M`` and how many cdf points fall inside the bucket; a
    uniform in a bucket with no point has its answer at once, the others take a few vectorised steps. The
    answer is the same first index with ``cdf[i] > u``, so the draws are numpy's own.
    """

    def __init__(self, p: np.ndarray) -> None:
        cdf = np.cumsum(np.asarray(p, dtype=np.float64))
        cdf /= cdf[-1]
        self.cdf = cdf
        self._cdf_pad = np.append(cdf, np.inf)
        self.n_buckets = 1 << int(min(max(8 * cdf.size, 1), 1 << 22) - 1).bit_length()
        edges = np.searchsorted(cdf, np.arange(self.n_buckets + 1) / self.n_buckets, side="right")
        self._start = edges[:-1].astype(np.int32 if cdf.size < 2**31 else np.int64)
        self._crowded = edges[1:] > edges[:-1]  # a cdf point inside the bucket: step past those <= u

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        """Exactly ``rng.choice(len(p), size=size, p=p)`` (same stream, same values)."""
        return self.lookup(rng.random(size))

    def lookup(self, u: np.ndarray) -> np.ndarray:
        """First index ``i`` with ``cdf[i] > u`` for each uniform ``u`` in [0, 1) (``searchsorted(side="right")``).

        ``cdf[-1]`` is exactly 1 > u, so the index is at most ``len(p) - 1``. Integer dtype: the table's (int32).
        """
        u = np.asarray(u, dtype=np.float64)
        b = (u * self.n_buckets).astype(np.intp)  # exact: n_buckets is a power of two
        idx = self._start[b]
        act = np.flatnonzero(self._crowded[b])
        if act.size:
            flat, uf, pad = idx.reshape(-1), u.reshape(-1), self._cdf_pad
            act = act[pad[flat[act]] <= uf[act]]
            for _ in range(8):
                if act.size == 0:
                    break
                flat[act] += 1
                act = act[pad[flat[act]] <= uf[act]]
            if act.size:  # a bucket holding many tiny probabilities: plain binary search for the rest
                flat[act] = np.searchsorted(self.cdf, uf[act], side="right")
        return idx


def single_gold_null_a(rng: np.random.Generator, codes: np.ndarray, n_labels: int, n_trials: int) -> np.ndarray:
    """``(n_trials, N)`` gold codes of null A: per trial one bijection of the labels (falsify-eval's stream)."""
    perms = np.stack([rng.permutation(n_labels) for _ in range(n_trials)])
    return perms.astype(np.int32)[:, codes] if n_labels < 2**31 else perms[:, codes]


def single_gold_null_b(rng: np.random.Generator, n: int, n_labels: int, n_trials: int) -> np.ndarray:
    """``(n_trials, N)`` gold codes of null B: iid uniform labels, one ``integers`` call per trial as falsify-eval."""
    out = np.empty((n_trials, n), dtype=np.int32 if n_labels < 2**31 else np.int64)
    for t in range(n_trials):
        out[t] = rng.integers(0, n_labels, size=n)
    return out


def single_gold_null_d(rng: np.random.Generator, inv: InverseCdf, n: int, n_trials: int) -> np.ndarray:
    """``(n_trials, N)`` gold codes of null D: iid from the gold frequencies (falsify-eval's ``choice(p=)``)."""
    return inv.sample(rng, (n_trials, n))  # one random() call per trial or per block: the same doubles


def single_gold_null_c_positions(rng: np.random.Generator, n: int, n_pool: int, n_trials: int) -> np.ndarray:
    """``(n_trials, N)`` positions of each query's gold in a random retrieval of k distinct pool items.

    In a uniformly random ordered k-subset of a pool of P distinct items, a given item sits at position j with
    probability exactly 1/P for every j < k (and is absent otherwise), independently across queries. So a value
    ``u`` uniform on ``[0, P)`` *is* the gold's position when ``u < k`` and means "not retrieved" when
    ``u >= k``: the same law as drawing the k items (falsify-eval's null C) at one draw per query.
    """
    return rng.integers(0, n_pool, size=(n_trials, n))
