"""Runs and qrels in the files other tools write, detected by content: ranx's JSON (``{qid: {docid: score}}``,
``ranx.Run.save(..., kind="json")``), parquet (ranx's ``q_id, doc_id, score``, ir_measures' ``query_id, doc_id,
score|relevance``, PyTerrier's ``qid, docno, score|label``), and TREC text (:func:`~hcrbench.data.trec.read_run` /
:func:`~hcrbench.data.trec.read_qrels`) for everything else.

Detection looks at the bytes, not only the name: parquet starts with ``PAR1``, JSON with ``{`` (after blanks);
gzip is looked through. So a ranx JSON run named ``bm25.trec`` still reads, and a TREC run never hits a JSON
parser. A malformed JSON / parquet file is one :class:`~hcrbench.errors.InputError` naming the file.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hcrbench.data.compressed import STREAM_ERRORS, inflate_cap, open_input, stream_error
from hcrbench.data.structured import MAX_JSON_BYTES, check_depth, decode
from hcrbench.data.types import Qrels, Run
from hcrbench.errors import InputError, cut

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


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s object hook: a key given twice is refused (``json`` keeps the last silently: a lost line)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        raise _DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return out


def _read_bytes(path: Path) -> bytes:
    """The file's bytes, a compressed one through :func:`~hcrbench.data.compressed.open_input`'s capped stream
    (the TREC reader's limit), at most :data:`~hcrbench.data.structured.MAX_JSON_BYTES`."""
    try:
        with open_input(path) as fh:
            data = fh.read(MAX_JSON_BYTES + 1)
    except InputError:
        raise
    except STREAM_ERRORS as e:  # a truncated .json.gz raises EOFError: one line naming the file, not Ctrl-C
        raise stream_error(path, e) from None
    if len(data) > MAX_JSON_BYTES:
        raise InputError(f"JSON run is over the {MAX_JSON_BYTES:,} bytes hcrbench reads", path=path)
    return data


def _load_json(path: Path) -> Any:
    text = decode(_read_bytes(path), path=path)
    check_depth(text, path=path)  # a deep nesting is one line, never a RecursionError
    try:
        doc = json.loads(text, object_pairs_hook=_unique_pairs)
    except _DuplicateKey as e:
        raise InputError(f"key {cut(repr(e.key))} appears twice in one object (JSON would keep only the last: "
                         "a line of the run lost silently)", path=path, field="key") from None
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON ({e.msg} at column {e.colno})", path=path, line=e.lineno) from None
    except (ValueError, RecursionError) as e:
        raise InputError(f"not valid JSON: {e}", path=path) from None
    if not isinstance(doc, dict) or not all(isinstance(v, dict) for v in doc.values()):
        raise InputError("a JSON run or qrels must be {query_id: {doc_id: value}} (ranx's JSON)", path=path)
    for qid, docs in doc.items():
        for d, v in docs.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise InputError(f"query {cut(repr(qid))} doc {cut(repr(d))}: value {cut(repr(v))} is not a number",
                                 path=path, field="value")
    return doc


#: Parquet rows always accepted; above, at most one row per byte of the file (a real run takes 4+ bytes a row).
MIN_PARQUET_ROWS = 1 << 20


def _load_frame(path: Path, value: str) -> Any:
    """The parquet file as a DataFrame, bounded before anything is materialised: rows and uncompressed bytes from
    the footer, then the id strings counted on their dictionary (what they would take as Python strings) against
    the TREC reader's decompression limit; a null id is refused, never turned into ``"None"``."""
    try:
        import pandas  # noqa: F401 (to_pandas needs it)
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    except ImportError as e:
        raise InputError(f"reading parquet needs pandas and pyarrow ({e.name} is missing): "
                         "pip install 'hcrbench[parquet]'", path=path) from None
    cap = inflate_cap(path)
    size = path.stat().st_size
    try:
        meta = pq.ParquetFile(path).metadata
        rows = meta.num_rows
        if rows > max(MIN_PARQUET_ROWS, size):
            raise InputError(f"parquet file declares {rows:,} rows in {size:,} bytes: a decompression bomb or a "
                             "damaged file", path=path)
        raw = sum(meta.row_group(g).column(c).total_uncompressed_size
                  for g in range(meta.num_row_groups) for c in range(meta.num_columns))
        if raw > cap:
            raise InputError(f"parquet file expands to {raw:,} bytes, more than {cap:,} (the limit for a "
                             f"{size:,}-byte file): a decompression bomb or a damaged file", path=path)
        schema = pq.read_schema(path)
        text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
                or pa.types.is_binary(f.type)]
        table = pq.ParquetFile(path, read_dictionary=text).read()
    except InputError:
        raise
    except Exception as e:  # pyarrow's errors for a broken file
        raise InputError(f"cannot read parquet: {e}", path=path) from None
    strings = 0
    for name in text:
        for chunk in table.column(name).chunks:
            if pa.types.is_dictionary(chunk.type):
                lengths = pc.binary_length(chunk.dictionary).to_numpy(zero_copy_only=False)
                idx = chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)
                strings += int(lengths[idx].sum()) if len(lengths) else 0
            else:
                strings += chunk.nbytes
        if strings > cap:
            raise InputError(f"parquet file's text columns expand to more than {cap:,} bytes (the limit for a "
                             f"{size:,}-byte file): a decompression bomb or a damaged file", path=path)
    for name in ("query_id", "q_id", "qid", "doc_id", "docid", "docno"):
        if name in table.column_names and table.column(name).null_count:
            row = int(pc.index(pc.is_null(table.column(name)), True).as_py())
            raise InputError(f"row {row + 1}: {name} is null (an id must be a string)", path=path, field=name)
    frame = table.to_pandas()
    frame = frame.rename(columns={k: v for k, v in _RENAME.items() if k in frame.columns})
    cols = set(frame.columns)
    if value == "relevance" and not cols & {"relevance", "label"} and "score" in cols:  # ranx's qrels
        frame = frame.rename(columns={"score": "relevance"})
    for col in ("query_id", "doc_id", "qid", "docno"):
        if col in frame.columns:
            frame[col] = frame[col].astype(str)
    return frame


def _check_ids(obj: Qrels | Run, path: Path) -> None:
    """Ids a run file cannot hold (a newline, a tab, blanks, empty) refused as the TREC reader refuses them: a
    query id holding a newline would forge lines in ``-q --format trec`` output."""
    from hcrbench.data.ids import check_ids

    check_ids(obj.query_ids, what="query id", path=path, field="query_id", query=True)
    check_ids(obj.doc_vocab, what="doc id", path=path, field="doc_id")


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
        run = as_run(src, name=stem)
        _check_ids(run, path)
        return run
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
        qrels = as_qrels(src, name=path.name.split(".")[0])
        _check_ids(qrels, path)
        return qrels
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


@contextlib.contextmanager
def as_trec_file(path: str | Path, tmp_dir: str | Path | None = None) -> Iterator[Path]:
    """``path`` itself for a TREC run; a ranx JSON / parquet run read by its format (with every check above) and
    written as TREC text in a temporary folder, for the readers that go line by line (``validate``, ``merge``,
    ``evaluate --stream``) and would otherwise read JSON as TREC text."""
    path = Path(path)
    if not path.is_file() or sniff(path) == "trec":
        yield path
        return
    from hcrbench.data.trec import write_run

    run = read_any_run(path)
    with tempfile.TemporaryDirectory(prefix="hcrbench-run-", dir=tmp_dir) as tmp:
        text = Path(tmp) / f"{path.name}.trec"
        write_run(run, text)
        yield text
