"""Candidate chunks for context selection: a ranked list of chunks, each with its offsets and token count.

Selection works on chunks, never on whole documents, so a context can be cut to a token budget without splitting
a sentence: chunks come from :func:`hcrbench.data.chunking.chunk_corpus` (sentence-respecting, exact substrings
with offsets). A chunk-level run is used as it is; a document-level run is *expanded* to its chunks in rank order
(document 1's chunks in text order, then document 2's, ...), each chunk carrying its document's score and rank. The order in which a system's documents reach a reader
(round robin, best passage first) is :mod:`hcrbench.context.delivery`'s.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hcrbench.data.chunking import ChunkedCorpus
from hcrbench.data.types import Run, trec_score_key


class Candidate(NamedTuple):
    """One chunk that may go into a context: ``text == corpus[doc_id].text[start:end]``.

    A named tuple, not a dataclass: a query builds ~100 of them, and tuple construction keeps that negligible
    next to retrieval (benchmarks/bench_context.py)."""

    chunk_id: str
    doc_id: str
    start: int
    end: int
    text: str
    n_tokens: int
    score: float
    rank: int  # 0-based position in the expanded candidate list


class ChunkIndex:
    """Chunks of a corpus grouped by document (text order), for expanding runs into candidates."""

    def __init__(self, chunked: ChunkedCorpus) -> None:
        self.chunked = chunked
        self.counter = chunked.counter
        corpus = chunked.corpus
        self._pos = {c: i for i, c in enumerate(corpus.doc_ids)}
        self.by_doc: dict[str, list[int]] = {}
        for i, meta in enumerate(corpus.metadata):
            self.by_doc.setdefault(meta["doc_id"], []).append(i)
        self._base = [(corpus.doc_ids[i], m["doc_id"], int(m["char_start"]), int(m["char_end"]), corpus.texts[i],
                       int(m["n_tokens"])) for i, m in enumerate(corpus.metadata)]
        #: token count of every chunk, by chunk position
        self.tokens = np.array([b[5] for b in self._base], dtype=np.int64)
        # id -> contiguous range of chunk positions (a document's chunks are consecutive, in text order)
        doc_code = {d: i for i, d in enumerate(self.by_doc)}
        #: the document of every chunk, as a code (chunks of one document share it)
        self.doc_of = np.array([doc_code[b[1]] for b in self._base], dtype=np.int64)
        self._range: dict[str, tuple[int, int]] = {d: (ix[0], ix[-1] + 1) for d, ix in self.by_doc.items()
                                                   if ix[-1] - ix[0] + 1 == len(ix)}
        for c, i in self._pos.items():
            self._range.setdefault(c, (i, i + 1))

    def positions(self, ranked: list[tuple[str, float]], max_candidates: int | None = 100
                  ) -> tuple[np.ndarray, np.ndarray]:
        """The fast form of :meth:`expand`: chunk positions and their (document's) scores, as arrays.

        Same candidates in the same order as :meth:`expand`; build :class:`Candidate` objects only for the
        chunks a selection keeps (:meth:`candidate`)."""
        limit = len(self._base) if max_candidates is None else max_candidates
        pos: list[int] = []
        sc: list[float] = []
        get = self._range.get
        chunk_ids = False
        for ident, score in ranked:
            r = get(ident)
            if r is None:
                continue
            a, b = r
            chunk_ids = chunk_ids or (b - a == 1 and ident in self._pos)
            pos.extend(range(a, b))
            sc.extend([score] * (b - a))
            if len(pos) >= limit:
                break
        if chunk_ids and len(set(pos)) != len(pos):  # a chunk id and its document both ranked: rare
            cands = self.expand(ranked, max_candidates)
            return (np.array([self._pos[c.chunk_id] for c in cands], dtype=np.int64),
                    np.array([c.score for c in cands], dtype=np.float64))
        return np.array(pos[:limit], dtype=np.int64), np.array(sc[:limit], dtype=np.float64)

    def run_positions(self, run: Run, max_candidates: int | None = 100
                      ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """:meth:`positions` for every query of ``run`` at once, vectorised over the whole run.

        The run is put in trec_eval order (score as float32 descending, then doc id descending) by one
        ``lexsort``; each document contributes its chunk range while fewer than ``max_candidates`` chunks are
        taken, then the query's list is cut at ``max_candidates``: the same arrays :meth:`positions` gives for
        ``run.ranked(q)`` (tested), at a fraction of its per-query cost (benchmarks/bench_context.py). A run that
        names chunk ids rather than documents goes through :meth:`positions` query by query.
        """
        vocab = run.doc_vocab
        if any(v not in self.by_doc and v in self._pos for v in vocab):  # chunk-level ids: the general path
            return {q: self.positions(run.ranked(q), max_candidates) for q in run.query_ids}
        get = self._range.get
        ranges = np.array([get(ident, (0, 0)) for ident in vocab], dtype=np.int64).reshape(-1, 2)
        start, length = ranges[:, 0], ranges[:, 1] - ranges[:, 0]
        id_rank = np.empty(len(vocab), dtype=np.int64)
        id_rank[sorted(range(len(vocab)), key=vocab.__getitem__)] = np.arange(len(vocab))
        offsets = run.offsets
        counts = np.diff(offsets)
        qix = np.repeat(np.arange(len(counts)), counts)
        docs = run.doc_index.astype(np.int64)
        perm = np.lexsort((-id_rank[docs], -trec_score_key(run.scores), qix))
        docs, scores, qix = docs[perm], run.scores[perm], qix[perm]
        lens = length[docs]
        csum = np.cumsum(lens)
        before = csum - lens - np.repeat(np.concatenate(([0], csum))[offsets[:-1]], counts)  # chunks ahead in query
        limit = np.iinfo(np.int64).max if max_candidates is None else int(max_candidates)
        take = (lens > 0) & (before < limit)
        s, ln, sc, qq = start[docs[take]], lens[take], scores[take], qix[take]
        total = int(ln.sum())
        first = np.repeat(np.cumsum(ln) - ln, ln)
        pos = np.repeat(s, ln) + (np.arange(total, dtype=np.int64) - first)
        pos_scores = np.repeat(sc, ln)
        pos_q = np.repeat(qq, ln)
        within = np.arange(total, dtype=np.int64) - np.repeat(
            np.searchsorted(pos_q, np.arange(len(counts))), np.bincount(pos_q, minlength=len(counts)))
        keep = within < limit
        pos, pos_scores, pos_q = pos[keep], pos_scores[keep], pos_q[keep]
        bounds = np.searchsorted(pos_q, np.arange(len(counts) + 1))
        return {q: (pos[bounds[i]:bounds[i + 1]], pos_scores[bounds[i]:bounds[i + 1]])
                for i, q in enumerate(run.query_ids)}

    def candidate(self, i: int, score: float, rank: int) -> Candidate:
        return Candidate(*self._base[i], float(score), rank)

    def position(self, chunk_id: str) -> int:
        return self._pos[chunk_id]

    def expand(self, ranked: list[tuple[str, float]], max_candidates: int | None = 100) -> list[Candidate]:
        """Candidates for one query's ranked ``(id, score)`` list (document or chunk ids, best first).

        A chunk id is taken as is; a document id contributes all its chunks in text order. Ids that are
        neither are skipped. At most ``max_candidates`` candidates (``None``: all).
        """
        out: list[Candidate] = []
        seen: set[int] = set()
        base, pos, by_doc = self._base, self._pos, self.by_doc
        limit = float("inf") if max_candidates is None else max_candidates
        for ident, score in ranked:
            i0 = pos.get(ident)
            idx = by_doc.get(ident, ()) if i0 is None else (i0,)
            score = float(score)
            for i in idx:
                if i in seen:
                    continue
                seen.add(i)
                out.append(Candidate(*base[i], score, len(out)))
                if len(out) >= limit:
                    return out
        return out

    def expand_run(self, run: Run, max_candidates: int | None = 100) -> dict[str, list[Candidate]]:
        """:meth:`expand` for every query of ``run`` (trec_eval order)."""
        return {q: self.expand(run.ranked(q), max_candidates) for q in run.query_ids}


def __getattr__(name: str):  # the old home of best_passage_first: delivery lives in hcrbench.context.delivery
    if name == "best_passage_first":
        from hcrbench.context.delivery import best_passage_first

        return best_passage_first
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
