"""The subset BM25 of the HCR cascade equals bm25s (Lucene BM25, the bm25 baseline's analyzer) on every row."""

from __future__ import annotations

import bm25s
import numpy as np

from hcrbench.retrieve.bm25 import BM25Retriever
from hcrbench.retrieve.hcr.lexical import SparseBM25

TEXTS = ["The cat sat on the mat", "Dogs chase cats in the park", "A mat for the dog and the dogs",
         "Quantum physics of cats and dogs", "", "Parks, mats and physics: running runners run"]


def test_equals_bm25s_on_all_and_on_subsets():
    ours = SparseBM25(TEXTS)
    an = BM25Retriever(cache=False)
    ref = bm25s.BM25(k1=0.9, b=0.4, method="lucene")
    ref.index(an.tokenize(TEXTS), show_progress=False)
    for q in ["cat mat", "dogs park physics", "running", "nothing matches here", "the"]:
        toks = [t for t in an.tokenize([q])[0] if t in ref.vocab_dict]
        want = ref.get_scores(toks) if toks else np.zeros(len(TEXTS))  # bm25s refuses an empty query
        got = ours.score(ours.query_vector(q))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        rows = np.array([5, 0, 3])
        np.testing.assert_allclose(ours.score(ours.query_vector(q), rows), want[rows], rtol=1e-5, atol=1e-6)
