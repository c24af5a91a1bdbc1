"""Dense retrieval (fake encoder + one real MiniLM check), hybrid fusion, and the embedding cache in use."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.data import Queries
from hcrbench.errors import InputError
from hcrbench.retrieve import make_retriever, rrf


def brute_force(enc, corpus, queries, k):
    d = enc.encode([corpus.full_text(i) for i in range(len(corpus))])
    q = enc.encode(list(queries.texts))
    s = q @ d.T
    return {qid: [corpus.doc_ids[j] for j in np.argsort(-s[i], kind="stable")[:k]]
            for i, qid in enumerate(queries.query_ids)}


def test_flat_dense_equals_brute_force(corpus, queries, Fake):
    r = make_retriever("dense", encoder=Fake())
    r.index(corpus)
    res = r.search(queries, k=5)
    ref = brute_force(Fake(), corpus, queries, 5)
    for q in queries.query_ids:
        assert [d for d, _ in res.run.ranked(q)] == ref[q]
    assert res.costs.counters["queries"] == 4
    assert r.index_costs.counters["texts_encoded"] == len(corpus)


@pytest.mark.parametrize("params", [{"index": "hnsw"}, {"index": "ivf", "nlist": 3, "nprobe": 3}])
def test_ann_indexes_agree_with_exact_on_tiny_corpus(corpus, queries, Fake, params):
    exact = make_retriever("dense", encoder=Fake())
    exact.index(corpus)
    ann = make_retriever("dense", encoder=Fake(), **params)
    ann.index(corpus)
    a, b = exact.search(queries, 4).run, ann.search(queries, 4).run
    for q in queries.query_ids:
        assert [d for d, _ in a.ranked(q)] == [d for d, _ in b.ranked(q)]
    again = make_retriever("dense", encoder=Fake(), **params)
    again.index(corpus)
    assert again.index_costs.counters.get("index_cache_hits") == 1


def test_second_dense_run_encodes_nothing(corpus, queries, Fake):
    first = Fake()
    r = make_retriever("dense", encoder=first)
    r.index(corpus)
    run1 = r.search(queries, 5).run
    second = Fake()
    r2 = make_retriever("dense", encoder=second)
    r2.index(corpus)
    res = r2.search(queries, 5)
    assert second.calls == 0
    assert r2.index_costs.counters == {"cache_hits": len(corpus)}
    assert res.costs.counters["cache_hits"] == len(queries)
    assert run1.to_dict() == res.run.to_dict()
    no_cache = Fake()
    r3 = make_retriever("dense", encoder=no_cache, cache=False)
    r3.index(corpus)
    assert len(no_cache.texts_seen) == len(corpus)


def test_hybrid_is_rrf_of_its_parts(corpus, queries, Fake):
    bm25 = make_retriever("bm25")
    dense = make_retriever("dense", encoder=Fake())
    hyb = make_retriever("hybrid", retrievers=[bm25, dense], depth=10)
    hyb.index(corpus)
    res = hyb.search(queries, k=5)
    ref = rrf([bm25.search(queries, 10).run, dense.search(queries, 10).run], k=60).top_k(5)
    assert res.run.query_ids == ref.query_ids
    for q in ref.query_ids:
        assert res.run[q] == pytest.approx(ref[q])
    assert {"bm25.search", "dense.search", "fusion"} <= set(res.costs.stage_seconds)
    w = make_retriever("hybrid", retrievers=[bm25, dense], method="weighted", weights="0.2,0.8", norm="zscore")
    w.index(corpus)
    assert w.params["weights"] == [0.2, 0.8]
    assert len(w.search(queries, 3).run["q1"]) == 3


@pytest.mark.parametrize(
    ("system", "params", "field"),
    [("dense", {"index": "lsh"}, "index"), ("dense", {"backend": "tpu"}, "backend"),
     ("dense", {"nprobe": 0}, "nprobe"), ("hybrid", {"method": "max"}, "method"),
     ("hybrid", {"systems": "bm25", "weights": "1,2"}, "weights"), ("hybrid", {"depth": 0}, "depth"),
     ("dense", {"model": "x", "backend": "onnx", "extra": 1}, "param")],
)
def test_config_errors(system, params, field):
    with pytest.raises(InputError) as e:
        make_retriever(system, **params)
    assert e.value.field == field and "\n" not in str(e.value)


def test_real_minilm_onnx_ranks_by_meaning(corpus):
    r = make_retriever("dense", backend="onnx")  # needs the [onnx] extra; CI installs it, so no skip
    r.index(corpus)
    res = r.search(Queries.from_dict({"a": "kitten", "b": "equities and the bond market"}), k=3)
    assert res.run.ranked("a")[0][0] in {"d01", "d05"}  # no shared word with "kitten": meaning only
    assert res.run.ranked("b")[0][0] in {"d03", "d07"}
    emb = r.embeddings
    assert emb is not None and np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-4)


@pytest.mark.slow
def test_torch_and_onnx_backends_agree(corpus):
    from hcrbench.retrieve.encoders import make_encoder

    texts = [corpus.full_text(i) for i in range(len(corpus))]
    a = make_encoder(None, "torch").encode(texts)
    b = make_encoder(None, "onnx").encode(texts)
    cos = (a * b).sum(1)
    assert cos.min() > 0.99
