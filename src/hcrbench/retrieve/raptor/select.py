"""RAPTOR's two query modes over a built tree, and the rule that turns the chosen nodes into a document ranking.

*Collapsed tree* (``retrieve_information_collapse_tree``): every node of every layer is ranked by cosine to the
query; nodes are taken in that order, at most ``top_k`` of them (the code's 10; ``None`` = no limit, the paper's
variant), stopping at the first node that would push the context over ``max_tokens`` (3,500 in the code, 2,000 in
the paper). *Tree traversal* (``retrieve_information``): from the top layer, the ``top_k`` (5) nodes of the
candidate list with the highest cosine are kept, their children become the next candidates, down to the leaves;
the context is every node kept on the way (no token cap, as in the original).

Documents (our rule; RAPTOR itself returns text): walk the context's nodes in order (collapsed: by cosine;
traversal: leaves first, then each layer upwards, by cosine within a layer); a leaf gives its document, a summary
node gives the documents of its leaf descendants ordered by those leaves' cosine to the query; a document keeps
its first position. With ``fill``, the walk continues past the context over the collapsed order of all remaining
nodes until ``k`` documents, so recall@100 is comparable with flat systems; the log says how many came from the
context. Scores are ``k - rank`` (strictly decreasing, so trec_eval keeps this order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hcrbench.retrieve.raptor.tree import RaptorTree


@dataclass
class Selection:
    """The context of one query: node ids in context order, with their cosine, and its token total."""

    nodes: list[int]
    tokens: int
    nodes_scored: int


def collapsed(scores: np.ndarray, tokens: np.ndarray, top_k: int | None, max_tokens: int,
              order: np.ndarray | None = None) -> Selection:
    """Collapsed-tree selection: best nodes first, at most ``top_k``, until the next would exceed ``max_tokens``."""
    if order is None:
        order = np.argsort(-scores, kind="stable")
    cand = order if top_k is None else order[:top_k]
    chosen: list[int] = []
    total = 0
    for idx in cand.tolist():
        t = int(tokens[idx])
        if total + t > max_tokens:
            break
        chosen.append(idx)
        total += t
    return Selection(chosen, total, len(scores))


def traverse(tree: RaptorTree, scores: np.ndarray, top_k: int = 5, start_layer: int | None = None,
             num_layers: int | None = None) -> Selection:
    """Tree traversal: ``top_k`` best nodes per layer from ``start_layer`` down ``num_layers`` layers.

    The returned order is leaves first, then each layer upwards, best cosine first within a layer.
    """
    start = tree.num_layers if start_layer is None else int(start_layer)
    depth = start + 1 if num_layers is None else int(num_layers)
    cand = tree.layer_nodes(start)
    per_layer: list[np.ndarray] = []
    scored = 0
    for step in range(depth):
        if len(cand) == 0:
            break
        scored += len(cand)
        best = cand[np.argsort(-scores[cand], kind="stable")[:top_k]]
        per_layer.append(best)
        if step != depth - 1:
            kids = sorted({c for b in best.tolist() for c in tree.children[b]})
            cand = np.asarray(kids, dtype=np.int64)
    nodes = [int(n) for layer in reversed(per_layer) for n in layer]
    return Selection(nodes, int(tree.tokens[nodes].sum()) if nodes else 0, scored)


def rank_documents(tree: RaptorTree, scores: np.ndarray, context: list[int], k: int, *,
                   fill_order: np.ndarray | None = None) -> tuple[list[str], int]:
    """Documents in order of the walk described in the module docstring, and how many came from ``context``."""
    docs: list[str] = []
    seen: set[str] = set()

    def walk(node: int) -> bool:
        leaves = tree.leaf_descendants(node)
        if len(leaves) > 1:
            leaves = leaves[np.argsort(-scores[leaves], kind="stable")]
        for leaf in leaves.tolist():
            d = tree.leaf_docs[leaf]
            if d not in seen:
                seen.add(d)
                docs.append(d)
                if len(docs) >= k:
                    return True
        return False

    done = False
    for node in context:
        if walk(node):
            done = True
            break
    from_context = len(docs)
    if not done and fill_order is not None:
        taken = set(context)
        for node in fill_order.tolist():
            if node not in taken and walk(node):
                break
    return docs, from_context
