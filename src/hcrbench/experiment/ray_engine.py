"""The Ray engine: each experiment cell a Ray task (per world on a dataset of several); retries of dead workers
counted here, in the driver.

Connects to ``[execution] address`` (checked to be reachable first), or with no address starts a private Ray
on 127.0.0.1 for the run and stops it afterwards. The experiment's data goes to the object store once; every task
gets it by reference. Tasks are submitted with ``max_retries=0`` and resubmitted by the driver when Ray reports
a system failure (worker crashed, node died, object lost, out of memory), so the manifest can say exactly how
many attempts each cell took and where the last one ran. An exception from the cell's own code is not retried.
On a dataset of several worlds (:attr:`~hcrbench.experiment.dataset.ExperimentData.worlds`) a cell is one task
per world (:func:`~hcrbench.experiment.world_cell.compute_world`: reused from the folder when its key still holds, else
built and searched on that world), so the worlds of one system run side by side and a world whose worker dies is
the only one retried; the driver pools a cell's worlds in the dataset's order when the last one is back
(:func:`~hcrbench.experiment.world_cell.pool_cell`), and the manifest entry's ``execution.worlds`` says where each ran.
The tasks write routing logs, trees and world parts under the output folder, which a multi-node cluster must
therefore share with the driver.
A progress line shows cells done / running / failed as they finish.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from hcrbench.errors import InputError
from hcrbench.experiment.cell import (
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
from hcrbench.experiment.world_cell import WorldOutput, compute_world, pool_cell


def _import_ray():
    try:
        import ray
    except ImportError:
        raise InputError("engine 'ray' needs Ray: pip install 'hcrbench[ray]'", field="execution.engine") from None
    return ray


def connect(execution: ExecutionConfig) -> bool:
    """``ray.init`` as ``execution`` says (a process already connected keeps its connection); True when this call
    started a private Ray."""
    ray = _import_ray()
    if ray.is_initialized():
        return False
    runtime_env = dict(execution.runtime_env or {})
    env = {**env_for_workers(), **dict(runtime_env.get("env_vars") or {})}
    if env:
        runtime_env["env_vars"] = env
    kw: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.WARNING,
                          "runtime_env": runtime_env or None}
    if execution.address is None:
        ray.init(address="local", _node_ip_address="127.0.0.1", **kw)
        return True
    check_reachable(execution.address)
    try:
        ray.init(address=execution.address, **kw)
    except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as e:
        why = " ".join(str(e).split())
        if isinstance(e, ray.exceptions.AuthenticationError):
            why = ("the cluster refused this driver's token: set RAY_AUTH_TOKEN (or RAY_AUTH_TOKEN_PATH) to the "
                   "cluster's token")
        raise InputError(f"cannot connect to the Ray cluster at {execution.address}: {why[:300]}",
                         field="execution.address") from None
    return False


def disconnect() -> None:
    """Leave the cluster (a Ray this process started stops with it)."""
    ray = _import_ray()
    if ray.is_initialized():
        ray.shutdown()


def _ray_cell(cell: Cell, data: Any, attempt: int) -> CellOutput | CellFailed:
    """The task body: :func:`compute_cell` on a worker (``attempt`` only names the submission)."""
    return compute_cell(cell, data, engine="ray")


def _ray_world(cell: Cell, world: str, data: Any, attempt: int) -> WorldOutput | CellFailed:
    """The task body of one world of a cell: :func:`compute_world` on a worker."""
    return compute_world(cell, world, data, engine="ray")


def _amount(key: str, value: float) -> str:
    return f"memory {value / 2**30:.1f}GiB" if key == "memory" else f"{key} {value:g}"


def _retryable(ray: Any, err: BaseException) -> bool:
    """A failure of the machinery (worker or node died, object lost, OOM kill), not of the cell's code."""
    exc = ray.exceptions
    if isinstance(err, (exc.RayTaskError, exc.TaskCancelledError)):
        return False
    return isinstance(err, exc.RayError)


class RayEngine:
    """Cells as Ray tasks; see the module docstring."""

    name = "ray"

    def __init__(self, execution: ExecutionConfig, console: Any = None) -> None:
        self.execution, self.console = execution, console
        self.ray = _import_ray()
        self._ours = not self.ray.is_initialized()  # a caller's own Ray connection is left open by close()
        self.started = connect(execution)
        self.stats = {"done": 0, "running": 0, "failed": 0, "retried": 0}

    def _options(self, cell: Cell) -> dict[str, Any]:
        res = self.execution.resources_for(cell.name, cell.system.type)
        opts: dict[str, Any] = {"num_cpus": res["num_cpus"], "num_gpus": res["num_gpus"], "max_retries": 0,
                                "retry_exceptions": False, "name": f"hcrbench:{cell.name}"}
        if res["memory"] is not None:
            opts["memory"] = res["memory"]
        return opts

    def _check_feasible(self, cells: list[Cell]) -> None:
        """Refuse a cell no live node can ever hold (Ray would queue it forever), in one line."""
        nodes = [n.get("Resources", {}) for n in self.ray.nodes() if n.get("Alive")]
        for cell in cells:
            res = self._options(cell)
            want = {"CPU": res["num_cpus"], "GPU": res["num_gpus"], "memory": res.get("memory") or 0}
            if any(all(node.get(k, 0) >= v for k, v in want.items()) for node in nodes):
                continue
            have = "; ".join(", ".join(_amount(k, node.get(k, 0)) for k in want) for node in nodes) or "no live node"
            asks = ", ".join(_amount(k, v) for k, v in want.items() if v)
            raise InputError(f"system {cell.name!r} asks for {asks}, more than any node of the cluster has ({have}); "
                             f"lower execution.num_cpus / num_gpus / memory or execution.resources, or add such a "
                             f"node (an autoscaling group must keep one up)", field="execution")

    def _line(self, total: int) -> str:
        s = self.stats
        tasks = f" ({s['world_tasks_done']}/{s['world_tasks']} world tasks)" if s.get("world_tasks") else ""
        return (f"ray: {s['done']}/{total} cells done{tasks}, {s['running']} running, {s['failed']} failed"
                + (f", {s['retried']} retried" if s["retried"] else ""))

    def run(self, cells: list[Cell], data: Any, on_done: OnDone, tags: dict[str, str] | None = None) -> None:
        """Every cell as Ray tasks: one task per cell, or on a dataset of several worlds one per (cell, world),
        each world's part pooled here, in the driver, once the cell's worlds are all back (so the outputs are
        the bytes the local engine writes, and a world that dies is retried alone)."""
        ray = self.ray
        self.execution.check_resources([(c.name, c.system.type) for c in cells])
        self._check_feasible(cells)
        worlds = list(data.worlds)  # computed once here, shipped with the data to every task
        remote_cell, remote_world = ray.remote(_ray_cell), ray.remote(_ray_world)
        data_ref = ray.put(data)
        pending: dict[Any, tuple[Cell, str | None, int]] = {}
        parts: dict[str, dict[str, Any]] = {c.name: {} for c in cells}
        wheres: dict[str, dict[str, dict[str, Any]]] = {c.name: {} for c in cells}
        task_seconds: dict[str, float] = {c.name: 0.0 for c in cells}
        failures: dict[str, list[dict[str, Any]]] = {}
        lost: list[str] = []
        self.stats = {"done": 0, "running": 0, "failed": 0, "retried": 0,  # per call: a batch's own counts
                      "world_tasks": len(cells) * len(worlds), "world_tasks_done": 0}

        def label(cell: Cell, world: str | None) -> str:
            return cell.name if world is None else f"{cell.name} ({world})"

        def submit(cell: Cell, world: str | None, attempt: int) -> None:
            opts = self._options(cell)
            if world is None:
                ref = remote_cell.options(**opts).remote(cell, data_ref, attempt)
            else:
                opts["name"] = f"{opts['name']}:{world}"
                ref = remote_world.options(**opts).remote(cell, world, data_ref, attempt)
            pending[ref] = (cell, world, attempt)

        def world_done(cell: Cell, world: str, out: WorldOutput, attempt: int) -> None:
            parts[cell.name][world] = out.part
            task_seconds[cell.name] += out.seconds
            wheres[cell.name][world] = {**out.where, "attempts": attempt,
                                        "failed_attempts": failures.get(label(cell, world), [])}
            self.stats["world_tasks_done"] += 1
            if len(parts[cell.name]) < len(worlds):
                return
            t0 = time.perf_counter()
            run, entry = pool_cell(cell, data, parts.pop(cell.name), 0.0)
            entry["seconds"] = round(task_seconds[cell.name] + time.perf_counter() - t0, 3)
            per = {w: wheres[cell.name][w] for w in worlds}
            where = {**out.where, "attempts": max(x["attempts"] for x in per.values()),
                     "failed_attempts": [dict(f, world=w) for w, x in per.items() for f in x["failed_attempts"]],
                     "worlds": {w: {k: x[k] for k in ("hostname", "pid", "node_id", "attempts") if k in x}
                                for w, x in per.items()}}
            self.stats["done"] += 1
            on_done(cell, CellOutput(run, entry, where))

        if self.execution.encode_actors:
            from hcrbench.experiment.ray_encode import prewarm_dense

            for st in prewarm_dense(cells, data, self.execution.encode_actors,
                                    cpus_per_actor=max(1.0, self.execution.num_cpus),
                                    gpus_per_actor=self.execution.num_gpus):
                self._say(f"ray data: {st['system']}: encoded {st['encoded']} of {st['texts']} texts "
                          f"({st['cached_before']} cached) with {st['actors']} actor(s) in {st['seconds']:.1f}s")
        for cell in cells:
            for world in worlds or [None]:
                submit(cell, world, 1)
        status = self.console.status(self._line(len(cells))) if self.console is not None else None
        if status is not None:
            status.start()
        try:
            while pending:
                self.stats["running"] = len(pending)
                if status is not None:
                    status.update(self._line(len(cells)))
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                for ref in ready:
                    cell, world, attempt = pending.pop(ref)
                    try:
                        out = ray.get(ref)
                    except Exception as e:
                        if not _retryable(ray, e):
                            raise
                        failures.setdefault(label(cell, world), []).append(
                            {"attempt": attempt, "error": f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"})
                        if attempt <= self.execution.max_retries:
                            self.stats["retried"] += 1
                            tag = (tags or {}).get(cell.name, cell.name) + ("" if world is None else f" ({world})")
                            self._say(f"{tag}: attempt {attempt} failed ({type(e).__name__}); retrying")
                            submit(cell, world, attempt + 1)
                        else:
                            self.stats["failed"] += 1
                            lost.append(label(cell, world))
                        continue
                    if isinstance(out, CellFailed):
                        raise CellInputError(cell, out.error())
                    if world is not None:
                        world_done(cell, world, out, attempt)
                        continue
                    out.where.update(attempts=attempt, failed_attempts=failures.get(cell.name, []))
                    self.stats["done"] += 1
                    on_done(cell, out)
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
        finally:
            if status is not None:
                status.stop()
        self.stats["running"] = 0
        self._say(self._line(len(cells)))
        if lost:
            last = failures[lost[0]][-1]["error"]
            what = "world task(s)" if worlds else "cell(s)"
            raise InputError(f"{len(lost)} {what} failed on every one of {self.execution.max_retries + 1} "
                             f"attempts: {', '.join(lost)} (last: {last}); the finished cells are saved: re-run "
                             f"to resume, or raise execution.max_retries", field="execution.max_retries")

    def _say(self, line: str) -> None:
        if self.console is not None:
            self.console.print(line)

    def close(self) -> None:
        if self._ours:
            disconnect()

