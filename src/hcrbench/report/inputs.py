"""Reading an experiment folder for the report: every file optional, every malformed file one InputError.

The folder is what ``hcrbench run`` / ``hcrbench quickstart`` write (``manifest.json``, ``eval.json``,
``per_query.csv`` / ``per_query.parquet``, and from the protocol ``gate.json``, ``tree_metrics.json``, ``growth.json``,
``verdicts.json``). A file that is absent is ``None`` here (its section says "not run"); a file that is present
but unreadable or of the wrong shape raises :class:`~hcrbench.errors.InputError` naming it, so the report is never
drawn from half a file. Query texts come from the dataset the manifest names, when it is still there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.per_query import read_per_query
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError

VERDICTS_SCHEMA = "hcrbench.verdicts/1"
VERDICT_WORDS = ("go", "soft no-go", "no-go", "kill", "inconclusive", "not run", "invalidated", "stop and diagnose",
                 "not decidable")


@dataclass
class ReportInputs:
    """What the folder holds (``None`` where a file is absent)."""

    folder: Path
    manifest: dict[str, Any] | None = None
    eval: dict[str, Any] | None = None
    per_query: Any = None  # pandas.DataFrame
    gate: dict[str, Any] | None = None
    tree_metrics: dict[str, Any] | None = None
    growth: dict[str, Any] | None = None
    verdicts: dict[str, Any] | None = None
    queries: dict[str, str] = field(default_factory=dict)

    def path(self, name: str) -> Path:
        return self.folder / name


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        doc = read_json(path)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON ({e.msg}, column {e.colno})", path=path, line=e.lineno) from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the file ({e})", path=path) from None
    if not isinstance(doc, dict):
        raise InputError(f"expected a JSON object, got {type(doc).__name__}", path=path)
    return doc


def _need(doc: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path) -> Any:
    if key not in doc:
        raise InputError("missing key", path=path, field=key)
    if not isinstance(doc[key], kind):
        raise InputError(f"expected {getattr(kind, '__name__', 'another type')}, got {type(doc[key]).__name__}",
                         path=path, field=key)
    return doc[key]


def _check_eval(doc: dict[str, Any], path: Path) -> None:
    runs = _need(doc, "runs", dict, path)
    for name, r in runs.items():
        if not isinstance(r, dict) or not isinstance(r.get("means"), dict):
            raise InputError("each run needs a 'means' object", path=path, field=f"runs.{name}")
    if "comparisons" in doc:
        _need(doc, "comparisons", list, path)


def _check_verdicts(doc: dict[str, Any], path: Path) -> None:
    if doc.get("schema") != VERDICTS_SCHEMA:
        raise InputError(f"expected {VERDICTS_SCHEMA!r}, got {doc.get('schema')!r}", path=path, field="schema")
    overall = _need(doc, "overall", str, path)
    if overall not in VERDICT_WORDS:
        raise InputError(f"must be one of {', '.join(VERDICT_WORDS)}; got {overall!r}", path=path, field="overall")
    _need(doc, "bottom_line", str, path)
    for key in ("checkpoints", "hypotheses"):
        items = doc.get(key, [])
        if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
            raise InputError("expected a list of objects", path=path, field=key)
        for i, x in enumerate(items):
            word = x.get("status" if key == "checkpoints" else "verdict")
            if not isinstance(word, str):
                raise InputError("missing its status / verdict word", path=path, field=f"{key}[{i}]")


def _check_tree_metrics(doc: dict[str, Any], path: Path) -> None:
    for name, rep in doc.items():
        if not isinstance(rep, dict) or not isinstance(rep.get("routing"), dict):
            raise InputError("each system's entry needs a 'routing' object (hcrbench tree-metrics --json)",
                             path=path, field=name)


def _check_gate(doc: dict[str, Any], path: Path) -> None:
    _need(doc, "systems", dict, path)
    if doc.get("controls") is not None:
        _need(doc, "controls", dict, path)


def _check_growth(doc: dict[str, Any], path: Path) -> None:
    pts = _need(doc, "points", list, path)
    for i, p in enumerate(pts):
        if not isinstance(p, dict) or not isinstance(p.get("delta"), (int, float)):
            raise InputError("each point needs a numeric 'delta'", path=path, field=f"points[{i}]")


def _query_texts(manifest: dict[str, Any] | None, folder: Path) -> dict[str, str]:
    """Query id -> text from the dataset named in the manifest (empty when it is gone or unreadable)."""
    from hcrbench.gate.integrity import dataset_dir

    try:
        root = dataset_dir(folder, manifest)  # type: ignore[arg-type]  # where a moved folder finds it too
    except (InputError, AttributeError, TypeError):
        return {}
    path = root / "queries.jsonl"
    out: dict[str, str] = {}
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    out[str(rec["_id"])] = str(rec.get("text", ""))
    except (OSError, ValueError, KeyError, TypeError, RecursionError):  # RecursionError: a line nested too deep
        return out
    return out


def load_inputs(folder: str | Path) -> ReportInputs:
    """Read every report input in ``folder`` (see the module docstring)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("not a folder (give an experiment output folder)", path=folder, field="FOLDER")
    inp = ReportInputs(folder)
    checks = {"eval.json": _check_eval, "verdicts.json": _check_verdicts, "gate.json": _check_gate,
              "tree_metrics.json": _check_tree_metrics, "growth.json": _check_growth, "manifest.json": None}
    attrs = {"eval.json": "eval", "verdicts.json": "verdicts", "gate.json": "gate",
             "tree_metrics.json": "tree_metrics", "growth.json": "growth", "manifest.json": "manifest"}
    for name, check in checks.items():
        doc = _read_json(folder / name)
        if doc is not None and check is not None:
            check(doc, folder / name)
        setattr(inp, attrs[name], doc)
    metrics = (inp.eval or {}).get("metrics") if isinstance(inp.eval, dict) else None
    inp.per_query = read_per_query(folder, metrics if isinstance(metrics, list) else None)
    inp.queries = _query_texts(inp.manifest, folder)
    return inp


#: Fields of hcrbench's files whose string values are the user's words (names, ids, paths), not hcrbench's prose.
USER_FIELDS = frozenset({"name", "system", "systems", "baseline", "run", "runs", "dataset", "path", "split", "query",
                         "query_id", "qid", "category", "categories", "config", "config_path", "description",
                         "params", "metric", "metrics", "label"})


def _user_strings(doc: Any, out: set[str], user: bool = False) -> None:
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.add(str(k))
            _user_strings(v, out, user or k in USER_FIELDS)
    elif isinstance(doc, list):
        for v in doc:
            _user_strings(v, out, user)
    elif isinstance(doc, str) and user:
        out.add(doc)


def user_strings(inp: ReportInputs) -> set[str]:
    """Every string of ``inp`` that came from the user (keys, name-like fields, the manifest, per-query table
    values, query ids and texts), so the renderers can show it as written (:func:`hcrbench.report.html.user_text`)."""
    out: set[str] = set()
    for doc, user in ((inp.manifest, True), (inp.eval, False), (inp.gate, False), (inp.tree_metrics, False),
                      (inp.growth, False), (inp.verdicts, False)):
        _user_strings(doc, out, user)
    out.update(inp.queries)
    out.update(inp.queries.values())
    df = inp.per_query
    if df is not None:
        for col in df.columns:
            out.add(str(col))
            if df[col].dtype == object or str(df[col].dtype).startswith(("str", "string")):
                out.update(str(v) for v in df[col].dropna().unique())
    return out
