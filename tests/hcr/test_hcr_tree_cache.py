"""HCR trees are cached through the same checksummed index folders as BM25 and faiss indexes (RAPTOR: tests/raptor/test_raptor_tree_cache.py): a
damaged tree file is named once, dropped and rebuilt into the same tree and run, and ``hcrbench cache verify``
reports it before any run touches it."""

from __future__ import annotations

import os
import subprocess
import warnings
from pathlib import Path

from hcrbench.errors import HcrbenchWarning
from hcrbench.retrieve import make_retriever


def _hcr(corpus, root: Path):
    r = make_retriever("hcr", backend="hash", chunk_tokens=0, depth=2, branching=4, seed=0, cache=True,
                       cache_dir=str(root))
    r.index(corpus)
    return r


def _flip_last_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


def _tree_files(root: Path) -> list[Path]:
    folders = [p for p in (root / "indexes" / "hcr-tree").iterdir() if p.is_dir() and not p.name.startswith(".")]
    assert len(folders) == 1
    files = sorted(p for p in folders[0].rglob("*") if p.is_file() and p.name not in ("key.json", "checksums.json"))
    assert files, "the tree folder holds no data files"
    return files


def test_every_damaged_hcr_tree_file_is_named_and_rebuilt(clusters, tmp_path):
    corpus, queries, _, _ = clusters
    clean = _hcr(corpus, tmp_path)
    want = clean.search(queries, 10).run.to_dict()
    for i in range(len(_tree_files(tmp_path))):
        target = _tree_files(tmp_path)[i]
        _flip_last_byte(target)
        cli = subprocess.run(["hcrbench", "cache", "verify", "--root", str(tmp_path)], capture_output=True,
                             text=True, env={**os.environ, "HCRBENCH_PROGRESS": "0"})
        assert cli.returncode == 1 and "hcr-tree" in cli.stdout + cli.stderr, (target.name, cli.stdout)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            again = _hcr(corpus, tmp_path)
        named = [w for w in caught if issubclass(w.category, HcrbenchWarning) and "damaged" in str(w.message)]
        assert len(named) == 1, (target.name, [str(w.message) for w in caught])
        assert again.index_costs.counters.get("tree_cache_hits") != 1  # rebuilt, not reused
        assert again.tree == clean.tree
        assert again.search(queries, 10).run.to_dict() == want
        # and the rebuilt folder is whole again: a third build reuses it silently
        with warnings.catch_warnings():
            warnings.simplefilter("error", HcrbenchWarning)
            third = _hcr(corpus, tmp_path)
        assert third.index_costs.counters.get("tree_cache_hits") == 1
