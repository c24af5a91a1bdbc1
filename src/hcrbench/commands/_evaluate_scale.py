"""``hcrbench evaluate`` at scale: runs streamed (``--stream``), a folder of runs, runs scored on Ray (``--engine``).

Kept beside ``evaluate.py`` so that command stays one straight road: it expands folders (:func:`expand_runs`), asks
:func:`scaled_wanted` and, when yes, calls :func:`scaled_evaluation` instead of reading the runs whole here. The
result is the same :class:`~hcrbench.metrics.evaluate.EvaluationResult` with the same numbers; only where and in
how much memory they are computed differs (:mod:`hcrbench.metrics.stream`, :mod:`hcrbench.experiment.evaluate_runs`).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hcrbench.errors import InputError

#: Run files totalling more than this are streamed unless ``--no-stream`` says otherwise.
AUTO_STREAM_BYTES = 2 << 30


def expand_runs(runs: list[Path]) -> list[Path]:
    """Each folder among ``runs`` replaced by its files, sorted by name (hidden files and sub-folders left out)."""
    out: list[Path] = []
    for p in runs:
        if Path(p).is_dir():
            files = sorted(f for f in Path(p).iterdir() if f.is_file() and not f.name.startswith("."))
            if not files:
                raise InputError("the folder holds no run files", path=p, field="RUN")
            out.extend(files)
        else:
            out.append(Path(p))
    return out


def stream_wanted(flag: bool | None, runs: list[Path]) -> bool:
    """``--stream`` / ``--no-stream`` when given; else whether the run files total more than
    :data:`AUTO_STREAM_BYTES`."""
    if flag is not None:
        return flag
    total = 0
    for p in runs:
        try:
            total += Path(p).stat().st_size
        except OSError:
            return False  # the in-memory reader names the missing file
    return total > AUTO_STREAM_BYTES


def scaled_wanted(stream: bool | None, engine: str, runs: list[Path], address: str | None = None) -> bool:
    """Whether the runs go through :func:`scaled_evaluation` (streamed, or another engine than here)."""
    return engine != "local" or address is not None or stream_wanted(stream, runs)


def scaled_evaluation(qrels: Path, runs: list[Path], measures: list, baseline: str | None, *, stream: bool | None,
                      engine: str, address: str | None, dedupe: bool, **options: Any) -> tuple[Any, list[str]]:
    """``(EvaluationResult, run names)`` as ``evaluate`` computes them: each run a task (here or on Ray), read
    whole or streamed."""
    from hcrbench.commands.evaluate import _read_inputs, _run_names
    from hcrbench.data.trec import _stem
    from hcrbench.experiment.evaluate_runs import ENGINES, evaluate_runs

    if engine not in ENGINES:
        raise InputError(f"must be one of {', '.join(ENGINES)}, got {engine!r}", field="--engine")
    if address is not None and engine != "ray":
        raise InputError("--address needs --engine ray", field="--address")
    qr, _ = _read_inputs(qrels, [], dedupe)
    names = _run_names(runs, [SimpleNamespace(name=_stem(Path(p))) for p in runs])
    if baseline is not None and baseline not in names:
        raise InputError(f"no run named {baseline!r} (runs: {', '.join(names)})", field="--baseline")
    result = evaluate_runs(qr, runs, [m.name for m in measures], names=names, engine=engine, address=address,
                           stream=stream_wanted(stream, runs), dedupe=dedupe, **options)
    return result, names
