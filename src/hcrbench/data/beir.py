"""BEIR folders (``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``) and JSONL readers/writers.

Corpus lines: ``{"_id", "title", "text", "metadata"?}``; query lines: ``{"_id", "text", "metadata"?}``. Keys other
than those are kept in ``metadata`` so extended corpora (Meridian) round-trip. ``doc_id``/``query_id`` are accepted
in place of ``_id``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_open
from hcrbench.data.compressed import MAX_LINE
from hcrbench.data.ids import check_ids, id_problem
from hcrbench.data.trec import open_lines, read_qrels, write_beir_qrels  # noqa: F401 (write_beir_qrels: public here)
from hcrbench.data.types import Corpus, Qrels, Queries
from hcrbench.errors import InputError, cut

_ID_KEYS = ("_id", "doc_id", "query_id", "id")


def iter_jsonl(path: str | Path, max_line: int = MAX_LINE) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line; errors name the file and line.

    ``max_line`` bounds one line's bytes (a user's file: 1 MiB); a file hcrbench writes with one record per corpus
    (a tree's header lists every chunk) passes a bound that grows with the corpus.
    """
    for n, line in open_lines(path, max_line):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"invalid JSON ({e.msg} at column {e.colno})", path=path, line=n) from None
        except (ValueError, RecursionError) as e:  # e.g. an integer of 4,301+ digits, nesting too deep
            why = "a number of more than 4,300 digits" if "digits" in str(e) else cut(str(e), 120)
            raise InputError(f"invalid JSON ({why})", path=path, line=n) from None
        if not isinstance(obj, dict):
            raise InputError(f"expected a JSON object, got {type(obj).__name__}", path=path, line=n)
        _check_surrogates(obj, line, path, n)
        yield n, obj


def write_jsonl(path: str | Path, rows) -> None:
    """Write dicts as JSON lines atomically (keys in insertion order, UTF-8, no ASCII escaping)."""
    with atomic_open(path, "w") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _get_id(obj: dict[str, Any], path, n: int, query: bool = False) -> str:
    for k in _ID_KEYS:
        if k in obj:
            v = obj[k]
            if not isinstance(v, (str, int)) or isinstance(v, bool) or str(v).strip() == "":
                raise InputError(f"id must be a non-empty string, got {cut(repr(v))}", path=path, line=n, field=k)
            rid = str(v)
            problem = id_problem(rid, query=query)
            if problem is not None:
                raise InputError(f"id {cut(repr(rid))} {problem}", path=path, line=n, field=k)
            return rid
    raise InputError("missing id (expected '_id')", path=path, line=n, field="_id")


def _get_text(obj: dict[str, Any], key: str, path, n: int, required: bool) -> str:
    if key not in obj:
        if required:
            raise InputError(f"missing field '{key}'", path=path, line=n, field=key)
        return ""
    v = obj[key]
    if v is None:
        return ""
    if not isinstance(v, str):
        raise InputError(f"'{key}' must be a string, got {type(v).__name__}", path=path, line=n, field=key)
    return v


#: A JSON escape of a UTF-16 surrogate; a lone one decodes to a str that cannot be encoded as UTF-8.
_ESC_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _check_surrogates(obj: dict[str, Any], line: str, path, n: int) -> None:
    """Refuse a line whose JSON escapes decode to a lone surrogate (only lines holding such an escape are
    checked, so ordinary corpora pay one substring test per line)."""
    if "\\u" not in line or not _ESC_SURROGATE.search(line):
        return
    for k, v in obj.items():
        try:
            json.dumps(v, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InputError("holds a lone surrogate (a \\ud800-\\udfff escape without its pair), which is not "
                             "text", path=path, line=n, field=k) from None


def _metadata(obj: dict[str, Any], skip: tuple[str, ...], path, n: int) -> dict[str, Any]:
    raw = obj.get("metadata")
    if raw is not None and not isinstance(raw, dict):
        raise InputError(f"'metadata' must be a JSON object, got {type(raw).__name__}", path=path, line=n,
                         field="metadata")
    meta = dict(raw or {})
    for k, v in obj.items():
        if k not in skip and k != "metadata" and k not in _ID_KEYS:
            meta.setdefault(k, v)
    return meta


def _read_records(path: str | Path, kind: str, optional: tuple[str, ...]):
    """(ids, texts, {field: values} for ``optional`` text fields, metadata) of a BEIR JSONL file."""
    ids: list[str] = []
    texts: list[str] = []
    extra: dict[str, list[str]] = {f: [] for f in optional}
    metas: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for n, obj in iter_jsonl(path):
        rid = _get_id(obj, path, n, query=kind == "query")
        if rid in seen:
            raise InputError(f"duplicate {kind} id {rid!r} (first on line {seen[rid]})", path=path, line=n,
                             field="_id")
        seen[rid] = n
        ids.append(rid)
        texts.append(_get_text(obj, "text", path, n, required=True))
        for f in optional:
            extra[f].append(_get_text(obj, f, path, n, required=False))
        metas.append(_metadata(obj, ("text", *optional), path, n))
    return ids, texts, extra, metas


def read_corpus(path: str | Path, *, name: str | None = None) -> Corpus:
    """Read a BEIR ``corpus.jsonl``."""
    ids, texts, extra, metas = _read_records(path, "doc", ("title",))
    if not any(t.strip() for t in texts) and not any(t.strip() for t in extra["title"]):
        raise InputError(f"every document's text and title is empty ({len(ids)} documents): nothing to retrieve",
                         path=path, field="text")
    return Corpus(ids, texts, extra["title"], metas, name=name or Path(path).parent.name)


def read_queries(path: str | Path, *, name: str | None = None) -> Queries:
    """Read a BEIR ``queries.jsonl``."""
    ids, texts, _, metas = _read_records(path, "query", ())
    return Queries(ids, texts, metas, name=name or Path(path).parent.name)


def write_corpus(corpus: Corpus, path: str | Path) -> None:
    check_ids(corpus.doc_ids, what="doc id", path=path, field="_id")
    rows = []
    for i, doc_id in enumerate(corpus.doc_ids):
        row: dict[str, Any] = {"_id": doc_id, "title": corpus.titles[i], "text": corpus.texts[i]}
        if corpus.metadata[i]:
            row["metadata"] = corpus.metadata[i]
        rows.append(row)
    write_jsonl(path, rows)


def write_queries(queries: Queries, path: str | Path) -> None:
    check_ids(queries.query_ids, what="query id", path=path, field="_id", query=True)
    rows = []
    for i, qid in enumerate(queries.query_ids):
        row: dict[str, Any] = {"_id": qid, "text": queries.texts[i]}
        if queries.metadata[i]:
            row["metadata"] = queries.metadata[i]
        rows.append(row)
    write_jsonl(path, rows)


@dataclass
class BeirDataset:
    """A loaded BEIR folder: corpus, queries (restricted to the split's judged queries) and qrels."""

    corpus: Corpus
    queries: Queries
    qrels: Qrels
    split: str
    path: Path


def _smart_hint(folder: Path) -> str:
    """A suggestion to convert when ``folder`` holds a SMART collection (Cranfield, CISI) instead of BEIR files."""
    names = {p.name.lower() for p in folder.iterdir() if p.is_file()}
    for collection, marker in (("cranfield", "cran.all.1400"), ("cisi", "cisi.all")):
        if marker in names:
            return (f"; this looks like the SMART collection {collection}: convert it first with `hcrbench convert "
                    f"smart --collection {collection} --in {folder} --out data/{collection}`")
    return ""


def load_beir(folder: str | Path, split: str = "test", *, restrict_queries: bool = True) -> BeirDataset:
    """Load a BEIR folder. Missing files are one-line errors naming what is missing.

    With ``restrict_queries`` only queries that have judgments in the split are kept, as BEIR's loader does.
    ``irds:<id>`` loads an ir_datasets dataset through its BEIR copy (:mod:`hcrbench.data.irds`).
    """
    if str(folder).startswith("irds:"):
        from hcrbench.data.irds import irds_folder

        folder = irds_folder(str(folder), split)
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("BEIR dataset folder not found", path=folder)
    corpus_path = folder / "corpus.jsonl"
    queries_path = folder / "queries.jsonl"
    qrels_path = folder / "qrels" / f"{split}.tsv"
    for p in (corpus_path, queries_path, qrels_path):
        if not p.exists():
            available = sorted(x.stem for x in (folder / "qrels").glob("*.tsv")) if p == qrels_path else []
            hint = f" (available splits: {', '.join(available)})" if available else _smart_hint(folder)
            raise InputError(f"BEIR folder is missing {p.relative_to(folder)}{hint}", path=folder)
    qrels = read_qrels(qrels_path, name=f"{folder.name}/{split}")
    queries = read_queries(queries_path)
    if restrict_queries:
        queries = queries.subset([q for q in qrels.query_ids if q in queries])
    corpus = read_corpus(corpus_path, name=folder.name)
    return BeirDataset(corpus, queries, qrels, split, folder)
