"""Published SciFact figures reproduced (../shared/datasets/README.md); skipped when the data is absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hcrbench.data.cache import cache_root

USER_CACHE = cache_root()  # read at import, before the autouse fixture points HCRBENCH_CACHE at a temp folder
SCIFACT = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "scifact"
pytestmark = pytest.mark.skipif(not (SCIFACT / "corpus.jsonl").exists(), reason="../shared/datasets absent")


def ndcg10(qrels, run) -> float:
    import pytrec_eval
    ev = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), {"ndcg_cut.10"})
    res = ev.evaluate(run.to_dict())
    return float(np.mean([res.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels.query_ids]))


@pytest.fixture(scope="module")
def scifact():
    from hcrbench.data import load_beir

    return load_beir(SCIFACT, "test")


def test_bm25_reproduces_pyserini_flat(scifact):
    from hcrbench.retrieve import make_retriever

    r = make_retriever("bm25")  # Lucene BM25, k1=0.9 b=0.4, title+text, stemmed: Pyserini bm25-flat's setting
    r.index(scifact.corpus)
    score = ndcg10(scifact.qrels, r.search(scifact.queries, 100).run)
    assert abs(score - 0.6789) <= 0.015, score  # Pyserini 2CR bm25-flat
    assert abs(score - 0.665) <= 0.015, score  # BEIR paper


@pytest.mark.slow  # encodes 5,183 abstracts (~4 min on 2 cores) unless the embedding cache already holds them
def test_dense_minilm_reproduces_mteb(scifact):
    from hcrbench.retrieve import make_retriever

    r = make_retriever("dense", cache_dir=str(USER_CACHE))
    r.index(scifact.corpus)
    score = ndcg10(scifact.qrels, r.search(scifact.queries, 100).run)
    assert abs(score - 0.6451) <= 0.015, score  # MTEB all-MiniLM-L6-v2
