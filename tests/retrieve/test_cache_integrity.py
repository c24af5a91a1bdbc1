"""Every cached shard and index is verified on read: damage is named once, dropped, recomputed, never used."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from hcrbench.data import Run
from hcrbench.data.cache import EmbeddingCache, index_dir, index_ready, save_index
from hcrbench.data.cache_admin import clear_cache, list_entries, parse_age, verify_cache
from hcrbench.data.trec import write_run
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.retrieve.encoders import encode_cached

TEXTS = [f"document {i} talks about subject {i % 5} and item {i}" for i in range(40)]


def _vec_files(cache: EmbeddingCache):
    return sorted(cache.path.glob("*.vec.npy"))


def _flip_bytes(path, offset_from_end=40):
    b = bytearray(path.read_bytes())
    for j in range(1, 9):
        b[-offset_from_end - j] ^= 0xFF
    path.write_bytes(bytes(b))


def _scramble_finite(path):
    """Reverse the components of every third vector: finite, unit norm, wrong (the issue's injection)."""
    a = np.load(path)
    a[::3] = a[::3, ::-1]
    np.save(path, a)


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _empty(path):
    path.write_bytes(b"")


def _wrong_dtype(path):
    np.save(path, np.load(path).astype(np.float64))


def _nan_rewrite_with_sum(path):
    """Non-finite values whose checksum was (maliciously or by a buggy writer) updated to match."""
    a = np.load(path)
    a[0, 0] = np.inf
    np.save(path, a)
    shard = path.name[: -len(".vec.npy")]
    meta_path = path.parent / f"{shard}.sum.json"
    meta = json.loads(meta_path.read_text())
    from hcrbench.data.cache import file_digest

    meta["files"]["vec"] = {"size": path.stat().st_size, "digest": file_digest(path)}
    meta_path.write_text(json.dumps(meta))


def _drop_sum(path):
    (path.parent / (path.name[: -len(".vec.npy")] + ".sum.json")).unlink()


INJECTIONS = {"flipped": _flip_bytes, "scrambled-finite": _scramble_finite, "truncated": _truncate,
              "zero-length": _empty, "wrong-dtype": _wrong_dtype, "non-finite": _nan_rewrite_with_sum,
              "missing-checksum": _drop_sum}


@pytest.mark.parametrize("name", sorted(INJECTIONS))
def test_damaged_shard_is_named_dropped_and_recomputed(Fake, name):
    enc = Fake()
    clean = encode_cached(enc, TEXTS, cache=EmbeddingCache(enc.model_id), flush_every=16)
    cache = EmbeddingCache(enc.model_id)
    files = _vec_files(cache)
    assert len(files) == 3
    n_damaged = len(np.load(str(files[1]).replace(".vec.npy", ".keys.npy")))
    INJECTIONS[name](files[1])
    enc2 = Fake()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = encode_cached(enc2, TEXTS, cache=EmbeddingCache(enc2.model_id), flush_every=16)
    msgs = [str(w.message) for w in caught if issubclass(w.category, HcrbenchWarning)]
    assert len(msgs) == 1, msgs
    assert files[1].name[: -len(".vec.npy")] in msgs[0] and "damaged" in msgs[0]
    assert len(enc2.texts_seen) == n_damaged  # exactly the damaged shard's texts, nothing else
    for a, b in zip(clean, again):
        np.testing.assert_array_equal(a, b)
    checked, damage = verify_cache()
    assert damage == [] and checked == 3  # rewritten: the cache is whole again


def test_unreadable_keys_file_is_dropped(Fake):
    enc = Fake()
    encode_cached(enc, TEXTS, cache=EmbeddingCache(enc.model_id), flush_every=20)
    keys = sorted(EmbeddingCache(enc.model_id).path.glob("*.keys.npy"))[0]
    keys.write_bytes(b"not numpy")
    with pytest.warns(HcrbenchWarning, match="unreadable keys"):
        c = EmbeddingCache(enc.model_id)
    assert len(c) == 20


def test_put_refuses_non_finite_arrays():
    c = EmbeddingCache("m")
    with pytest.warns(HcrbenchWarning, match="non-finite"):
        c.put(["a", "b"], [np.array([1.0, np.nan]), np.array([1.0, 2.0])])
    fresh = EmbeddingCache("m")
    assert fresh.get(["a"]) == [None]
    np.testing.assert_array_equal(fresh.get(["b"])[0], [1.0, 2.0])


def _save(tmp_key):
    def writer(d):
        (d / "index.bin").write_bytes(bytes(range(256)) * 10)
        (d / "sub").mkdir()
        (d / "sub" / "part.txt").write_text("vocabulary\n")
    return save_index("bm25", tmp_key, writer)


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete", "extra", "no-checksums"])
def test_damaged_index_is_rebuilt(damage):
    key = {"corpus": "abc"}
    folder = _save(key)
    assert index_ready("bm25", key) == folder
    target = folder / "index.bin"
    if damage == "flip":
        _flip_bytes(target)
    elif damage == "truncate":
        _truncate(target)
    elif damage == "delete":
        (folder / "sub" / "part.txt").unlink()
    elif damage == "extra":
        (folder / "stray.bin").write_bytes(b"x")
    else:
        (folder / "checksums.json").unlink()
    checked, found = verify_cache()
    assert checked == 1 and len(found) == 1 and found[0].path == folder
    with pytest.warns(HcrbenchWarning, match="damaged"):
        assert index_ready("bm25", key) is None
    assert not folder.exists()
    assert _save(key) == index_dir("bm25", key)
    assert index_ready("bm25", key) is not None


def test_verify_repair_and_clear(Fake):
    enc = Fake()
    encode_cached(enc, TEXTS, cache=EmbeddingCache(enc.model_id), flush_every=20)
    _save({"x": 1})
    _flip_bytes(_vec_files(EmbeddingCache(enc.model_id))[0])
    checked, damage = verify_cache()
    assert checked == 3 and [d.kind for d in damage] == ["embedding shard"]
    verify_cache(repair=True)
    assert verify_cache() == (2, [])
    kinds = sorted(e.kind for e in list_entries())
    assert kinds == ["bm25", "embeddings"]
    assert [e.kind for e in clear_cache(kind="bm25", dry_run=True)] == ["bm25"]
    assert len(list_entries()) == 2
    assert [e.name for e in clear_cache(model="fake")] == [enc.model_id]
    assert [e.kind for e in list_entries()] == ["bm25"]
    assert clear_cache(older_than=3600.0) == []


def test_parse_age():
    assert parse_age("30d") == 30 * 86400 and parse_age("2h") == 7200 and parse_age("1.5") == 1.5 * 86400
    with pytest.raises(ValueError):
        parse_age("soon")


def test_run_writer_refuses_non_finite_scores(tmp_path):
    run = Run.from_dict({"q1": {"d1": 1.0}, "q2": {"d2": 0.5, "d3": 0.1}}, name="dense")
    run.scores[2] = np.inf
    out = tmp_path / "r.trec"
    with pytest.raises(InputError, match=r"system 'dense' gave query 'q2' doc 'd3' a non-finite score"):
        write_run(run, out)
    assert not out.exists()


def test_entries_written_with_blake2b_are_still_verified_with_it():
    """The algorithm is recorded per entry: an index folder and a shard written with BLAKE2b-128 (hcrbench before
    XXH3) are accepted when intact and refused when a byte changes; an unknown algorithm is damage, not a crash."""
    import hashlib
    import json

    from hcrbench.data.cache import CHECKSUM, file_digest

    key = {"corpus": "old"}
    folder = _save(key)
    meta = json.loads((folder / "checksums.json").read_text())
    assert meta["checksum"] == CHECKSUM == "xxh3-128"
    for name in meta["files"]:
        data = (folder / name).read_bytes()
        meta["files"][name]["digest"] = hashlib.blake2b(data, digest_size=16).hexdigest()
        assert file_digest(folder / name, "blake2b-128") == meta["files"][name]["digest"]
    (folder / "checksums.json").write_text(json.dumps({**meta, "checksum": "blake2b-128"}))
    assert index_ready("bm25", key) == folder  # intact old entry: used
    _flip_bytes(folder / "index.bin")
    with pytest.warns(HcrbenchWarning, match="does not match its checksum"):
        assert index_ready("bm25", key) is None
    folder = _save(key)
    meta = json.loads((folder / "checksums.json").read_text())
    (folder / "checksums.json").write_text(json.dumps({**meta, "checksum": "crc-9"}))
    with pytest.warns(HcrbenchWarning, match="unknown checksum algorithm"):
        assert index_ready("bm25", key) is None
