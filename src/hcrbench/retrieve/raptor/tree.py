"""The RAPTOR tree: leaves are 100-token chunks, each higher layer summarises clusters of the layer below.

Built as ``ClusterTreeBuilder.construct_tree`` does: for up to ``num_layers`` (5) layers, stop when the current
layer has ``<= reduction_dimension + 1`` (11) nodes, else cluster it (:func:`~.cluster.raptor_clusters`), write one
summary of at most ``summary_tokens`` (100) tokens per cluster through a
:class:`~hcrbench.retrieve.summarize.Summarizer`, and embed the summaries with the leaves' encoder. Nodes are
numbered like the original: leaves ``0..L-1`` in chunk order, then each layer's nodes in cluster order.
One guard the original lacks: a layer that would have as many nodes as the one below stops the build (the
summaries would not summarise anything).

The tree persists in the index cache (``hcrbench.data.cache.save_index``) as ``nodes.jsonl`` (one node per line:
text, layer, tokens, children, and for leaves the chunk and document ids) plus ``embeddings.npy`` and
``info.json``; the same inputs and seed give byte-identical ``nodes.jsonl`` and ``embeddings.npy`` (``info.json``
also records timings).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.structured import read_json
from hcrbench.data.tokens import TokenCounter
from hcrbench.retrieve.progress import report
from hcrbench.retrieve.raptor.cluster import ClusterConfig, raptor_clusters
from hcrbench.retrieve.summarize import Summarizer

TREE_FORMAT = 1


@dataclass(frozen=True)
class TreeConfig:
    """How the tree is built; defaults are the original code's (``TreeBuilderConfig``, ``ClusterTreeConfig``)."""

    num_layers: int = 5
    summary_tokens: int = 100
    cluster: ClusterConfig = field(default_factory=ClusterConfig)

    def to_dict(self) -> dict[str, Any]:
        c = self.cluster
        return {"num_layers": self.num_layers, "summary_tokens": self.summary_tokens,
                "reduction_dimension": c.reduction_dimension, "threshold": c.threshold,
                "max_clusters": c.max_clusters, "local_neighbors": c.local_neighbors,
                "max_cluster_tokens": c.max_cluster_tokens, "max_recluster_depth": c.max_recluster_depth,
                "metric": c.metric, "seed": c.seed,
                **({"bic_patience": c.bic_patience} if c.bic_patience else {})}


@dataclass
class RaptorTree:
    """All nodes of one tree. ``layers[i]`` is 0 for leaves; ``children[i]`` the node ids below ``i``."""

    texts: list[str]
    layers: np.ndarray
    tokens: np.ndarray
    children: list[list[int]]
    embeddings: np.ndarray
    leaf_ids: list[str]
    leaf_docs: list[str]
    info: dict[str, Any] = field(default_factory=dict)
    _desc: dict[int, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def n_nodes(self) -> int:
        return len(self.texts)

    @property
    def n_leaves(self) -> int:
        return len(self.leaf_ids)

    @property
    def num_layers(self) -> int:
        """Index of the top layer (0 when the tree is only leaves), as the original's ``tree.num_layers``."""
        return int(self.layers.max()) if len(self.layers) else 0

    def layer_nodes(self, layer: int) -> np.ndarray:
        """Node ids of one layer, ascending."""
        return np.flatnonzero(self.layers == layer)

    def leaf_descendants(self, node: int) -> np.ndarray:
        """Leaf ids under ``node`` (itself for a leaf), ascending and unique."""
        got = self._desc.get(node)
        if got is None:
            if self.layers[node] == 0:
                got = np.asarray([node], dtype=np.int64)
            else:
                got = np.unique(np.concatenate([self.leaf_descendants(c) for c in self.children[node]]))
            self._desc[node] = got
        return got

    # -- persistence ------------------------------------------------------------------------------------
    def save(self, folder: str | Path) -> None:
        """Write ``nodes.jsonl``, ``embeddings.npy`` and ``info.json`` into ``folder``."""
        folder = Path(folder)
        lines = []
        for i in range(self.n_nodes):
            rec: dict[str, Any] = {"id": i, "layer": int(self.layers[i]), "tokens": int(self.tokens[i]),
                                   "children": [int(c) for c in self.children[i]], "text": self.texts[i]}
            if i < self.n_leaves:
                rec["chunk_id"] = self.leaf_ids[i]
                rec["doc_id"] = self.leaf_docs[i]
            lines.append(json.dumps(rec, ensure_ascii=False, sort_keys=True))
        atomic_write_text(folder / "nodes.jsonl", "".join(line + "\n" for line in lines))
        np.save(folder / "embeddings.npy", np.ascontiguousarray(self.embeddings, dtype=np.float32))
        atomic_write_text(folder / "info.json", json.dumps({"format": TREE_FORMAT, **self.info},
                                                            sort_keys=True, indent=1, default=str) + "\n")

    @classmethod
    def load(cls, folder: str | Path) -> RaptorTree:
        """Read a tree written by :meth:`save`."""
        folder = Path(folder)
        texts, layers, tokens, children, leaf_ids, leaf_docs = [], [], [], [], [], []
        with open(folder / "nodes.jsonl", encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                texts.append(rec["text"])
                layers.append(rec["layer"])
                tokens.append(rec["tokens"])
                children.append(list(rec["children"]))
                if "chunk_id" in rec:
                    leaf_ids.append(rec["chunk_id"])
                    leaf_docs.append(rec["doc_id"])
        emb = np.load(folder / "embeddings.npy", allow_pickle=False)
        info = read_json(folder / "info.json")
        return cls(texts, np.asarray(layers, dtype=np.int32), np.asarray(tokens, dtype=np.int64), children,
                   emb, leaf_ids, leaf_docs, info)


def build_tree(
    leaf_texts: Sequence[str],
    leaf_ids: Sequence[str],
    leaf_docs: Sequence[str],
    leaf_emb: np.ndarray,
    embed: Callable[[list[str]], np.ndarray],
    summarizer: Summarizer,
    counter: TokenCounter,
    cfg: TreeConfig | None = None,
    *,
    on_layer: Callable[[int, int, int], None] | None = None,
) -> RaptorTree:
    """Build the tree over the given leaves; ``embed`` encodes summaries (L2-normalised rows).

    ``on_layer(layer, n_nodes_below, n_clusters)`` is called after each layer (progress reporting).
    """
    cfg = cfg or TreeConfig()
    texts = list(leaf_texts)
    tokens = list(counter.count_batch(texts))
    layers = [0] * len(texts)
    children: list[list[int]] = [[] for _ in texts]
    all_emb = np.asarray(leaf_emb, dtype=np.float32)
    if all_emb.ndim != 2:
        all_emb = all_emb.reshape(len(texts), -1)
    current = list(range(len(texts)))
    stats: dict[str, int] = {}
    per_layer: list[dict[str, Any]] = []
    stop = f"num_layers={cfg.num_layers} reached"
    t0 = time.perf_counter()
    for layer in range(cfg.num_layers):
        if len(current) <= cfg.cluster.reduction_dimension + 1:
            stop = f"layer {layer} has {len(current)} <= {cfg.cluster.reduction_dimension + 1} nodes"
            break
        t_layer = time.perf_counter()
        # the clustering is minutes on a few thousand chunks: the job line says which layer and what it does
        report(f"RAPTOR layer {layer + 1}: clustering {len(current):,} nodes (UMAP + GMM BIC scan)", layer,
               cfg.num_layers)
        cur_emb = all_emb[current]
        cur_tokens = [tokens[i] for i in current]
        groups = raptor_clusters(cur_emb, cur_tokens, cfg.cluster, stats=stats)
        if len(groups) >= len(current):
            stop = f"layer {layer + 1} would have {len(groups)} >= {len(current)} nodes"
            break
        members = [[current[int(g)] for g in grp] for grp in groups]
        report(f"RAPTOR layer {layer + 1}: summarising and encoding {len(members):,} clusters", layer,
               cfg.num_layers)
        summaries = summarizer.summarize_many([[texts[m] for m in grp] for grp in members], cfg.summary_tokens)
        vecs = np.asarray(embed(list(summaries)), dtype=np.float32).reshape(len(summaries), -1)
        start = len(texts)
        texts.extend(summaries)
        tokens.extend(counter.count_batch(list(summaries)))
        layers.extend([layer + 1] * len(summaries))
        children.extend(members)
        all_emb = np.concatenate([all_emb, vecs], axis=0)
        current = list(range(start, len(texts)))
        sizes = [len(g) for g in members]
        per_layer.append({"layer": layer + 1, "nodes": len(members), "children_min": min(sizes),
                          "children_max": max(sizes), "children_mean": round(float(np.mean(sizes)), 3),
                          "seconds": round(time.perf_counter() - t_layer, 3)})
        if on_layer is not None:
            on_layer(layer + 1, len(cur_tokens), len(members))
    info = {"config": cfg.to_dict(), "summarizer": summarizer.name, "token_counter": counter.name,
            "n_leaves": len(leaf_texts), "n_nodes": len(texts), "layers": per_layer, "stopped": stop,
            "cluster_stats": dict(sorted(stats.items())), "build_seconds": round(time.perf_counter() - t0, 3)}
    return RaptorTree(texts, np.asarray(layers, dtype=np.int32), np.asarray(tokens, dtype=np.int64), children,
                      all_emb, list(leaf_ids), list(leaf_docs), info)
