"""Many run files scored at once, one task per file, here or on Ray: the same numbers either way.

:func:`evaluate_runs` gives what :func:`hcrbench.metrics.evaluate` (or, with ``stream``,
:func:`hcrbench.metrics.stream.evaluate_stream`) gives for the same files: each task runs that very function on one
file against the same qrels, and the driver puts the per-run results together in the order of ``paths``. With
``engine="ray"`` the qrels go to the object store once and each file is a Ray task (one CPU; a private Ray on
127.0.0.1 unless ``address`` names a cluster, as ``hcrbench run --engine ray``: :mod:`hcrbench.experiment.
ray_engine`); the files must be readable at the same path on every node. A task's warnings are repeated by the
driver, in run order, and a bad file is the same one-line error as when scored here.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hcrbench.data import Qrels, read_run
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.metrics.evaluate import EvaluationResult, RunEvaluation, evaluate
from hcrbench.metrics.stream import evaluate_stream

ENGINES = ("local", "ray")


def score_file(qrels: Qrels, path: str, name: str, metrics: list[str], stream: bool, dedupe: bool,
               options: dict[str, Any]) -> tuple[RunEvaluation | None, list[str], tuple | None]:
    """One run file's :class:`RunEvaluation` (the task body), the warnings it gave, and an InputError as plain
    ``(problem, path, line, field)`` (exceptions are returned, not raised, so they cross processes intact)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HcrbenchWarning)
        try:
            if stream:
                res = evaluate_stream(qrels, path, metrics, dedupe=dedupe, names=[name], **options)
            else:
                res = evaluate(qrels, {name: read_run(path, dedupe=dedupe)}, metrics, **options)
        except InputError as e:
            return None, [], (e.problem, e.path, e.line, e.field)
    said = [str(w.message) for w in caught if issubclass(w.category, HcrbenchWarning)]
    return res.runs[name], said, None


def evaluate_runs(qrels: Qrels, paths: Sequence[str | os.PathLike], metrics: list[str], *,
                  names: list[str] | None = None, engine: str = "local", address: str | None = None,
                  stream: bool = False, dedupe: bool = False, **options: Any) -> EvaluationResult:
    """Score every file of ``paths`` against ``qrels`` (see the module docstring). ``options`` are
    :func:`~hcrbench.metrics.evaluate`'s (``rel_threshold``, ``missing``, ``max_docs``, ``judged_only``,
    ``subtopics``)."""
    if engine not in ENGINES:
        raise InputError(f"must be one of {', '.join(ENGINES)}, got {engine!r}", field="--engine")
    files = [str(Path(p)) for p in paths]
    names = list(names) if names is not None else [Path(p).name for p in files]
    if not files or len(names) != len(files) or len(set(names)) != len(names):
        raise InputError(f"need one unique name per run file, got {names}", field="runs")
    jobs = [(f, n) for f, n in zip(files, names)]
    if engine == "local":
        outs = [score_file(qrels, f, n, metrics, stream, dedupe, options) for f, n in jobs]
    else:
        outs = _on_ray(qrels, jobs, metrics, stream, dedupe, options, address)
    runs: dict[str, RunEvaluation] = {}
    for (_, name), (run_eval, said, error) in zip(jobs, outs):
        if error is not None:
            problem, path, line, field = error
            raise InputError(problem, path=path, line=line, field=field)
        for message in said:
            warnings.warn(message, HcrbenchWarning, stacklevel=2)
        runs[name] = run_eval  # type: ignore[assignment]
    first = next(iter(runs.values()))
    return EvaluationResult([m.name for m in first.measures], runs, first.ledger.rel_threshold,
                            first.ledger.missing_policy)


def _on_ray(qrels: Qrels, jobs: list[tuple[str, str]], metrics: list[str], stream: bool, dedupe: bool,
            options: dict[str, Any], address: str | None) -> list:
    from hcrbench.experiment.execution import ExecutionConfig
    from hcrbench.experiment.ray_engine import connect, disconnect

    started = connect(ExecutionConfig(engine="ray", address=address))
    import ray

    try:
        task = ray.remote(num_cpus=1, max_retries=2)(score_file)
        qrels_ref = ray.put(qrels)
        refs = [task.remote(qrels_ref, f, n, metrics, stream, dedupe, options) for f, n in jobs]
        return ray.get(refs)
    finally:
        if started:
            disconnect()
