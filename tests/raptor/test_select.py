"""Collapsed-tree and traversal selection on hand-built trees (no UMAP): caps, per-layer top-k, document rule."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.retrieve.raptor.select import collapsed, rank_documents, traverse
from hcrbench.retrieve.raptor.tree import RaptorTree


def small_tree() -> RaptorTree:
    """8 leaves (docs A..D, two chunks each), 4 layer-1 nodes, 2 layer-2 nodes (a leaf under two parents)."""
    leaves = [f"leaf {i}" for i in range(8)]
    texts = [*leaves, "s8", "s9", "s10", "s11", "s12", "s13"]
    layers = np.array([0] * 8 + [1] * 4 + [2] * 2, dtype=np.int32)
    children = [[] for _ in range(8)] + [[0, 1], [2, 3, 1], [4, 5], [6, 7], [8, 9], [10, 11]]
    emb = np.random.default_rng(1).standard_normal((14, 6)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    tokens = np.array([30, 40, 50, 60, 70, 80, 90, 100, 20, 20, 20, 20, 10, 10], dtype=np.int64)
    ids = [f"{'ABCD'[i // 2]}#c{i % 2}" for i in range(8)]
    return RaptorTree(texts, layers, tokens, children, emb, ids, [i.split("#")[0] for i in ids])


@settings(max_examples=200, deadline=None)
@given(scores=st.lists(st.floats(-1, 1), min_size=1, max_size=40),
       tokens=st.lists(st.integers(0, 400), min_size=40, max_size=40),
       cap=st.integers(1, 2000), top_k=st.one_of(st.none(), st.integers(1, 12)))
def test_collapsed_never_exceeds_the_token_cap(scores, tokens, cap, top_k):
    s = np.asarray(scores)
    t = np.asarray(tokens[: len(s)])
    sel = collapsed(s, t, top_k, cap)
    assert sel.tokens == int(t[sel.nodes].sum()) <= cap
    assert top_k is None or len(sel.nodes) <= top_k
    order = np.argsort(-s, kind="stable")
    # The original's rule: a prefix of the cosine order, stopped at the first node that would overflow.
    assert sel.nodes == order[: len(sel.nodes)].tolist()
    limit = len(s) if top_k is None else min(top_k, len(s))
    if len(sel.nodes) < limit:
        assert sel.tokens + int(t[order[len(sel.nodes)]]) > cap


def test_collapsed_defaults_of_code_and_paper():
    s = np.linspace(1, 0, 50)
    t = np.full(50, 100)
    assert len(collapsed(s, t, 10, 3500).nodes) == 10  # the code: top_k 10 binds
    assert len(collapsed(s, t, None, 2000).nodes) == 20  # the paper: 2,000 tokens bind


def test_traversal_takes_top_k_per_layer():
    tree = small_tree()
    rng = np.random.default_rng(7)
    for _ in range(20):
        scores = rng.standard_normal(tree.n_nodes)
        for k in (1, 2, 3):
            sel = traverse(tree, scores, top_k=k)
            cand = [12, 13]
            expected_layers = []
            for _layer in range(3):
                best = sorted(cand, key=lambda n: (-scores[n], n))[:k]
                expected_layers.append(best)
                cand = sorted({c for b in best for c in tree.children[b]})
            expected = [n for layer in reversed(expected_layers) for n in layer]
            assert sel.nodes == expected
            per_layer = [sum(1 for n in sel.nodes if tree.layers[n] == lay) for lay in (0, 1, 2)]
            assert per_layer[2] == min(k, 2)  # the top layer has two nodes


def test_traversal_on_a_leaf_only_tree_is_flat_top_k():
    tree = small_tree()
    flat = RaptorTree(tree.texts[:8], tree.layers[:8], tree.tokens[:8], tree.children[:8], tree.embeddings[:8],
                      tree.leaf_ids, tree.leaf_docs)
    scores = np.arange(8, dtype=float)
    assert traverse(flat, scores, top_k=5).nodes == [7, 6, 5, 4, 3]


def test_summary_node_maps_to_its_leaf_descendants_documents():
    tree = small_tree()
    assert tree.leaf_descendants(12).tolist() == [0, 1, 2, 3]
    scores = np.zeros(tree.n_nodes)
    scores[[0, 1, 2, 3, 4, 5, 6, 7]] = [0.1, 0.2, 0.9, 0.3, 0.5, 0.4, 0.0, 0.0]
    docs, n_ctx = rank_documents(tree, scores, [12], k=10)
    assert docs == ["B", "A"] and n_ctx == 2  # leaves of node 12 by their own cosine: 2 (B), 3 (B), 1 (A)
    order = np.argsort(-scores, kind="stable")
    docs, n_ctx = rank_documents(tree, scores, [12], k=10, fill_order=order)
    assert docs[:2] == ["B", "A"] and n_ctx == 2 and sorted(docs) == ["A", "B", "C", "D"]
    docs, _ = rank_documents(tree, scores, [12, 13], k=3)
    assert len(docs) == 3
