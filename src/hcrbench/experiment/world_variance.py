"""What a world costs and what it adds, read from a finished run folder of a multi-world dataset.

- :func:`world_costs`: per test world, the seconds every system of the run spent on it, split into the fixed part
  (chunking, indexes, encoding the corpus, trees, RAPTOR's clustering: what a world costs however few queries it
  has) and the per-query part (encoding queries, search, routing, fusion, reranking), from the manifest's
  ``systems.<name>.worlds.<w>.stage_seconds``; the seconds of a world outside every named stage count as fixed.
- :func:`components_of_run`: the variance components of ``a - b``'s per-query differences (between worlds, between
  topics within a world, within topic: :mod:`hcrbench.stats.variance_components`) with the world of each query from
  its id and its topic from the dataset's ``queries.meta.jsonl`` ``cluster``, and the queries per world and worlds
  per batch that buy the most evidence per minute at the run's own costs (:mod:`hcrbench.stats.allocation`).
  Its result is JSON-able, for verdicts.json.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError
from hcrbench.stats.allocation import allocation
from hcrbench.stats.variance_components import variance_components, world_mean_check
from hcrbench.synth.worlds import world_name, world_of

#: stages whose time grows with the number of queries; every other stage is a world's fixed cost
PER_QUERY_STAGES = frozenset({"encode_queries", "search", "route", "lexical", "fusion", "rerank", "scoring"})


def _read_manifest(out: Path) -> dict[str, Any]:
    path = out / "manifest.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no manifest.json: not a finished run folder", path=path) from None
    except json.JSONDecodeError as e:
        raise InputError(f"not JSON ({e.msg})", path=path, line=e.lineno) from None


def is_per_query_stage(stage: str) -> bool:
    """``search`` and a composite's ``bm25.search`` alike."""
    return stage.rsplit(".", 1)[-1] in PER_QUERY_STAGES


def world_costs(manifest: dict[str, Any], systems: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """``{world: {"n_queries", "fixed_s", "per_query_s", "seconds", "reused", "by_system": {name: {"fixed_s",
    "per_query_s"}}}}`` over ``systems`` (default: every system of the run); ``per_query_s`` is seconds per
    query. Empty when the run is not on a dataset of several worlds."""
    entries = manifest.get("systems") or {}
    names = list(entries) if systems is None else systems
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        if name not in entries:
            raise InputError(f"no system {name!r} in the run (systems: {', '.join(entries) or 'none'})",
                             field="systems")
        for w, rec in sorted((entries[name].get("worlds") or {}).items()):
            stages = rec.get("stage_seconds") or {}
            per_q = sum(float(v) for k, v in stages.items() if is_per_query_stage(k))
            total = float(rec.get("seconds", 0.0))
            fixed = max(0.0, total - per_q)
            nq = int(rec.get("n_queries", 0)) or 1
            row = out.setdefault(w, {"n_queries": int(rec.get("n_queries", 0)), "fixed_s": 0.0, "per_query_s": 0.0,
                                     "seconds": 0.0, "reused": False, "by_system": {}})
            row["fixed_s"] += fixed
            row["per_query_s"] += per_q / nq
            row["seconds"] += total
            row["reused"] = row["reused"] or bool(rec.get("reused"))
            row["by_system"][name] = {"fixed_s": round(fixed, 3), "per_query_s": round(per_q / nq, 6),
                                      "stages": dict(sorted(stages.items()))}
    for row in out.values():
        for k in ("fixed_s", "seconds"):
            row[k] = round(row[k], 3)
        row["per_query_s"] = round(row["per_query_s"], 6)
    return out


def _dataset_root(out: Path, manifest: dict[str, Any]) -> Path | None:
    ds = manifest.get("dataset") or {}
    for cand in (ds.get("path_from_output"), ds.get("path")):
        if cand:
            p = Path(cand) if Path(cand).is_absolute() else out / cand
            if p.is_dir():
                return p
    return None


def query_topics(root: Path | None) -> dict[str, str]:
    """``{query: topic cluster}`` from ``queries.meta.jsonl`` (empty when there is none)."""
    side = None if root is None else root / "queries.meta.jsonl"
    if side is None or not side.is_file():
        return {}
    out: dict[str, str] = {}
    with side.open(encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"not JSON ({e.msg})", path=side, line=line_no) from None
            q = rec.get("query_id", rec.get("_id"))
            if q is not None and rec.get("cluster") is not None:
                out[str(q)] = str(rec["cluster"])
    return out


def per_query_values(out: Path, run: str, metric: str) -> dict[str, float]:
    """``{query: value}`` of one run's ``metric`` in ``per_query.csv``."""
    path = out / "per_query.csv"
    if not path.is_file():
        raise InputError("no per_query.csv: not a finished run folder", path=path)
    vals: dict[str, float] = {}
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        if metric not in (reader.fieldnames or []):
            raise InputError(f"no column {metric!r} (columns: {', '.join(reader.fieldnames or [])})", path=path,
                             field="metric")
        for line_no, row in enumerate(reader, 2):
            if row.get("run") != run or row[metric] in ("", None):
                continue
            try:
                vals[row["query_id"]] = float(row[metric])
            except ValueError:
                raise InputError(f"{metric} is not a number: {row[metric]!r}", path=path, line=line_no,
                                 field=metric) from None
    if not vals:
        raise InputError(f"no rows of run {run!r}", path=path, field="run")
    return vals


def components_of_run(out_dir: str | Path, a: str, b: str, metric: str = "nDCG@10", n_boot: int = 1000,
                      seed: int = 0, budget_s: float | None = None, systems: list[str] | None = None,
                      generate_s: float = 0.0) -> dict[str, Any]:
    """The variance components of ``a - b`` on ``metric`` over the run's worlds, the run's per-world costs and
    the allocation they imply (module docstring); JSON-able. ``budget_s``: the seconds a batch of worlds may take
    (else the fewest worlds, 2). ``systems``: whose costs a world carries (default every system of the run).
    ``generate_s``: seconds to generate one fresh world (a fixed cost of every test world the run does not
    record), added to the world's fixed cost."""
    if isinstance(generate_s, bool) or not isinstance(generate_s, (int, float)) or not generate_s >= 0:
        raise InputError(f"must be a non-negative number of seconds, got {generate_s!r}", field="generate_s")
    out = Path(out_dir)
    manifest = _read_manifest(out)
    va, vb = per_query_values(out, a, metric), per_query_values(out, b, metric)
    qids = sorted(set(va) & set(vb))
    worlds = [world_of(q) for q in qids]
    if any(w is None for w in worlds):
        bad = next(q for q, w in zip(qids, worlds, strict=True) if w is None)
        raise InputError(f"query {bad!r} carries no world: the run is not on a dataset of several worlds",
                         path=out / "per_query.csv")
    topics = query_topics(_dataset_root(out, manifest))
    # an unlabelled query is its own topic (as the protocol's clusters read it); with no topic known at all the
    # topic level is not separable from the queries': one topic per world (its component reads 0)
    labels = [topics.get(q, q) for q in qids] if any(q in topics for q in qids) else [str(w) for w in worlds]
    vc = variance_components([va[q] - vb[q] for q in qids], worlds, labels, n_boot=n_boot, seed=seed)
    costs = world_costs(manifest, systems)
    fresh = [c for c in costs.values() if not c["reused"]] or list(costs.values())
    d = [va[q] - vb[q] for q in qids]
    doc: dict[str, Any] = {"a": a, "b": b, "metric": metric, "components": vc.to_dict(),
                           "world_mean_variance": world_mean_check(d, worlds, labels, vc),
                           "topics_known": sum(q in topics for q in qids), "costs": costs}
    if fresh:
        cw = sum(c["fixed_s"] for c in fresh) / len(fresh) + float(generate_s)
        cq = sum(c["per_query_s"] for c in fresh) / len(fresh)
        n_i = [sum(1 for w in worlds if w == i) for i in sorted(set(worlds))]  # type: ignore[misc]
        s2w = vc.component("between_worlds").raw
        s2t, s2e = vc.component("between_topics").value, vc.component("within_topic").value
        al = allocation(s2w, s2t, s2e, vc.same_topic_rate, cw, cq, max_queries=max(n_i), budget_s=budget_s)
        doc["allocation"] = al.to_dict()
        if vc.world_floor_high is not None:  # at the upper end of B's interval: the choice if worlds differ more
            doc["allocation_cautious"] = allocation(vc.world_floor_high - vc.same_topic_rate * s2t, s2t, s2e,
                                                    vc.same_topic_rate, cw, cq, max_queries=max(n_i),
                                                    budget_s=budget_s).to_dict()
        doc["cost_basis"] = {"worlds": sorted(w for w, c in costs.items() if c in fresh), "cost_world_s": round(cw, 3),
                             "generate_s": round(float(generate_s), 3),
                             "cost_query_s": round(cq, 6)}
    doc["worlds"] = [world_name(w) for w in sorted(set(worlds))]  # type: ignore[arg-type]
    return json.loads(json.dumps(doc, default=lambda o: None if isinstance(o, float) and not math.isfinite(o) else o))
