"""An embedding shard is verified once per process, by whichever cache instance reads it first, and again only
when its files change (renamed over by another writer, truncated, edited) or were written too recently to trust
their timestamps."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import hcrbench.data.cache as cache_mod
from hcrbench.data.atomic import atomic_write_bytes
from hcrbench.data.cache import EmbeddingCache
from hcrbench.errors import HcrbenchWarning

TEXTS = [f"text number {i}" for i in range(12)]


@pytest.fixture
def checks(monkeypatch):
    """Shard names in the order :meth:`EmbeddingCache.check_shard` verified them."""
    seen: list[str] = []
    real = EmbeddingCache.check_shard

    def counting(self, shard):
        seen.append(shard)
        return real(self, shard)

    monkeypatch.setattr(EmbeddingCache, "check_shard", counting)
    monkeypatch.setattr(cache_mod, "_VERIFIED", {})
    return seen


def _filled(n_shards: int = 3) -> tuple[list[np.ndarray], list[str]]:
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((int(rng.integers(1, 5)), 8)).astype(np.float32) for _ in TEXTS]
    c = EmbeddingCache("m")
    step = len(TEXTS) // n_shards
    for s in range(n_shards):
        c.put(TEXTS[s * step : (s + 1) * step], arrays[s * step : (s + 1) * step])
    return arrays, c.shard_names()


def _read(expect: list[np.ndarray]) -> None:
    got = EmbeddingCache("m").get(TEXTS)
    assert all(g is not None and np.array_equal(g, e) for g, e in zip(got, expect))


def test_each_shard_is_verified_once_across_instances(checks, monkeypatch):
    monkeypatch.setattr(cache_mod, "_SETTLE_S", 0.0)
    arrays, shards = _filled()
    for _ in range(3):
        _read(arrays)
    assert sorted(checks) == sorted(shards)


def test_a_shard_rewritten_by_another_writer_is_verified_again(checks, monkeypatch):
    """Another process writing the same content-addressed shard renames new files over it: new inodes."""
    monkeypatch.setattr(cache_mod, "_SETTLE_S", 0.0)
    arrays, shards = _filled()
    _read(arrays)
    vec = EmbeddingCache("m").path / f"{shards[1]}.vec.npy"
    atomic_write_bytes(vec, vec.read_bytes())
    _read(arrays)
    assert sorted(checks) == sorted([*shards, shards[1]])


@pytest.mark.parametrize("damage", ["truncate", "flip-later", "flip-same-mtime"])
def test_damage_after_verification_is_detected_once(checks, monkeypatch, damage):
    if damage != "flip-same-mtime":  # that one keeps the default settle time: the shard was just written
        monkeypatch.setattr(cache_mod, "_SETTLE_S", 0.0)
    arrays, shards = _filled()
    _read(arrays)
    vec = EmbeddingCache("m").path / f"{shards[0]}.vec.npy"
    st = vec.stat()
    data = bytearray(vec.read_bytes())
    if damage == "truncate":
        vec.write_bytes(bytes(data[: len(data) // 2]))
    else:
        data[-5] ^= 0xFF
        vec.write_bytes(bytes(data))
        later = st.st_mtime_ns + (10**9 if damage == "flip-later" else 0)
        os.utime(vec, ns=(st.st_atime_ns, later))
    with pytest.warns(HcrbenchWarning, match="damaged"):
        got = EmbeddingCache("m").get(TEXTS)
    lost = {t for t, g in zip(TEXTS, got) if g is None}
    assert lost and not vec.exists()
    assert all(np.array_equal(g, a) for g, a in zip(got, arrays) if g is not None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", HcrbenchWarning)  # dropped once: a later instance no longer sees it
        again = EmbeddingCache("m").get(TEXTS)
    assert {t for t, g in zip(TEXTS, again) if g is None} == lost


def test_a_fresh_shard_is_not_trusted_on_its_timestamps(checks):
    """Within the settle time of its last write a shard is verified by every instance that reads it."""
    arrays, shards = _filled(1)
    _read(arrays)
    _read(arrays)
    assert checks == shards * 2
