"""Engines: swappable executors of one cell function, :func:`~hcrbench.experiment.cell.compute_cell`.

A cell is one ``[[systems]]`` entry (a system × its params × its seed): it indexes and searches on the
experiment's data and hands back its run and manifest entry; it never knows where it runs. The engine calls
``on_done`` in the driver as each cell finishes, and the runner commits the run file atomically and checkpoints
the manifest there, so a cell that dies mid-way leaves nothing behind and a retry is harmless; nothing needs
storage shared between the driver and the workers.

- :class:`LocalEngine` (the default): cells one after another in this process; never imports Ray. With
  ``[execution] workers = N`` (0 = every core) the first cell of a batch runs here first (it fills the encoding
  and tree caches its siblings read, as the quickstart's HCR does for its ablations) and the others run in ``N``
  worker processes on this machine, one cell of each system type at a time, committed as each finishes; every
  cell computes the same bytes wherever it runs, so the outputs are those of the one-by-one run.
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
    """Every cell on this machine: one after another in this process, or (``workers`` > 1) the first here and the
    rest in worker processes."""

    name = "local"

    def __init__(self, console: Any = None, workers: int = 1) -> None:
        self.console = console
        from hcrbench.retrieve.runtime import usable_cores

        self.workers = usable_cores() if workers == 0 else int(workers)

    @property
    def first_alone(self) -> bool:
        """Whether :meth:`run` finishes a batch's first cell before it starts any other (a cell that reads the
        first one's logs can then go in the same batch)."""
        return self.workers > 1

    def run(self, cells: list[Cell], data: Any, on_done: OnDone, tags: dict[str, str] | None = None) -> None:
        if self.workers > 1 and len(cells) > 2:
            self._one_by_one(cells[:1], data, on_done, tags)
            self._pool(cells[1:], data, on_done, tags, warm=cells[0].system.type)
        else:
            self._one_by_one(cells, data, on_done, tags)

    def _pool(self, cells: list[Cell], data: Any, on_done: OnDone, tags: dict[str, str] | None,
              warm: str | None = None) -> None:
        """The cells in worker processes, in :func:`chains`: one cell of a chain at a time."""
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        chains = cell_chains(cells, self.workers, warm)
        n = min(self.workers, len(chains))
        if n <= 1:
            self._one_by_one(cells, data, on_done, tags)
            return
        # spawn, not fork: this process may hold thread pools (ONNX, BLAS) that a forked child would inherit locked
        ctx = multiprocessing.get_context("spawn")
        from hcrbench.retrieve.runtime import usable_cores

        share = max(1, usable_cores() // n)  # each worker's cores while the others run beside it
        with ProcessPoolExecutor(n, mp_context=ctx, initializer=_worker_init, initargs=(data, share)) as pool:
            pending = {pool.submit(_worker_cell, chain[0]): chain for chain in chains.values()}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in sorted(done, key=lambda f: pending[f][0].index):  # config order among those done at once
                    chain = pending.pop(fut)
                    cell = chain[0]
                    out = fut.result()  # an exception of the cell's own code is raised here, as locally
                    if isinstance(out, CellFailed):
                        raise CellInputError(cell, out.error())
                    out.where["attempts"] = 1
                    on_done(cell, out)
                    if len(chain) > 1:
                        pending[pool.submit(_worker_cell, chain[1])] = chain[1:]

    def _one_by_one(self, cells: list[Cell], data: Any, on_done: OnDone, tags: dict[str, str] | None) -> None:
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


def cell_chains(cells: list[Cell], workers: int, warm: str | None = None) -> dict[str, list[Cell]]:
    """The cells in chains that run one cell at a time, in config order: one chain per system type, since cells
    of a type share what they build (a tree, an index, the same encodings), which the first builds and the next
    reads from the cache, and two at once would both build it. The ``warm`` type's first cell has already run (in
    the driver), so what its cells share is cached: its cells are dealt round-robin into up to ``workers``
    chains, so that type's many cells (HCR's seeds and ablations) do not keep one worker busy while the others
    wait. A chain of another type that builds a tree (RAPTOR) goes first: its cell is the longest."""
    chains: dict[str, list[Cell]] = {}
    for cell in cells:
        chains.setdefault(cell.system.type, []).append(cell)
    if warm is not None and len(chains.get(warm) or ()) > 1 and workers > 1:
        mine = chains.pop(warm)
        k = min(workers, len(mine))
        split = {f"{warm}#{i}": mine[i::k] for i in range(k)}
        chains = {**split, **chains}  # first: the long chains start first
    # a type that builds a tree of its own no cell has built yet (RAPTOR) is the longest single cell: it starts
    # first, so it does not run alone at the end while the other workers have nothing left
    cold_trees = [t for t in chains if t.split("#")[0] != warm and _builds_tree(t)]
    return {**{t: chains[t] for t in cold_trees}, **chains}


def _builds_tree(type_name: str) -> bool:
    from hcrbench.errors import InputError
    from hcrbench.retrieve.system_traits import traits

    try:
        return traits(type_name).tree
    except InputError:  # a plugin's bad traits are reported where the system is built
        return False


_DATA: Any = None


def _worker_init(data: Any, cores: int | None = None) -> None:
    """A worker process's copy of the experiment's data (sent once, not with every cell) and its share of the
    cores (``cores``: what a cell's own parallel work may use, :func:`hcrbench.retrieve.runtime.cell_cores`)."""
    global _DATA
    import os

    from hcrbench.retrieve.runtime import CELL_CORES_VAR

    os.environ["HCRBENCH_PROGRESS"] = "0"  # the driver's job line is the one progress display
    if cores is not None:
        os.environ[CELL_CORES_VAR] = str(int(cores))
    _DATA = data


def _worker_cell(cell: Cell) -> CellOutput | CellFailed:
    try:
        out = compute_cell(cell, _DATA, engine="worker")  # bad input comes back as fields (it pickles badly)
    finally:
        _stop_loky()
    if isinstance(out, CellOutput):
        out.where["engine"] = "local"
    return out


def _stop_loky() -> None:
    """Stop the joblib (loky) worker processes a cell started (RAPTOR's clustering): a worker process joins its
    children when it exits, and loky's idle ones would hold it (and the pool's shutdown) for their 300 s timeout."""
    import sys

    mod = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(mod, "_executor", None) if mod is not None else None
    if executor is not None:
        executor.shutdown(wait=True)



def make_engine(execution: ExecutionConfig, console: Any = None) -> LocalEngine | Any:
    """The engine the ``[execution]`` table names (Ray is imported only for ``engine = "ray"``)."""
    if execution.engine == "local":
        return LocalEngine(console, execution.workers)
    from hcrbench.experiment.ray_engine import RayEngine

    return RayEngine(execution, console)
