"""Tree construction: deterministic per seed, persisted and reloaded exactly, topics recovered, shape as asked."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.data.tree import read_tree, write_tree
from hcrbench.errors import InputError
from hcrbench.metrics.tree import level_purity
from hcrbench.retrieve.hcr.hashenc import HashingEncoder
from hcrbench.retrieve.hcr.tree import auto_branching, build_tree, cluster_tree
from hcrbench.retrieve.summarize import ExtractiveSummarizer


def _build(corpus, seed, depth=2, branching=4):
    texts = list(corpus.texts)
    emb = HashingEncoder().encode(texts)
    return build_tree(emb, texts, list(corpus.doc_ids), list(corpus.doc_ids), summarizer=ExtractiveSummarizer(),
                      depth=depth, branching=branching, seed=seed, summary_tokens=48)


def test_same_seed_same_tree_bytes(clusters, tmp_path):
    corpus = clusters[0]
    a, b = _build(corpus, 7), _build(corpus, 7)
    write_tree(a.tree, tmp_path / "a.jsonl")
    write_tree(b.tree, tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert np.array_equal(a.centroids, b.centroids)


def test_seed_changes_the_random_parts():
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(300, 16)).astype(np.float32)  # no structure: k-means depends on its seed
    parts = set()
    for seed in range(4):
        _, members = cluster_tree(emb, depth=1, branching=5, seed=seed)
        parts.add(tuple(sorted(tuple(sorted(m.tolist())) for m in members[1:])))
    assert len(parts) > 1


def test_roundtrip_and_shape(clusters, tmp_path):
    corpus, _, _, domain = clusters
    built = _build(corpus, 0)
    tree = built.tree
    write_tree(tree, tmp_path / "t.jsonl")
    back = read_tree(tmp_path / "t.jsonl")
    assert back == tree
    assert tree.depth == 2
    assert len(tree.nodes[0].children) == 4
    # every chunk sits under exactly one last-level node
    assert sorted(c for n in tree.nodes for c in n.chunks) == list(range(len(corpus)))
    assert all(n.summary for n in tree.nodes[1:])
    # the four topics have disjoint vocabularies: level 1 recovers them exactly
    assert level_purity(tree, [domain[d] for d in tree.chunk_docs])[1] == 1.0


def test_auto_branching():
    assert auto_branching(100_000, 3) == 18
    assert auto_branching(10, 3) == 2


def test_bad_tree_file_is_one_line(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"kind": "hcr-tree", "chunk_ids": ["a"], "chunk_docs": ["a"]}\n{"node_id": 3, "level": 0, '
                 '"parent": null}\n')
    with pytest.raises(InputError) as ei:
        read_tree(p)
    assert "t.jsonl:2" in str(ei.value) and "\n" not in str(ei.value)
    p.write_text('{"kind": "other"}\n')
    with pytest.raises(InputError, match="not an hcr tree"):
        read_tree(p)


def test_a_tree_whose_header_is_over_a_mebibyte_reads_back(tmp_path):
    """A large corpus's tree lists every chunk in its header line (Meridian full: over 1 MiB); the reader's line
    bound is the file's own size, not the 1 MiB bound of a user's file."""
    from hcrbench.data.compressed import MAX_LINE
    from hcrbench.data.tree import Tree, TreeNode, read_tree, write_tree

    n = 40_000
    ids = [f"doc-{i:06d}::chunk-{i % 7:03d}" for i in range(n)]
    tree = Tree([TreeNode(0, 0, None, [1]), TreeNode(1, 1, 0, [], list(range(n)), "all")], ids,
                [i.split("::")[0] for i in ids], {"seed": 0}, [["Entity Name"] for _ in ids])
    write_tree(tree, tmp_path / "tree.jsonl")
    assert len((tmp_path / "tree.jsonl").read_text().splitlines()[0]) > MAX_LINE
    back = read_tree(tmp_path / "tree.jsonl")
    assert back.chunk_ids == ids and back.nodes[1].chunks == list(range(n))
