"""The signals of diversity-aware selection (MMR, submodular): relevance to the query and redundancy between units.

The harness's signals (:func:`ranking_signals`) read the ranking a selection is handed: relevance is the rank gain
``1 / log2(rank + 2)`` (the ranking's own order, no second retriever) and redundancy is the share of a unit's text
that another unit already delivers (:func:`delivered_overlap`: overlapping spans of one document). So a selection
re-orders a ranking only where the context would repeat text, and a ranking that hands over the right passages
keeps them (docs/context.md measures the alternative: TF-IDF relevance and redundancy drop fact-stating units).

TF-IDF cosine over the chunk corpus (:class:`TfidfSimilarity`) is the other signal: the passage scorer of
document delivery, and the selection's signals under ``[context] selection_signals = "tfidf"``. Fitted once per
corpus (scikit-learn ``TfidfVectorizer``, sublinear tf, L2-normalised rows), so a query only costs
a sparse slice and a 100 x 100 product. Any other embedding (dense vectors, one row per chunk) can be given
instead through :class:`VectorSimilarity`: rows must be L2-normalised, so a dot product is a cosine.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: The harness's selection signals (``[context] selection_signals``): the ranking's rank gain and delivered overlap.
RANKING_SIGNALS = "rank-gain, delivered-overlap"


def rank_gain(n: int) -> np.ndarray:
    """Relevance of the ``n`` units of a ranking by position: ``1 / log2(rank + 2)`` (DCG's discount), 1 first."""
    return 1.0 / np.log2(np.arange(n, dtype=np.float64) + 2.0)


def delivered_overlap(cands: Sequence) -> np.ndarray:
    """``red[i, j]``: the share of unit ``j``'s text that unit ``i`` also delivers (the overlap of their spans of
    one document over ``j``'s length); 0 on the diagonal and for units that are no span of a document (a
    summary: ``doc_id`` empty). ``cands`` are :class:`hcrbench.context.Candidate` (``doc_id``, ``start``,
    ``end``)."""
    n = len(cands)
    if n == 0:
        return np.zeros((0, 0))
    codes: dict[str, int] = {}
    doc = np.array([codes.setdefault(c.doc_id, len(codes)) if c.doc_id and c.end > c.start else -1 - i
                    for i, c in enumerate(cands)], dtype=np.int64)
    start = np.array([c.start for c in cands], dtype=np.float64)
    end = np.array([c.end for c in cands], dtype=np.float64)
    inter = np.clip(np.minimum(end[:, None], end[None, :]) - np.maximum(start[:, None], start[None, :]), 0, None)
    red = np.where(doc[:, None] == doc[None, :], inter / np.maximum(end - start, 1.0)[None, :], 0.0)
    np.fill_diagonal(red, 0.0)
    return red


def ranking_signals(cands: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """``(relevance, redundancy)`` of a ranked candidate list for :func:`hcrbench.context.select`:
    :func:`rank_gain` and :func:`delivered_overlap`."""
    return rank_gain(len(cands)), delivered_overlap(cands)


class VectorSimilarity:
    """Cosine similarities from one vector per chunk (dense ``ndarray`` or scipy sparse, L2-normalised rows)."""

    name = "vectors"

    def __init__(self, chunk_ids: Sequence[str], vectors, encode_query=None) -> None:
        self._pos = {c: i for i, c in enumerate(chunk_ids)}
        self.vectors = vectors
        self._encode_query = encode_query

    def query_vector(self, text: str):
        if self._encode_query is None:
            raise ValueError("this similarity has no query encoder")
        return self._encode_query(text)

    def query_vectors(self, texts: Sequence[str]) -> list:
        """Query vectors for many queries at once (cheaper than one by one); pass them to :meth:`matrices`."""
        return [self.query_vector(t) for t in texts]

    def matrices(self, query: str, chunk_ids: Sequence[str], query_vector=None) -> tuple[np.ndarray, np.ndarray]:
        """``(sim_q, sim_cc)``: query-chunk similarities (n,) and chunk-chunk similarities (n, n), clipped to [0, 1]."""
        if not chunk_ids:
            return np.zeros(0), np.zeros((0, 0))
        rows = self.vectors[[self._pos[c] for c in chunk_ids]]
        qv = self.query_vector(query) if query_vector is None else query_vector
        sq = rows @ qv.T
        cc = rows @ rows.T
        sq = np.asarray(sq.todense() if hasattr(sq, "todense") else sq, dtype=np.float64).reshape(-1)
        cc = np.asarray(cc.todense() if hasattr(cc, "todense") else cc, dtype=np.float64)
        return np.clip(sq, 0.0, 1.0), np.clip(cc, 0.0, 1.0)


class TfidfSimilarity(VectorSimilarity):
    """TF-IDF cosine (word unigrams, sublinear tf, English stop words) fitted on all chunk texts."""

    name = "tfidf-cosine"

    def __init__(self, chunk_ids: Sequence[str], texts: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self._vec = TfidfVectorizer(sublinear_tf=True, stop_words="english", dtype=np.float64)
        matrix = self._vec.fit_transform(list(texts)).tocsr()
        super().__init__(chunk_ids, matrix, lambda q: self._vec.transform([q]))

    def query_vectors(self, texts: Sequence[str]) -> list:
        m = self._vec.transform(list(texts)).tocsr()
        return [m[i] for i in range(m.shape[0])]

    def for_texts(self, ids: Sequence[str], texts: Sequence[str]) -> VectorSimilarity:
        """A similarity over other units (a system's own chunks or summaries) in this fitted TF-IDF space."""
        return VectorSimilarity(ids, self._vec.transform(list(texts)).tocsr(), lambda q: self._vec.transform([q]))

    def passage_scores(self, positions: Sequence[int] | np.ndarray, query_vector) -> np.ndarray:
        """Query-chunk cosine of the chunks at ``positions`` (rows of the fitted corpus): the passage scorer."""
        if len(positions) == 0:
            return np.zeros(0)
        sq = self.vectors[np.asarray(positions, dtype=np.int64)] @ query_vector.T
        return np.asarray(sq.todense(), dtype=np.float64).reshape(-1)
