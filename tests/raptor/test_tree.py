"""RAPTOR trees end to end with a bag-of-words encoder: same seed same tree, reload from cache, tiny corpora."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.data import Queries
from hcrbench.errors import InputError
from hcrbench.retrieve import make_retriever
from hcrbench.retrieve.raptor.tree import RaptorTree

QUERIES = Queries.from_dict({"q1": "cat purr kitten milk", "q2": "bond market price yield",
                             "q3": "storm thunder forecast"})


def test_same_seed_same_tree_and_reload_from_cache(make_corpus, Bow, tmp_path):
    corpus = make_corpus(24)
    a = make_retriever("raptor", encoder=Bow(), cache=False, max_clusters=8)
    a.index(corpus)
    b = make_retriever("raptor", encoder=Bow(), cache=False, max_clusters=8)
    b.index(corpus)
    assert a.tree is not None and b.tree is not None
    assert a.tree.num_layers >= 1 and a.tree.n_nodes > a.tree.n_leaves > 11
    a.tree.save(tmp_path / "a")
    b.tree.save(tmp_path / "b")
    for f in ("nodes.jsonl", "embeddings.npy"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    # Every summary node's children are nodes of the layer just below; every leaf sits under the top layer.
    t = a.tree
    for n in range(t.n_leaves, t.n_nodes):
        assert t.children[n] and all(t.layers[c] == t.layers[n] - 1 for c in t.children[n])
    top = np.unique(np.concatenate([t.leaf_descendants(n) for n in t.layer_nodes(t.num_layers)]))
    assert top.tolist() == list(range(t.n_leaves))
    # Reload: the cached tree is identical and the run is the same.
    c = make_retriever("raptor", encoder=Bow(), max_clusters=8)
    c.index(corpus)
    d = make_retriever("raptor", encoder=Bow(), max_clusters=8)
    d.index(corpus)
    assert d.index_costs.counters.get("index_cache_hits") == 1
    assert d.tree.texts == t.texts and d.tree.children == t.children
    assert np.array_equal(d.tree.embeddings, t.embeddings)
    assert a.search(QUERIES, 10).run.to_dict() == d.search(QUERIES, 10).run.to_dict()
    loaded = RaptorTree.load(next((tmp_path / "cache" / "indexes" / "raptor-tree").iterdir()))
    assert loaded.leaf_docs == t.leaf_docs


def test_collapsed_context_respects_cap_and_topic(make_corpus, Bow, tmp_path):
    corpus = make_corpus(24)
    r = make_retriever("raptor", encoder=Bow(), max_clusters=8, top_k=0, max_tokens=300,
                       log_path=str(tmp_path / "nodes.jsonl"))
    r.index(corpus)
    res = r.search(QUERIES, 5)
    for row in r.query_log:
        assert 0 < row["context_tokens"] <= 300
        assert row["context_tokens"] == sum(n["tokens"] for n in row["nodes"])
    # Documents cycle through topics: d000 cats, d001 markets, d003 weather.
    assert all(int(d[1:]) % 4 == 0 for d, _ in res.run.ranked("q1"))
    assert all(int(d[1:]) % 4 == 1 for d, _ in res.run.ranked("q2"))
    assert len((tmp_path / "nodes.jsonl").read_text().splitlines()) == 3
    trav = make_retriever("raptor", encoder=Bow(), max_clusters=8, mode="traversal")
    trav.index(corpus)
    assert trav.index_costs.counters.get("index_cache_hits") == 1  # the tree does not depend on the mode
    trav.search(QUERIES, 5)
    for row in trav.query_log:
        layers = [n["layer"] for n in row["nodes"]]
        assert layers == sorted(layers)
        assert all(layers.count(lay) <= 5 for lay in set(layers))


@pytest.mark.parametrize("n_docs", [1, 2, 5, 13])
def test_tiny_corpora_do_not_crash(make_corpus, Bow, n_docs):
    corpus = make_corpus(n_docs, sentences=4)  # ~40 tokens: one chunk per document
    for mode in ("collapsed", "traversal"):
        r = make_retriever("raptor", encoder=Bow(), mode=mode, max_clusters=8)
        r.index(corpus)
        assert r.tree.n_leaves == n_docs
        run = r.search(QUERIES, 10).run
        assert all(len(run[q]) == min(10, n_docs) for q in QUERIES.query_ids)


def test_bad_parameters_are_one_line_errors():
    for kw, needle in (({"mode": "beam"}, "unknown mode"), ({"threshold": 1.5}, "threshold"),
                       ({"top_k": -1}, "top_k"), ({"max_tokens": 0}, "max_tokens")):
        with pytest.raises(InputError, match=needle):
            make_retriever("raptor", backend="onnx", **kw)
