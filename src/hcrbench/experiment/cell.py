"""The cell function every engine executes: :func:`compute_cell` runs one system of an experiment
(:func:`run_system`: index, search, its manifest entry), plus the records a cell hands back.

On a dataset of several worlds the system runs world by world (:mod:`hcrbench.experiment.world_cell`, which the Ray
engine also schedules one task per world).

Below both engines and the runner (the runner builds cells and commits their outputs; the engines only execute
them), so no engine imports the runner and the Ray engine does not import the local one.
"""

from __future__ import annotations

import json
import os
import random
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data.cache import counting_prior_hits
from hcrbench.data.types import Run
from hcrbench.errors import InputError
from hcrbench.experiment.config import SystemConfig
from hcrbench.experiment.dataset import ExperimentData


@dataclass(frozen=True)
class Cell:
    """One unit of work: the system at ``index`` (0-based, config order), with the depth and seed it runs at."""

    index: int
    system: SystemConfig
    k: int
    seed: int
    fingerprint: str
    cwd: str = field(default_factory=os.getcwd)  # relative paths in params resolve as in a local run
    log_path: str | None = None  # where a tree retriever writes its routing log (shared storage on a cluster)
    world_keys: tuple[tuple[str, str], ...] | None = None  # per world of a dataset of several: its run's key
    #: epoch seconds the run's execute stage began: cache hits on embeddings stored before it are counted apart
    #: (``cache_hits_prior``: work a cold world would do, which the quickstart's forecast adds back)
    started: float | None = None

    @property
    def name(self) -> str:
        return self.system.name


@dataclass
class CellOutput:
    """What a cell hands back: its document-level run, its manifest entry, and where it ran."""

    run: Any
    entry: dict[str, Any]
    where: dict[str, Any]


@dataclass
class CellFailed:
    """An :class:`InputError` raised inside a cell, carried back as fields (it pickles badly through Ray)."""

    problem: str
    field: str | None = None
    path: str | None = None
    line: int | None = None

    def error(self) -> InputError:
        return InputError(self.problem, field=self.field, path=self.path, line=self.line)


class CellInputError(Exception):
    """A cell refused its input; the runner maps ``error`` onto the config line of ``cell``."""

    def __init__(self, cell: Cell, error: InputError) -> None:
        super().__init__(str(error))
        self.cell, self.error = cell, error


def _where(engine: str) -> dict[str, Any]:
    where: dict[str, Any] = {"engine": engine, "hostname": socket.gethostname(), "pid": os.getpid()}
    if engine == "ray":
        import ray

        where["node_id"] = ray.get_runtime_context().get_node_id()
    return where


def compute_cell(cell: Cell, data: Any, engine: str = "local") -> CellOutput | CellFailed:
    """Run one cell on ``data`` (an :class:`~hcrbench.experiment.dataset.ExperimentData`)."""
    if engine != "local" and os.path.isdir(cell.cwd):
        os.chdir(cell.cwd)
    try:
        with counting_prior_hits(cell.started):
            run, entry = run_system(cell.system, data, cell.k, cell.seed,
                                    log_path=Path(cell.log_path) if cell.log_path else None,
                                    world_keys=dict(cell.world_keys) if cell.world_keys else None)
    except InputError as e:
        if engine == "local":
            raise CellInputError(cell, e) from None
        return CellFailed(e.problem, e.field, e.path, e.line)
    return CellOutput(run, entry, _where(engine))


OnDone = Callable[[Cell, CellOutput], None]


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:  # only if a retriever already imported it
        torch.manual_seed(seed)


def _jsonable(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=lambda o: o.item() if hasattr(o, "item") else repr(o)))


def run_system(system: SystemConfig, data: ExperimentData, k: int, seed: int,
               log_path: Path | None = None, world_keys: dict[str, str] | None = None) -> tuple[Run, dict[str, Any]]:
    """Index and search one system; returns its document-level run (named after it) and its manifest entry.

    On a dataset of several worlds (:attr:`ExperimentData.worlds`) the system is built and searched once per
    world that has queries in the split, each world's queries over that world's documents only (a world's size
    stays its size); the runs, unit rankings and routing logs are pooled and every query keeps its world, and the
    entry's ``worlds`` says what each world cost. A tree retriever's routing log (and tree) is written to
    ``log_path`` when given (:mod:`tree_step`); per world, beside it (``NAME.wNN.routing.jsonl``). With
    ``world_keys`` (``{world: key}``, the runner's per-world fingerprints) and ``log_path``, a world whose key
    matches the one its last computation stored (:mod:`world_cache`) is reused, not recomputed: adding test worlds
    computes only the new worlds, and the pooled outputs are the same bytes either way."""
    t0 = time.perf_counter()
    if data.worlds:
        from hcrbench.experiment.world_cell import pool_worlds, world_part

        parts = {w: world_part(system, data, w, k, seed, log_path, (world_keys or {}).get(w)) for w in data.worlds}
        return pool_worlds(system, data, parts, log_path, time.perf_counter() - t0)
    entry: dict[str, Any] = {"type": system.type}
    run, result, units, retriever = _run_one(system, data.corpus, data.queries, data, k, seed, entry)
    _write_tree_log(retriever, log_path)
    _write_units(system, units, log_path)
    return _finish(system, run, result, dict(retriever.params), entry, time.perf_counter() - t0)


def units_path_of(log_path: Path, name: str) -> Path:
    from hcrbench.context.units import units_path

    return units_path(Path(log_path).parent, name)


def _finish(system: SystemConfig, run: Run, result: Any, params: dict[str, Any], entry: dict[str, Any],
            seconds: float) -> tuple[Run, dict[str, Any]]:
    """Check the retriever's params and the costs, and complete the manifest entry (one world or several)."""
    from hcrbench.retrieve import checked

    checked.check_params(system.name, params)
    hit = checked.first_non_finite(result.costs.to_dict(), "costs")
    if hit is not None:
        raise InputError(f"{hit} is not a finite number: the manifest records costs as JSON, which has no NaN or "
                         "infinity", field=f"{system.name}.search")
    entry.update({
        "params": _jsonable(params),
        "config_params": _jsonable(system.params),
        "costs": result.costs.to_dict(),
        "seconds": round(seconds, 3),
        "n_queries": len(run.query_ids),
    })
    return run.rename(system.name), entry


def make_retriever_for(system: SystemConfig) -> Any:
    from hcrbench.retrieve import make_retriever

    return make_retriever(system.type, **system.params)


def world_log_path(log_path: Path, world: str) -> Path:
    """``logs/hcr.routing.jsonl`` -> ``logs/hcr.w03.routing.jsonl``: one world's routing log (its tree beside it)."""
    log_path = Path(log_path)
    return log_path.with_name(log_path.name.replace(".routing.jsonl", f".{world}.routing.jsonl"))


def pool_logs(parts: list[Path], out: Path) -> None:
    """The worlds' routing logs (one JSON line per query) as one log at ``out``, world by world: what a reader of
    the whole run's log (the kill baseline's ``top_n_from``) reads; per-world measures read the parts."""
    have = [p for p in parts if p.is_file()]
    if not have:
        Path(out).unlink(missing_ok=True)
        return
    from hcrbench.data.atomic import atomic_open

    with atomic_open(out, "w") as fh:
        for p in have:
            with open(p, encoding="utf-8") as src:
                for line in src:
                    fh.write(line if line.endswith("\n") else line + "\n")


def pool_runs(runs: list[Run], order: list[str]) -> Run:
    """One run of the queries of ``runs`` (disjoint query sets: one per world), in ``order``'s query order."""
    ranked: dict[str, list[tuple[str, float]]] = {}
    for r in runs:
        for q in r.query_ids:
            ranked[q] = r.ranked(q)
    name = runs[0].name if runs else "run"
    return Run.from_ranked({q: ranked[q] for q in order if q in ranked}, name=name)


def pool_corpora(parts: list[Any]) -> Any:
    """One corpus of the units of every world (their ids carry their world, so they never collide)."""
    from hcrbench.data.types import Corpus

    ids, texts, titles, meta = [], [], [], []
    for c in parts:
        ids += list(c.doc_ids)
        texts += list(c.texts)
        titles += list(c.titles)
        meta += list(c.metadata)
    return Corpus(ids, texts, titles, meta, name=parts[0].name if parts else "units")


def _run_one(system: SystemConfig, corpus: Any, queries: Any, data: ExperimentData, k: int, seed: int,
             entry: dict[str, Any]) -> tuple[Run, Any, Any, Any]:
    """Build ``system`` on ``corpus`` and search ``queries``: its top-k document run, its RunResult, the units it
    delivers (``(unit_run, unit_corpus)`` or None) and the retriever (for its params and routing log)."""
    from hcrbench.retrieve import checked

    _seed_everything(seed)
    retriever = make_retriever_for(system)
    if system.chunking is not None:
        from hcrbench.data.chunking import chunk_corpus
        from hcrbench.data.tokens import get_counter

        c = system.chunking
        t_chunk = time.perf_counter()
        chunked = chunk_corpus(corpus, max_tokens=c.max_tokens, overlap=c.overlap,
                               respect_sentences=c.respect_sentences, structure_aware=c.structure_aware,
                               counter=get_counter(c.token_counter))
        chunk_seconds = time.perf_counter() - t_chunk
        checked.index(retriever, system.type, chunked.corpus)
        if system.policy is not None:
            result = _policy_search(system, retriever, chunked.corpus, queries, entry)
        else:
            result = checked.search(retriever, system.type, queries, c.depth or 4 * k, chunked.corpus)
        units = (result.run, chunked.corpus)  # what this system delivers: its own ranked chunks
        run = chunked.doc_run(result.run).top_k(k)
        result.costs.add("chunks_indexed", len(chunked.corpus))
        result.costs.add("chunk_tokens_indexed", sum(m["n_tokens"] for m in chunked.corpus.metadata))
        result.costs.add_time("chunk", chunk_seconds)
        entry["chunking"] = chunked.params
    else:
        checked.index(retriever, system.type, corpus)
        if system.policy is not None:
            result = _policy_search(system, retriever, corpus, queries, entry)
        else:
            result = checked.search(retriever, system.type, queries, k, corpus)
        run = result.run.top_k(k)
        entry["chunking"] = None
        # a retriever that ranks units of its own (chunks, nodes) may expose them: unit_run over unit_corpus
        ur, uc = getattr(retriever, "unit_run", None), getattr(retriever, "unit_corpus", None)
        units = (ur, uc) if ur is not None and uc is not None else None
    return run, result, units, retriever


def _write_tree_log(retriever: Any, log_path: Path | None) -> None:
    """``retriever``'s routing log (and tree) at ``log_path``, if it keeps one (:mod:`tree_step`)."""
    if log_path is not None:
        from hcrbench.experiment.tree_step import write_routing_log

        write_routing_log(retriever, log_path)


def _write_units(system: SystemConfig, units: Any, log_path: Path | None) -> None:
    """The units the system delivers, beside its log (the context step scores these, not the documents:
    docs/context.md); a stale file is removed when the system delivers documents."""
    if log_path is None:
        return
    from hcrbench.context.units import units_path, write_units

    upath = units_path(Path(log_path).parent, system.name)
    if units is not None:
        write_units(upath, units[0], units[1])
    else:
        upath.unlink(missing_ok=True)


def _policy_search(system: SystemConfig, retriever: Any, units: Any, queries: Any, entry: dict[str, Any]):
    """Run the system's policy (e.g. "2-hop@15") over the indexed ``units``; costs summed over queries into the
    result. A plugin's searches see copies of the units and queries that must come back unchanged."""
    from hcrbench.data.types import Costs, RunResult
    from hcrbench.retrieve import checked
    from hcrbench.retrieve.policy import Policy, run_policy

    pol = Policy.parse(system.policy)
    t0 = time.perf_counter()
    if checked.plugin_value(system.type) is None:
        res = run_policy(retriever, units, queries, pol)
    else:
        res = checked.call_guarded(system.type, "search", lambda u, q: run_policy(retriever, u, q, pol),
                                   (units, queries))
    costs = Costs()
    for c in res.costs.values():
        costs.add("policy_retrieval_passes", c.retrieval_passes)
        costs.add("policy_embedding_calls", c.embedding_calls)
        costs.add("policy_chunks_examined", c.chunks_examined)
        costs.add("policy_hops_used", c.hops_used)
    costs.add("queries", len(queries))
    costs.add_time("policy", time.perf_counter() - t0)
    entry["policy"] = pol.to_dict()
    return RunResult(res.run, costs)


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse a ``host:port`` nobody listens on in one line, before Ray would wait for it for minutes."""
    if address == "auto":  # the cluster this machine runs: Ray looks it up itself
        return
    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"Ray address {address!r} is not HOST:PORT (or 'auto')", field="execution.address")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as e:
        raise InputError(f"cannot reach the Ray cluster at {address} ({e.strerror or e}); start it with "
                         f"`ray start --head` there, or leave --address out to start a local Ray",
                         field="execution.address") from None


def env_for_workers() -> dict[str, str]:
    """hcrbench's environment for Ray workers: ``HCRBENCH_*`` (paths made absolute) and the offline switches."""
    out: dict[str, str] = {}
    for k, v in os.environ.items():
        if k.startswith("HCRBENCH_"):
            out[k] = str(Path(v).expanduser().resolve()) if k in ("HCRBENCH_CACHE", "HCRBENCH_HOME") and v else v
        elif k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
            out[k] = v
    return out

