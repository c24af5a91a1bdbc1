"""Engines: swappable executors of one cell function, :func:`compute_cell` (one system of an experiment).

A cell is one ``[[systems]]`` entry (a system × its params × its seed): it indexes and searches on the
experiment's data and hands back its run and manifest entry; it never knows where it runs. The engine calls
``on_done`` in the driver as each cell finishes, and the runner commits the run file atomically and checkpoints
the manifest there, so a cell that dies mid-way leaves nothing behind and a retry is harmless; nothing needs
storage shared between the driver and the workers.

- :class:`LocalEngine` (the default): cells one after another in this process; never imports Ray.
- :class:`RayEngine`: each cell is a Ray task with the ``[execution]`` resource requests. A cell whose worker
  process or node dies is resubmitted (at most ``max_retries`` times); an exception raised by the cell's own
  code is not retried (it would fail the same way) and is raised as a local run would raise it. Each manifest
  entry's ``execution`` records the engine, node id, host name and attempts of its cell.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError
from hcrbench.experiment.config import SystemConfig
from hcrbench.experiment.execution import ExecutionConfig


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
    from hcrbench.experiment.runner import run_system

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


class LocalEngine:
    """Today's behaviour: every cell in this process, in config order."""

    name = "local"

    def __init__(self, console: Any = None) -> None:
        self.console = console

    def run(self, cells: list[Cell], data: Any, on_done: OnDone, tags: dict[str, str] | None = None) -> None:
        for cell in cells:
            tag = (tags or {}).get(cell.name, cell.name)
            if self.console is not None:
                with self.console.status(f"{tag}: indexing and searching ({cell.system.type})..."):
                    out = compute_cell(cell, data)
            else:
                out = compute_cell(cell, data)
            assert isinstance(out, CellOutput)
            out.where["attempts"] = 1
            on_done(cell, out)

    def close(self) -> None:
        pass


def make_engine(execution: ExecutionConfig, console: Any = None) -> LocalEngine | Any:
    """The engine the ``[execution]`` table names (Ray is imported only for ``engine = "ray"``)."""
    if execution.engine == "local":
        return LocalEngine(console)
    from hcrbench.experiment.ray_engine import RayEngine

    return RayEngine(execution, console)


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

