"""Corpus encoding on Ray Data: ``map_batches`` over an actor pool (one model load per actor), writing the same
checksummed :class:`~hcrbench.data.cache.EmbeddingCache` the local path reads.

Why: encoding is the slow step of every dense system (minutes on a laptop, hours for MS MARCO); spread over a
cluster's CPUs or GPUs it is the one step worth distributing. The driver works out which texts the cache lacks
(keyed by model id and text SHA-256, as :func:`~hcrbench.retrieve.encoders.encode_cached` does), the actors
encode only those, and the driver stores the vectors it receives in shards of ``flush_every`` texts: the workers
need no access to the cache folder, and an interrupted encode keeps every shard already stored. A dense system
run afterwards (locally or as a Ray cell) finds every vector cached and encodes nothing.

Not distributed: the HCR tree build's clustering (faiss k-means over the cached vectors) stays one step on one
machine; it is seconds to minutes next to the encoding, and the stack has no distributed k-means to use.
Token vectors (``tokens=True``) go to the same token cache the late-interaction reranker reads; the experiment
hook (:func:`prewarm_dense`) covers dense systems only, since a reranker encodes just its candidates.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from hcrbench.data.cache import EmbeddingCache, text_digest


class EncodeActor:
    """One model per actor; ``__call__`` encodes a batch of ``{"i", "text"}`` rows into ``{"i", "vec"}``."""

    def __init__(self, model: str | None, backend: str, batch_size: int, max_seq_length: int | None,
                 device: str, threads: int, tokens: bool = False) -> None:
        from hcrbench.retrieve.encoders import make_encoder

        kw: dict[str, Any] = {"batch_size": batch_size}
        if max_seq_length:
            kw["max_seq_length"] = max_seq_length
        if backend == "onnx":
            kw["threads"] = threads
        else:
            import torch

            torch.set_num_threads(max(1, threads))
            kw["device"] = device
        self.encoder = make_encoder(model, backend, **kw)
        self.tokens = tokens

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, Any]:
        texts = [str(t) for t in batch["text"]]
        if self.tokens:  # one (n_tokens, dim) block per text, as float16 like the token cache
            return {"i": np.asarray(batch["i"]),
                    "vec": [np.asarray(b, dtype=np.float16) for b in self.encoder.encode_tokens(texts)]}
        return {"i": np.asarray(batch["i"]), "vec": np.asarray(self.encoder.encode(texts), dtype=np.float32)}


def _model_id(model: str | None, backend: str, max_seq_length: int | None) -> str:
    """The encoder's cache identity (model, runtime and CPU kernels), computed where the model lives (one load,
    on a worker): the vectors are the worker's."""
    from hcrbench.retrieve.runtime import cache_identity

    return cache_identity(EncodeActor(model, backend, 1, max_seq_length, "cpu", 1).encoder)


def encode_on_ray(
    texts: Sequence[str],
    *,
    model: str | None = None,
    backend: str = "onnx",
    batch_size: int = 32,
    max_seq_length: int | None = None,
    device: str = "cpu",
    cache_dir: str | None = None,
    actors: int = 1,
    cpus_per_actor: float = 1.0,
    gpus_per_actor: float = 0.0,
    flush_every: int = 256,
    tokens: bool = False,
) -> dict[str, Any]:
    """Encode into the embedding cache every distinct text of ``texts`` it lacks; Ray must be connected.

    ``tokens=True`` stores per-text token vectors (float16, model id + ``"|tokens"``), the cache the
    late-interaction reranker and HCR's MaxSim read, instead of one vector per text.

    Returns figures: ``model_id``, ``texts`` (distinct), ``cached_before``, ``encoded``, ``actors``,
    ``seconds`` and ``texts_per_second`` (of the encoded ones, over the whole Ray Data pipeline).
    """
    import ray

    if not ray.is_initialized():
        raise RuntimeError("encode_on_ray: connect to Ray first (hcrbench.experiment.ray_engine.connect)")
    t0 = time.perf_counter()
    model_id = ray.get(ray.remote(_model_id).options(num_cpus=cpus_per_actor, num_gpus=gpus_per_actor)
                       .remote(model, backend, max_seq_length))
    if tokens:
        model_id += "|tokens"
    cache = EmbeddingCache(model_id, cache_dir, dtype="float16" if tokens else "float32")
    distinct = list(dict.fromkeys(texts))
    missing = [t for t in distinct if cache.lookup(text_digest(t)) is None]
    stats: dict[str, Any] = {"model_id": model_id, "texts": len(distinct), "cached_before": len(distinct) - len(missing),
                             "encoded": 0, "actors": int(actors)}
    if missing:
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        logging.getLogger("ray.data").setLevel(logging.WARNING)
        blocks = max(2 * int(actors), -(-len(missing) // (batch_size * 4)))  # every actor gets work
        ds = ray.data.from_items([{"i": i, "text": t} for i, t in enumerate(missing)], override_num_blocks=blocks)
        ds = ds.map_batches(EncodeActor, batch_size=batch_size * 4,
                            compute=ray.data.ActorPoolStrategy(size=int(actors)),
                            num_cpus=cpus_per_actor, num_gpus=gpus_per_actor,
                            fn_constructor_kwargs={"model": model, "backend": backend, "batch_size": batch_size,
                                                   "max_seq_length": max_seq_length, "device": device,
                                                   "threads": max(1, int(cpus_per_actor)), "tokens": tokens})
        t_enc = time.perf_counter()
        for batch in ds.iter_batches(batch_size=flush_every, batch_format="numpy"):
            rows = [int(i) for i in batch["i"]]
            cache.put([missing[i] for i in rows], [np.asarray(v, dtype=cache.dtype) for v in batch["vec"]])
            stats["encoded"] += len(rows)
        stats["encode_seconds"] = round(time.perf_counter() - t_enc, 3)
    stats["seconds"] = round(time.perf_counter() - t0, 3)
    stats["texts_per_second"] = round(stats["encoded"] / stats["encode_seconds"], 2) if missing else None
    return stats


def prewarm_dense(cells: Sequence[Any], data: Any, actors: int, *, cpus_per_actor: float = 1.0,
                  gpus_per_actor: float = 0.0) -> list[dict[str, Any]]:
    """Encode on Ray the corpus and queries of every cached ``dense`` cell without chunking or policy, so the
    cells themselves find their vectors cached (``[execution] encode_actors``)."""
    from hcrbench.retrieve.dense import DenseRetriever

    out, seen = [], set()
    for cell in cells:
        s = cell.system
        if s.type != "dense" or s.chunking is not None or s.policy is not None or not s.params.get("cache", True):
            continue
        p = s.params
        key = (p.get("model"), p.get("backend", "torch"), p.get("max_seq_length"), p.get("cache_dir"))
        if key in seen or "encoder" in p:
            continue
        seen.add(key)
        DenseRetriever(**{k: v for k, v in p.items() if k in ("model", "backend", "cache_dir")})  # checks params
        texts = [data.corpus.full_text(i) for i in range(len(data.corpus))] + list(data.queries.texts)
        out.append({"system": s.name, **encode_on_ray(
            texts, model=key[0], backend=key[1], max_seq_length=key[2], cache_dir=key[3],
            batch_size=int(p.get("batch_size", 32)), device=str(p.get("device", "cpu")), actors=actors,
            cpus_per_actor=cpus_per_actor, gpus_per_actor=gpus_per_actor)})
    return out
