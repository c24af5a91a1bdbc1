"""Encode qrels and a run once into integer arrays: the ranks and grades of the *judged* retrieved docs.

Every measure hcrbench computes depends on a ranking only through (a) the rank of each retrieved doc that has a
judgment and (b) how many docs each query retrieved. So a run is reduced to "hits": for each judged retrieved
doc its query (a position in the qrels' query list), its 0-based rank in trec_eval order and its grade.

trec_eval order: score descending (scores compared as 32-bit floats, as trec_eval stores them), ties by doc id
descending by byte (strcmp) order; the rank column of a run file is ignored. Ranking is vectorised: one ``argsort`` per row of a padded (queries x depth) score matrix when
rows have similar lengths, a ``lexsort`` otherwise; doc-id strings are compared only inside tie groups that hold
a judged doc, the only place they can change a measure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from hcrbench.data import Qrels
from hcrbench.data.vocab import IdLookup


@dataclass
class QrelsIndex:
    """Qrels in lookup form, built once per evaluation and shared by all runs."""

    qrels: Qrels
    query_pos: dict[str, int]
    doc_pos: dict[str, int]
    keys: np.ndarray  # sorted int64 keys query * n_docs + doc code
    key_grades: np.ndarray  # int64 grades aligned with keys
    entry_query: np.ndarray  # per qrels entry, its query position
    #: what the qrels alone give (relevant counts, ideal gains), computed once per index: a run scored in many
    #: batches (hcrbench.metrics.stream) would otherwise redo them per batch. Callers never write into them.
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(cls, qrels: Qrels) -> QrelsIndex:
        nd = max(len(qrels.doc_vocab), 1)
        eq = qrels.entry_query_index()
        keys = eq * nd + qrels.doc_index.astype(np.int64)
        order = np.argsort(keys, kind="stable")
        return cls(
            qrels=qrels,
            query_pos={q: i for i, q in enumerate(qrels.query_ids)},
            doc_pos={d: i for i, d in enumerate(qrels.doc_vocab)},
            keys=keys[order],
            key_grades=qrels.grades.astype(np.int64)[order],
            entry_query=eq,
        )

    def judged(self) -> list[list[tuple[str, int]]]:
        """Per qrels query, its (doc id, grade) judgments."""
        vocab, q = self.qrels.doc_vocab, self.qrels
        pairs = list(zip([vocab[c] for c in q.doc_index.tolist()], q.grades.tolist()))
        offs = q.offsets.tolist()
        return [pairs[offs[i]:offs[i + 1]] for i in range(len(offs) - 1)]

    @property
    def n_queries(self) -> int:
        return len(self.qrels.query_ids)

    def n_relevant(self, threshold: int) -> np.ndarray:
        """Per qrels query, judged docs with grade >= threshold (negative grades never count, as trec_eval)."""
        key = ("n_relevant", int(threshold))
        if key not in self._memo:
            g = self.qrels.grades
            rel = (g >= threshold) & (g >= 0)
            self._memo[key] = np.bincount(self.entry_query, weights=rel, minlength=self.n_queries).astype(np.int64)
        return self._memo[key]

    def ideal_gains(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Positive grades per query sorted descending: (query position, 0-based rank, gain)."""
        if "ideal" not in self._memo:
            self._memo["ideal"] = self._ideal_gains()
        return self._memo["ideal"]

    def _ideal_gains(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        g = self.qrels.grades.astype(np.int64)
        pos = g > 0
        q, g = self.entry_query[pos], g[pos]
        order = np.lexsort((-g, q))
        q, g = q[order], g[order]
        return q, _ranks_within(q), g.astype(np.float64)

    def lookup(self, query: np.ndarray, doc_code: np.ndarray) -> np.ndarray:
        """Grade of each (query position, qrels doc code) pair, or ``UNJUDGED`` where there is no judgment."""
        out = np.full(query.shape[0], UNJUDGED, dtype=np.int64)
        cand = np.flatnonzero(doc_code >= 0)
        if cand.size and self.keys.size:
            k = query[cand] * max(len(self.qrels.doc_vocab), 1) + doc_code[cand]
            at = np.searchsorted(self.keys, k)
            at_c = np.minimum(at, self.keys.size - 1)
            found = self.keys[at_c] == k
            out[cand[found]] = self.key_grades[at_c[found]]
        return out


#: Grade marker of a retrieved doc with no judgment for its query.
UNJUDGED = np.iinfo(np.int64).min


@dataclass
class EncodedRun:
    """A run restricted to the qrels' queries, reduced to what ranking needs (see :func:`rank_hits`).

    Rows are the run's queries that are in the qrels; a *hit* is a retrieved doc that has a judgment.
    """

    row_query: np.ndarray  # per row, its qrels query position
    offsets: np.ndarray  # int64, len(rows) + 1: each row's entries in ``neg_scores``
    neg_scores: np.ndarray  # float64 per entry: -float32(score) (ascending order = trec_eval order)
    hit_row: np.ndarray  # per hit, its row
    hit_neg: np.ndarray  # per hit, -float32(score)
    hit_grade: np.ndarray  # per hit, its grade
    hit_doc: Callable[[np.ndarray], list[str]]  # hit indices -> doc id strings (for tie breaks)
    doc_string: Callable[[np.ndarray], list[str]]  # entry indices -> doc id strings (for tie breaks)


@dataclass
class Hits:
    """The judged retrieved docs of one run: per hit query position, 0-based rank and grade."""

    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    n_ret: np.ndarray  # per qrels query: docs retrieved (0 for queries missing from the run)


def _ranks_within(sorted_groups: np.ndarray) -> np.ndarray:
    """For an array sorted by group, each element's 0-based position inside its group."""
    n = sorted_groups.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    sizes = np.diff(np.r_[starts, n])
    return np.arange(n, dtype=np.int64) - np.repeat(starts, sizes)


def rows_from_lengths(lengths: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(lengths.shape[0], dtype=np.int64), lengths)


def map_docs(index: QrelsIndex, docs: Sequence[str]) -> np.ndarray:
    """Qrels doc code of each string in ``docs`` (-1 when never judged): one dict lookup per string."""
    return np.fromiter(map(index.doc_pos.get, docs, repeat(-1)), dtype=np.int64, count=len(docs))


def map_bytes_docs(index: QrelsIndex, vocab) -> np.ndarray:
    """:func:`map_docs` for a :class:`~hcrbench.data.vocab.BytesVocab`: the qrels' ids (usually far fewer) are
    looked up among the run's, by key then bytes, instead of a ``str`` and a dict lookup per run id."""
    out = np.full(len(vocab), -1, dtype=np.int64)
    judged = index._memo.get("judged_lookup")
    if judged is None:  # made once per index: a run read a batch at a time looks them up in every batch
        judged = index._memo["judged_lookup"] = IdLookup(index.qrels.doc_vocab)
    at = vocab.codes_of(judged)
    found = at >= 0
    out[at[found]] = np.flatnonzero(found)
    return out


def _sorted_rows(neg: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's -scores sorted ascending: (flat sorted values, start of each row in them)."""
    n = neg.shape[0]
    lengths = np.diff(offsets)
    m = lengths.shape[0]
    width = int(lengths.max()) if m else 0
    if m * width <= 2 * n + 65536:
        # Padded matrix (pads +inf sort last): one sort per row is far faster than a global lexsort.
        rows = rows_from_lengths(lengths)
        mat = np.full((m, width), np.inf)
        mat[rows, np.arange(n, dtype=np.int64) - offsets[rows]] = neg
        del rows
        mat.sort(axis=1)
        return mat.ravel(), np.arange(m, dtype=np.int64) * width
    return neg[np.lexsort((neg, rows_from_lengths(lengths)))], offsets[:-1].copy()


def _segment_search(sv: np.ndarray, lo: np.ndarray, hi: np.ndarray, x: np.ndarray, right: bool) -> np.ndarray:
    """Vectorised bisection: for each i, the insertion point of x[i] in the ascending slice sv[lo[i]:hi[i]]."""
    lo, hi = lo.copy(), hi.copy()
    last = max(sv.shape[0] - 1, 0)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        v = sv[np.minimum(mid, last)]
        go = ((v <= x) if right else (v < x)) & active
        lo = np.where(go, mid + 1, lo)
        hi = np.where(active & ~go, mid, hi)


def rank_hits(enc: EncodedRun, n_queries: int) -> Hits:
    """The 0-based trec_eval rank of every hit: docs scoring higher, plus tied docs with a greater doc id."""
    lengths = np.diff(enc.offsets)
    n_ret = np.zeros(n_queries, dtype=np.int64)
    n_ret[enc.row_query] = lengths
    nh = enc.hit_row.shape[0]
    if nh == 0:
        z = np.zeros(0, dtype=np.int64)
        return Hits(z, z, z, n_ret)
    sv, row_start = _sorted_rows(enc.neg_scores, enc.offsets)
    lo0 = row_start[enc.hit_row]
    hi0 = lo0 + lengths[enc.hit_row]
    first = _segment_search(sv, lo0, hi0, enc.hit_neg, right=False)
    past = _segment_search(sv, first, hi0, enc.hit_neg, right=True)
    rank = first - lo0
    tied = np.flatnonzero(past - first > 1)
    if tied.size:
        rank[tied] += _ties_above(enc, tied)
    order = np.lexsort((rank, enc.row_query[enc.hit_row]))
    return Hits(
        query=enc.row_query[enc.hit_row][order],
        rank=rank[order],
        grade=enc.hit_grade[order],
        n_ret=n_ret,
    )


def _ties_above(enc: EncodedRun, tied: np.ndarray) -> np.ndarray:
    """For each tied hit, how many docs of its row share its score and have a greater doc id (strcmp)."""
    # One tie group per (row, score), its members found by one vectorised compare over the row.
    value = enc.hit_neg[tied] + 0.0  # -0.0 -> 0.0: equal scores must share a group
    keys = np.stack([enc.hit_row[tied], value.view(np.int64)], axis=1)
    groups, group_of = np.unique(keys, axis=0, return_inverse=True)
    group_of = group_of.ravel()
    group_value = np.ascontiguousarray(groups[:, 1]).view(np.float64)
    members = []
    for g, row in enumerate(groups[:, 0].tolist()):
        s, e = int(enc.offsets[row]), int(enc.offsets[row + 1])
        members.append(np.flatnonzero(enc.neg_scores[s:e] == group_value[g]) + s)
    sizes = np.fromiter(map(len, members), np.int64, len(members))
    mgroup = np.repeat(np.arange(len(members), dtype=np.int64), sizes)
    mstrings = enc.doc_string(np.concatenate(members))
    hstrings = enc.hit_doc(tied)
    uniq = sorted(set(mstrings).union(hstrings))
    rank_of = {d: i for i, d in enumerate(uniq)}
    u = len(uniq) + 1
    mkey = np.sort(mgroup * u + np.fromiter(map(rank_of.__getitem__, mstrings), np.int64, len(mstrings)))
    hrank = np.fromiter(map(rank_of.__getitem__, hstrings), np.int64, len(hstrings))
    above = np.searchsorted(mkey, group_of * u + u, side="left")
    upto = np.searchsorted(mkey, group_of * u + hrank, side="right")
    return above - upto
