"""RAPTOR's persisted tree goes through the checksummed index folders: a damaged file is named once and rebuilt."""

from __future__ import annotations

import warnings

import numpy as np

from hcrbench.errors import HcrbenchWarning
from hcrbench.retrieve import make_retriever


def test_damaged_raptor_tree_is_named_and_rebuilt(make_corpus, Bow, cache_env):
    corpus = make_corpus(16)
    a = make_retriever("raptor", encoder=Bow(), max_clusters=6)
    a.index(corpus)
    folder = next(p for p in (cache_env / "indexes" / "raptor-tree").iterdir() if p.is_dir())
    target = folder / "embeddings.npy"
    data = bytearray(target.read_bytes())
    data[-1] ^= 0xFF
    target.write_bytes(bytes(data))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b = make_retriever("raptor", encoder=Bow(), max_clusters=6)
        b.index(corpus)
    named = [w for w in caught if issubclass(w.category, HcrbenchWarning) and "damaged" in str(w.message)]
    assert len(named) == 1, [str(w.message) for w in caught]
    assert b.index_costs.counters.get("index_cache_hits") != 1
    assert np.array_equal(a.tree.embeddings, b.tree.embeddings) and a.tree.children == b.tree.children
