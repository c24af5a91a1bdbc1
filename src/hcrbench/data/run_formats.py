"""Runs and qrels in the files other tools write, detected by content: ranx's JSON (``{qid: {docid: score}}``,
``ranx.Run.save(..., kind="json")``), parquet (ranx's ``q_id, doc_id, score``, ir_measures' ``query_id, doc_id,
score|relevance``, PyTerrier's ``qid, docno, score|label``), and TREC text (:func:`~hcrbench.data.trec.read_run` /
:func:`~hcrbench.data.trec.read_qrels`) for everything else.

Detection looks at the bytes, not only the name: parquet starts with ``PAR1``, JSON with ``{`` (after blanks);
gzip is looked through. So a ranx JSON run named ``bm25.trec`` still reads, and a TREC run never hits a JSON
parser. A malformed JSON / parquet file is one :class:`~hcrbench.errors.InputError` naming the file.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from hcrbench.data.types import Qrels, Run
from hcrbench.errors import InputError

#: Column spellings of a parquet run / qrels -> ir_measures' (what :mod:`hcrbench.data.interop` reads).
_RENAME = {"q_id": "query_id", "docid": "doc_id"}


def sniff(path: str | Path) -> str:
    """``"parquet"``, ``"json"`` or ``"trec"`` for the file at ``path`` (by its first bytes; gzip looked into)."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as fh:
                head = fh.read(4096)
        elif head != b"PAR1":
            with open(path, "rb") as fh:
                head = fh.read(4096)
    except (OSError, EOFError):
        return "trec"  # the TREC reader says what is wrong with it
    if head[:4] == b"PAR1":
        return "parquet"
    return "json" if head.lstrip()[:1] == b"{" else "trec"


def _load_json(path: Path) -> Any:
    with open(path, "rb") as fh:
        opener = gzip.open if fh.read(2) == b"\x1f\x8b" else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            doc = json.load(fh)
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(f"not valid JSON: {e}", path=path) from None
    if not isinstance(doc, dict) or not all(isinstance(v, dict) for v in doc.values()):
        raise InputError("a JSON run or qrels must be {query_id: {doc_id: value}} (ranx's JSON)", path=path)
    return doc


def _load_frame(path: Path, value: str) -> Any:
    try:
        import pandas as pd

        frame = pd.read_parquet(path)
    except ImportError as e:
        raise InputError(f"reading parquet needs pandas and pyarrow ({e.name} is missing): "
                         "pip install 'hcrbench[parquet]'", path=path) from None
    except Exception as e:  # pyarrow's errors for a broken file
        raise InputError(f"cannot read parquet: {e}", path=path) from None
    frame = frame.rename(columns={k: v for k, v in _RENAME.items() if k in frame.columns})
    cols = set(frame.columns)
    if value == "relevance" and not cols & {"relevance", "label"} and "score" in cols:  # ranx's qrels
        frame = frame.rename(columns={"score": "relevance"})
    for col in ("query_id", "doc_id", "qid", "docno"):
        if col in frame.columns:
            frame[col] = frame[col].astype(str)
    return frame


def read_any_run(path: str | Path, *, name: str | None = None, dedupe: bool = False) -> Run:
    """A run from a TREC, ranx JSON or parquet file (see the module doc); named ``name`` or the file's stem."""
    from hcrbench.data.interop import as_run
    from hcrbench.data.trec import read_run

    path = Path(path)
    kind = sniff(path)
    if kind == "trec":
        try:
            return read_run(path, name=name, dedupe=dedupe)
        except InputError as e:
            if e.field != "columns":
                raise
            raise InputError(f"{e.problem}; hcrbench reads TREC runs, ranx JSON ({{qid: {{docid: score}}}}) and "
                             "parquet (query_id/q_id, doc_id, score)", path=e.path, line=e.line,
                             field=e.field) from None
    stem = name or path.name.split(".")[0]
    try:
        src = _load_json(path) if kind == "json" else _load_frame(path, "score")
        return as_run(src, name=stem)
    except InputError as e:
        if e.path is not None:
            raise
        raise InputError(e.problem, path=path, field=e.field) from None


def read_any_qrels(path: str | Path) -> Qrels:
    """Qrels from a TREC / BEIR TSV, ranx JSON or parquet file (see the module doc)."""
    from hcrbench.data.interop import as_qrels
    from hcrbench.data.trec import read_qrels

    path = Path(path)
    kind = sniff(path)
    if kind == "trec":
        return read_qrels(path)
    try:
        src = _load_json(path) if kind == "json" else _load_frame(path, "relevance")
        return as_qrels(src, name=path.name.split(".")[0])
    except InputError as e:
        if e.path is not None:
            raise
        raise InputError(e.problem, path=path, field=e.field) from None


def run_tag(path: str | Path) -> str | None:
    """The run tag (6th column) of a TREC run's first line, what trec_eval prints as ``runid``; None for a JSON or
    parquet run or a file without one."""
    from hcrbench.data.trec import _raw_lines

    if sniff(path) != "trec":
        return None
    try:
        for _, raw in _raw_lines(path):
            parts = raw.split()
            if parts and parts[0][:1] != b"#":
                return parts[5].decode("utf-8") if len(parts) >= 6 else None
    except (InputError, UnicodeDecodeError):
        return None
    return None
