"""The routing representation (subtree BM25, entity card), the adaptive beam, the hybrid collapsed path, winner-take-
all by confidence and the document-aware tree, on the constructed corpus (hash encoder)."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.data.tree import Tree, TreeNode
from hcrbench.data.types import Corpus, Queries
from hcrbench.errors import InputError
from hcrbench.retrieve import make_retriever
from hcrbench.retrieve.bm25 import BM25Retriever
from hcrbench.retrieve.hcr.lexical import SparseBM25
from hcrbench.retrieve.hcr.nodes import EntityCard, SubtreeBM25, membership


def _hcr(corpus, **kw):
    params = dict(backend="hash", chunk_tokens=0, depth=2, branching=4, cache=False, seed=0)
    params.update(kw)
    r = make_retriever("hcr", **params)
    r.index(corpus)
    return r


@pytest.fixture
def built(clusters):
    """One index of the constructed corpus; a test switches routing fields on its ``cfg`` (search-time only)."""
    corpus, queries, _qrels, _ = clusters
    return _hcr(corpus, links=False), corpus, queries


def _with(r, **cfg):
    from dataclasses import replace

    r.cfg = replace(r.cfg, **cfg)
    return r


#        0
#      /   \
#     1     2          level 1
#    / \   / \
#   3   4 5   6        level 2: chunks 0,1 | 2 | 3 | 4,5
TREE = Tree(
    [TreeNode(0, 0, None, [1, 2]), TreeNode(1, 1, 0, [3, 4]), TreeNode(2, 1, 0, [5, 6]),
     TreeNode(3, 2, 1, chunks=[0, 1]), TreeNode(4, 2, 1, chunks=[2]), TreeNode(5, 2, 2, chunks=[3]),
     TreeNode(6, 2, 2, chunks=[4, 5])],
    ["c0", "c1", "c2", "c3", "c4", "c5"], ["d0", "d0", "d1", "d2", "d3", "d3"],
    chunk_entities=[["rahul rossi"], [], ["sys-02"], [], ["atlas crm"], []])
TEXTS = ["galaxy nebula", "comet orbit", "quasar telescope", "recipe flour", "oven butter garlic", "sauce"]


def test_subtree_bm25_equals_bm25_over_concatenated_text():
    """A node's lexical row is BM25 over the text of its whole subtree, with statistics among its level: the
    same scores as the bm25 baseline's formula over the concatenated texts of that level's nodes."""
    lex = SubtreeBM25(TREE, SparseBM25(TEXTS))
    for ids in ([1, 2], [3, 4, 5, 6]):
        docs = [" ".join(TEXTS[c] for c in TREE.leaf_chunks(i)) for i in ids]
        ref = SparseBM25(docs)  # an independent build over the concatenated texts
        for q in ("galaxy comet", "butter sauce flour", "telescope"):
            got = lex.score(lex.query_vector(q), np.array(ids))
            want = ref.score(ref.query_vector(q))
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            # and the bm25 baseline ranks the concatenated texts the same way
            b = BM25Retriever(k1=0.9, b=0.4, cache=False)
            b.index(Corpus([str(i) for i in ids], docs, [""] * len(ids)))
            top = b.search(Queries(["q"], [q]), len(ids)).run.to_dict()["q"]
            assert max(top, key=top.get) == str(ids[int(np.argmax(got))])
    m = membership(TREE).toarray()
    assert m[0].sum() == 6 and list(np.flatnonzero(m[2])) == [3, 4, 5]


def test_entity_card_is_exhaustive():
    card = EntityCard(TREE, TREE.chunk_entities)
    ids = np.arange(7)
    assert list(card.hits(["atlas crm"], ids)) == [0, 0, 1, 0, 0, 0, 1]
    assert list(card.hits(["rahul rossi", "sys-02", "nobody"], ids)) == [0, 2, 0, 1, 1, 0, 0]
    assert list(card.size(7)) == [0, 2, 1, 1, 1, 0, 1]


def test_card_routes_a_query_that_only_names_an_identifier(clusters):
    """A query that names nothing but an identifier found in one chunk is routed, with a beam of one, to the leaf
    holding that chunk (the card and the subtree BM25 both see it; an extractive summary need not)."""
    corpus, _, _, _ = clusters
    corpus.texts[13] += " Ticket QQ-7781 was filed here."
    q = Queries(["x"], ["QQ-7781"])
    with_card = _hcr(corpus, mode="beam", beam_width=1, target_pool=0, links=False)
    with_card.search(q, 10)
    leaf = with_card.routing_log[0].levels[-1].beam
    assert any(13 in with_card.tree.leaf_chunks(n) for n in leaf)
    assert with_card.routing_log[0].top_chunks[0] == 13


def test_adaptive_beam_reaches_the_target_pool(built):
    base, corpus, queries = built
    for pool in (6, 12):
        r = _with(base, mode="beam", beam_width=1, target_pool=pool)
        r.search(queries, 10)
        for rec in r.routing_log:
            assert rec.chunks_scored >= pool  # the leaf cascade sees at least the pool
            for lv in rec.levels:
                assert sum(len(r.tree.leaf_chunks(n)) for n in lv.beam) >= min(pool, len(corpus))
    fixed = _with(base, mode="beam", beam_width=1, target_pool=0)
    fixed.search(queries, 10)
    assert max(rec.chunks_scored for rec in fixed.routing_log) < 6  # the starved control


def test_collapsed_path_scores_leaves_not_every_chunk(built):
    base, corpus, queries = built
    r = _with(base, mode="collapsed", target_pool=6, collapsed_scope="leaves")
    r.search(queries, 10)
    n_leaves = sum(n.level == r.tree.depth for n in r.tree.nodes)
    for rec in r.routing_log:
        assert rec.nodes_scored == n_leaves and rec.chunks_scored < len(corpus)
    old = _with(base, mode="collapsed", collapsed_scope="exhaustive")
    old.search(queries, 10)
    assert all(rec.chunks_scored >= len(corpus) for rec in old.routing_log)  # every chunk, plus the cascade


def test_wta_keeps_the_more_confident_path(built):
    base, _corpus, queries = built
    r = _with(base, mode="dual", fusion="wta", target_pool=6, collapsed_scope="leaves")
    r.search(queries, 10)
    for rec in r.routing_log:
        assert rec.beam_confidence is not None and rec.collapsed_confidence is not None
        win = "beam" if rec.beam_confidence >= rec.collapsed_confidence else "collapsed"
        assert rec.path == f"dual-wta:{win}"
        assert rec.top_chunks == (rec.beam_top_chunks if win == "beam" else rec.collapsed_top_chunks)


def test_document_tree_never_splits_a_document():
    texts, ids = [], []
    for d in range(12):
        topic = ["galaxy nebula comet", "flour oven butter", "court statute appeal"][d % 3]
        ids.append(f"d{d}")
        texts.append(" ".join(f"{topic} part {p} marker{d}. " * 6 for p in range(3)))
    corpus = Corpus(ids, texts, [""] * len(ids))
    chunk = _hcr(corpus, chunk_tokens=16, chunk_overlap=0, branching=3, tree_kind="chunks")
    docs = _hcr(corpus, chunk_tokens=16, chunk_overlap=0, branching=3, tree_kind="docs")
    for r in (chunk, docs):
        assert sorted(c for n in r.tree.nodes for c in n.chunks) == list(range(len(r.tree.chunk_ids)))

    def leaves_per_doc(r):
        leaf = r.tree.chunk_leaf()
        return max(len({int(leaf[c]) for c, d in enumerate(r.tree.chunk_docs) if d == doc}) for doc in ids)

    assert leaves_per_doc(docs) == 1
    assert docs.tree.params["tree_kind"] == "docs"
    assert leaves_per_doc(chunk) > 1  # the control: chunk k-means does split documents here


@pytest.mark.parametrize("kw,field", [(dict(tree_kind="forest"), "tree_kind"), (dict(target_pool=-1), "target_pool"),
                                      (dict(node_repr="words"), "node_repr"),
                                      (dict(collapsed_scope="all"), "collapsed_scope"), (dict(card=1), "card")])
def test_new_params_fail_in_one_line(kw, field):
    with pytest.raises(InputError) as ei:
        make_retriever("hcr", backend="hash", **kw)
    assert ei.value.field == field and "\n" not in str(ei.value)
