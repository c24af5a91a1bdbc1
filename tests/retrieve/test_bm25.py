"""BM25 on a tiny corpus: scores equal the Lucene BM25 formula computed by hand, options behave, cache hits."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from hcrbench.errors import InputError
from hcrbench.retrieve import make_retriever


def lucene_bm25(doc_tokens: list[list[str]], query: list[str], k1: float, b: float) -> list[float]:
    """Reference: idf = ln(1 + (N - df + .5) / (df + .5)); tf part = tf / (tf + k1 (1 - b + b dl / avgdl))."""
    n = len(doc_tokens)
    avgdl = sum(len(d) for d in doc_tokens) / n
    df = Counter(t for d in doc_tokens for t in set(d))
    out = []
    for d in doc_tokens:
        tf = Counter(d)
        s = 0.0
        for t in query:
            if tf[t]:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf[t] / (tf[t] + k1 * (1 - b + b * len(d) / avgdl))
        out.append(s)
    return out


@pytest.mark.parametrize(("k1", "b"), [(0.9, 0.4), (1.5, 0.75)])
def test_scores_match_lucene_formula(corpus, queries, k1, b):
    r = make_retriever("bm25", k1=k1, b=b, stemmer="none", stopwords="none")
    r.index(corpus)
    res = r.search(queries, k=len(corpus))
    docs = r.tokenize([corpus.full_text(i) for i in range(len(corpus))])
    for qid, text in queries.items():
        (qtok,) = r.tokenize([text])
        ref = lucene_bm25(docs, qtok, k1, b)
        expected = {corpus.doc_ids[i]: s for i, s in enumerate(ref) if s > 0}
        got = res.run[qid]
        assert set(got) == set(expected), qid  # docs with no query term are not returned
        for d, s in expected.items():
            assert got[d] == pytest.approx(s, rel=1e-5)


def test_ranking_and_costs(corpus, queries):
    r = make_retriever("bm25")
    r.index(corpus)
    res = r.search(queries, k=3)
    assert res.run.ranked("q3")[0][0] == "d07"  # "stock market(s) interest rates"
    assert all(len(res.run[q]) <= 3 for q in res.run.query_ids)
    assert res.costs.counters["queries"] == 4
    assert res.costs.counters["docs_scored"] == 4 * len(corpus)
    assert "search" in res.costs.stage_seconds
    assert r.params["method"] == "lucene" and r.params["k1"] == 0.9 and r.params["b"] == 0.4


def test_stemming_and_stopwords_options(corpus):
    from hcrbench.data import Queries

    q = Queries.from_dict({"q": "runs"})
    stem = make_retriever("bm25", stemmer="english")
    stem.index(corpus)
    plain = make_retriever("bm25", stemmer="none")
    plain.index(corpus)
    assert "d12" in stem.search(q, 5).run["q"]  # "runs" ~ "run"/"runners" only once stemmed
    assert plain.search(q, 5).run["q"] == {}
    assert make_retriever("bm25", stopwords="en").tokenize(["the cat"]) == [["cat"]]
    assert make_retriever("bm25", stopwords="none", stemmer="none").tokenize(["the cat"]) == [["the", "cat"]]


def test_index_cache_hit_gives_identical_run(corpus, queries):
    a = make_retriever("bm25")
    a.index(corpus)
    assert a.index_costs.counters == {"docs_indexed": len(corpus)}
    b = make_retriever("bm25")
    b.index(corpus)
    assert b.index_costs.counters == {"index_cache_hits": 1}
    assert a.search(queries, 5).run.to_dict() == b.search(queries, 5).run.to_dict()
    c = make_retriever("bm25", k1=1.2)  # other parameters: another index
    c.index(corpus)
    assert c.index_costs.counters == {"docs_indexed": len(corpus)}


def test_k_larger_than_corpus_and_no_match(corpus):
    from hcrbench.data import Queries

    r = make_retriever("bm25")
    r.index(corpus)
    res = r.search(Queries.from_dict({"a": "zzzz qqqq", "b": "water"}), k=1000)
    assert res.run["a"] == {}
    assert set(res.run["b"]) == {"d10", "d11", "d12"}


@pytest.mark.parametrize(
    ("params", "field"),
    [({"k1": -1}, "k1"), ({"b": 2}, "b"), ({"method": "okapi"}, "method"), ({"stemmer": "klingon"}, "stemmer"),
     ({"k1": "x"}, "k1"), ({"backend": "gpu"}, "backend"), ({"nope": 1}, "param")],
)
def test_config_errors_are_one_line(params, field):
    with pytest.raises(InputError) as e:
        make_retriever("bm25", **params)
    assert e.value.field == field
    assert "\n" not in str(e.value)
