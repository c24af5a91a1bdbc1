"""``raptor``: RAPTOR (Sarthi et al., ICLR 2024) as its authors' code builds and queries it, offline.

``index`` cuts every document into chunks of at most ``chunk_tokens`` (100) cl100k tokens on sentence ends, embeds
them ("title chunk", like the dense baseline), builds the tree (:mod:`.tree`; UMAP + GMM/BIC clustering,
extractive summaries by default) or reloads it from the index cache. ``search`` ranks nodes by cosine in
``mode="collapsed"`` (default; ``top_k`` 10 nodes under ``max_tokens`` 3,500, the code's settings) or
``mode="traversal"`` (``traversal_top_k`` 5 per layer) and maps the context to documents (:mod:`.select`).
``log_path`` writes one JSON line per query with the nodes chosen (id, layer, cosine, tokens).

Offline deviations from the original: an extractive summarizer instead of gpt-3.5-turbo (``summarizer="llm"``
with ``llm_endpoint`` / ``llm_model`` asks an OpenAI-compatible server instead, see
:mod:`hcrbench.retrieve.summarize_llm`; any :class:`~hcrbench.retrieve.summarize.Summarizer` plugs in through
``summarizer=``), MiniLM instead of
SBERT multi-qa-mpnet / ada-002, seeded UMAP, chunks that never cross documents; see ``docs/raptor.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hcrbench.data.atomic import atomic_open
from hcrbench.data.cache import EmbeddingCache, corpus_fingerprint, index_ready, save_index
from hcrbench.data.tokens import default_counter
from hcrbench.data.types import Corpus, Costs, Queries, Run, RunResult
from hcrbench.errors import InputError
from hcrbench.retrieve.base import register_retriever
from hcrbench.retrieve.encoders import Encoder, build_encoder, encode_cached, require, resolve_backend
from hcrbench.retrieve.raptor.cluster import RANDOM_SEED, ClusterConfig
from hcrbench.retrieve.raptor.select import Selection, collapsed, rank_documents, traverse
from hcrbench.retrieve.raptor.tree import TREE_FORMAT, RaptorTree, TreeConfig, build_tree
from hcrbench.retrieve.runtime import cache_identity
from hcrbench.retrieve.summarize import ExtractiveSummarizer, Summarizer
from hcrbench.retrieve.summarize_llm import make_summarizer, summarizer_key
from hcrbench.retrieve.system_traits import Traits
from hcrbench.retrieve.util import finite_pos, int_at_least, timed

MODES = ("collapsed", "traversal")


def _opt_int(v: Any, field: str) -> int | None:
    """None or 0 means 'no limit' (TOML has no null); else an int >= 1."""
    if v is None or (not isinstance(v, bool) and v == 0):
        return None
    return int_at_least(v, field, 1)


#: Why the collapsed context's size cannot change the document ranking when the walk fills past it (select.py).
_NEUTRAL_WHY = ("in collapsed mode with fill the context is a prefix of the collapsed order and the fill walks the "
                "rest of that order, so the document ranking is the same for every top_k and max_tokens (only the "
                "context delivered differs)")


@register_retriever("raptor")
class RaptorRetriever:
    """RAPTOR tree over 100-token chunks; collapsed-tree or tree-traversal retrieval by cosine."""

    traits = Traits(tree=True, stage="first", encoder_param="backend", unit="chunk",
                    code_version={"summarizer_version": ExtractiveSummarizer},
                    ranking_neutral={p: {"when": {"mode": "collapsed", "fill": True}, "why": _NEUTRAL_WHY}
                                     for p in ("top_k", "max_tokens")})

    def __init__(
        self,
        mode: str = "collapsed",
        top_k: int | None = 10,
        max_tokens: int = 3500,
        traversal_top_k: int = 5,
        start_layer: int | None = None,
        fill: bool = True,
        chunk_tokens: int = 100,
        num_layers: int = 5,
        summary_tokens: int = 100,
        reduction_dimension: int = 10,
        threshold: float = 0.1,
        max_clusters: int = 50,
        max_cluster_tokens: int = 3500,
        max_recluster_depth: int = 8,
        bic_patience: int = 5,
        n_jobs: int = 0,
        seed: int = RANDOM_SEED,
        model: str | None = None,
        backend: str = "auto",
        batch_size: int = 32,
        device: str = "cpu",
        cache: bool = True,
        cache_dir: str | None = None,
        log_path: str | None = None,
        name: str = "raptor",
        encoder: Encoder | None = None,
        summarizer: Summarizer | str | None = None,
        llm_endpoint: str | None = None,
        llm_model: str | None = None,
    ) -> None:
        if mode not in MODES:
            raise InputError(f"unknown mode {mode!r} (expected one of {', '.join(MODES)})", field="mode")
        if encoder is None:
            backend = resolve_backend(backend, "raptor")
        require("umap", "raptor", "raptor")
        require("sklearn", "raptor", "raptor")
        threshold = finite_pos(threshold, "threshold")
        if threshold >= 1:
            raise InputError(f"threshold must be in (0, 1), got {threshold!r}", field="threshold")
        if not isinstance(fill, bool):
            raise InputError(f"fill must be true or false, got {fill!r}", field="fill")
        self.mode, self.top_k = mode, _opt_int(top_k, "top_k")
        self.max_tokens = int_at_least(max_tokens, "max_tokens", 1)
        self.traversal_top_k = int_at_least(traversal_top_k, "traversal_top_k", 1)
        self.start_layer = None if start_layer is None else int_at_least(start_layer, "start_layer", 0)
        self.fill = fill
        self.chunk_tokens = int_at_least(chunk_tokens, "chunk_tokens", 8)
        self.tree_config = TreeConfig(
            num_layers=int_at_least(num_layers, "num_layers", 1),
            summary_tokens=int_at_least(summary_tokens, "summary_tokens", 8),
            cluster=ClusterConfig(
                reduction_dimension=int_at_least(reduction_dimension, "reduction_dimension", 2),
                threshold=threshold, max_clusters=int_at_least(max_clusters, "max_clusters", 2),
                max_cluster_tokens=int_at_least(max_cluster_tokens, "max_cluster_tokens", 1),
                max_recluster_depth=int_at_least(max_recluster_depth, "max_recluster_depth", 0),
                seed=int_at_least(seed, "seed", 0), bic_patience=int_at_least(bic_patience, "bic_patience", 0),
                n_jobs=int_at_least(n_jobs, "n_jobs", 0)),
        )
        self.model, self.backend, self.batch_size, self.device = model, backend, int(batch_size), device
        self.cache, self.cache_dir, self.log_path, self.name = bool(cache), cache_dir, log_path, name
        self._encoder = encoder
        self.counter = default_counter()
        self.summarizer: Summarizer = (summarizer if summarizer is not None and not isinstance(summarizer, str)
                                       else make_summarizer(summarizer or "extractive", endpoint=llm_endpoint,
                                                            model=llm_model, counter=self.counter))
        self.tree: RaptorTree | None = None
        self._doc_ids: list[str] = []
        self.index_costs = Costs()
        self.query_log: list[dict[str, Any]] = []

    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            self._encoder = build_encoder(self.model, self.backend, batch_size=self.batch_size, device=self.device)
        return self._encoder

    @property
    def params(self) -> dict[str, Any]:
        p: dict[str, Any] = {"model": self.encoder.model_id, "backend": self.backend, "mode": self.mode,
                             "fill": self.fill, "chunk_tokens": self.chunk_tokens, "chunk_overlap": 0,
                             "summarizer": self.summarizer.name, "token_counter": self.counter.name,
                             "similarity": "cosine", **self.tree_config.to_dict()}
        if self.mode == "collapsed":
            p.update(top_k=self.top_k, max_tokens=self.max_tokens)
        else:
            p.update(traversal_top_k=self.traversal_top_k, start_layer=self.start_layer)
        return p

    def _cache(self) -> EmbeddingCache | None:
        return EmbeddingCache(cache_identity(self.encoder), self.cache_dir) if self.cache else None

    def _embed(self, texts: list[str], costs: Costs, desc: str) -> np.ndarray:
        vecs = encode_cached(self.encoder, texts, cache=self._cache(), costs=costs, desc=desc)
        return np.stack(vecs).astype(np.float32) if vecs else np.zeros((0, 1), np.float32)

    def index(self, corpus: Corpus) -> None:
        from hcrbench.data.chunking import chunk_corpus

        costs = Costs()
        self._doc_ids = list(corpus.doc_ids)
        with timed(costs, "chunk"):
            chunked = chunk_corpus(corpus, max_tokens=self.chunk_tokens, overlap=0, counter=self.counter)
        cc = chunked.corpus
        texts = [cc.full_text(i) for i in range(len(cc))]
        ids = list(cc.doc_ids)
        docs = [chunked.chunk_to_doc[c] for c in ids]
        costs.add("chunks_indexed", len(ids))
        key = {"format": TREE_FORMAT, "leaves": corpus_fingerprint(ids, texts), "model": cache_identity(self.encoder),
               "summarizer": summarizer_key(self.summarizer), "token_counter": self.counter.name,
               "chunk_tokens": self.chunk_tokens, "tree": self.tree_config.to_dict(), "versions": _versions()}
        if getattr(self.summarizer, "version", 1) != 1:  # a summarizer's fix rebuilds the trees it made
            key["summarizer_version"] = self.summarizer.version
        hit = index_ready("raptor-tree", key, self.cache_dir) if self.cache else None
        if hit is not None:
            self.tree = RaptorTree.load(hit)
            costs.add("index_cache_hits")
        else:
            with timed(costs, "encode_chunks"):
                leaf_emb = self._embed(texts, costs, "encoding chunks")
            with timed(costs, "build_tree"):
                tree = build_tree(texts, ids, docs, leaf_emb, lambda t: self._embed(t, costs, "encoding summaries"),
                                  self.summarizer, self.counter, self.tree_config, on_layer=_report_layer)
            if self.cache:
                save_index("raptor-tree", key, tree.save, self.cache_dir)
            self.tree = tree
        costs.add("tree_nodes", self.tree.n_nodes)
        self.index_costs = costs
        self._node_units = node_units(self.tree, cc)

    def search(self, queries: Queries, k: int = 100) -> RunResult:
        tree = self.tree
        if tree is None:
            raise RuntimeError("RaptorRetriever.search called before index()")
        costs = Costs()
        with timed(costs, "encode_queries"):
            q = self._embed(list(queries.texts), costs, "encoding queries")
        code = {d: i for i, d in enumerate(self._doc_ids)}
        offsets = [0]
        doc_index: list[int] = []
        run_scores: list[float] = []
        log: list[dict[str, Any]] = []
        units: dict[str, list[tuple[str, float]]] = {}
        uids = self._node_units.doc_ids
        with timed(costs, "search"):
            for s0 in range(0, len(queries), 256):
                block = q[s0 : s0 + 256] @ tree.embeddings.T if tree.n_nodes else np.zeros((0, 0))
                for r, scores in enumerate(block):
                    qid = queries.query_ids[s0 + r]
                    docs, entry, nodes = self._one(tree, np.asarray(scores, dtype=np.float64), int(k), costs)
                    entry["query_id"] = qid
                    units[qid] = [(uids[n], float(len(nodes) - i)) for i, n in enumerate(nodes)]
                    log.append(entry)
                    doc_index.extend(code[d] for d in docs)
                    run_scores.extend(float(len(docs) - i) for i in range(len(docs)))
                    offsets.append(len(doc_index))
        for _ in range(len(queries) - len(offsets) + 1):  # empty tree: no documents for any query
            offsets.append(len(doc_index))
        run = Run(list(queries.query_ids), np.asarray(offsets, dtype=np.int64),
                  np.asarray(doc_index, dtype=np.int32), np.asarray(run_scores, dtype=np.float64),
                  self._doc_ids, name=self.name)
        costs.add("queries", len(queries))
        self.query_log = log
        # what RAPTOR delivers: its context nodes (leaf chunks and summaries) in its own order, then (fill) the
        # rest of the collapsed order up to k nodes; the context step selects from these (docs/context.md)
        self.unit_run = Run.from_ranked(units, name=self.name)
        self.unit_corpus = self._node_units
        if self.log_path:
            import json

            with atomic_open(self.log_path, "w") as fh:
                for row in log:
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        return RunResult(run, costs)

    def _one(self, tree: RaptorTree, scores: np.ndarray, k: int,
             costs: Costs) -> tuple[list[str], dict, list[int]]:
        order = np.argsort(-scores, kind="stable") if (self.mode == "collapsed" or self.fill) else None
        sel: Selection
        if self.mode == "collapsed":
            sel = collapsed(scores, tree.tokens, self.top_k, self.max_tokens, order)
        else:
            start = self.start_layer
            if start is not None and start > tree.num_layers:
                start = tree.num_layers  # a shallower tree than asked for: start at its top
            sel = traverse(tree, scores, self.traversal_top_k, start)
        docs, from_ctx = rank_documents(tree, scores, sel.nodes, k, fill_order=order if self.fill else None)
        costs.add("nodes_scored", tree.n_nodes if self.fill else sel.nodes_scored)
        entry = {"mode": self.mode, "context_tokens": sel.tokens, "context_docs": from_ctx,
                 "nodes": [{"id": n, "layer": int(tree.layers[n]), "score": round(float(scores[n]), 6),
                            "tokens": int(tree.tokens[n])} for n in sel.nodes]}
        nodes = list(sel.nodes)
        if self.fill and order is not None and len(nodes) < k:
            taken = set(nodes)
            nodes.extend(n for n in order[: k + len(nodes)].tolist() if n not in taken)
            nodes = nodes[: max(k, len(sel.nodes))]
        return docs, entry, nodes


def node_units(tree: RaptorTree, chunks: Corpus) -> Corpus:
    """Every tree node as a deliverable unit: a leaf is its chunk (id and document span from ``chunks``), a summary
    node is ``raptor:node<i>`` with its own text and no span (:mod:`hcrbench.context.units`)."""
    pos = {c: i for i, c in enumerate(chunks.doc_ids)}
    ids, texts, metas = [], [], []
    for i in range(tree.n_nodes):
        if i < tree.n_leaves and tree.leaf_ids[i] in pos:
            j = pos[tree.leaf_ids[i]]
            ids.append(tree.leaf_ids[i])
            texts.append(chunks.texts[j])
            metas.append(dict(chunks.metadata[j]) if chunks.metadata else {})
        else:
            ids.append(f"raptor:node{i}")
            texts.append(tree.texts[i])
            metas.append({"layer": int(tree.layers[i])})
    return Corpus(ids, texts, None, metas, name="raptor-nodes")


def _report_layer(layer: int, below: int, clusters: int) -> None:
    """One stderr line per built layer, where progress bars are shown (the build is minutes at 10k chunks)."""
    from hcrbench.retrieve.progress import progress_enabled

    if progress_enabled():
        import sys

        print(f"raptor: layer {layer}: {below} nodes -> {clusters} clusters", file=sys.stderr, flush=True)


def _versions() -> dict[str, str]:
    """Library versions that change the tree (UMAP and scikit-learn numerics)."""
    from importlib import metadata

    out = {}
    for pkg in ("umap-learn", "scikit-learn"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:  # pragma: no cover
            out[pkg] = "missing"
    return out
