"""Tune -> lock -> test: the parameters of ``[protocol] tune`` chosen on the tune split before the test split is
read, recorded in ``tuning.json`` (and ``verdicts.json["tuning"]``).

``[protocol] tune = { hcr = { beam_width = [4, 8] } }`` declares, per system, a small grid. :func:`tune` runs
every grid point of every such system on the dataset's ``tune`` split (one experiment: each point is a system
``<name>.<key>-<value>...``; unlocked, no gate, no budgets; the quickstart keeps it under
``OUT/data/tune/<size>-s<seed>/`` with ``<size>-s<seed>.toml`` and ``.tuning.json`` beside it), scores it by
the protocol metric and picks the best (ties: the first point of the grid, so the default stays unless a point
beats it). The choice is then written into the test config (:mod:`quickstart`), whose split is scored once.
Every grid point is a run on the tune split, so grids stay tiny (two or three points).

A grid over a parameter that cannot change the system's ranking (``Traits.ranking_neutral``: RAPTOR's ``top_k``
in collapsed mode with fill) cannot move the metric either: every point would tie and the tie keeps the first, so
only the first value is kept, without a run, and ``tuning.json["skipped"]`` says why. A system left with one point
is not run on the tune split at all (its choice is that point).

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


def effective_grids(cfg: Any) -> tuple[dict[str, dict[str, list[Any]]], dict[str, dict[str, str]]]:
    """The grids worth running and what was cut: ``(grids, skipped)``. A parameter that cannot change the system's
    ranking at any point of its grid (:func:`hcrbench.retrieve.system_traits.ranking_neutral`) keeps its first value
    only (``skipped[system][param]`` says why); a system whose grid is then one point is left out of ``grids``."""
    from hcrbench.retrieve.system_traits import ranking_neutral

    grids: dict[str, dict[str, list[Any]]] = {}
    skipped: dict[str, dict[str, str]] = {}
    for name, grid in cfg.protocol.tune.items():
        system = next(s for s in cfg.systems if s.name == name)
        if SELECTION in grid:  # chosen on the contexts (sufficiency), which a ranking-neutral parameter changes
            grids[name] = dict(grid)
            continue
        neutral = None
        for pt in points(grid):
            here = ranking_neutral(system.type, {**system.params, **pt})
            neutral = set(here) if neutral is None else neutral & set(here)
        why = ranking_neutral(system.type, system.params)
        kept = {}
        for k, values in grid.items():
            if len(values) > 1 and k in (neutral or set()):
                skipped.setdefault(name, {})[k] = (f"{k} = {toml_value(values[0])} kept without a run (the grid's "
                                                   f"first point): {why.get(k) or 'it cannot change the ranking'}")
                kept[k] = values[:1]
            else:
                kept[k] = list(values)
        if len(points(kept)) > 1:
            grids[name] = kept
        elif name not in skipped:  # a grid of one point as declared: nothing to choose
            skipped[name] = {k: f"{k} = {toml_value(v[0])}: the grid's only value" for k, v in grid.items()}
    return grids, skipped


def tune_config(cfg: Any, data_path: str, output_dir: str = ".",
                grids: dict[str, dict[str, list[Any]]] | None = None) -> str:
    """The tune experiment's TOML: every grid point of every tuned system (``grids``, default
    :func:`effective_grids`), on the tune split."""
    if grids is None:
        grids = effective_grids(cfg)[0]
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

    if not cfg.protocol.tune:
        doc = none_doc()
        return doc
    grids, skipped = effective_grids(cfg)
    root.mkdir(parents=True, exist_ok=True)
    if not grids:  # every grid cut to one point: nothing to run on the tune split
        doc = skipped_doc(cfg, skipped)
        atomic_write_text(root / f"{stem}.{TUNING_FILE}", json.dumps(doc, indent=2, allow_nan=False) + "\n")
        return doc
    data = Path(cfg.dataset.path)
    data_abs = data if data.is_absolute() else (config_path.parent / data).resolve()
    if not (data_abs / "qrels" / f"{TUNE_SPLIT}.tsv").is_file() and not cfg.dataset.generate:
        raise InputError(f"[protocol] tune needs a '{TUNE_SPLIT}' split in {data_abs}/qrels", field="protocol.tune")
    import os

    rel = Path(os.path.relpath(data_abs, root)).as_posix()
    text = tune_config(cfg, rel, stem, grids)
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
    chosen = _with_skipped(cfg, chosen, skipped)
    doc = {"status": "tuned", "split": TUNE_SPLIT, "metric": m, "n_queries": n_q,
           "grid": {n: dict(g) for n, g in cfg.protocol.tune.items()}, "scores": scores, "chosen": chosen,
           "text": f"chosen on the tune split ({n_q} queries) by {m} before the test split was read: {words}"}
    if skipped:
        doc["skipped"] = skipped
        doc["text"] += "; " + _skipped_words(skipped)
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


def _with_skipped(cfg: Any, chosen: dict[str, dict[str, Any]],
                  skipped: dict[str, dict[str, str]]) -> dict[str, dict[str, Any]]:
    """``chosen`` with every skipped parameter at its grid's first value (a system not run: its first point), in the
    grid's order, so the test config is the one a run of every point would have written (ties keep the first)."""
    out = {}
    for name, grid in cfg.protocol.tune.items():
        got = chosen.get(name)
        if got is None and name not in skipped:
            continue
        got = got or {}
        out[name] = {k: got[k] if k in got else values[0] for k, values in grid.items()}
    return out


def _skipped_words(skipped: dict[str, dict[str, str]]) -> str:
    return "not run on tune: " + "; ".join(f"{n} {why}" for n, params in skipped.items() for why in params.values())


def skipped_doc(cfg: Any, skipped: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The record when every grid was cut to one point: nothing ran on the tune split, each first point kept."""
    chosen = _with_skipped(cfg, {}, skipped)
    return {"status": "tuned", "split": TUNE_SPLIT, "metric": cfg.protocol.metric, "n_queries": 0,
            "grid": {n: dict(g) for n, g in cfg.protocol.tune.items()}, "scores": {}, "chosen": chosen,
            "skipped": skipped,
            "text": f"nothing to run on the tune split before the test split was read: {_skipped_words(skipped)}"}


def none_doc() -> dict[str, Any]:
    return {"status": "none", "grid": {}, "chosen": {},
            "text": "nothing tuned: every parameter is fixed in the config before the test split is scored"}
