"""The runner's tree step: routing logs of tree retrievers beside the runs, and ``OUT/tree_metrics.json``.

A system whose retriever keeps a routing log (``hcr``) gets it written to ``OUT/logs/<NAME>.routing.jsonl`` with its
tree beside it (``<NAME>.tree.jsonl`` + ``.tree.npz``), as ``hcrbench retrieve --system hcr`` does beside its run.
After scoring, every system with a log gets the document ``hcrbench tree-metrics LOG --dataset DIR --json``
writes (per-level eps, accuracy vs the (1 - eps)^d model, path agreement, tree quality, link coverage), gathered as
``{"<system>": {...}}`` in ``OUT/tree_metrics.json``. A reused system keeps the log its computation wrote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.experiment.dataset import ExperimentData

TREE_METRICS_FILE = "tree_metrics.json"
LOGS_DIR = "logs"


def log_rel(name: str) -> str:
    """Where a system's routing log goes, relative to the output folder."""
    return f"{LOGS_DIR}/{name}.routing.jsonl"


def write_routing_log(retriever: Any, path: Path) -> bool:
    """Write ``retriever``'s routing log (and tree) to ``path`` if it keeps one; True when written."""
    if not getattr(retriever, "routing_log", None) or not hasattr(retriever, "write_log"):
        return False
    from hcrbench.metrics.tree_files import tree_path_for

    path.parent.mkdir(parents=True, exist_ok=True)
    retriever.write_log(path, tree_path_for(path))
    return True


def system_tree_metrics(name: str, data: ExperimentData, out: Path, *, rel_threshold: int = 1,
                        seed: int = 0, shared: dict[Any, Any] | None = None) -> dict[str, Any] | None:
    """The tree-metrics document of one system from its files in ``out/logs``, or ``None`` when it has no log.

    On a dataset of several worlds each world's log and tree are measured against that world's documents,
    queries and ``world.json`` and the documents pooled (:mod:`hcrbench.metrics.tree_pool`).
    A warm re-run whose inputs are all unchanged (the log, the tree files, ``world.json``, the dataset) reuses
    the folder's memo of the last computation (:mod:`hcrbench.experiment.memo`). ``shared``: the tree measures of
    the trees measured before (:func:`hcrbench.metrics.tree.tree_report`), for one call of :func:`tree_step`."""
    if data.worlds:
        from hcrbench.experiment.cell import world_log_path
        from hcrbench.metrics.tree_pool import pool_tree_reports
        from hcrbench.synth.worlds import WORLDS_DIR

        parts: dict[str, Any] = {}
        for w, (corpus, queries) in data.worlds.items():
            log = world_log_path(out / log_rel(name), w)
            rep = _tree_metrics(f"tree-{name}-{w}", log, Path(data.root) / WORLDS_DIR / w / "world.json", corpus,
                                queries, data.qrels.subset(queries.query_ids), data, out,
                                rel_threshold=rel_threshold, seed=seed, id_prefix=f"{w}-", shared=shared)
            if rep is not None:
                parts[w] = rep
        return pool_tree_reports(parts) if parts else None
    return _tree_metrics(f"tree-{name}", out / log_rel(name), Path(data.root) / "world.json", data.corpus,
                         data.queries, data.qrels, data, out, rel_threshold=rel_threshold, seed=seed,
                         shared=shared)


def _tree_metrics(step: str, log: Path, world: Path, corpus: Any, queries: Any, qrels: Any, data: ExperimentData,
                  out: Path, *, rel_threshold: int, seed: int, id_prefix: str = "",
                  shared: dict[Any, Any] | None = None) -> dict[str, Any] | None:
    from hcrbench.data.tree import tree_vectors_path
    from hcrbench.experiment.memo import data_digest, file_sha, memo_key, recall, remember, round_trip
    from hcrbench.metrics.tree_files import tree_path_for, tree_report_from_files

    tree = tree_path_for(log)
    if not log.is_file() or not tree.is_file():
        return None
    vectors = tree_vectors_path(tree)
    tree_sha, vectors_sha, world_sha = file_sha(tree), file_sha(vectors), file_sha(world)
    key = memo_key(step, {"system": step.removeprefix("tree-"), "log": file_sha(log), "tree": tree_sha,
                          "vectors": vectors_sha, "world": world_sha, "data": data_digest(data),
                          "rel_threshold": rel_threshold, "seed": seed})
    hit = recall(out, step, key)
    if hit is not None:
        return hit["doc"]
    # systems that search one tree differently (most of HCR's ablations) share its own measures: the same files,
    # world and corpus (the corpus object held by the memo, so its id stays its own)
    pinned = shared.setdefault(("corpus", id(corpus)), corpus) if shared is not None else None
    rep = tree_report_from_files(log, None, corpus, queries, qrels, world_path=world,
                                 rel_threshold=rel_threshold, seed=seed, id_prefix=id_prefix,
                                 shared=None if shared is None or pinned is not corpus else
                                 (shared, (tree_sha, vectors_sha, str(world), world_sha, id_prefix, id(corpus))))
    try:
        rep = round_trip(rep)
    except (TypeError, ValueError):  # not plain JSON (a numpy value): hand it on as computed, no memo
        return rep
    remember(out, step, key, rep)
    return rep


def tree_step(names: list[str], data: ExperimentData, out: Path, *, rel_threshold: int = 1,
              seed: int = 0) -> dict[str, Any] | None:
    """Tree metrics of every system in ``names`` that wrote a routing log; writes ``tree_metrics.json`` (or removes
    a stale one when no system has a log) and returns its content (``None`` when empty)."""
    docs: dict[str, Any] = {}
    shared: dict[Any, Any] = {}  # one tree's own measures, shared by the systems that search it
    for name in names:
        rep = system_tree_metrics(name, data, out, rel_threshold=rel_threshold, seed=seed, shared=shared)
        if rep is not None:
            docs[name] = rep
    path = out / TREE_METRICS_FILE
    if not docs:
        path.unlink(missing_ok=True)
        return None
    from hcrbench.stats.compare import _clean

    atomic_write_text(path, json.dumps(_clean(docs), indent=2, sort_keys=True, allow_nan=False) + "\n")
    return docs
