"""The design's four fail-fast checkpoints: pure rules on plain numbers, and the gathering of their inputs.

A checkpoint says ``pass`` / ``stop and diagnose: <component>`` (each only when its whole 95% interval lies on
that side of the threshold), ``not decidable at n = N (needs ~ M)`` (the interval reaches the threshold) or
``not run``; never a verdict on the architecture.

Every checkpoint decides by :func:`registry.decide`: pass only when its whole interval lies on the right side of the
threshold, stop only when it lies on the wrong side (one standard of evidence both ways: a
point estimate never decides).

1. Tree sanity: mean sibling distinctiveness >= 0.15 (interval: mean ± 1.96 sd / sqrt(pairs)).
2. Routing on the easiest single-branch queries: eps <= 0.10 at every level, on >= 50 queries of the tune and dev
   splits (never test), each level's eps with its Wilson interval. The system runs once on those queries
   (``logs/checkpoint/``; reused while its fingerprint holds).
3. HCR vs flat + reranker: HCR's nDCG@10 at most 0.02 below (the paired 95% CI of the difference).
4. Token efficiency: HCR's sufficiency@400 above flat's (per-query paired difference, normal 95% interval).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hcrbench.data.structured import read_json
from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import (
    DIAGNOSE,
    EASY_EPS_MAX,
    KILL_MARGIN,
    MIN_EASY,
    NOT_RUN,
    PASS,
    TREE_SANITY_MIN,
    UNDECIDABLE,
    _ci,
    _num,
    checkpoint,
    pct,
    wilson,
    z_level,
)

CHECKPOINT_SPLITS = ("tune", "dev")  # the easy-routing checkpoint's queries; "train" when neither exists
CHECKPOINT_LOGS = "logs/checkpoint"
MAX_CHECKPOINT_QUERIES = 200  # the easy-routing checkpoint's queries are run once more: a cap on that cost


def _needs(n_needed: int | None) -> str:
    return f"needs n ~ {n_needed:,} for power 0.8 at the design's margin" if n_needed else "no n in reach decides it"


def _status(rule_id: str, lo: float | None, hi: float | None) -> int:
    return reg.decide_one(reg.get(rule_id), lo, hi)


def tree_sanity(mean: float | None, sd: float | None = None, n: int | None = None,
                why_missing: str = "no tree with routing vectors") -> dict:
    """Checkpoint 1: the tree's siblings must be distinguishable (mean cosine distance >= 0.15): pass when the
    whole normal 95% interval lies above 0.15, stop when it lies below, else not decidable."""
    crit = f"mean sibling distinctiveness >= {TREE_SANITY_MIN} (the whole {pct()} interval on one side)"
    v, s = _num(mean), _num(sd)
    if v is None:
        return checkpoint("tree_sanity", "Tree sanity", crit, None, TREE_SANITY_MIN, NOT_RUN,
                          f"not run: {why_missing}")
    lo = hi = None
    if s is not None and n:
        h = z_level() * s / n ** 0.5
        lo, hi = v - h, v + h
    code = _status("tree_sanity", lo, hi)
    if code == reg.NEG:
        status, text = f"{DIAGNOSE}: tree construction", f"siblings are too alike: mean cosine distance {v:.3f} " \
                                                         f"< {TREE_SANITY_MIN} ({_ci(lo, hi, False)})"
    elif code == reg.POS:
        status = PASS
        text = f"siblings are distinct enough: mean cosine distance {v:.3f} > {TREE_SANITY_MIN} " \
               f"({_ci(lo, hi, False)}, {n:,} sibling pairs)"
    else:
        status = UNDECIDABLE
        need = reg.n_for_power(s, reg.get("tree_sanity").margin) if s is not None else None
        text = f"{reg.text_undecidable(n, need, 'sibling pairs')}: mean {v:.3f}, " + \
               (f"{_ci(lo, hi, False)} reaches {TREE_SANITY_MIN}" if lo is not None else "no sd: no interval")
    return checkpoint("tree_sanity", "Tree sanity", crit, v, TREE_SANITY_MIN, status, text, n=n,
                      interval=(lo, hi) if lo is not None else None,
                      interval_kind=f"normal {pct()} (mean ± {z_level():.2f} sd / sqrt(pairs))", component="tree construction")


def easy_routing(eps_per_level: list[float | None] | None, n_per_level: list[int] | None = None,
                 n_queries: int = 0, why_missing: str = "no routing log", where: str = "") -> dict:
    """Checkpoint 2: on the easiest single-branch queries, routing error eps <= 0.10 at every level: stop when a
    level's whole Wilson interval lies above 0.10, pass when every level's lies below, else not decidable."""
    crit = f"eps <= {EASY_EPS_MAX} at every level on >= {MIN_EASY} easiest single-branch queries (tune + dev), " \
           f"each level's Wilson {pct()} interval wholly on one side"
    levels = [(_num(e), int(k)) for e, k in zip(eps_per_level or [], n_per_level or [])]
    levels = [(e, k) for e, k in levels if e is not None and k > 0]
    if not levels or n_queries == 0:
        return checkpoint("easy_routing", "Routing on easy single-branch queries", crit, None, EASY_EPS_MAX,
                          NOT_RUN, f"not run: {why_missing}", n=n_queries or None, component="routing")
    ivs = [wilson(e * k, k) for e, k in levels]
    codes = [_status("easy_routing", iv[0], iv[1]) for iv in ivs]  # type: ignore[index]
    per = ", ".join(f"L{i + 1} {e:.3f} [{iv[0]:.3f}, {iv[1]:.3f}] (n {k})"  # type: ignore[index]
                    for i, ((e, k), iv) in enumerate(zip(levels, ivs)))
    small = f"; only {n_queries} queries (the design asks for {MIN_EASY})" if n_queries < MIN_EASY else ""
    fired = [i for i, c in enumerate(codes) if c == reg.NEG]
    open_ = [i for i, c in enumerate(codes) if c != reg.POS]
    worst = max(range(len(levels)), key=lambda i: ivs[i][1])  # type: ignore[index]
    pick = fired[0] if fired else (max(open_, key=lambda i: levels[i][0]) if open_ else worst)
    e, k = levels[pick]
    iv = ivs[pick]
    if fired:
        status, text = f"{DIAGNOSE}: routing", f"routing fails where it should be easiest: level {pick + 1} eps " \
                                               f"{e:.3f}, Wilson {pct()} [{iv[0]:.3f}, {iv[1]:.3f}] > {EASY_EPS_MAX}"
    elif open_:
        status = UNDECIDABLE
        need = reg.n_for_power_proportion(reg.get("easy_routing"))
        text = f"{reg.text_undecidable(k, need)}: level {pick + 1} eps {e:.3f}, its Wilson {pct()} interval " \
               f"[{iv[0]:.3f}, {iv[1]:.3f}] reaches {EASY_EPS_MAX}; {_needs(need)}"
    else:
        status, text = PASS, f"routing holds: every level's Wilson {pct()} interval lies below {EASY_EPS_MAX} (worst " \
                             f"eps {levels[worst][0]:.3f})"
    text += f" ({per}; {n_queries} queries{where}){small}"
    return checkpoint("easy_routing", "Routing on easy single-branch queries", crit, e, EASY_EPS_MAX, status, text,
                      n=n_queries, interval=iv, interval_kind=f"Wilson {pct()} (the level judged)", component="routing")


def kill_baseline_margin(delta: float | None, low: float | None = None, high: float | None = None,
                         n: int | None = None, baseline: str = "flat + reranker", metric: str = "nDCG@10",
                         why_missing: str = "the system or the kill baseline was not run", system: str = "the system",
                         interval_kind: str = "paired t 95% (the experiment's comparison)") -> dict:
    """Checkpoint 3: the system must not trail the kill baseline on nDCG@10 by more than 0.02: stop when the
    whole paired 95% interval of the difference lies below -0.02, pass when it lies above, else not decidable."""
    crit = f"{system} - {baseline} on {metric} >= -{KILL_MARGIN} (the whole {pct()} interval on one side)"
    d, lo, hi = _num(delta), _num(low), _num(high)
    name = f"{system} vs {baseline}"
    if d is None:
        return checkpoint("vs_kill_baseline", name, crit, None, -KILL_MARGIN, NOT_RUN, f"not run: {why_missing}",
                          component="retrieval quality")
    code = _status("vs_kill_baseline", lo, hi)
    words = f"{system} {'trails' if d < 0 else 'leads'} {baseline} by {abs(d):.3f} {metric} ({_ci(lo, hi)}, n {n})"
    if code == reg.NEG:
        status, text = f"{DIAGNOSE}: retrieval quality", f"{words}: beyond the {KILL_MARGIN} margin"
    elif code == reg.POS:
        status, text = PASS, f"{words}: surely within the {KILL_MARGIN} margin"
    else:
        status = UNDECIDABLE
        need = reg.n_for_power(reg.sd_from(lo, hi, n), reg.get("vs_kill_baseline").margin)
        text = f"{reg.text_undecidable(n, need)}: {words}: its {pct()} interval reaches the -{KILL_MARGIN} margin"
    return checkpoint("vs_kill_baseline", name, crit, d, -KILL_MARGIN, status, text, n=n,
                      interval=(lo, hi) if lo is not None else None, interval_kind=interval_kind,
                      component="retrieval quality")


def token_efficiency(diff: float | None, low: float | None = None, high: float | None = None,
                     n: int | None = None, hcr_400: float | None = None, flat_400: float | None = None,
                     flat: str = "flat", why_missing: str = "no sufficiency at 400 tokens", system: str = "the system",
                     *, modes: tuple[str | None, str | None] = (None, None), basis: str | None = None) -> dict:
    """Checkpoint 4: the system's sufficiency@400 must beat flat@400: stop when the whole 95% interval of the
    paired difference lies below zero, pass when it lies above, else not decidable. ``modes``: what each
    delivers (``units`` / ``documents``); when they differ the checkpoint compares delivery modes, not
    retrievers, and says so: a loss then cannot stop the run on its own. ``basis``: the one query set compared."""
    crit = f"{system} sufficiency@400 > {flat} sufficiency@400 (the whole {pct()} interval on one side)"
    d, lo, hi = _num(diff), _num(low), _num(high)
    if d is None:
        return checkpoint("token_efficiency", "Token efficiency", crit, None, 0.0, NOT_RUN, f"not run: {why_missing}",
                          component="context selection")
    code = _status("token_efficiency", lo, hi)
    words = f"{system}@400 {_num(hcr_400) or 0:.3f} vs {flat}@400 {_num(flat_400) or 0:.3f} ({d:+.3f}, " \
            f"{_ci(lo, hi)}, n {n}" + (f", on {basis})" if basis else ")")
    crossed = None not in modes and modes[0] != modes[1]
    if crossed:
        words += (f"; compares delivery modes ({system} delivers {modes[0]}, {flat} delivers {modes[1]}), not "
                  f"retrievers of one mode")
    if code == reg.NEG and crossed:
        status = UNDECIDABLE
        text = f"not decidable across delivery modes: {words}: a loss here cannot stop the run on its own"
    elif code == reg.NEG:
        status, text = f"{DIAGNOSE}: context selection", f"{words}: {system} does not beat flat retrieval"
    elif code == reg.POS:
        status, text = PASS, f"{words}: {system} gives sufficient context more often"
    else:
        status = UNDECIDABLE
        need = reg.n_for_power(reg.sd_from(lo, hi, n), reg.get("token_efficiency").margin)
        text = f"{reg.text_undecidable(n, need)}: {words}"
    row = checkpoint("token_efficiency", "Token efficiency", crit, d, 0.0, status, text, n=n,
                     interval=(lo, hi) if lo is not None else None,
                     interval_kind=f"normal {pct()} of the per-query paired difference", component="context selection")
    if None not in modes:
        row["delivery_modes"] = {system: modes[0], flat: modes[1]}
    if basis:
        row["basis"] = basis
    return row


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
    """Run the protocol's system on the checkpoint splits once, writing its routing log under
    ``logs/checkpoint/`` (reused while the system's fingerprint on those queries holds). Returns
    ``(checkpoint data, log path, why when none)``."""
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
        run_system(system, cdata, cfg.k, cfg.seed if system.seed is None else system.seed, log_path=log)
        atomic_write_text(stamp, json.dumps({"fingerprint": fp, "split": cdata.split,
                                             "n_queries": len(cdata.queries)}) + "\n")
    if not _has_trees(log, cdata):
        return cdata, None, f"{sysname} wrote no routing log"
    return cdata, log, ""


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
