"""Classic SMART-format test collections (Cranfield, CISI): documents, queries, judgments, BEIR-ready loaders.

A SMART file is a sequence of records, each opened by ``.I <id>`` and made of fields opened by a one-letter marker
line (``.T`` title, ``.A`` author, ``.B`` source, ``.W`` text, ``.X`` cross-references, ``.K`` keywords, ``.C``
classification, ``.N`` entry date). Files are read line by line through :func:`~hcrbench.data.trec.open_lines`, so
a missing or empty file, bad UTF-8, an unknown marker, an ``.I`` without an id, text before the first ``.I`` or a
duplicate id is a one-line :class:`~hcrbench.errors.InputError` naming file, line and field.

The two collections carry traps that the loaders handle and say out loud (``docs/datasets.md`` has the details):
Cranfield's ``cran.qry`` numbers its queries 1, 2, 4, 8, ... while the judgments number them 1..225 by position,
so queries are renumbered (original ``.I`` kept in metadata); its judgment grades run the wrong way for trec_eval
and its undocumented -1 rows need a stated reading; CISI judges only 76 of its 112 queries.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.beir import BeirDataset
from hcrbench.data.trec import open_lines
from hcrbench.data.types import Corpus, Qrels, Queries
from hcrbench.errors import HcrbenchWarning, InputError

# Marker letter -> metadata key (``I``, ``T`` and ``W`` are the id, title and text).
FIELDS: dict[str, str] = {
    "I": "id", "T": "title", "W": "text", "A": "authors", "B": "source", "X": "cross_refs",
    "K": "keywords", "C": "classification", "N": "date",
}
_MULTI = {"A"}  # fields that legitimately repeat (one .A per author in CISI)
_MARKER = re.compile(r"^\.([A-Z])(?:[ \t]+(.*?))?\s*$")

# cranqrel grade -> trec_eval grade (higher = more relevant). Cranfield's scale (Cleverdon): 1 complete answer,
# 2 high relevance, 3 useful background, 4 minimum interest, 5 no interest. Each query also has exactly one -1 row,
# undocumented in the release; the shared README and ir_datasets read it as "no interest", so it defaults to 0
# (judged, not relevant). Those docs are the strongest lexical match of their query (BM25 ranks them first for a
# third of the queries), as if each were the paper its question was written from; ``minus_one`` chooses another
# reading. docs/datasets.md shows what each reading does to the figures.
CRANQREL_GRADES: dict[int, int] = {1: 4, 2: 3, 3: 2, 4: 1, 5: 0}
# QRelsCorrectedforTRECeval already inverted 1..4 but wrote the -1 rows as 5, i.e. MORE relevant than a complete
# answer; read faithfully, 5 is the -1 row and gets the same ``minus_one`` grade.
CORRECTED_GRADES: dict[int, int] = {1: 1, 2: 2, 3: 3, 4: 4}
MINUS_ONE_DEFAULT = 0


@dataclass
class SmartRecord:
    """One ``.I`` record: its id, the line of its ``.I``, and each field's sections (a field may repeat)."""

    record_id: str
    line: int
    sections: dict[str, list[list[str]]] = field(default_factory=dict)
    order: list[tuple[str, int]] = field(default_factory=list)  # (marker, line) in file order

    def lines(self, marker: str) -> list[str]:
        return [ln for sec in self.sections.get(marker, []) for ln in sec]

    def flat(self, marker: str) -> str:
        """The field's text with whitespace collapsed (lines wrap mid-sentence in these files)."""
        return " ".join(" ".join(self.lines(marker)).split())


def iter_smart_records(path: str | Path, *, fields: str = "TWABXKCN"):
    """Yield :class:`SmartRecord` s from a SMART file; ``fields`` are the allowed markers besides ``.I``."""
    path = Path(path)
    cur: SmartRecord | None = None
    section: list[str] | None = None
    seen: dict[str, int] = {}
    for n, raw in open_lines(path):
        text = raw.rstrip("\r\n")
        m = _MARKER.match(text)
        if m is None:
            if section is None:
                if not text.strip():
                    continue
                where = "before the first .I" if cur is None else f"after .I {cur.record_id} but before any field"
                raise InputError(f"text {where}: {text.strip()[:40]!r}", path=path, line=n, field="record")
            section.append(text)
            continue
        marker, rest = m.group(1), (m.group(2) or "")
        if marker == "I":
            if cur is not None:
                yield cur
            ids = rest.split()
            if len(ids) != 1:
                problem = "missing record id" if not ids else f"record id must be one token, got {rest!r}"
                raise InputError(problem, path=path, line=n, field=".I")
            if ids[0] in seen:
                raise InputError(f"duplicate record id {ids[0]!r} (first on line {seen[ids[0]]})", path=path,
                                 line=n, field=".I")
            seen[ids[0]] = n
            cur, section = SmartRecord(ids[0], n), None
            continue
        if marker not in fields:
            allowed = " ".join(f".{f}" for f in "I" + fields)
            raise InputError(f"unknown field marker .{marker} (expected one of {allowed})", path=path, line=n,
                             field=f".{marker}")
        if cur is None:
            raise InputError(f"field .{marker} before the first .I", path=path, line=n, field=f".{marker}")
        section = [rest] if rest.strip() else []
        cur.sections.setdefault(marker, []).append(section)
        cur.order.append((marker, n))
    if cur is not None:
        yield cur
    else:  # open_lines refuses an all-blank file, so there was text but no record
        raise InputError("no .I record found", path=path, field=".I")


def _repeats(rec: SmartRecord) -> list[tuple[str, int]]:
    """(marker, line) of sections that repeat a field: any repeat, or an ``.A`` reopened after another field."""
    out: list[tuple[str, int]] = []
    prev: str | None = None
    for marker, n in rec.order:
        earlier = [m for m, ln in rec.order if ln < n]
        if marker in earlier and (marker not in _MULTI or prev != marker):
            out.append((marker, n))
        prev = marker
    return out


def _warn_repeats(path: Path, found: list[tuple[str, str, int]]) -> None:
    if not found:
        return
    n_records = len({r for r, _, _ in found})
    shown = ", ".join(f".I {r} (.{m} on line {n})" for r, m, n in found[:6])
    more = f" and {len(found) - 6} more" if len(found) > 6 else ""
    warnings.warn(
        f"{path}: {n_records} record(s) repeat a field after another one, probably damage in the file; the "
        f"sections were kept and joined in file order: {shown}{more}", HcrbenchWarning, stacklevel=3)


def _cross_refs(rec: SmartRecord, path: Path) -> list[list[int]]:
    out: list[list[int]] = []
    for sec_i, sec in enumerate(rec.sections.get("X", [])):
        start = [n for m, n in rec.order if m == "X"][sec_i]
        for j, ln in enumerate(sec, start=1):
            parts = ln.split()
            if not parts:
                continue
            if not all(p.lstrip("-").isdigit() for p in parts):
                raise InputError(f"cross-reference line must hold integers, got {ln.strip()!r}", path=path,
                                 line=start + j, field=".X")
            out.append([int(p) for p in parts])
    return out


def _metadata(rec: SmartRecord, path: Path) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    authors = [a.strip() for a in rec.lines("A") if a.strip()]
    if authors:
        meta["authors"] = authors
    for marker in "BKCN":
        if rec.flat(marker):
            meta[FIELDS[marker]] = rec.flat(marker)
    refs = _cross_refs(rec, path)
    if refs:
        meta["cross_refs"] = refs
    return meta


def read_smart_documents(path: str | Path, *, name: str | None = None) -> Corpus:
    """Read a SMART document file: id from ``.I``, title ``.T``, text ``.W``; the rest goes to metadata.

    Metadata keys: ``authors`` (one per line of the ``.A`` sections), ``source`` (``.B``), ``keywords`` (``.K``),
    ``classification`` (``.C``), ``date`` (``.N``), ``cross_refs`` (``.X``, rows of integers). Whitespace in
    titles and texts is collapsed. A record with a field repeated after another field is kept (sections joined
    in order) and reported in one :class:`HcrbenchWarning`.
    """
    path = Path(path)
    ids: list[str] = []
    titles: list[str] = []
    texts: list[str] = []
    metas: list[dict[str, Any]] = []
    repeats: list[tuple[str, str, int]] = []
    for rec in iter_smart_records(path):
        ids.append(rec.record_id)
        titles.append(rec.flat("T"))
        texts.append(rec.flat("W"))
        metas.append(_metadata(rec, path))
        repeats.extend((rec.record_id, m, n) for m, n in _repeats(rec))
    _warn_repeats(path, repeats)
    return Corpus(ids, texts, titles, metas, name=name or path.parent.name)


def _same_number(original: str, new: str) -> bool:
    return original == new or (original.isdigit() and str(int(original)) == new)


def read_smart_queries(path: str | Path, *, renumber: bool, name: str | None = None) -> tuple[Queries, dict[str, str]]:
    """Read a SMART query file; the query text is ``.W`` (``.T``, ``.A``, ``.B`` go to metadata).

    With ``renumber`` the queries get ids ``"1".."n"`` by position (what judgments that count queries by position
    expect); each keeps its ``.I`` in metadata ``original_id`` and a :class:`HcrbenchWarning` says how many ids
    changed. Returns the queries and the mapping original ``.I`` -> id used (identity without ``renumber``).
    """
    path = Path(path)
    ids: list[str] = []
    texts: list[str] = []
    metas: list[dict[str, Any]] = []
    mapping: dict[str, str] = {}
    repeats: list[tuple[str, str, int]] = []
    for pos, rec in enumerate(iter_smart_records(path, fields="TWABN"), start=1):
        qid = str(pos) if renumber else rec.record_id
        meta = _metadata(rec, path)
        if rec.flat("T"):
            meta = {"title": rec.flat("T"), **meta}
        if renumber:
            meta["original_id"] = rec.record_id
        ids.append(qid)
        texts.append(rec.flat("W"))
        metas.append(meta)
        mapping[rec.record_id] = qid
        repeats.extend((rec.record_id, m, n) for m, n in _repeats(rec))
    _warn_repeats(path, repeats)
    changed = [(o, q) for o, q in mapping.items() if not _same_number(o, q)]
    if renumber and changed:
        eg = ", ".join(f".I {o} -> {q}" for o, q in changed[:3])
        warnings.warn(
            f"{path}: renumbered the {len(ids)} queries 1..{len(ids)} by position because the judgments count "
            f"queries by position; {len(changed)} of them had a different .I ({eg}, ...); the original .I is kept "
            f"in query metadata 'original_id'", HcrbenchWarning, stacklevel=2)
    return Queries(ids, texts, metas, name=name or path.parent.name), mapping


# ------------------------------------------------------------------------------------------------ judgments


def _int(token: str, path: Path, n: int, column: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise InputError(f"expected an integer, got {token!r}", path=path, line=n, field=column) from None


def _table(path: Path, columns: tuple[str, ...]):
    """Yield ``(line, parts)`` of a whitespace-separated file with exactly ``len(columns)`` columns."""
    for n, line in open_lines(path):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != len(columns):
            raise InputError(f"expected {len(columns)} columns ({' '.join(columns)}), found {len(parts)}",
                             path=path, line=n, field="columns")
        yield n, parts


Judgment = tuple[int, str, str, int]  # (line, query id, doc id, grade)


def _judgments_to_qrels(rows: list[Judgment], path: Path, name: str) -> Qrels:
    d: dict[str, dict[str, int]] = {}
    first: dict[tuple[str, str], int] = {}
    for n, q, doc, g in rows:
        if (q, doc) in first:
            raise InputError(f"query {q} doc {doc} judged twice (first on line {first[q, doc]})", path=path,
                             line=n, field="doc")
        first[q, doc] = n
        d.setdefault(q, {})[doc] = g
    order = sorted(d, key=lambda q: (int(q), q) if q.lstrip("-").isdigit() else (0, q))
    return Qrels.from_dict({q: d[q] for q in order}, name=name)


def _mapped(grade: int, table: dict[int, int | None], path: Path, n: int, column: str) -> int | None:
    if grade not in table:
        raise InputError(f"grade must be one of {sorted(table)}, got {grade}", path=path, line=n, field=column)
    return table[grade]


def _grade_table(base: dict[int, int], minus_one_code: int, minus_one: int | None) -> dict[int, int | None]:
    if minus_one is not None and (isinstance(minus_one, bool) or not isinstance(minus_one, int)):
        raise InputError(f"must be an integer grade or None, got {minus_one!r}", field="minus_one")
    return {**base, minus_one_code: minus_one}


def read_cranqrel(path: str | Path, *, minus_one: int | None = MINUS_ONE_DEFAULT) -> Qrels:
    """Read Cranfield's ``cranqrel`` (``query doc grade``, 1 = most relevant) as trec_eval grades.

    Grades map 1->4, 2->3, 3->2, 4->1, 5 ("no interest") -> 0 (:data:`CRANQREL_GRADES`); the -1 rows get
    ``minus_one`` (default 0: judged, not relevant; ``None`` leaves them out). Query ids are positions 1..225.
    """
    path = Path(path)
    table = _grade_table(CRANQREL_GRADES, -1, minus_one)
    rows = [(n, str(_int(p[0], path, n, "query")), str(_int(p[1], path, n, "doc")),
             _mapped(_int(p[2], path, n, "grade"), table, path, n, "grade"))
            for n, p in _table(path, ("query", "doc", "grade"))]
    return _judgments_to_qrels([r for r in rows if r[3] is not None], path, "cranfield")


def read_cranfield_trec_qrels(path: str | Path, *, minus_one: int | None = MINUS_ONE_DEFAULT) -> Qrels:
    """Read ``QRelsCorrectedforTRECeval`` (``qid 0 docid rel``, higher = more relevant) faithfully.

    Grades 1..4 are kept; 5 is that file's rendering of cranqrel's -1 row and gets ``minus_one`` as in
    :func:`read_cranqrel`, so both Cranfield judgment files load to the same qrels.
    """
    path = Path(path)
    table = _grade_table(CORRECTED_GRADES, 5, minus_one)
    rows = [(n, str(_int(p[0], path, n, "qid")), str(_int(p[2], path, n, "docid")),
             _mapped(_int(p[3], path, n, "rel"), table, path, n, "rel"))
            for n, p in _table(path, ("qid", "iter", "docid", "rel"))]
    return _judgments_to_qrels([r for r in rows if r[3] is not None], path, "cranfield")


def read_cisi_rel(path: str | Path) -> Qrels:
    """Read CISI's ``CISI.REL`` (``query doc 0 0.000000``): every line is a relevant document (grade 1).

    The last two columns are constant in the released file and carry no grade; they must be numbers.
    """
    path = Path(path)
    rows: list[Judgment] = []
    for n, p in _table(path, ("query", "doc", "unused", "unused")):
        for col, tok in (("column 3", p[2]), ("column 4", p[3])):
            try:
                float(tok)
            except ValueError:
                raise InputError(f"expected a number, got {tok!r}", path=path, line=n, field=col) from None
        rows.append((n, str(_int(p[0], path, n, "query")), str(_int(p[1], path, n, "doc")), 1))
    return _judgments_to_qrels(rows, path, "cisi")


def _check_ids(qrels: Qrels, queries: Queries, corpus: Corpus, path: Path) -> None:
    """Every judged query and document must exist (a wrong folder or a truncated file would otherwise pass)."""
    for q, docs in qrels.items():
        if q not in queries:
            raise InputError(f"judges query {q}, but the query file has no query {q} ({len(queries)} queries)",
                             path=path, field="query")
        for doc in docs:
            if doc not in corpus:
                raise InputError(f"query {q} judges doc {doc}, which is not in the corpus ({len(corpus)} docs)",
                                 path=path, field="doc")


def _need(folder: Path, *names: str) -> list[Path]:
    if not folder.is_dir():
        raise InputError("collection folder not found", path=folder)
    paths = [folder / n for n in names]
    for p in paths:
        if not p.exists():
            raise InputError(f"collection folder is missing {p.name}", path=folder)
    return paths


def load_cranfield(folder: str | Path, *, minus_one: int | None = MINUS_ONE_DEFAULT) -> BeirDataset:
    """Load Cranfield (``cran.all.1400``, ``cran.qry``, judgments) as a BEIR dataset, split ``test``.

    Judgments come from ``QRelsCorrectedforTRECeval`` when present, else from ``cranqrel``; both give the same
    qrels (see :func:`read_cranqrel`; ``minus_one`` is the grade of the -1 rows). Queries are renumbered 1..225
    by position (warned; see :func:`read_smart_queries`). All 225 queries are judged.
    """
    folder = Path(folder)
    docs_path, qry_path = _need(folder, "cran.all.1400", "cran.qry")
    corpus = read_smart_documents(docs_path, name="cranfield")
    queries, _ = read_smart_queries(qry_path, renumber=True, name="cranfield")
    trec_path, raw_path = folder / "QRelsCorrectedforTRECeval", folder / "cranqrel"
    if trec_path.exists():
        qrels, qrels_path = read_cranfield_trec_qrels(trec_path, minus_one=minus_one), trec_path
    elif raw_path.exists():
        qrels, qrels_path = read_cranqrel(raw_path, minus_one=minus_one), raw_path
    else:
        raise InputError("collection folder has neither QRelsCorrectedforTRECeval nor cranqrel", path=folder)
    _check_ids(qrels, queries, corpus, qrels_path)
    return BeirDataset(corpus, queries, qrels, "test", folder)


def load_cisi(folder: str | Path) -> BeirDataset:
    """Load CISI (``CISI.ALL``, ``CISI.QRY``, ``CISI.REL``) as a BEIR dataset, split ``test``.

    All 112 queries are returned but only the judged ones are in the qrels; a :class:`HcrbenchWarning` names the
    unjudged ones, which metrics must not average in (a run that includes them shows them as run-only).
    """
    folder = Path(folder)
    docs_path, qry_path, rel_path = _need(folder, "CISI.ALL", "CISI.QRY", "CISI.REL")
    corpus = read_smart_documents(docs_path, name="cisi")
    queries, _ = read_smart_queries(qry_path, renumber=False, name="cisi")
    qrels = read_cisi_rel(rel_path)
    _check_ids(qrels, queries, corpus, rel_path)
    judged = set(qrels.query_ids)
    unjudged = [q for q in queries.query_ids if q not in judged]
    if unjudged:
        shown = " ".join(unjudged[:12]) + (" ..." if len(unjudged) > 12 else "")
        warnings.warn(
            f"{rel_path}: only {len(judged)} of the {len(queries)} queries have judgments; {len(unjudged)} have "
            f"none ({shown}) and are left out of the qrels, so metrics average over {len(judged)} queries",
            HcrbenchWarning, stacklevel=2)
    return BeirDataset(corpus, queries, qrels, "test", folder)


COLLECTIONS = {"cranfield": load_cranfield, "cisi": load_cisi}
