"""What a system delivers: its own ranked units (chunks, tree nodes, summaries), kept beside its document run.

A chunked or hierarchical system ranks units, not documents; the document run in ``runs/`` (max score per
document) is what trec_eval scores, but a reader gets the units. The runner keeps each such system's unit ranking in
``OUT/logs/<system>.units.jsonl`` (:func:`units_path`), one line per query::

    {"query_id": "q1", "units": [["DOC#c3", "DOC", 1042, 1571, 12.5], ["node:17", null, null, null, 3.1, "text"]]}

A unit is ``[unit_id, doc_id, char_start, char_end, score]``, best first: a span of a document's text
(``corpus[doc_id].text[char_start:char_end]``); a unit that is no span of a document (a summary node) is
``[unit_id, null, null, null, score, text]``. The first line may instead be ``{"unit_set": [[unit_id, doc_id,
char_start, char_end], ...]}``: every span unit the system can deliver (its whole chunking), from which
feasibility in its own units is counted (:func:`read_unit_set`). A system without this file delivers documents
(:func:`hcrbench.context.delivery.document_delivery` delivers them round robin, best passage first).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_open
from hcrbench.data.types import Corpus, Run
from hcrbench.errors import InputError

#: One delivered unit: (unit id, doc id or None, start or None, end or None, score, text or None).
Unit = tuple[str, "str | None", "int | None", "int | None", float, "str | None"]


def units_path(logs_dir: str | Path, system: str) -> Path:
    """Where a system's unit ranking goes: ``<logs_dir>/<system>.units.jsonl``."""
    return Path(logs_dir) / f"{system}.units.jsonl"


def unit_rows(run: Run, units: Corpus, depth: int | None = None) -> Iterable[dict[str, Any]]:
    """The unit ranking of ``run`` (ids of ``units``, a chunk corpus whose metadata hold ``doc_id``,
    ``char_start``, ``char_end``) as file rows, in trec_eval order, at most ``depth`` units per query."""
    pos = {u: i for i, u in enumerate(units.doc_ids)}
    for q in run.query_ids:
        out: list[list[Any]] = []
        for uid, score in run.ranked(q):
            i = pos.get(uid)
            if i is None:
                continue
            meta = units.metadata[i] if units.metadata else {}
            if "char_start" in meta and "doc_id" in meta:
                out.append([uid, meta["doc_id"], int(meta["char_start"]), int(meta["char_end"]), float(score)])
            else:
                out.append([uid, None, None, None, float(score), units.full_text(i)])
            if depth is not None and len(out) >= depth:
                break
        yield {"query_id": q, "units": out}


def write_units(path: str | Path, run: Run, units: Corpus, depth: int | None = None) -> Path:
    """Write ``run``'s unit ranking to ``path`` atomically (see the module docstring for the format)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    universe = [[u, m["doc_id"], int(m["char_start"]), int(m["char_end"])]
                for u, m in zip(units.doc_ids, units.metadata or []) if "char_start" in m and "doc_id" in m]
    with atomic_open(path, "w") as fh:
        if universe:
            fh.write(json.dumps({"unit_set": universe}, ensure_ascii=False) + "\n")
        for row in unit_rows(run, units, depth):
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def read_units(path: str | Path) -> dict[str, list[Unit]]:
    """Read a unit ranking file: ``{query_id: [unit, ...]}`` best first (errors name file, line and field)."""
    path = Path(path)
    out: dict[str, list[Unit]] = {}
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if n == 1 and isinstance(row, dict) and "unit_set" in row:
                    continue
                q = row["query_id"]
                units = row["units"]
            except (ValueError, RecursionError, KeyError, TypeError):
                raise InputError("expected a JSON object with query_id and units", path=path, line=n,
                                 field="units") from None
            got: list[Unit] = []
            for u in units:
                if not isinstance(u, list) or len(u) not in (5, 6):
                    raise InputError(f"a unit must be [id, doc_id, start, end, score(, text)], got {u!r}"[:200],
                                     path=path, line=n, field="units")
                uid, doc, s, e, score = u[:5]
                text = u[5] if len(u) == 6 else None
                if doc is None and text is None:
                    raise InputError(f"unit {uid!r} has neither a document span nor a text", path=path, line=n,
                                     field="units")
                got.append((str(uid), doc, None if s is None else int(s), None if e is None else int(e),
                            float(score), text))
            out[str(q)] = got
    return out


def unit_texts(units: Mapping[str, list[Unit]], doc_texts: Mapping[str, str]) -> dict[str, str]:
    """Every unit's text by id (a span of its document, or its own text)."""
    out: dict[str, str] = {}
    for lst in units.values():
        for uid, doc, s, e, _score, text in lst:
            if uid in out:
                continue
            if doc is not None and doc in doc_texts and s is not None and e is not None:
                out[uid] = doc_texts[doc][s:e]
            else:
                out[uid] = text or ""
    return out


def read_unit_set(path: str | Path) -> list[tuple[str, str, int, int]] | None:
    """The ``unit_set`` line of a unit ranking file (every span unit the system can deliver), or ``None``."""
    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
    try:
        obj = json.loads(first) if first.strip() else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or "unit_set" not in obj:
        return None
    try:
        return [(str(u), str(d), int(a), int(b)) for u, d, a, b in obj["unit_set"]]
    except (TypeError, ValueError):
        raise InputError("unit_set: each unit must be [id, doc_id, start, end]", path=path, line=1,
                         field="unit_set") from None
