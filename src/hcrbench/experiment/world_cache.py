"""Each world's part of a system's run, kept beside its routing logs so that adding worlds recomputes only the
new ones.

A system on a dataset of several worlds is built and searched per world (:func:`hcrbench.experiment.cell.run_system`).
When test worlds are added to a dataset its split's content key changes, so the runner recomputes every system;
each world's part of the run is then taken from ``OUT/logs/worlds/<system>.<wNN>.json`` when the key stored there
is the runner's per-world fingerprint of it (the world's files, its queries in the split, the system's config and
code, and what it reads), and computed otherwise. The file holds the world's ranking (scores as JSON floats, which
round-trip exactly), its cost counters, the retriever's params and what the manifest entry says of chunking or a
policy; the world's units file (``<system>.<wNN>.units.jsonl``) lies beside it and its routing log and tree stay
where the run wrote them. The pooled outputs are therefore the same bytes whether a world was reused or computed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_open, atomic_write_text
from hcrbench.data.types import Costs, Run

WORLDS_DIR = "worlds"
ENTRY_KEYS = ("chunking", "policy")


@dataclass
class WorldRun:
    """One world's part of a system's run (computed now, or ``reused`` from the folder)."""

    run: Run
    costs: Costs
    units_file: Path | None
    params: dict[str, Any]
    entry: dict[str, Any]
    seconds: float
    reused: bool


def _paths(log_path: Path, name: str, world: str) -> tuple[Path, Path]:
    folder = Path(log_path).parent / WORLDS_DIR
    return folder / f"{name}.{world}.json", folder / f"{name}.{world}.units.jsonl"


def read(log_path: Path | None, name: str, world: str, key: str | None) -> WorldRun | None:
    """The stored part of ``world`` when its key is ``key`` and every file it names is there, else None."""
    if log_path is None or key is None:
        return None
    doc_path, units = _paths(log_path, name, world)
    try:
        doc = json.loads(doc_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("key") != key:
        return None
    if doc.get("units") and not units.is_file():
        return None
    if doc.get("routing_log"):
        from hcrbench.experiment.cell import world_log_path
        from hcrbench.metrics.tree_files import tree_path_for

        log = world_log_path(log_path, world)
        if not log.is_file() or not tree_path_for(log).is_file():
            return None
    try:
        run = Run.from_ranked({q: [(d, float(s)) for d, s in pairs] for q, pairs in doc["run"].items()}, name=name)
        costs = Costs({k: int(v) for k, v in doc["costs"]["counters"].items()},
                      {k: float(v) for k, v in doc["costs"]["stage_seconds"].items()})
        return WorldRun(run, costs, units if doc.get("units") else None, dict(doc["params"]), dict(doc["entry"]),
                        float(doc["seconds"]), True)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def write(log_path: Path | None, name: str, world: str, key: str | None, run: Run, costs: Costs, units: Any,
          params: dict[str, Any], entry: dict[str, Any], *, routing_log: bool, seconds: float) -> WorldRun:
    """Store ``world``'s part (its units file always, when there is a log folder; the part itself when ``key``)."""
    kept = {k: entry.get(k) for k in ENTRY_KEYS if k in entry}
    units_file = None
    if log_path is not None:
        doc_path, units_path = _paths(log_path, name, world)
        doc_path.parent.mkdir(parents=True, exist_ok=True)
        if units is not None:
            from hcrbench.context.units import write_units

            units_file = write_units(units_path, units[0], units[1])
        else:
            units_path.unlink(missing_ok=True)
        if key is not None:
            doc = {"key": key, "seconds": seconds, "routing_log": routing_log, "units": units is not None,
                   "params": params, "entry": kept, "costs": costs.to_dict(),
                   "run": {q: [[d, s] for d, s in run.ranked(q)] for q in run.query_ids}}
            atomic_write_text(doc_path, json.dumps(doc, allow_nan=False) + "\n")
    return WorldRun(run, costs, units_file, params, kept, seconds, False)


def pool_units(files: list[Path | None], out: Path, order: list[str]) -> None:
    """The worlds' unit files as one (``unit_set`` merged world by world, then one row per query in ``order``);
    none: a stale pooled file is removed (the system delivers documents)."""
    if not files or any(f is None for f in files):
        Path(out).unlink(missing_ok=True)
        return
    universe: list[Any] = []
    rows: dict[str, str] = {}
    for f in files:
        with open(f, encoding="utf-8") as fh:  # type: ignore[arg-type]
            for n, line in enumerate(fh):
                if not line.strip():
                    continue
                row = json.loads(line)
                if n == 0 and isinstance(row, dict) and "unit_set" in row:
                    universe += row["unit_set"]
                else:
                    rows[row["query_id"]] = line if line.endswith("\n") else line + "\n"
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(out, "w") as fh:
        if universe:
            fh.write(json.dumps({"unit_set": universe}, ensure_ascii=False) + "\n")
        for q in order:
            if q in rows:
                fh.write(rows[q])
