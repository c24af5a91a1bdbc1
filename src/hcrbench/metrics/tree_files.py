"""Routing and tree measures from the files a tree retriever wrote: one function for the command and the runner.

``hcrbench tree-metrics LOG --dataset DIR`` and the experiment runner (``OUT/tree_metrics.json``) both call
:func:`tree_report_from_files`, so the numbers are the same whichever road computed them. It reads the routing log
(``NAME.routing.jsonl``), the persisted tree (``NAME.tree.jsonl``) and, when present beside it, ``NAME.tree.npz``
(routing vectors and centroids for sibling distinctiveness and summary fidelity), and takes the dataset's corpus
metadata (Meridian ``domain`` and ``entities``), query categories and qrels.
"""

from __future__ import annotations

from collections.abc import Hashable, MutableMapping
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data.structured import read_json
from hcrbench.errors import InputError


def tree_path_for(log: Path) -> Path:
    """The tree file the retriever wrote beside ``log`` (``X.routing.jsonl`` -> ``X.tree.jsonl``)."""
    return log.with_name(log.name.replace(".routing.jsonl", ".tree.jsonl"))


def tree_report_from_files(log: Path, tree_path: Path | None, corpus: Any, queries: Any, qrels: Any, *,
                           world_path: Path | None = None, rel_threshold: int = 1, seed: int = 0,
                           id_prefix: str = "", shared: tuple[MutableMapping[Hashable, Any], Hashable] | None = None
                           ) -> dict[str, Any]:
    """:func:`hcrbench.metrics.tree.tree_report` of the log and tree files (see the module docstring).
    ``id_prefix``: the world prefix (``w03-``) the dataset's entity ids carry while ``world_path``'s do not (one
    world of a dataset of several). ``shared``: :func:`hcrbench.metrics.tree.tree_report`'s memo of the tree's own
    measures and the key that names these files and this corpus."""
    from hcrbench.data.tree import read_routing_log, read_tree, tree_vectors_path
    from hcrbench.metrics.tree import tree_report, world_surface_forms

    if not log.is_file():
        raise InputError("routing log not found", path=log)
    tree_path = tree_path or tree_path_for(log)
    if not tree_path.is_file():
        raise InputError("tree file not found (pass --tree)", path=tree_path)
    t = read_tree(tree_path)
    records = read_routing_log(log)
    by_doc = {d: corpus.metadata[i] for i, d in enumerate(corpus.doc_ids)}
    unknown = [d for d in t.chunk_docs if d not in by_doc]
    if unknown:
        raise InputError(f"the tree names document {unknown[0]!r}, which the dataset does not hold", path=tree_path,
                         field="chunk_docs")
    labels = [str(by_doc[d].get("domain")) for d in t.chunk_docs] \
        if all("domain" in by_doc[d] for d in t.chunk_docs) else None
    ents = {d: list(m["entities"]) for d, m in by_doc.items() if isinstance(m.get("entities"), list)} or None
    forms = {id_prefix + k: v for k, v in world_surface_forms(read_json(world_path)).items()} \
        if world_path is not None and world_path.is_file() else None
    vec_path = tree_vectors_path(tree_path)
    vecs = np.load(vec_path) if vec_path.is_file() else None
    cats = {q: str(queries.meta(q).get("category", "all")) for q in queries.query_ids}
    return tree_report(t, records, qrels.to_dict(), categories=cats, labels=labels,
                       routing_vectors=None if vecs is None else vecs["routing_vectors"],
                       centroids=None if vecs is None else vecs["centroids"], doc_entities=ents, forms=forms,
                       rel_threshold=rel_threshold, seed=seed, shared=shared)
