"""Candidate chunks for context selection: a ranked list of chunks, each with its offsets and token count.

Selection works on chunks, never on whole documents, so a context can be cut to a token budget without splitting
a sentence: chunks come from :func:`hcrbench.data.chunking.chunk_corpus` (sentence-respecting, exact substrings
with offsets). A chunk-level run is used as it is; a document-level run is *expanded* to its chunks in rank order
(document 1's chunks in text order, then document 2's, ...), each chunk carrying its document's score and rank.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hcrbench.data.chunking import ChunkedCorpus
from hcrbench.data.types import Run


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
