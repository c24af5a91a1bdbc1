"""``hcrbench evaluate --stream``: the runs read a batch of whole queries at a time (hcrbench.metrics.stream).

Kept beside ``evaluate.py`` so that command stays one straight road: it asks :func:`stream_wanted` and, when yes,
calls :func:`streamed_evaluation` instead of reading the runs whole. The result is the same object with the same
numbers; only the memory differs.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hcrbench.errors import InputError

#: Run files totalling more than this are streamed unless ``--no-stream`` says otherwise.
AUTO_STREAM_BYTES = 2 << 30


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


def streamed_evaluation(qrels: Path, runs: list[Path], measures: list, baseline: str | None, *, dedupe: bool,
                        **options: Any) -> tuple[Any, list[str]]:
    """``(EvaluationResult, run names)`` as ``evaluate`` computes them, each run streamed from its file."""
    from hcrbench.commands.evaluate import _read_inputs, _run_names
    from hcrbench.data.trec import _stem
    from hcrbench.metrics.stream import evaluate_stream

    qr, _ = _read_inputs(qrels, [], dedupe)
    names = _run_names(runs, [SimpleNamespace(name=_stem(Path(p))) for p in runs])
    if baseline is not None and baseline not in names:
        raise InputError(f"no run named {baseline!r} (runs: {', '.join(names)})", field="--baseline")
    result = evaluate_stream(qr, runs, [m.name for m in measures], dedupe=dedupe, names=names, **options)
    return result, names
