"""The Ray engine: each experiment cell a Ray task; retries of dead workers counted here, in the driver.

Connects to ``[execution] address`` (checked to be reachable first), or with no address starts a private Ray
on 127.0.0.1 for the run and stops it afterwards. The experiment's data goes to the object store once; every task
gets it by reference. Tasks are submitted with ``max_retries=0`` and resubmitted by the driver when Ray reports
a system failure (worker crashed, node died, object lost, out of memory), so the manifest can say exactly how
many attempts each cell took and where the last one ran. An exception from the cell's own code is not retried.
A progress line shows cells done / running / failed as they finish.
"""

from __future__ import annotations

import logging
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
        return (f"ray: {s['done']}/{total} cells done, {s['running']} running, {s['failed']} failed"
                + (f", {s['retried']} retried" if s["retried"] else ""))

    def run(self, cells: list[Cell], data: Any, on_done: OnDone, tags: dict[str, str] | None = None) -> None:
        ray = self.ray
        self.execution.check_resources([(c.name, c.system.type) for c in cells])
        self._check_feasible(cells)
        remote = ray.remote(_ray_cell)
        data_ref = ray.put(data)
        pending: dict[Any, tuple[Cell, int]] = {}
        failures: dict[str, list[dict[str, Any]]] = {}
        lost: list[str] = []

        def submit(cell: Cell, attempt: int) -> None:
            ref = remote.options(**self._options(cell)).remote(cell, data_ref, attempt)
            pending[ref] = (cell, attempt)

        if self.execution.encode_actors:
            from hcrbench.experiment.ray_encode import prewarm_dense

            for st in prewarm_dense(cells, data, self.execution.encode_actors,
                                    cpus_per_actor=max(1.0, self.execution.num_cpus),
                                    gpus_per_actor=self.execution.num_gpus):
                self._say(f"ray data: {st['system']}: encoded {st['encoded']} of {st['texts']} texts "
                          f"({st['cached_before']} cached) with {st['actors']} actor(s) in {st['seconds']:.1f}s")
        for cell in cells:
            submit(cell, 1)
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
                    cell, attempt = pending.pop(ref)
                    try:
                        out = ray.get(ref)
                    except Exception as e:
                        if not _retryable(ray, e):
                            raise
                        failures.setdefault(cell.name, []).append(
                            {"attempt": attempt, "error": f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"})
                        if attempt <= self.execution.max_retries:
                            self.stats["retried"] += 1
                            self._say(f"{(tags or {}).get(cell.name, cell.name)}: attempt {attempt} failed "
                                      f"({type(e).__name__}); retrying")
                            submit(cell, attempt + 1)
                        else:
                            self.stats["failed"] += 1
                            lost.append(cell.name)
                        continue
                    if isinstance(out, CellFailed):
                        raise CellInputError(cell, out.error())
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
            raise InputError(f"{len(lost)} cell(s) failed on every one of {self.execution.max_retries + 1} "
                             f"attempts: {', '.join(lost)} (last: {last}); the finished cells are saved: re-run "
                             f"to resume, or raise execution.max_retries", field="execution.max_retries")

    def _say(self, line: str) -> None:
        if self.console is not None:
            self.console.print(line)

    def close(self) -> None:
        if self._ours:
            disconnect()

