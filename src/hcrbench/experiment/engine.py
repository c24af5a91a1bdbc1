"""Engines: swappable executors of one cell function, :func:`~hcrbench.experiment.cell.compute_cell`.

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

from typing import Any

from hcrbench.experiment.cell import (  # noqa: F401 (re-exported: the records engines exchange)
    Cell,
    CellFailed,
    CellInputError,
    CellOutput,
    OnDone,
    check_reachable,
    compute_cell,
    env_for_workers,
)
from hcrbench.experiment.execution import ExecutionConfig


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
