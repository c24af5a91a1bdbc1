"""hcrbench retrievers as PyTerrier transformers: the frames PyTerrier's own operators pass on equal hcrbench's
direct run, row for row (qid, docno, score, rank). Runs PyTerrier for real (its transformer API, no JVM)."""

from __future__ import annotations

import pandas as pd
import pytest

from hcrbench.errors import InputError
from hcrbench.retrieve import make_retriever

pt = pytest.importorskip("pyterrier", reason="PyTerrier is not installed (pip install 'hcrbench[pyterrier]')")

from hcrbench.retrieve.pt_transformer import as_transformer  # noqa: E402


def _topics(queries) -> pd.DataFrame:
    return pd.DataFrame({"qid": queries.query_ids, "query": queries.texts})


def _direct(corpus, queries, k: int) -> pd.DataFrame:
    r = make_retriever("bm25", k1=0.9, b=0.4)
    r.index(corpus)
    return r.search(queries, k=k).run.to_frame("pyterrier")


def test_bm25_transformer_equals_the_direct_run(corpus, queries):
    bm25 = as_transformer("bm25", corpus, k=10, k1=0.9, b=0.4)
    assert isinstance(bm25, pt.Transformer)
    got = bm25.transform(_topics(queries))
    want = _direct(corpus, queries, 10)
    assert list(got.columns) == ["qid", "query", "docno", "score", "rank"]
    pd.testing.assert_frame_equal(got[["qid", "docno", "score", "rank"]].reset_index(drop=True),
                                  want.reset_index(drop=True), check_dtype=False)
    assert (got["query"] == got["qid"].map(dict(zip(queries.query_ids, queries.texts)))).all()


def test_pyterriers_own_cutoff_and_pipeline_see_the_same_ranking(corpus, queries):
    bm25 = as_transformer("bm25", corpus, k=10, k1=0.9, b=0.4)
    top3 = (bm25 % 3).transform(_topics(queries))  # PyTerrier's RankCutoff operator
    want = _direct(corpus, queries, 10)
    want = want[want["rank"] < 3]
    pd.testing.assert_frame_equal(top3[["qid", "docno", "score", "rank"]].reset_index(drop=True),
                                  want.reset_index(drop=True), check_dtype=False)
    negated = bm25 >> pt.apply.doc_score(lambda row: -row["score"])  # a PyTerrier stage after ours
    out = negated.transform(_topics(queries))
    full = _direct(corpus, queries, 10)
    both = out.merge(full, on=["qid", "docno"], suffixes=("", "_bm25"))
    assert len(both) == len(full) == len(out)
    assert (both["score"] == -both["score_bm25"]).all()


def test_a_corpus_frame_indexes_like_a_corpus(corpus, queries):
    frame = pd.DataFrame({"docno": corpus.doc_ids, "text": corpus.texts, "title": corpus.titles})
    got = as_transformer("bm25", frame, k=5, k1=0.9, b=0.4).transform(_topics(queries))
    pd.testing.assert_frame_equal(got[["qid", "docno", "score", "rank"]].reset_index(drop=True),
                                  _direct(corpus, queries, 5).reset_index(drop=True), check_dtype=False)


def test_bad_inputs_are_one_line_errors(corpus):
    with pytest.raises(InputError, match="lacks text"):
        as_transformer("bm25", pd.DataFrame({"docno": ["a"]}))
    with pytest.raises(InputError, match="positive integer"):
        as_transformer("bm25", corpus, k=0)
    bm25 = as_transformer("bm25", corpus, k=5)
    with pytest.raises(InputError, match="qid and query"):
        bm25.transform(pd.DataFrame({"qid": ["q1"]}))
