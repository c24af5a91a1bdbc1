"""The rerank baseline's batched MaxSim writes the bytes of the per-document one: its scoring against the
definition on random candidate lists (ties, empty and repeated documents), and whole searches (hashed one-hot
tokens that tie everywhere, dense fake tokens; fixed, matched and fused ``top_n``) against the reranker as it
was, kept here as the reference."""

from __future__ import annotations

import json

import numpy as np
import pytest

import hcrbench.retrieve.rerank as rerank_mod
from hcrbench.data import Corpus, Queries
from hcrbench.data.cache import EmbeddingCache
from hcrbench.data.types import Costs
from hcrbench.retrieve import make_retriever
from hcrbench.retrieve.encoders import encode_cached
from hcrbench.retrieve.rerank import RerankRetriever, maxsim_scores
from hcrbench.retrieve.runtime import cache_identity


def reference_maxsim(self, queries, cands, costs):
    """The MaxSim stage as it was: one query at a time, one product per document (``maxsim_scores``)."""
    corpus = self._corpus
    cache = EmbeddingCache(cache_identity(self.encoder) + "|tokens", self.cache_dir,
                           dtype="float16") if self.cache else None
    docs = sorted({d for q, v in cands.items() for d, _ in v[: self._n(q)]}, key=corpus.index_of)
    blocks = encode_cached(self.encoder, [corpus.full_text(corpus.index_of(d)) for d in docs], cache=cache,
                           costs=costs, tokens=True, dtype="float16")
    by_doc = dict(zip(docs, blocks))
    qtok = encode_cached(self.encoder, list(queries.texts), cache=cache, costs=costs, tokens=True,
                         dtype="float16")
    scored = {}
    for qi, q in enumerate(queries.query_ids):
        top = [d for d, _ in cands[q][: self._n(q)]]
        s = maxsim_scores(np.asarray(qtok[qi], dtype=np.float32), [by_doc[d] for d in top])
        costs.add("docs_scored", len(top))
        scored[q] = list(zip(top, s.tolist()))
    return scored


class TokenEncoder:
    """Seeded random unit token vectors per word, with exact and near duplicates across words (ties), and no
    tokens for an empty text."""

    model_id = "test-rerank-tokens"
    dim = 48

    def __init__(self) -> None:
        rng = np.random.default_rng(11)
        base = rng.standard_normal((40, self.dim))
        base[1] = base[0]  # an exact tie
        base[2] = base[0] + 1e-4 * rng.standard_normal(self.dim)  # a near tie
        self.table = (base / np.linalg.norm(base, axis=1, keepdims=True)).astype(np.float32)

    def _rows(self, text: str) -> np.ndarray:
        ids = [sum(map(ord, w)) % len(self.table) for w in text.lower().split()]
        return self.table[ids] if ids else np.zeros((0, self.dim), np.float32)

    def encode(self, texts):
        out = []
        for t in texts:
            r = self._rows(t)
            v = r.sum(axis=0) if len(r) else np.ones(self.dim, np.float32)
            out.append(v / np.linalg.norm(v))
        return np.asarray(out, dtype=np.float32)

    def encode_tokens(self, texts):
        return [self._rows(t) for t in texts]


def _world(seed: int) -> tuple[Corpus, Queries]:
    """Documents of random lengths (some a single repeated word) over an overlapping vocabulary."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(60)]
    texts = [" ".join(rng.choice(vocab[: 20 + d % 40], int(rng.integers(1, 80)))) for d in range(70)]
    texts[3] = "w1 w1 w1"
    ids = [f"d{i:02d}" for i in range(len(texts))]
    qtexts = [" ".join(rng.choice(vocab, int(rng.integers(1, 12)))) for _ in range(25)]
    qtexts[0] = qtexts[1]  # a repeated query
    corpus = Corpus(ids, texts, [""] * len(ids), [{} for _ in ids], name=f"rerank-bytes-{seed}")
    return corpus, Queries([f"q{i}" for i in range(len(qtexts))], qtexts, [{} for _ in qtexts])


def _search_bytes(corpus, queries, **kw) -> bytes:
    r = make_retriever("rerank", first_stage="bm25", **kw)
    r.index(corpus)
    res = r.search(queries, k=40)
    runs = {q: [(d, repr(s)) for d, s in res.run.ranked(q)] for q in res.run.query_ids}
    return json.dumps([runs, res.costs.counters.get("docs_scored")]).encode()


@pytest.mark.parametrize("seed", range(3))
def test_rerank_scores_match_the_per_document_definition(seed, monkeypatch):
    """The batched stage on random candidate lists: every query, every top_n, the same float64 bytes."""
    corpus, queries = _world(seed)
    rng = np.random.default_rng(seed)
    r = make_retriever("rerank", first_stage="bm25", encoder=TokenEncoder(), cache=False)
    r.index(corpus)
    for _ in range(4):
        cands = {q: [(corpus.doc_ids[int(i)], 0.0) for i in rng.integers(0, len(corpus), int(rng.integers(0, 60)))]
                 for q in queries.query_ids}  # repeats included
        r.top_n = int(rng.integers(1, 60))
        got = r._maxsim(queries, cands, Costs())
        want = reference_maxsim(r, queries, cands, Costs())
        assert got.keys() == want.keys()
        for q in want:
            assert [d for d, _ in got[q]] == [d for d, _ in want[q]]
            assert np.array([s for _, s in got[q]]).tobytes() == np.array([s for _, s in want[q]]).tobytes()


def test_rerank_bytes_do_not_depend_on_the_float32_budget(tmp_path, monkeypatch):
    """Blocks cast once per search, per query, or some of each: the same run."""
    corpus, queries = _world(2)
    outs = []
    for budget in (0, 3 * 40 * TokenEncoder.dim * 4, 1 << 30):
        monkeypatch.setattr(rerank_mod, "FLOAT32_BLOCK_BYTES", budget)
        outs.append(_search_bytes(corpus, queries, encoder=TokenEncoder(), top_n=30, cache=False))
    assert outs[0] == outs[1] == outs[2]
    monkeypatch.setattr(RerankRetriever, "_maxsim", reference_maxsim)
    assert _search_bytes(corpus, queries, encoder=TokenEncoder(), top_n=30, cache=False) == outs[0]


@pytest.mark.parametrize("kw", [
    {"backend": "hash", "top_n": 30},  # one-hot tokens: ties everywhere
    {"encoder": "tokens", "top_n": 25},
    {"encoder": "tokens", "top_n": 8, "fuse": True},
    {"backend": "hash", "top_n": 50, "cache": False},
])
def test_rerank_search_writes_the_bytes_of_the_per_document_reranker(kw, tmp_path, monkeypatch):
    corpus, queries = _world(5)
    params = dict(kw, cache_dir=str(tmp_path / "c"))
    if params.pop("encoder", None):
        params["encoder"] = TokenEncoder()
    fast = _search_bytes(corpus, queries, **params)
    monkeypatch.setattr(RerankRetriever, "_maxsim", reference_maxsim)
    if "encoder" in params:
        params["encoder"] = TokenEncoder()
    params["cache_dir"] = str(tmp_path / "ref")
    assert _search_bytes(corpus, queries, **params) == fast
