"""BM25 (Lucene variant, as the ``bm25`` baseline) as a sparse matrix, so a *subset* of texts can be scored.

A tree retriever scores only the children of its beam, never the whole collection: ``score(query, rows)`` costs
the non-zeros of those rows. Tokenisation is the ``bm25`` baseline's analyzer (bm25s, English stopwords,
Snowball stemming), weights are Lucene's: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), tf part
tf / (tf + k1 (1 - b + b dl / avgdl)).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse


class SparseBM25:
    """BM25 weights of ``texts`` as a CSR matrix (rows = texts); queries score any subset of rows."""

    def __init__(self, texts: Sequence[str], *, k1: float = 0.9, b: float = 0.4, stemmer: str = "english") -> None:
        from hcrbench.retrieve.bm25 import BM25Retriever

        self._analyzer = BM25Retriever(k1=k1, b=b, stemmer=stemmer, cache=False)
        toks = self._analyzer.tokenize(list(texts)) if len(texts) else []
        vocab: dict[str, int] = {}
        rows, cols = [], []
        for i, t in enumerate(toks):
            ids = [vocab.setdefault(w, len(vocab)) for w in t]
            rows.extend([i] * len(ids))
            cols.extend(ids)
        n, v = len(texts), max(len(vocab), 1)
        tf = sparse.csr_matrix((np.ones(len(rows), np.float32), (rows, cols)), shape=(n, v), dtype=np.float32)
        tf.sum_duplicates()
        self.k1, self.b = k1, b
        self.tf = tf  # raw term counts, kept so node rows can be built as sums of chunk rows
        self.matrix = bm25_weights(tf, k1, b)
        self.vocab = vocab

    @classmethod
    def from_counts(cls, counts: sparse.csr_matrix, like: SparseBM25) -> SparseBM25:
        """BM25 over rows of term ``counts`` in ``like``'s vocabulary and analyzer (statistics from ``counts``)."""
        out = cls.__new__(cls)
        out._analyzer, out.vocab, out.k1, out.b = like._analyzer, like.vocab, like.k1, like.b
        out.tf = sparse.csr_matrix(counts, dtype=np.float32)
        out.matrix = bm25_weights(out.tf, like.k1, like.b)
        return out

    def query_vector(self, text: str) -> sparse.csr_matrix:
        """Query term counts as a (V, 1) sparse column (terms unknown to the collection dropped); kept per text,
        so the variants that share this index analyse a query once."""
        memo = self.__dict__.setdefault("_queries", {})
        got = memo.get(text)
        if got is None:
            ids = [self.vocab[w] for w in self._analyzer.tokenize([text])[0] if w in self.vocab]
            v = self.matrix.shape[1]
            got = sparse.csr_matrix((np.ones(len(ids), np.float32), (ids, np.zeros(len(ids), np.int64))),
                                    shape=(v, 1))
            if len(memo) >= 100_000:
                memo.clear()
            memo[text] = got
        return got

    def score(self, qvec: sparse.csr_matrix, rows: np.ndarray | None = None) -> np.ndarray:
        """BM25 of the query against ``rows`` (all rows when None), float64."""
        m = self.matrix if rows is None else self.matrix[np.asarray(rows, dtype=np.int64)]
        return np.asarray((m @ qvec).todense(), dtype=np.float64).ravel()


def bm25_weights(tf: sparse.csr_matrix, k1: float, b: float) -> sparse.csr_matrix:
    """Lucene BM25 document-side weights of a term-count matrix (rows = documents)."""
    tf = sparse.csr_matrix(tf, dtype=np.float32)
    n, v = tf.shape
    dl = np.asarray(tf.sum(axis=1)).ravel()
    avgdl = float(dl.mean()) if n else 1.0
    df = np.bincount(tf.indices, minlength=v).astype(np.float64)
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    norm = k1 * (1 - b + b * dl / max(avgdl, 1e-9))
    data = tf.data / (tf.data + np.repeat(norm, np.diff(tf.indptr)))
    data *= idf[tf.indices]
    return sparse.csr_matrix((data.astype(np.float32), tf.indices.copy(), tf.indptr.copy()), shape=(n, v))
