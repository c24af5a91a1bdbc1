"""The design's four fail-fast checkpoints: pure rules on plain numbers, and the gathering of their inputs.

A checkpoint says ``pass`` / ``stop and diagnose: <component>`` (each only when its whole 95% interval lies on
that side of the threshold), ``not decidable at n = N (needs ~ M)`` (the interval reaches the threshold) or
``not run``; never a verdict on the architecture.

Every checkpoint decides by :func:`registry.decide`: pass only when its whole interval lies on the right side of the
threshold, stop only when it lies on the wrong side (one standard of evidence both ways: a
point estimate never decides).

1. Tree sanity: mean sibling distinctiveness >= 0.15 (interval: mean ± 1.96 sd / sqrt(pairs)).
2. Routing on the easiest single-branch queries: eps <= 0.10 at every level, on >= 50 queries of the tune and dev
   splits (never test), each level's eps with its Wilson interval. Their routing (``logs/checkpoint/``; reused
   while its fingerprint holds) is read from the system's runs on tune and dev that the power plan makes anyway,
   else the system runs once on those queries.
3. HCR vs flat + reranker: HCR's nDCG@10 at most 0.02 below (the paired 95% CI of the difference).
4. Token efficiency: HCR's sufficiency@400 above flat's (per-query paired difference, normal 95% interval).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hcrbench.data.structured import read_json
from hcrbench.protocol import registry as _registry  # noqa: F401  (loads every rule)
from hcrbench.protocol.rules import MIN_EASY
from hcrbench.protocol.ruleset.easy_routing import _needs, easy_routing  # noqa: F401  (re-exported)
from hcrbench.protocol.ruleset.token_efficiency import token_efficiency  # noqa: F401  (re-exported)
from hcrbench.protocol.ruleset.tree_sanity import tree_sanity  # noqa: F401  (re-exported)
from hcrbench.protocol.ruleset.vs_kill_baseline import kill_baseline_margin  # noqa: F401  (re-exported)

CHECKPOINT_SPLITS = ("tune", "dev")  # the easy-routing checkpoint's queries; "train" when neither exists
CHECKPOINT_LOGS = "logs/checkpoint"
MAX_CHECKPOINT_QUERIES = 200  # the easy-routing checkpoint's queries are run once more: a cap on that cost


# ------------------------------------------------------------------------------------------------ inputs


def single_target_queries(data: Any, rel_threshold: int = 1, min_queries: int = MIN_EASY
                          ) -> tuple[dict[str, dict[str, int]], str]:
    """The easiest single-branch queries: those with one top-graded relevant document (their target, the one
    branch routing must find), of difficulty ``easy`` — widened to ``medium`` when fewer than ``min_queries`` are
    easy (queries without a difficulty all count). Returns ``({query: {target: grade}}, tiers used)``."""
    targets: dict[str, tuple[str, int]] = {}
    for q in data.queries.query_ids:
        if q not in data.qrels:
            continue
        judged = {d: g for d, g in data.qrels[q].items() if g >= rel_threshold}
        if not judged:
            continue
        top = max(judged.values())
        best = [d for d, g in judged.items() if g == top]
        if len(best) == 1:
            targets[q] = (best[0], top)
    tiers: list[str] = []
    chosen: dict[str, dict[str, int]] = {}
    for tier in ("easy", "medium"):
        if tiers and len(chosen) >= min_queries:
            break
        tiers.append(tier)
        for q, (d, g) in targets.items():
            diff = data.queries.meta(q).get("difficulty")
            if diff is None or diff == tier:
                chosen[q] = {d: g}
    return chosen, "+".join(tiers)


def checkpoint_splits(root: Path, scored: str) -> list[str]:
    """The splits the easy-routing checkpoint reads: tune and dev (never test, never the scored split unless it
    is tune or dev), else train."""
    have = {p.stem for p in (root / "qrels").glob("*.tsv")} if (root / "qrels").is_dir() else set()
    got = [s for s in CHECKPOINT_SPLITS if s in have]
    return got or (["train"] if "train" in have and scored != "train" else [])


def checkpoint_data(data: Any, rel_threshold: int = 1, seed: int = 0) -> Any | None:
    """The experiment's corpus with the easiest single-target queries of :func:`checkpoint_splits` and their
    judgments (None without such a split)."""
    from hcrbench.data.beir import read_queries
    from hcrbench.data.hashing import sha256_file
    from hcrbench.data.trec import read_qrels
    from hcrbench.data.types import Qrels
    from hcrbench.experiment.dataset import ExperimentData

    root = Path(data.root)
    splits = checkpoint_splits(root, data.split)
    qpath = root / "queries.jsonl"
    if not splits or not qpath.is_file():
        return None
    merged: dict[str, dict[str, int]] = {}
    files = {k: v for k, v in data.files.items() if not k.startswith("qrels/")}
    for s in splits:
        p = root / "qrels" / f"{s}.tsv"
        q = read_qrels(p, name=f"{root.name}/{s}")
        merged.update({qid: {d: int(g) for d, g in q[qid].items()} for qid in q.query_ids})
        files[f"qrels/{s}.tsv"] = sha256_file(p)
    qrels = Qrels.from_dict(merged, name="+".join(splits))
    queries = read_queries(qpath)
    queries = queries.subset([q for q in qrels.query_ids if q in queries])
    full = ExperimentData(data.corpus, queries, qrels, "+".join(splits), root, dict(sorted(files.items())))
    # only the queries the checkpoint reads are run: the easiest single-target ones, at most MAX_CHECKPOINT_QUERIES
    # (a seeded sample in query order when there are more)
    chosen = sorted(single_target_queries(full, rel_threshold)[0])
    if len(chosen) > MAX_CHECKPOINT_QUERIES:
        import numpy as np

        keep = np.random.default_rng(seed).choice(len(chosen), MAX_CHECKPOINT_QUERIES, replace=False)
        chosen = [chosen[i] for i in sorted(keep.tolist())]
    sub = queries.subset([q for q in queries.query_ids if q in set(chosen)])
    return ExperimentData(data.corpus, sub, qrels, full.split, root, full.files)


def checkpoint_routing_log(cfg: Any, data: Any, out: Path) -> tuple[Any, Path | None, str]:
    """The protocol's system's routing on the checkpoint's queries, written under ``logs/checkpoint/`` (reused
    while the system's fingerprint on those queries holds): read from its tune and dev runs when the verdict step
    makes them anyway (:func:`_split_logs`), else a run of those queries. Returns ``(checkpoint data, log path,
    why when none)``."""
    from hcrbench.data.atomic import atomic_write_text
    from hcrbench.experiment.cell import run_system
    from hcrbench.experiment.runner import system_fingerprint

    cdata = checkpoint_data(data, cfg.rel_threshold, cfg.seed)
    if cdata is None:
        return None, None, "the dataset has no tune / dev (or train) split to check routing on"
    sysname = cfg.protocol.system
    system = next((s for s in cfg.systems if s.name == sysname), None)
    if system is None:
        return cdata, None, f"{sysname} is not a system"
    from hcrbench.retrieve import traits

    if not traits(system.type).tree:
        return cdata, None, f"{sysname} ({system.type}) writes no routing log"
    folder = out / CHECKPOINT_LOGS
    log = folder / f"{sysname}.routing.jsonl"
    stamp = folder / f"{sysname}.fingerprint.json"
    from hcrbench.experiment.manifest import sha256_json

    fp = system_fingerprint(system, cfg, sha256_json({"data": cdata.key, "queries": list(cdata.queries.query_ids)}))
    fresh = stamp.is_file() and read_json(stamp).get("fingerprint") == fp
    if not (fresh and _has_trees(log, cdata)):
        folder.mkdir(parents=True, exist_ok=True)
        parts = _split_logs(cfg, data, cdata, sysname, out)
        if parts is None or not _from_split_logs(cdata, parts, log):
            from hcrbench.protocol.devselect import needs_run

            needs_run(sysname)
            run_system(system, cdata, cfg.k, cfg.seed if system.seed is None else system.seed, log_path=log)
        atomic_write_text(stamp, json.dumps({"fingerprint": fp, "split": cdata.split,
                                             "n_queries": len(cdata.queries)}) + "\n")
    if not _has_trees(log, cdata):
        return cdata, None, f"{sysname} wrote no routing log"
    return cdata, log, ""


#: the splits the verdict step runs the protocol system on whole anyway (the power plan's pilot, with its routing
#: log: the kill baseline reads it), so the checkpoint reads its queries from those runs rather than run them again
PILOT_SPLITS = ("tune", "dev")
ROUTING = ".routing.jsonl"


def _split_logs(cfg: Any, data: Any, cdata: Any, sysname: str, out: Path) -> list[Path] | None:
    """The routing logs of ``sysname`` on each checkpoint split, when the verdict step runs it there anyway (the
    power plan's pilot on tune and dev: the system and the kill baseline both configured), computed now if
    missing (``logs/<split>/``, the runs the power plan and the field then reuse); None otherwise (a split
    outside the pilot, such as train, or a split the system cannot run on)."""
    from hcrbench.protocol.devselect import split_data, split_runs

    names = {s.name for s in cfg.systems}
    splits = cdata.split.split("+")
    if cfg.protocol.kill_baseline not in names or not set(splits) <= set(PILOT_SPLITS):
        return None
    logs = []
    for split in splits:
        sdata = split_data(data, split)
        if sdata is None:
            return None
        failed: dict[str, str] = {}
        folder = out / "logs" / split
        split_runs(cfg, sdata, folder, [sysname], failed, logs=(sysname,))
        if sysname in failed:
            return None
        logs.append(folder / f"{sysname}.routing.jsonl")
    return logs


def _from_split_logs(cdata: Any, sources: list[Path], log: Path) -> bool:
    """Write the checkpoint's routing log at ``log`` (per world on a dataset of several, pooled) from the split
    runs' logs ``sources``: each checkpoint query's record, in the checkpoint's query order, and the tree it was
    routed in (a world's tree, or the corpus's, is the same whichever split's queries it routes). False, writing
    nothing, when a source lacks a query or its tree."""
    from hcrbench.data.atomic import atomic_write_bytes, atomic_write_text
    from hcrbench.experiment.cell import pool_logs, world_log_path

    if cdata.worlds:
        targets = [(world_log_path(log, w), [world_log_path(s, w) for s in sources],
                    list(q.query_ids)) for w, (_c, q) in cdata.worlds.items()]
    else:
        targets = [(log, list(sources), list(cdata.queries.query_ids))]
    plans = []
    for dst, srcs, want in targets:
        have = [s for s in srcs if s.is_file() and _tree_file(s).is_file()]
        records: dict[str, str] = {}
        for src in have:
            with open(src, encoding="utf-8") as fh:
                for line in fh:
                    records.setdefault(json.loads(line)["query_id"], line if line.endswith("\n") else line + "\n")
        if not have or any(q not in records for q in want):
            return False
        plans.append((dst, have[0], "".join(records[q] for q in want)))
    for dst, src, text in plans:  # the tree's files (its nodes, its vectors) under the checkpoint's names
        stem, dstem = src.name[: -len(ROUTING)], dst.name[: -len(ROUTING)]
        for f in sorted(src.parent.iterdir()):
            if f.is_file() and f.name.startswith(stem + ".tree."):
                atomic_write_bytes(dst.with_name(dstem + f.name[len(stem):]), f.read_bytes())
        atomic_write_text(dst, text)
    if cdata.worlds:
        pool_logs([dst for dst, _s, _t in plans], log)
    return True


def _tree_file(log: Path) -> Path:
    from hcrbench.metrics.tree_files import tree_path_for

    return tree_path_for(log)


def _tree_logs(log: Path, data: Any) -> list[Path]:
    """The routing logs whose trees the checkpoint reads: ``log`` itself, or on a dataset of several worlds each
    world's log (a world's tree routes only that world's queries)."""
    if not getattr(data, "worlds", None):
        return [log]
    from hcrbench.experiment.cell import world_log_path

    return [world_log_path(log, w) for w in data.worlds]


def _has_trees(log: Path, data: Any) -> bool:
    from hcrbench.metrics.tree_files import tree_path_for

    return log.is_file() and all(p.is_file() and tree_path_for(p).is_file() for p in _tree_logs(log, data))


def easy_single_branch(log: Path | None, data: Any, rel_threshold: int = 1, why: str = ""
                       ) -> tuple[list[float] | None, list[int] | None, int, str]:
    """Per-level eps (any correct node in the beam) on the easiest single-branch queries of ``data``, a node
    being correct when it holds a chunk of the query's one target document. Returns (eps per level, queries per
    level, n queries, why when none)."""
    from hcrbench.data.tree import read_routing_log, read_tree
    from hcrbench.metrics.tree import routing_errors
    from hcrbench.metrics.tree_files import tree_path_for

    if log is None or data is None:
        return None, None, 0, why or "no routing log"
    qrels, tiers = single_target_queries(data, rel_threshold)
    eps: list[list[float]] = []
    counts: list[list[int]] = []
    n = 0
    for part in _tree_logs(log, data):  # per world on a dataset of several: pooled below, by queries per level
        records = [r for r in read_routing_log(part) if r.query_id in qrels and r.levels]
        if records:
            err = routing_errors(read_tree(tree_path_for(part)), records, qrels, rel_threshold)
            eps.append([float(e) for e in err.eps_any])
            counts.append([int(k) for k in err.n_at_level])
            n += int(err.n_queries)
    if not eps:
        return None, None, 0, f"no single-target {tiers} query of {data.split} has routing levels"
    depth = max(len(e) for e in eps)
    n_at = [sum(c[i] for c in counts if i < len(c)) for i in range(depth)]
    pooled = [sum(e[i] * c[i] for e, c in zip(eps, counts) if i < len(e)) / n_at[i] if n_at[i] else float("nan")
              for i in range(depth)]
    return pooled, n_at, n, ""
