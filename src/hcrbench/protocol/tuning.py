"""Tune -> lock -> test: the parameters of ``[protocol] tune`` chosen on the tune split before the test split is
read, recorded in ``tuning.json`` (and ``verdicts.json["tuning"]``).

``[protocol] tune = { hcr = { beam_width = [4, 8] } }`` declares, per system, a small grid. :func:`tune` runs
every grid point of every such system on the dataset's ``tune`` split (one experiment: each point is a system
``<name>.<key>-<value>...``; unlocked, no gate, no budgets; the quickstart keeps it under
``OUT/data/tune/<size>-s<seed>/`` with ``<size>-s<seed>.toml`` and ``.tuning.json`` beside it), scores it by
the protocol metric and picks the best (ties: the first point of the grid, so the default stays unless a point
beats it). The choice is then written into the test config (:mod:`quickstart`), whose split is scored once.
Every grid point is a run on the tune split, so grids stay tiny (two or three points).

``selection`` in a grid (``tune = { hcr = { selection = ["submodular", "greedy"] } }``) is the system's context
selection, not a parameter of it: the tune experiment then also builds the contexts at the reference budget, the
ranking parameters are chosen by the metric as above, and among the grid points with those parameters the
selection with the highest sufficiency@B at the reference budget wins (ties: the first listed). Selection does not
change the ranking, so it is judged on what it changes: the context (docs/context.md).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.errors import InputError

TUNING_FILE = "tuning.json"
TUNE_SPLIT = "tune"
#: The grid key that tunes a system's context selection (chosen by sufficiency@B, not by the metric).
SELECTION = "selection"


def toml_value(v: Any) -> str:
    """A TOML literal for a config value (str, bool, int, float, list, inline table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise InputError(f"cannot write {type(v).__name__} {v!r} into a config", field="protocol.tune")


def points(grid: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the grid, in declaration order (the first point first)."""
    keys = list(grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]


def label(system: str, point: dict[str, Any]) -> str:
    """``hcr.beam_width-8``: a system name that is also a file name."""
    import re

    return re.sub(r"[^A-Za-z0-9._+-]", "_", system + "".join(f".{k}-{v}" for k, v in point.items()))[:100]


def tune_config(cfg: Any, data_path: str, output_dir: str = ".") -> str:
    """The tune experiment's TOML: every grid point of every tuned system, on the tune split."""
    grids = cfg.protocol.tune
    lines = [f'name = "{cfg.name}-tune"', f"output_dir = {toml_value(output_dir)}", f"seed = {cfg.seed}",
             f"metrics = {toml_value([cfg.protocol.metric])}", f"k = {cfg.k}", "n_resamples = 1000", "",
             "[dataset]", f"path = {toml_value(data_path)}"]
    ds = cfg.dataset
    if ds.generate:
        lines += [f'generate = "{ds.generate}"', f'size = "{ds.size}"', f"generate_seed = {ds.generate_seed}"]
        if ds.generate_queries is not None:  # the same suite: without it the tune run would ask for the design's
            lines.append(f"generate_queries = {ds.generate_queries}")
        if ds.worlds > 1:  # the same worlds (the tune split is world 0's queries)
            lines.append(f"worlds = {ds.worlds}")
        if ds.look > 1:
            lines.append(f"look = {ds.look}")
    lines += [f'split = "{TUNE_SPLIT}"', ""]
    if cfg.execution.engine == "local" and cfg.execution.workers != 1:  # the grid points on as many processes
        lines += ["[execution]", f"workers = {cfg.execution.workers}", ""]
    if any(SELECTION in g for g in grids.values()):  # contexts at the reference budget, to choose a selection
        ref = cfg.context.reference_budget
        lines[lines.index("[dataset]"):lines.index("[dataset]")] = [f"budgets = [{ref}]", ""]
        lines += ["[context]", f"chunk_tokens = {cfg.context.chunk_tokens}", f"candidates = {cfg.context.candidates}",
                  f"reference_budget = {ref}", ""]
    for name, grid in grids.items():
        system = next(s for s in cfg.systems if s.name == name)
        for pt in points(grid):
            params = {k: v for k, v in pt.items() if k != SELECTION}
            lines += ["[[systems]]", f"name = {toml_value(label(name, pt))}", f'type = "{system.type}"',
                      f"params = {toml_value({**system.params, **params})}"]
            sel = pt.get(SELECTION, system.selection)
            if sel is not None:
                lines.append(f"selection = {toml_value(sel)}")
            if system.chunking is not None:
                lines.append(f"chunking = {toml_value(system.chunking.model_dump(exclude_none=True))}")
            if system.seed is not None:
                lines.append(f"seed = {system.seed}")
            lines.append("")
    return "\n".join(lines)


def tune(cfg: Any, config_path: Path, root: Path, stem: str, *, progress: bool = False) -> dict[str, Any]:
    """Run the grid on the tune split as an experiment (config ``root/<stem>.toml``, output ``root/<stem>/``),
    choose per system, write ``root/<stem>.tuning.json``; ``config_path`` is where the test config will live (its
    dataset path is relative to it)."""
    import numpy as np

    from hcrbench.experiment.runner import run_experiment

    grids = cfg.protocol.tune
    if not grids:
        doc = none_doc()
        return doc
    root.mkdir(parents=True, exist_ok=True)
    data = Path(cfg.dataset.path)
    data_abs = data if data.is_absolute() else (config_path.parent / data).resolve()
    if not (data_abs / "qrels" / f"{TUNE_SPLIT}.tsv").is_file() and not cfg.dataset.generate:
        raise InputError(f"[protocol] tune needs a '{TUNE_SPLIT}' split in {data_abs}/qrels", field="protocol.tune")
    import os

    rel = Path(os.path.relpath(data_abs, root)).as_posix()
    text = tune_config(cfg, rel, stem)
    path = root / f"{stem}.toml"
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)
    res = run_experiment(path, progress=progress)
    m = cfg.protocol.metric
    scores: dict[str, dict[str, float]] = {}
    chosen: dict[str, dict[str, Any]] = {}
    sufficiency: dict[str, dict[str, float | None]] = {}
    for name, grid in grids.items():
        best, best_score = None, None
        scores[name] = {}
        for pt in points(grid):
            run = res.evaluation.runs[label(name, pt)]
            s = float(np.mean(np.asarray(run.values[m], dtype=np.float64)))
            scores[name][label(name, pt)] = round(s, 6)
            if best_score is None or s > best_score + 1e-12:
                best, best_score = pt, s
        chosen[name] = best or {}
        if SELECTION in grid and best is not None:  # the ranking's parameters fixed, the context's selection next
            sufficiency[name] = {}
            best_suff = None
            for pt in points(grid):
                if {k: v for k, v in pt.items() if k != SELECTION} != {k: v for k, v in best.items()
                                                                       if k != SELECTION}:
                    continue
                rate = _sufficiency(res.sufficiency, label(name, pt))
                sufficiency[name][label(name, pt)] = rate
                if rate is not None and (best_suff is None or rate > best_suff + 1e-12):
                    chosen[name], best_suff = pt, rate
    n_q = len(next(iter(res.evaluation.runs.values())).query_ids)
    words = "; ".join(f"{n}: {', '.join(f'{k} = {v}' for k, v in c.items())} "
                      f"({m} {max(scores[n].values()):.3f} on tune)" for n, c in chosen.items())
    doc = {"status": "tuned", "split": TUNE_SPLIT, "metric": m, "n_queries": n_q,
           "grid": {n: dict(g) for n, g in grids.items()}, "scores": scores, "chosen": chosen,
           "text": f"chosen on the tune split ({n_q} queries) by {m} before the test split was read: {words}"}
    if sufficiency:
        ref = cfg.context.reference_budget
        doc["sufficiency"] = {"budget": ref, "kind": (res.sufficiency or {}).get("headline"), "scores": sufficiency}
        doc["text"] += (f"; selection chosen by sufficiency@{ref} on tune: "
                        + ", ".join(f"{n} {chosen[n].get(SELECTION)}" for n in sufficiency))
    atomic_write_text(root / f"{stem}.{TUNING_FILE}", json.dumps(doc, indent=2, allow_nan=False) + "\n")
    return doc


def _sufficiency(doc: dict[str, Any] | None, system: str) -> float | None:
    """The headline sufficiency rate of ``system`` at the reference budget in an ``eval.json`` sufficiency doc."""
    if not doc:
        return None
    r = (doc["systems"].get(system, {}).get("rates", {}).get(str(doc["reference_budget"])) or {})
    got = r.get(doc.get("headline"))
    return None if got is None else round(float(got["rate"]), 6)


def none_doc() -> dict[str, Any]:
    return {"status": "none", "grid": {}, "chosen": {},
            "text": "nothing tuned: every parameter is fixed in the config before the test split is scored"}
