"""The embedding cache key of a local model folder identifies its weights, not just its (relative) name."""

from __future__ import annotations

import os

import numpy as np
import pytest

from hcrbench.data import Queries
from hcrbench.retrieve.encoders import model_fingerprint, model_identity


def _fake_model(folder, weights: bytes, big: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text('{"hidden_size": 16}')
    (folder / "model.safetensors").write_bytes(weights)
    if big:
        (folder / "pytorch_model.bin").write_bytes(b"\0" * big)


def test_same_relative_name_different_weights_gets_different_ids(tmp_path, monkeypatch):
    _fake_model(tmp_path / "a" / "m", b"weights-A")
    _fake_model(tmp_path / "b" / "m", b"weights-A")
    monkeypatch.chdir(tmp_path / "a")
    id_a = model_identity("m")
    assert id_a.startswith(str((tmp_path / "a" / "m").resolve()))
    monkeypatch.chdir(tmp_path / "b")
    assert model_identity("m") != id_a  # same bytes, other folder: the absolute path differs
    assert model_fingerprint(tmp_path / "a" / "m") == model_fingerprint(tmp_path / "b" / "m")
    before = model_identity("m")
    (tmp_path / "b" / "m" / "model.safetensors").write_bytes(b"weights-B")  # re-saved in place, same size
    assert model_identity("m") != before
    assert model_identity("m") == model_identity(str(tmp_path / "b" / "m"))


def test_big_weight_files_are_keyed_by_stat(tmp_path):
    m = tmp_path / "m"
    _fake_model(m, b"w", big=(16 << 20) + 1)
    first = model_fingerprint(m)
    assert model_fingerprint(m) == first  # stable while nothing changes
    st = (m / "pytorch_model.bin").stat()
    os.utime(m / "pytorch_model.bin", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert model_fingerprint(m) != first


def test_hub_names_and_packaged_default_keep_stable_ids(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert model_identity("sentence-transformers/all-mpnet-base-v2") == "sentence-transformers/all-mpnet-base-v2"
    default = model_identity(None)
    assert default.startswith("all-MiniLM-L6-v2@gt-") and default == model_identity(None)


@pytest.mark.slow  # imports torch + transformers and builds two tiny models
def test_two_tiny_models_at_the_same_relative_path_do_not_share_cached_vectors(tmp_path, monkeypatch, corpus):
    import torch
    import transformers

    from hcrbench.retrieve.dense import DenseRetriever
    from hcrbench.retrieve.encoders import default_model_path

    tok = transformers.BertTokenizerFast.from_pretrained(str(default_model_path()))
    cfg = transformers.BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1,
                                  num_attention_heads=2, intermediate_size=32)

    def save(folder, seed):
        torch.manual_seed(seed)
        transformers.BertModel(cfg).save_pretrained(folder)
        tok.save_pretrained(folder)

    save(tmp_path / "a" / "m", 0)
    save(tmp_path / "b" / "m", 1)
    q = Queries.from_dict({"q1": "why do cats purr"})
    cache_dir = str(tmp_path / "cache")

    def embed(sub, cache):
        monkeypatch.chdir(tmp_path / sub)
        r = DenseRetriever(model="m", cache=cache, cache_dir=cache_dir)
        r.index(corpus)
        return r, r.embeddings.copy(), r.search(q, 3).costs

    ra, va, _ = embed("a", True)
    rb, vb, _ = embed("b", True)
    _, vb_fresh, _ = embed("b", False)
    assert ra.encoder.model_id != rb.encoder.model_id
    assert rb.index_costs.counters.get("cache_hits", 0) == 0  # a cache miss, not model a's vectors
    np.testing.assert_allclose(vb, vb_fresh, atol=1e-6)
    assert not np.allclose(va, vb, atol=1e-3)
    save(tmp_path / "a" / "m", 2)  # different weights re-saved in place
    ra2, va2, _ = embed("a", True)
    _, va2_fresh, _ = embed("a", False)
    assert ra2.encoder.model_id != ra.encoder.model_id
    assert ra2.index_costs.counters.get("cache_hits", 0) == 0
    np.testing.assert_allclose(va2, va2_fresh, atol=1e-6)
