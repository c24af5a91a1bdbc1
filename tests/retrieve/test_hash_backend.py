"""``backend = "hash"`` for dense, hybrid and rerank: the model-free hashed bag-of-words encoder of HCR's smoke
runs, so the quickstart's hash template runs the same field (dense, hybrid, the kill baseline) as the MiniLM one."""

from __future__ import annotations

import pytest

from hcrbench.errors import InputError
from hcrbench.retrieve import make_retriever
from hcrbench.retrieve.encoders import make_encoder
from hcrbench.retrieve.hcr.hashenc import HashingEncoder


def test_dense_hash_is_brute_force_cosine_of_the_hashing_encoder(corpus, queries, tmp_path):
    r = make_retriever("dense", backend="hash", cache_dir=str(tmp_path))
    r.index(corpus)
    res = r.search(queries, k=4)
    enc = HashingEncoder()
    d = enc.encode([corpus.full_text(i) for i in range(len(corpus))])
    q = enc.encode(list(queries.texts))
    for i, qid in enumerate(queries.query_ids):
        s = q[i] @ d.T
        got = res.run.ranked(qid)
        assert [x for _, x in got] == pytest.approx(sorted(s, reverse=True)[:4], abs=1e-5)  # ties: any order
        assert [x for _, x in got] == pytest.approx([s[corpus.index_of(doc)] for doc, _ in got], abs=1e-5)
    assert r.params["model"] == "hash-bow:256" and r.params["backend"] == "hash"


def test_rerank_hash_reorders_hybrid_candidates_by_maxsim(corpus, queries, tmp_path):
    from hcrbench.retrieve.rerank import maxsim_scores

    r = make_retriever("rerank", backend="hash", first_stage="hybrid", top_n=3, cache_dir=str(tmp_path),
                       first_stage_params={"systems": "bm25,dense", "dense_backend": "hash"})
    r.index(corpus)
    res = r.search(queries, k=5)
    enc = HashingEncoder()
    first = r.first.search(queries, 5).run
    for i, qid in enumerate(queries.query_ids):
        top = [d for d, _ in first.ranked(qid)][:3]
        qt = enc.encode_tokens([queries.texts[i]])[0]
        s = maxsim_scores(qt, enc.encode_tokens([corpus.full_text(corpus.index_of(d)) for d in top]))
        got = res.run.ranked(qid)[: len(top)]
        assert sorted(d for d, _ in got) == sorted(top)  # the first stage's top 3, reordered by MaxSim
        assert [x for _, x in got] == pytest.approx(sorted(s, reverse=True), abs=1e-3)


def test_the_hash_backend_takes_no_model_and_unknown_backends_are_named():
    assert isinstance(make_encoder(None, "hash"), HashingEncoder)
    with pytest.raises(InputError, match="takes no model"):
        make_encoder("bert", "hash")
    with pytest.raises(InputError, match=r"unknown backend 'tf' .*torch, onnx, hash"):
        make_retriever("dense", backend="tf")
    with pytest.raises(InputError, match=r"unknown backend 'tf' .*torch, onnx, hash"):
        make_retriever("rerank", backend="tf")
