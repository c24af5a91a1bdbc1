"""Embedding and index caches: hits on the second run, resume after an interruption, atomic shards."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.data import Costs
from hcrbench.data.cache import EmbeddingCache, cache_root, index_dir, index_ready, save_index
from hcrbench.retrieve.encoders import encode_cached

TEXTS = [f"text number {i} about topic {i % 7}" for i in range(50)]


def test_cache_root_follows_env(cache_env, tmp_path):
    assert cache_root() == cache_env
    assert cache_root(tmp_path / "x") == tmp_path / "x"


def test_roundtrip_vectors_and_token_blocks():
    c = EmbeddingCache("m1")
    vecs = [np.arange(4, dtype=np.float32) + i for i in range(3)]
    c.put(["a", "b", "c"], vecs)
    got = EmbeddingCache("m1").get(["c", "a", "zzz"])  # a fresh object reads the shards from disk
    np.testing.assert_array_equal(got[0], vecs[2])
    np.testing.assert_array_equal(got[1], vecs[0])
    assert got[2] is None
    t = EmbeddingCache("m1|tokens", dtype="float16")
    blocks = [np.ones((5, 4)), np.zeros((0, 4)), np.full((2, 4), 0.5)]
    t.put(["x", "y", "z"], blocks)
    back = EmbeddingCache("m1|tokens", dtype="float16").get(["x", "y", "z"])
    assert [b.shape for b in back] == [(5, 4), (0, 4), (2, 4)]
    assert back[0].dtype == np.float16


def test_model_ids_do_not_share_vectors():
    EmbeddingCache("model-a").put(["t"], [np.ones(3, dtype=np.float32)])
    assert EmbeddingCache("model-b").get(["t"]) == [None]
    assert "t" in EmbeddingCache("model-a")


def test_second_run_encodes_nothing(Fake):
    enc = Fake()
    first = encode_cached(enc, TEXTS, cache=EmbeddingCache(enc.model_id), flush_every=8)
    assert len(enc.texts_seen) == len(TEXTS)
    enc2 = Fake()
    costs = Costs()
    second = encode_cached(enc2, TEXTS, cache=EmbeddingCache(enc2.model_id), costs=costs, flush_every=8)
    assert enc2.calls == 0 and enc2.texts_seen == []
    assert costs.counters == {"cache_hits": len(TEXTS)}
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def test_duplicate_texts_are_encoded_once(Fake):
    enc = Fake()
    out = encode_cached(enc, ["same", "same", "other"], cache=EmbeddingCache(enc.model_id))
    assert sorted(enc.texts_seen) == ["other", "same"]
    np.testing.assert_array_equal(out[0], out[1])


def test_resume_after_interruption(Fake):
    crashing = Fake(fail_after=3)  # three groups of 8 get stored, the fourth call dies
    with pytest.raises(KeyboardInterrupt):
        encode_cached(crashing, TEXTS, cache=EmbeddingCache(crashing.model_id), flush_every=8)
    assert len(crashing.texts_seen) == 24
    resumed = Fake()
    costs = Costs()
    out = encode_cached(resumed, TEXTS, cache=EmbeddingCache(resumed.model_id), costs=costs, flush_every=8)
    assert resumed.texts_seen == TEXTS[24:]  # only what the crash left undone
    assert costs.counters["cache_hits"] == 24 and costs.counters["texts_encoded"] == 26
    ref = Fake().encode(TEXTS)
    np.testing.assert_allclose(np.stack(out), ref, rtol=0, atol=0)


def test_half_written_shard_is_ignored(Fake):
    enc = Fake()
    encode_cached(enc, TEXTS[:10], cache=EmbeddingCache(enc.model_id), flush_every=5)
    shard_keys = sorted(EmbeddingCache(enc.model_id).path.glob("*.keys.npy"))
    assert len(shard_keys) == 2
    shard_keys[0].unlink()  # as if the process died before the commit marker was written
    again = Fake()
    encode_cached(again, TEXTS[:10], cache=EmbeddingCache(enc.model_id), flush_every=5)
    assert len(again.texts_seen) == 5


def test_fp16_cache_gives_identical_numbers_first_and_second_time(Fake):
    enc = Fake()
    a = encode_cached(enc, TEXTS[:5], cache=EmbeddingCache("tok", dtype="float16"), tokens=True, dtype="float16")
    b = encode_cached(enc, TEXTS[:5], cache=EmbeddingCache("tok", dtype="float16"), tokens=True, dtype="float16")
    for x, y in zip(a, b):
        assert x.dtype == y.dtype == np.float16
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError):
        encode_cached(enc, TEXTS[:1], cache=EmbeddingCache("tok", dtype="float16"), dtype="float32")


def test_index_cache_is_atomic():
    key = {"corpus": "abc", "k1": 0.9}
    assert index_ready("bm25", key) is None

    def broken(d):
        (d / "part").write_text("half")
        raise RuntimeError("crash while saving")

    with pytest.raises(RuntimeError):
        save_index("bm25", key, broken)
    assert index_ready("bm25", key) is None
    assert not index_dir("bm25", key).exists()
    leftovers = list(index_dir("bm25", key).parent.iterdir())
    assert leftovers == []
    path = save_index("bm25", key, lambda d: (d / "data").write_text("ok"))
    assert index_ready("bm25", key) == path and (path / "data").read_text() == "ok"
    assert index_ready("bm25", {"corpus": "abc", "k1": 1.2}) is None


def test_texts_stored_by_another_process_meanwhile_are_not_encoded(Fake):
    """Two runs sharing a cache: groups another process stored since the start are read, not re-encoded."""
    other = Fake()

    class Racing(Fake):  # on its first call, "another process" stores the last group
        def encode(self, texts):
            if self.calls == 0:
                EmbeddingCache(self.model_id).put(TEXTS[40:], other.encode(TEXTS[40:]))
            return super().encode(texts)

    enc = Racing()
    costs = Costs()
    out = encode_cached(enc, TEXTS, cache=EmbeddingCache(enc.model_id), costs=costs, flush_every=10)
    assert enc.texts_seen == TEXTS[:40]
    assert costs.counters["cache_hits"] == 10
    np.testing.assert_array_equal(np.stack(out), Fake().encode(TEXTS))


def test_progress_bars_follow_env(monkeypatch):
    from hcrbench.retrieve.progress import progress, progress_enabled

    monkeypatch.setenv("HCRBENCH_PROGRESS", "0")
    assert not progress_enabled()
    assert list(progress(iter([1, 2, 3]), total=3, desc="x")) == [1, 2, 3]
    monkeypatch.setenv("HCRBENCH_PROGRESS", "1")
    assert progress_enabled()
    assert list(progress(iter([1, 2]), total=2, desc="x")) == [1, 2]  # a bar on stderr, items unchanged
    monkeypatch.delenv("HCRBENCH_PROGRESS")
    assert progress_enabled() is False  # pytest's stderr is not a TTY


def test_an_index_found_cached_from_before_the_measured_work_is_told_apart(tmp_path):
    """A tree or index stored before the work began (``counting_prior_hits``) is work a fresh world would redo;
    one stored during it (another system of the same look) is sharing that recurs."""
    import os
    import time

    from hcrbench.data.cache import counting_prior_hits, take_prior_indexes

    old = save_index("raptor-tree", {"corpus": "a"}, lambda d: (d / "data").write_text("ok"), tmp_path)
    past = time.time() - 60
    os.utime(old / "key.json", (past, past))
    since = time.time()
    time.sleep(0.05)  # a file's time stamp comes from a coarser clock than time.time()
    take_prior_indexes()
    with counting_prior_hits(since):
        new = save_index("bm25", {"corpus": "b"}, lambda d: (d / "data").write_text("ok"), tmp_path)
        assert index_ready("raptor-tree", {"corpus": "a"}, tmp_path) == old
        assert index_ready("bm25", {"corpus": "b"}, tmp_path) == new
        assert take_prior_indexes() == ["raptor-tree"] and take_prior_indexes() == []
    assert index_ready("raptor-tree", {"corpus": "a"}, tmp_path) == old and take_prior_indexes() == []
