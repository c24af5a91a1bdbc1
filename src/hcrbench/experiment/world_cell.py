"""A system's run on a dataset of several worlds, one world at a time: :func:`world_part` computes (or reuses) one
world's part, :func:`pool_worlds` joins the parts into the run and manifest entry :func:`~hcrbench.experiment.cell.
run_system` returns. The local engine calls both from ``run_system``; the Ray engine runs :func:`compute_world` as
one task per (cell, world) and pools in the driver with :func:`pool_cell`, so both write the same bytes."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hcrbench.data.cache import counting_prior_hits, take_prior_indexes
from hcrbench.data.types import Run
from hcrbench.errors import InputError
from hcrbench.experiment.cell import (
    Cell,
    CellFailed,
    CellInputError,
    _finish,
    _jsonable,
    _run_one,
    _where,
    _write_tree_log,
    pool_logs,
    pool_runs,
    units_path_of,
    world_log_path,
)
from hcrbench.experiment.config import SystemConfig
from hcrbench.experiment.dataset import ExperimentData


@dataclass
class WorldOutput:
    """What a (cell, world) task hands back under the Ray engine: the world's part (a
    :class:`~hcrbench.experiment.world_cache.WorldRun`), the task's wall seconds, and where it ran."""

    part: Any
    seconds: float
    where: dict[str, Any]


def compute_world(cell: Cell, world: str, data: Any, engine: str = "ray") -> WorldOutput | CellFailed:
    """One world of one cell (:func:`world_part`): the unit the Ray engine schedules on a dataset of several
    worlds; the driver pools a cell's worlds with :func:`pool_cell` once they are all back."""
    if engine != "local" and os.path.isdir(cell.cwd):
        os.chdir(cell.cwd)
    t0 = time.perf_counter()
    try:
        with counting_prior_hits(cell.started):
            part = world_part(cell.system, data, world, cell.k, cell.seed, Path(cell.log_path) if cell.log_path
                              else None, dict(cell.world_keys or ()).get(world))
    except InputError as e:
        if engine == "local":
            raise CellInputError(cell, e) from None
        return CellFailed(e.problem, e.field, e.path, e.line)
    return WorldOutput(part, time.perf_counter() - t0, _where(engine))


def pool_cell(cell: Cell, data: Any, parts: dict[str, Any], seconds: float) -> tuple[Run, dict[str, Any]]:
    """The run and manifest entry of ``cell`` from its worlds' parts, as :func:`run_system` would return them
    (the same bytes whichever engine computed the parts, in whatever order); a bad input is a
    :class:`CellInputError`."""
    try:
        return pool_worlds(cell.system, data, parts, Path(cell.log_path) if cell.log_path else None, seconds)
    except InputError as e:
        raise CellInputError(cell, e) from None




def world_part(system: SystemConfig, data: ExperimentData, world: str, k: int, seed: int,
               log_path: Path | None, key: str | None) -> Any:
    """One world's part of ``system``'s run (a :class:`~hcrbench.experiment.world_cache.WorldRun`): reused from
    the folder when its stored key is ``key``, else built and searched on that world alone and stored. The unit
    both engines compute; :func:`pool_worlds` joins the parts."""
    from hcrbench.experiment import world_cache

    corpus, queries = data.worlds[world]
    tw = time.perf_counter()
    wlog = None if log_path is None else world_log_path(log_path, world)
    hit = world_cache.read(log_path, system.name, world, key)
    if hit is None:
        wentry: dict[str, Any] = {}
        take_prior_indexes()
        run_w, res_w, units_w, retriever = _run_one(system, corpus, queries, data, k, seed, wentry)
        prior = take_prior_indexes()  # a tree or index cached before the run: cheap now, not on a fresh world
        if prior:
            res_w.costs.add("index_hits_prior", len(prior))
        _write_tree_log(retriever, wlog)
        hit = world_cache.write(log_path, system.name, world, key, run_w, res_w.costs, units_w,
                                _jsonable(dict(retriever.params)), wentry,
                                routing_log=wlog is not None and wlog.is_file(), seconds=time.perf_counter() - tw)
    return hit


#: the cost counters each world's manifest entry carries: what was encoded, and what the cache held from before the
#: run: embeddings and whole indexes or trees (work a cold world does; the quickstart's forecast prices the
#: embeddings and says when indexes were cached, :mod:`hcrbench.protocol.batches`), and the chunks the world's index
#: holds (a query's exhaustive first stage scores its own world's chunks: :func:`hcrbench.experiment.cost.system_cost`)
WORLD_COUNTERS = ("texts_encoded", "cache_hits", "cache_hits_prior", "index_hits_prior", "chunks_indexed")


def pool_worlds(system: SystemConfig, data: ExperimentData, parts: dict[str, Any], log_path: Path | None,
                seconds: float) -> tuple[Run, dict[str, Any]]:
    """The run and manifest entry of ``system`` from its worlds' parts (:func:`world_part`), world by world in
    the dataset's order whatever order they finished in: the pooled run, routing log and units file, the costs
    merged, and the entry's ``worlds`` saying what each world cost."""
    from hcrbench.data.types import Costs, RunResult
    from hcrbench.experiment import world_cache

    entry: dict[str, Any] = {"type": system.type, "worlds": {}}
    runs, costs, unit_files, params = [], None, [], None  # type: ignore[var-annotated]
    for w, (corpus, queries) in data.worlds.items():
        hit = parts[w]
        runs.append(hit.run)
        unit_files.append(hit.units_file)
        params = params if params is not None else hit.params
        for k_, v_ in hit.entry.items():
            entry.setdefault(k_, v_)
        costs = hit.costs if costs is None else costs.merge(hit.costs)
        entry["worlds"][w] = {"n_documents": len(corpus), "n_queries": len(queries),
                              "seconds": round(hit.seconds, 3), "reused": hit.reused,
                              "stage_seconds": {s_: round(v, 3) for s_, v in sorted(hit.costs.stage_seconds.items())},
                              **{c_: int(hit.costs.counters.get(c_, 0)) for c_ in WORLD_COUNTERS}}
    run = pool_runs(runs, data.queries.query_ids)
    result = RunResult(run, costs if costs is not None else Costs())
    if log_path is not None:
        pool_logs([world_log_path(log_path, w) for w in data.worlds], log_path)
        world_cache.pool_units(unit_files, units_path_of(log_path, system.name), data.queries.query_ids)
    return _finish(system, run, result, params or {}, entry, seconds)
