"""Build the HCR tree: recursive spherical k-means over chunk embeddings, routing summaries, persisted and reloaded.

Node 0 is the root; each node at level ``l < depth`` is split by k-means (faiss, ``branching`` centroids, seeded)
into children at level ``l + 1`` (best of ``nredo`` restarts, on one thread: faiss's k-means depends on its thread
count); nodes at level ``depth`` hold chunks. Nodes are numbered breadth-first, so ids
grow with level. A node with fewer members than ``branching`` gets one child per member; a set k-means cannot
split (identical vectors) is dealt round-robin. ``branching=None`` picks ``ceil(N ** (1 / (depth + 1)))`` so leaf
nodes hold about as many chunks as a node has children. Every node gets a summary (the ``Summarizer`` over the
``summary_sample`` member chunks closest to its centroid) and a centroid (mean member embedding, L2-normalised).

Memory: embeddings (N x d float32) plus the member lists; 100,000 MiniLM chunks are ~150 MiB
(benchmarks/bench_hcr.py measures time and peak memory). The built tree is cached by (chunks, parameters, model).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hcrbench.data.tree import Tree, TreeNode
from hcrbench.retrieve.runtime import faiss_one_thread
from hcrbench.retrieve.summarize import Summarizer


@dataclass
class TreeArrays:
    """A tree plus its per-node vectors: ``centroids`` (n_nodes, d) from chunk embeddings."""

    tree: Tree
    centroids: np.ndarray


def auto_branching(n: int, depth: int) -> int:
    """Branching factor that gives leaves about as many chunks as a node has children."""
    return max(2, math.ceil(max(n, 1) ** (1.0 / (depth + 1))))


def _normalise(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.maximum(n, 1e-12)).astype(np.float32)


def _split(x: np.ndarray, k: int, seed: int, niter: int, nredo: int) -> list[np.ndarray]:
    """Partition rows of ``x`` into at most ``k`` non-empty groups (positions into ``x``), deterministically."""
    n = len(x)
    if n <= k:
        return [np.array([i]) for i in range(n)]
    import faiss

    km = faiss.Kmeans(x.shape[1], k, niter=niter, nredo=nredo, seed=seed, spherical=True, verbose=False,
                      min_points_per_centroid=1, max_points_per_centroid=1 << 20)
    with faiss_one_thread():  # the partition must not depend on the thread count
        km.train(np.ascontiguousarray(x, dtype=np.float32))
        _, assign = km.index.search(np.ascontiguousarray(x, dtype=np.float32), 1)
    assign = assign.ravel()
    groups = [np.flatnonzero(assign == c) for c in range(k)]
    groups = [g for g in groups if len(g)]
    if len(groups) == 1:  # k-means could not split (duplicate vectors): deal round-robin
        groups = [np.arange(c, n, k) for c in range(k)]
    # deterministic child order: by smallest member position
    return sorted(groups, key=lambda g: int(g[0]))


def cluster_tree(emb: np.ndarray, *, depth: int = 3, branching: int | None = None, seed: int = 0,
                 niter: int = 20, nredo: int = 5) -> tuple[list[TreeNode], list[np.ndarray]]:
    """Nodes (no summaries yet) and each node's member chunk positions, by recursive k-means."""
    n = len(emb)
    b = branching or auto_branching(n, depth)
    nodes = [TreeNode(0, 0, None)]
    members: list[np.ndarray] = [np.arange(n)]
    queue = deque([0])
    while queue:
        nid = queue.popleft()
        node, mem = nodes[nid], members[nid]
        if node.level == depth:
            node.chunks = [int(c) for c in mem]
            continue
        groups = _split(emb[mem], b, seed + nid, niter, nredo) if len(mem) else []
        for g in groups:
            cid = len(nodes)
            nodes.append(TreeNode(cid, node.level + 1, nid))
            members.append(mem[g])
            node.children.append(cid)
            queue.append(cid)
    return nodes, members


def cluster_doc_tree(emb: np.ndarray, chunk_docs: Sequence[str], *, depth: int = 3, branching: int | None = None,
                     seed: int = 0) -> tuple[list[TreeNode], list[np.ndarray], int]:
    """Document-aware tree: topic clusters of *documents* (mean chunk embedding, normalised), each last-level node
    holding every chunk of its documents, so a document is never split across leaves. Returns nodes, members
    (chunk positions) and the branching used (``auto_branching`` over the number of documents)."""
    order: dict[str, int] = {}
    doc_of = np.array([order.setdefault(d, len(order)) for d in chunk_docs], dtype=np.int64)
    dvec = np.zeros((len(order), emb.shape[1]), dtype=np.float64)
    np.add.at(dvec, doc_of, emb)
    dvec = _normalise(dvec)
    b = branching or auto_branching(len(order), depth)
    nodes, dmembers = cluster_tree(dvec, depth=depth, branching=b, seed=seed)
    chunks_of: list[list[int]] = [[] for _ in order]
    for c, d in enumerate(doc_of.tolist()):
        chunks_of[d].append(c)
    members = [np.array(sorted(c for d in m for c in chunks_of[int(d)]), dtype=np.int64) for m in dmembers]
    for nd, mem in zip(nodes, members):
        if nd.level == depth:
            nd.chunks = [int(c) for c in mem]
    return nodes, members, b


def build_tree(emb: np.ndarray, texts: Sequence[str], chunk_ids: Sequence[str], chunk_docs: Sequence[str], *,
               summarizer: Summarizer, depth: int = 3, branching: int | None = None, seed: int = 0,
               summary_tokens: int = 128, summary_sample: int = 64, params: dict | None = None,
               kind: str = "chunks") -> TreeArrays:
    """Cluster (``kind="chunks"``: k-means over chunks; ``"docs"``: topic clusters -> documents -> chunks), then
    summarise every non-root node level by level (c-TF-IDF statistics shared within a level)."""
    emb = np.asarray(emb, dtype=np.float32)
    if kind == "docs":
        nodes, members, branching = cluster_doc_tree(emb, chunk_docs, depth=depth, branching=branching, seed=seed)
    else:
        nodes, members = cluster_tree(emb, depth=depth, branching=branching, seed=seed)
    centroids = np.zeros((len(nodes), emb.shape[1] if emb.ndim == 2 else 0), dtype=np.float32)
    for i, mem in enumerate(members):
        if len(mem):
            centroids[i] = emb[mem].mean(axis=0)
    centroids = _normalise(centroids)
    for level in range(1, depth + 1):
        ids = [nd.node_id for nd in nodes if nd.level == level]
        groups = []
        for i in ids:
            mem = members[i]
            if len(mem) > summary_sample:  # the most central members represent the node
                sims = emb[mem] @ centroids[i]
                mem = mem[np.sort(np.argsort(-sims, kind="stable")[:summary_sample])]
            groups.append([texts[int(c)] for c in mem])
        for i, s in zip(ids, summarizer.summarize_many(groups, summary_tokens)):
            nodes[i].summary = s
    p = dict(params or {})
    p.update(depth=depth, branching=branching or auto_branching(len(emb), depth), seed=seed, tree_kind=kind,
             summarizer=summarizer.name, summary_tokens=summary_tokens, summary_sample=summary_sample)
    tree = Tree(nodes, list(chunk_ids), list(chunk_docs), p)
    return TreeArrays(tree, centroids)
