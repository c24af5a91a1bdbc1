"""What routing sees of a node: its whole subtree, lexically (BM25 over the subtree's text) and as an entity card.

``SubtreeBM25``: a node's term counts are the sum of the counts of every chunk below it, so its BM25 row matches
any word of any chunk it covers (an extractive 128-token summary names a few percent of them). Statistics (idf,
average length) are computed **per level**, among nodes of the same size class, so a level-3 leaf is never compared
with a level-1 node's length. ``EntityCard``: every entity and identifier (the link extractor's) found in any chunk
below a node, exhaustively; a query naming one of them gives that node a third ranked list in the routing RRF.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from hcrbench.data.tree import Tree
from hcrbench.retrieve.hcr.lexical import SparseBM25


def membership(tree: Tree) -> sparse.csr_matrix:
    """(n_nodes x n_chunks) 0/1 matrix: row ``i`` marks every chunk under node ``i`` (root included)."""
    leaf_of = tree.chunk_leaf()
    paths: dict[int, list[int]] = {}
    rows, cols = [], []
    for c, leaf in enumerate(leaf_of.tolist()):
        if leaf < 0:
            continue
        path = paths.get(leaf)
        if path is None:
            path = paths[leaf] = tree.ancestors(leaf)
        rows.extend(path)
        cols.extend([c] * len(path))
    return sparse.csr_matrix((np.ones(len(rows), np.float32), (rows, cols)),
                             shape=(len(tree.nodes), len(tree.chunk_ids)))


class SubtreeBM25:
    """BM25 of node subtrees, one statistics block per level; ``score(query, node_ids)`` like :class:`SparseBM25`."""

    def __init__(self, tree: Tree, chunk_lex: SparseBM25) -> None:
        mem = membership(tree)
        counts = sparse.csr_matrix(mem @ chunk_lex.tf)
        self._chunk_lex = chunk_lex
        self._level = np.array([n.level for n in tree.nodes], dtype=np.int64)
        self._row = np.zeros(len(tree.nodes), dtype=np.int64)
        self._blocks: dict[int, SparseBM25] = {}
        for lv in sorted(set(self._level.tolist())):
            ids = np.flatnonzero(self._level == lv)
            self._row[ids] = np.arange(len(ids))
            self._blocks[lv] = SparseBM25.from_counts(counts[ids], chunk_lex)

    def query_vector(self, text: str) -> sparse.csr_matrix:
        return self._chunk_lex.query_vector(text)

    def score(self, qvec: sparse.csr_matrix, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        out = np.zeros(len(ids), dtype=np.float64)
        for lv in np.unique(self._level[ids]).tolist():
            sel = np.flatnonzero(self._level[ids] == lv)
            out[sel] = self._blocks[lv].score(qvec, self._row[ids[sel]])
        return out


class EntityCard:
    """Entity -> the nodes whose subtree names it (exhaustive: every entity of every chunk below)."""

    def __init__(self, tree: Tree, chunk_entities: Sequence[Sequence[str]]) -> None:
        leaf_of = tree.chunk_leaf()
        post: dict[str, set[int]] = {}
        for c, ents in enumerate(chunk_entities):
            if leaf_of[c] < 0:
                continue
            path = tree.ancestors(int(leaf_of[c]))[1:]
            for e in ents:
                post.setdefault(e, set()).update(path)
        self.postings = {e: np.array(sorted(v), dtype=np.int64) for e, v in post.items()}

    def size(self, node_count: int) -> np.ndarray:
        """Number of distinct entities on each node's card."""
        out = np.zeros(node_count, dtype=np.int64)
        for p in self.postings.values():
            out[p] += 1
        return out

    def hits(self, entities: Sequence[str], ids: np.ndarray) -> np.ndarray:
        """How many of ``entities`` each node of ``ids`` has on its card."""
        out = np.zeros(len(ids), dtype=np.float64)
        if not entities:
            return out
        pos = {int(n): j for j, n in enumerate(np.asarray(ids).tolist())}
        for e in dict.fromkeys(entities):
            for n in self.postings.get(e, ()):
                j = pos.get(int(n))
                if j is not None:
                    out[j] += 1.0
        return out
