"""The runner's steps after scoring: the gate (``gate.json``), tree metrics (``tree_metrics.json``) and, through a
hook the protocol stage hands in, the verdicts (``verdicts.json``).

The experiment stage produces runs and evaluations; the protocol stage (:mod:`hcrbench.protocol`) consumes them.
So the runner never imports the protocol: ``hcrbench run`` and ``hcrbench quickstart`` pass
:class:`ProtocolHooks` (``hcrbench.protocol.hooks()``) to :func:`~hcrbench.experiment.runner.run_experiment`, whose
``watch`` evaluates the fail-fast checkpoints between systems and whose ``judge`` writes the verdicts.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ProtocolHooks:
    """What the protocol stage gives the runner. ``watch(cfg, data, out)`` returns an object whose
    ``check(runs)`` says why to stop (``--fail-fast``) or None; ``judge(cfg, data, runs, evaluation, doc, tree,
    out, stopped=...)`` returns the verdicts document (and writes it); ``prefetch(cfg, data, out)``, when given,
    starts the judge's own work that needs no test-split result beside the systems' runs and returns an object
    whose ``join()`` the runner calls before ``judge`` and whose ``stop()`` it calls however the run ends."""

    watch: Callable[..., Any]
    judge: Callable[..., dict[str, Any] | None]
    prefetch: Callable[..., Any] | None = None


def after_scoring(cfg: Any, data: Any, runs: dict[str, Any], evaluation: Any, doc: dict, baseline: str, out: Path,
                  console: Any, *, stopped: str | None = None, hooks: ProtocolHooks | None = None
                  ) -> dict[str, Any]:
    """Gate, tree metrics and (with ``hooks`` and a ``[protocol]`` table) verdicts after scoring:
    ``{"gate", "tree_metrics", "verdicts", "timings"}`` (:func:`gate_stage`, then :func:`protocol_stage`)."""
    steps = gate_stage(cfg, data, runs, baseline, out, console)
    verdicts, timings = protocol_stage(cfg, data, runs, evaluation, doc, baseline, steps["tree_metrics"], out,
                                       stopped=stopped, hooks=hooks)
    return {**steps, "verdicts": verdicts, "timings": {**steps["timings"], **timings}}


def gate_stage(cfg: Any, data: Any, runs: dict[str, Any], baseline: str, out: Path, console: Any
               ) -> dict[str, Any]:
    """The gate (``gate.json``, removed when the config has none) and the tree metrics of every system with a
    routing log: ``{"gate", "tree_metrics", "timings"}``."""
    from hcrbench.experiment.gate_step import gate_step
    from hcrbench.experiment.tree_step import tree_step

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    gate = None
    if cfg.gate is not None and cfg.gate.enabled:
        with console.status(f"gate: {len(runs)} systems x 4 nulls x {cfg.gate.n_trials} trials"
                            + (" + controls" if cfg.gate.controls else "") + "..."):
            gate = gate_step(cfg, data, runs, baseline, out)
        timings["gate_seconds"] = round(time.perf_counter() - t0, 3)
    else:
        gate_step(cfg, data, runs, baseline, out)  # removes a stale gate.json
    t1 = time.perf_counter()
    tree = tree_step(list(runs), data, out, rel_threshold=cfg.rel_threshold, seed=cfg.seed)
    timings["tree_metrics_seconds"] = round(time.perf_counter() - t1, 3)
    return {"gate": gate, "tree_metrics": tree, "timings": timings}


def protocol_stage(cfg: Any, data: Any, runs: dict[str, Any], evaluation: Any, doc: dict, baseline: str,
                   tree: dict[str, Any] | None, out: Path, *, stopped: str | None = None,
                   hooks: ProtocolHooks | None = None) -> tuple[dict[str, Any] | None, dict[str, float]]:
    """The verdicts (with ``hooks`` and a ``[protocol]`` table; a warning when the hooks are missing) and their
    timing: ``(verdicts or None, timings)``."""
    from hcrbench.errors import HcrbenchWarning

    if cfg.protocol is None:
        return None, {}
    if hooks is None:
        warnings.warn("the [protocol] table is judged by `hcrbench run` / hcrbench.protocol.run_protocol; "
                      "run_experiment without protocol hooks writes no verdicts.json", HcrbenchWarning,
                      stacklevel=4)
        return None, {}
    t2 = time.perf_counter()
    verdicts = hooks.judge(cfg, data, runs, evaluation, {**doc, "baseline_name": baseline}, tree, out,
                           stopped=stopped)
    return verdicts, {"verdicts_seconds": round(time.perf_counter() - t2, 3)}
