"""``hcrbench freeze``: a baseline JSON of an experiment's results, for ``hcrbench check`` to compare against.

What a later check needs and nothing that changes between identical runs (no timestamps, no timings), so the
same results freeze to the same bytes::

    {"schema": "hcrbench.baseline/1", "hcrbench_version": "0.1.0", "experiment": NAME,
     "config": "path/of/config.toml" (relative to the baseline's folder when it can be) | null,
     "config_sha256": ..., "suite": {"kind": "full"} | {"kind": "smoke", "seed", "n", "per_category", "field",
     "query_ids"}, "dataset": {"split", "files": {relpath: sha256}, "key", "n_queries"},
     "metrics": [...], "k", "rel_threshold", "seed", "baseline_system",
     "systems": {NAME: {"type", "params", "fingerprint", "means": {METRIC: x},
                        "per_query": {METRIC: {QID: x}}}},
     "gate": null | {"metric", "baseline", "systems": {NAME: {"pass", "graded_pass", "strict_pass"}},
                     "verdicts": [{"run", "metric", "verdict"}], "controls_trusted": bool | null}}

``per_query`` holds every query of the mean (the runner zero-fills missing ones), so a check pairs query by
query. ``gate`` is read from ``OUT/gate.json`` (the runner's gate step: the ``hcrbench gate --json`` document)
when the folder has one; a verdict is ``HIT+`` / ``HIT-`` (the sign of a significant delta), ``MISS``,
``UNDER-NS`` or ``NULL-FAIL``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hcrbench.data import structured
from hcrbench.data.atomic import atomic_write_text
from hcrbench.errors import InputError
from hcrbench.experiment.manifest import sha256_json

SCHEMA = "hcrbench.baseline/1"


def hcrbench_version() -> str:
    try:
        from importlib.metadata import version

        return version("hcrbench")
    except Exception:  # not installed (PYTHONPATH=src)
        from hcrbench import __version__

        return __version__


def read_json(path: Path, what: str) -> dict[str, Any]:
    """The JSON object in ``path``; a missing, malformed or non-object file is a one-line InputError."""
    try:
        doc = structured.read_json(path, what=what)
    except FileNotFoundError:
        raise InputError(f"{what} not found", path=path) from None
    except InputError as e:  # nesting, size, encoding, syntax: one line naming the line
        raise InputError(f"{what} is not valid JSON ({e.problem})", path=path, line=e.line) from None
    if not isinstance(doc, dict):
        raise InputError(f"{what} is not a JSON object", path=path)
    return doc


def verdict_code(row: dict[str, Any]) -> str:
    """``HIT+`` / ``HIT-`` / ``MISS`` / ``UNDER-NS`` / ``NULL-FAIL`` of one ``verdicts`` row of gate.json."""
    label = str(row.get("label", "UNDER-NS"))
    return f"HIT{row.get('sign', '')}" if label == "HIT" and row.get("sign") in ("+", "-") else label


def gate_summary(doc: dict[str, Any]) -> dict[str, Any]:
    """What a check compares of a gate.json document: pass / fail per system, verdicts, the controls."""
    systems = {}
    for name, pair in sorted((doc.get("systems") or {}).items()):
        graded = (pair or {}).get("graded") or {}
        strict = (pair or {}).get("strict")
        g = bool(graded.get("gate_pass", False))
        s = None if not isinstance(strict, dict) else bool(strict.get("gate_pass", False))
        systems[name] = {"pass": g and s is not False, "graded_pass": g, "strict_pass": s}
    verdicts = [{"run": str(r.get("run")), "metric": str(r.get("metric")), "verdict": verdict_code(r)}
                for r in doc.get("verdicts") or [] if isinstance(r, dict)]
    controls = doc.get("controls")
    return {"metric": doc.get("metric"), "baseline": doc.get("baseline"), "systems": systems,
            "verdicts": verdicts,
            "controls_trusted": bool(controls["trusted"]) if isinstance(controls, dict) and "trusted" in controls
            else None}


def read_gate(folder: Path, *, newer_than: float | None = None) -> dict[str, Any] | None:
    """The gate summary of ``folder/gate.json``; None when there is none (or it is older than ``newer_than``)."""
    path = folder / "gate.json"
    if not path.is_file():
        return None
    if newer_than is not None and path.stat().st_mtime < newer_than:
        return None  # left by an earlier run: not this run's gate
    return gate_summary(read_json(path, "gate.json"))


def baseline_document(folder: str | Path, *, smoke: dict[str, Any] | None = None, config: str | None = None,
                      gate_newer_than: float | None = None, config_text: str | None = None) -> dict[str, Any]:
    """The baseline of the experiment output folder ``folder`` (manifest.json, eval.json, gate.json).

    ``config_text``: the user's config when the folder was written from a copy of it (:func:`run_suite`).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("not an experiment output folder (no such folder)", path=folder)
    manifest = read_json(folder / "manifest.json", "manifest.json (is this an experiment output folder?)")
    if manifest.get("status") != "complete":
        raise InputError(f"the experiment is {manifest.get('status', 'incomplete')!r}, not complete; run it to the "
                         f"end first (hcrbench run CONFIG)", path=folder / "manifest.json", field="status")
    evaluation = read_json(folder / "eval.json", "eval.json")
    runs = evaluation.get("runs")
    if not isinstance(runs, dict) or not runs:
        raise InputError("eval.json holds no runs", path=folder / "eval.json", field="runs")
    entries = manifest.get("systems") or {}
    systems: dict[str, Any] = {}
    for name, run in runs.items():
        entry = entries.get(name) or {}
        systems[name] = {
            "type": entry.get("type"),
            "params": entry.get("config_params", entry.get("params")),
            "fingerprint": entry.get("fingerprint"),
            "means": run.get("means") or {},
            "per_query": run.get("per_query") or {},
        }
    dataset = manifest.get("dataset") or {}
    return {
        "schema": SCHEMA,
        "hcrbench_version": hcrbench_version(),
        "experiment": manifest.get("name"),
        "config": config,
        "config_sha256": sha256_json(config_text) if config_text is not None else manifest.get("config_sha256"),
        "suite": {"kind": "smoke", **smoke} if smoke else {"kind": "full"},
        "dataset": {"split": dataset.get("split"), "files": dataset.get("files") or {}, "key": dataset.get("key"),
                    "n_queries": dataset.get("n_judged_queries")},
        "metrics": manifest.get("metrics") or [],
        "k": manifest.get("k"),
        "rel_threshold": manifest.get("rel_threshold"),
        "seed": manifest.get("seed"),
        "baseline_system": manifest.get("baseline"),
        "systems": systems,
        "gate": read_gate(folder, newer_than=gate_newer_than),
    }


def config_reference(config_path: Path, baseline_path: Path) -> str:
    """How the baseline names its config: relative to the baseline's folder when both are on one drive."""
    try:
        return Path(os.path.relpath(config_path.resolve(), baseline_path.resolve().parent)).as_posix()
    except ValueError:
        return config_path.resolve().as_posix()


def write_baseline(doc: dict[str, Any], path: str | Path) -> Path:
    """Write ``doc`` atomically (sorted keys, so identical results give identical bytes)."""
    from hcrbench.data.outputs import ensure_parent

    path = Path(path)
    ensure_parent(path, field="--out")
    atomic_write_text(path, json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")
    return path


def read_baseline(path: str | Path) -> dict[str, Any]:
    """Read and check a baseline file; a wrong or missing part is a one-line InputError naming the field."""
    path = Path(path)
    doc = read_json(path, "baseline")
    if doc.get("schema") != SCHEMA:
        raise InputError(f"not an hcrbench baseline (schema {doc.get('schema')!r}, expected {SCHEMA!r}); "
                         f"make one with hcrbench freeze", path=path, field="schema")
    systems = doc.get("systems")
    if not isinstance(systems, dict) or not systems:
        raise InputError("no systems", path=path, field="systems")
    for name, s in systems.items():
        if not isinstance(s, dict) or not isinstance(s.get("means"), dict) or not isinstance(s.get("per_query"),
                                                                                             dict):
            raise InputError("needs 'means' and 'per_query' objects", path=path, field=f"systems.{name}")
    if not isinstance(doc.get("dataset"), dict) or not isinstance(doc["dataset"].get("files"), dict):
        raise InputError("needs a 'files' object", path=path, field="dataset")
    return doc
