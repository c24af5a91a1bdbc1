"""The cell function every engine executes: :func:`compute_cell` runs one system of an experiment
(:func:`run_system`: index, search, its manifest entry), plus the records a cell hands back.

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
        run, entry = run_system(cell.system, data, cell.k, cell.seed,
                                log_path=Path(cell.log_path) if cell.log_path else None)
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
               log_path: Path | None = None) -> tuple[Run, dict[str, Any]]:
    """Index and search one system; returns its document-level run (named after it) and its manifest entry.

    A tree retriever's routing log (and tree) is written to ``log_path`` when given (:mod:`tree_step`)."""
    from hcrbench.retrieve import checked, make_retriever

    _seed_everything(seed)
    t0 = time.perf_counter()
    retriever = make_retriever(system.type, **system.params)
    entry: dict[str, Any] = {"type": system.type}
    if system.chunking is not None:
        from hcrbench.data.chunking import chunk_corpus
        from hcrbench.data.tokens import get_counter

        c = system.chunking
        t_chunk = time.perf_counter()
        chunked = chunk_corpus(data.corpus, max_tokens=c.max_tokens, overlap=c.overlap,
                               respect_sentences=c.respect_sentences, structure_aware=c.structure_aware,
                               counter=get_counter(c.token_counter))
        chunk_seconds = time.perf_counter() - t_chunk
        checked.index(retriever, system.type, chunked.corpus)
        if system.policy is not None:
            result = _policy_search(system, retriever, chunked.corpus, data, entry)
        else:
            result = checked.search(retriever, system.type, data.queries, c.depth or 4 * k, chunked.corpus)
        units = (result.run, chunked.corpus)  # what this system delivers: its own ranked chunks
        run = chunked.doc_run(result.run).top_k(k)
        result.costs.add("chunks_indexed", len(chunked.corpus))
        result.costs.add("chunk_tokens_indexed", sum(m["n_tokens"] for m in chunked.corpus.metadata))
        result.costs.add_time("chunk", chunk_seconds)
        entry["chunking"] = chunked.params
    else:
        checked.index(retriever, system.type, data.corpus)
        if system.policy is not None:
            result = _policy_search(system, retriever, data.corpus, data, entry)
        else:
            result = checked.search(retriever, system.type, data.queries, k, data.corpus)
        run = result.run.top_k(k)
        entry["chunking"] = None
        # a retriever that ranks units of its own (chunks, nodes) may expose them: unit_run over unit_corpus
        ur, uc = getattr(retriever, "unit_run", None), getattr(retriever, "unit_corpus", None)
        units = (ur, uc) if ur is not None and uc is not None else None
    seconds = time.perf_counter() - t0
    if log_path is not None:
        from hcrbench.experiment.tree_step import write_routing_log

        write_routing_log(retriever, log_path)
        from hcrbench.context.units import units_path, write_units

        upath = units_path(Path(log_path).parent, system.name)
        if units is not None:  # the context step scores these, not the documents (docs/context.md)
            write_units(upath, units[0], units[1])
        else:
            upath.unlink(missing_ok=True)
    checked.check_params(system.name, retriever.params)
    hit = checked.first_non_finite(result.costs.to_dict(), "costs")
    if hit is not None:
        raise InputError(f"{hit} is not a finite number: the manifest records costs as JSON, which has no NaN or "
                         "infinity", field=f"{system.name}.search")
    entry.update({
        "params": _jsonable(dict(retriever.params)),
        "config_params": _jsonable(system.params),
        "costs": result.costs.to_dict(),
        "seconds": round(seconds, 3),
        "n_queries": len(run.query_ids),
    })
    return run.rename(system.name), entry


def _policy_search(system: SystemConfig, retriever: Any, units: Any, data: ExperimentData,
                   entry: dict[str, Any]):
    """Run the system's policy (e.g. "2-hop@15") over the indexed ``units``; costs summed over queries into the
    result. A plugin's searches see copies of the units and queries that must come back unchanged."""
    from hcrbench.data.types import Costs, RunResult
    from hcrbench.retrieve import checked
    from hcrbench.retrieve.policy import Policy, run_policy

    pol = Policy.parse(system.policy)
    t0 = time.perf_counter()
    if checked.plugin_value(system.type) is None:
        res = run_policy(retriever, units, data.queries, pol)
    else:
        res = checked.call_guarded(system.type, "search", lambda u, q: run_policy(retriever, u, q, pol),
                                   (units, data.queries))
    costs = Costs()
    for c in res.costs.values():
        costs.add("policy_retrieval_passes", c.retrieval_passes)
        costs.add("policy_embedding_calls", c.embedding_calls)
        costs.add("policy_chunks_examined", c.chunks_examined)
        costs.add("policy_hops_used", c.hops_used)
    costs.add("queries", len(data.queries))
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

