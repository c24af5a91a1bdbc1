"""Re-derive an experiment folder's stored numbers from its runs: per-query values, means, paired comparisons
(deltas, intervals, p values), and the per-query tables, so that ``lock`` refuses and ``verify`` flags by name a
number that was edited before locking.

Hashes alone vouch only for "unchanged since the lock"; a value edited *before* ``hcrbench lock`` would be
hashed and vouched for. The intervals, p values and the report rest on the per-query values, so every one of
them is recomputed here with the runner's own calls (``metrics.evaluate`` of all runs, then ``stats.compare``
with the manifest's baseline, resamples, seed and family) and compared field by field, each mismatch one line
naming the file, the run, the metric and the query or field.
"""

from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import Any

from hcrbench.data.structured import read_json
from hcrbench.errors import InputError

#: Stored and recomputed numbers are written from the same doubles; anything further apart was edited.
TOLERANCE = 1e-9
#: At most this many mismatches are named per file (then a count).
MAX_LINES = 20


def _differ(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a != b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a) or math.isnan(b):
            return not (math.isnan(a) and math.isnan(b))
        return abs(float(a) - float(b)) > TOLERANCE * max(1.0, abs(float(b)))
    return a != b


def _walk(stored: Any, fresh: Any, where: str, out: list[str]) -> None:
    """Append one ``where: stored X, re-derived Y`` line per differing leaf."""
    if isinstance(fresh, dict):
        if not isinstance(stored, dict):
            out.append(f"{where}: stored {_short(stored)}, re-derived an object")
            return
        for k in list(fresh) + [k for k in stored if k not in fresh]:
            _walk(stored.get(k), fresh.get(k), f"{where} {k}".strip(), out)
    elif isinstance(fresh, list):
        if not isinstance(stored, list) or len(stored) != len(fresh):
            out.append(f"{where}: stored {_short(stored)}, re-derived a list of {len(fresh)}")
            return
        for i, (s, f) in enumerate(zip(stored, fresh)):
            _walk(s, f, f"{where}[{i}]", out)
    elif _differ(stored, fresh):
        out.append(f"{where}: stored {_short(stored)}, re-derived {_short(fresh)}")


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else f"{type(v).__name__} ({len(text)} characters)"


def _named(path: Path, lines: list[str]) -> list[str]:
    head = [f"{path}: {ln}" for ln in lines[:MAX_LINES]]
    if len(lines) > MAX_LINES:
        head.append(f"{path}: ... and {len(lines) - MAX_LINES} more stored values that do not re-derive")
    return head


def rederive(d: Path, manifest: dict[str, Any], ds: Path, *, means: bool = True) -> list[str]:
    """Every stored number in ``d`` (``eval.json`` runs and comparisons, ``per_query.csv`` / ``.parquet``) that
    does not match a re-evaluation of ``d/runs``; one line each (capped per file), empty when all match.

    ``means=False`` leaves the means out (``verify`` re-evaluates and names them itself); ``lock`` checks them
    here, so an edited mean is refused before a lock would vouch for it."""
    from hcrbench.data import read_qrels, read_run
    from hcrbench.metrics import evaluate
    from hcrbench.stats import compare, evaluation_json

    split = str((manifest.get("dataset") or {}).get("split") or "test")
    qpath = ds / "qrels" / f"{split}.tsv"
    metrics = list(manifest.get("metrics") or [])
    systems = manifest.get("systems") or {}
    if not qpath.is_file() or not metrics or not isinstance(systems, dict) or not systems:
        return [f"{d / 'manifest.json'}: cannot re-derive the stored numbers (qrels {qpath} / metrics / systems "
                "missing)"]
    try:
        qrels = read_qrels(qpath)
        runs = {name: read_run(d / info["run"], name=name) for name, info in systems.items()}
        evaluation = evaluate(qrels, runs, metrics, rel_threshold=int(manifest.get("rel_threshold", 1)),
                              missing="zero")
        conf = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
        setting = {k: conf.get(k, manifest.get(k)) for k in ("baseline", "n_resamples", "seed", "family")}
        baseline = manifest.get("baseline") or setting["baseline"] or next(iter(runs))
        comparisons = compare(evaluation, baseline=baseline, n_resamples=int(setting["n_resamples"] or 10_000),
                              seed=int(setting["seed"] or 0), family=str(setting["family"] or "run")) \
            if len(runs) > 1 else []
        fresh = evaluation_json(evaluation, comparisons)
        stored = read_json(d / "eval.json")
    except (InputError, KeyError, TypeError, ValueError, OSError) as e:
        return [f"{d}: cannot re-derive the stored numbers: {e}"]
    problems: list[str] = []
    lines: list[str] = []
    # A part eval.json does not hold at all (an older or hand-made file) has nothing to vouch for; a part it
    # holds is compared whole (a query deleted from a per-query table is a mismatch).
    stored = stored if isinstance(stored, dict) else {}
    stored_runs = stored.get("runs") if isinstance(stored.get("runs"), dict) else {}
    skip = () if means else ("means",)
    fresh_runs = {n: {k: v for k, v in r.items() if k not in skip
                      and (k in stored_runs[n] if isinstance(stored_runs.get(n), dict) else True)}
                  for n, r in fresh["runs"].items()}
    stored_runs = {n: {k: v for k, v in r.items() if k not in skip} if isinstance(r, dict) else r
                   for n, r in stored_runs.items()}
    _walk(stored_runs, fresh_runs, "", lines)
    if "comparisons" in stored:
        _walk(stored.get("comparisons"), fresh["comparisons"], "comparisons", lines)
    problems += _named(d / "eval.json", lines)
    problems += _per_query_tables(d, evaluation, metrics)
    return problems


def _per_query_tables(d: Path, evaluation: Any, metrics: list[str]) -> list[str]:
    import pandas as pd

    from hcrbench.data.per_query import CSV, PARQUET, has_pyarrow

    fresh = evaluation.per_query.reset_index(drop=True)
    want = {(str(r), str(q)): row for r, q, row in zip(fresh["run"], fresh["query_id"],
                                                         fresh[metrics].to_dict("records"))}
    problems: list[str] = []
    for name in (CSV, PARQUET):
        path = d / name
        if not path.is_file() or (name == PARQUET and not has_pyarrow()):
            continue
        try:
            df = pd.read_parquet(path) if name == PARQUET else pd.read_csv(path, dtype=str, keep_default_na=False)
            got = {(str(r), str(q)): {m: row.get(m) for m in metrics}
                   for r, q, row in zip(df["run"], df["query_id"], df.to_dict("records"))}
        except Exception as e:  # any unreadable table is one drift line, not a traceback
            problems.append(f"{path}: unreadable ({type(e).__name__}: {e})")
            continue
        lines: list[str] = []
        for key in sorted(set(want) | set(got)):
            if key not in got or key not in want:
                lines.append(f"{key[0]} {key[1]}: {'missing' if key not in got else 'not a re-derived row'}")
                continue
            for m in metrics:
                s = got[key][m]
                with contextlib.suppress(TypeError, ValueError):
                    s = float(s)
                if _differ(s, float(want[key][m])):
                    lines.append(f"{key[0]} {m} {key[1]}: stored {_short(s)}, re-derived {want[key][m]!r}")
        problems += _named(path, lines)
    return problems
