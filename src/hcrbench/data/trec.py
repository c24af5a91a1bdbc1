"""TREC qrels (``qid 0 docid rel``) and run (``qid Q0 docid rank score tag``) files: streaming read, atomic write.

Readers go line by line (gzip detected by magic bytes), accumulate integer codes in compact arrays (int32 codes,
float64 scores; a line number is found by a second pass only when an error needs one) and never hold the text.
Measured (read_run, 5M lines): peak RSS ~250 MB with 100k distinct doc ids; ~960 MB with 5M distinct doc ids,
where the doc-id strings themselves dominate.
Every problem raises :class:`~hcrbench.errors.InputError` naming file, line and field. Like trec_eval, fields are
split on ASCII whitespace only, a run line may carry extra columns after the tag (they are ignored) and the rank
column is ignored (ranking is by score compared as float32, then doc id). Like trec_eval 10.0, a line whose first
non-blank character is ``#`` is a comment, in qrels and runs alike (a ``#`` inside a field, ``CR#93E-1860``, is
part of the id); comments are skipped before the BEIR-header check, so a comment is never a header or a query.
"""

from __future__ import annotations

import math
import re
import warnings
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from hcrbench.data.atomic import atomic_open
from hcrbench.data.compressed import MAX_LINE, STREAM_ERRORS, bounded_lines, open_input, stream_error
from hcrbench.data.ids import check_ids, first_bad_id
from hcrbench.data.pages import small_pages
from hcrbench.data.qrels_fast import read_qrels_columns
from hcrbench.data.trec_fast import read_run_columns
from hcrbench.data.types import Qrels, Run
from hcrbench.errors import HcrbenchWarning, InputError, cut

_BOM = b"\xef\xbb\xbf"


def _raw_lines(path: str | Path, max_line: int = MAX_LINE) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_bytes)`` for each line (1-based); gzip is transparent, a UTF-8 BOM is dropped.

    Raises InputError for a missing file, a directory, an unreadable or corrupt (gzip) file, or an empty file.
    """
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    if path.is_dir():
        raise InputError("is a directory, expected a file", path=path)
    n = 0
    any_content = False
    try:
        with open_input(path) as fh:  # gzip / bzip2 / xz as a capped stream (data.compressed)
            for n, raw in enumerate(bounded_lines(fh, path, max_line), start=1):
                if n == 1 and raw.startswith(_BOM):
                    raw = raw[3:]
                if not any_content and raw.strip():
                    any_content = True
                yield n, raw
    except InputError:
        raise
    except STREAM_ERRORS as e:
        raise stream_error(path, e, line=n + 1 if n else None) from None
    if not any_content:
        raise InputError("file is empty", path=path)


def open_lines(path: str | Path, max_line: int = MAX_LINE) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line (1-based), decoding UTF-8 strictly; gzip is transparent.

    A UTF-8 byte-order mark at the start of line 1 is dropped. Raises InputError for a missing file, an empty
    file, a corrupt gzip stream or bad UTF-8.
    """
    for n, raw in _raw_lines(path, max_line):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"invalid UTF-8 at byte {e.start}", path=path, line=n) from None
        yield n, line


def _fields(raw: bytes, path: Path, n: int) -> list[bytes]:
    """Split a raw line on ASCII whitespace only (as trec_eval does); refuse bad UTF-8 naming the line.

    ``bytes.split()`` splits on space, tab, CR, LF, VT and FF and nothing else, so a doc id containing a
    non-breaking space (U+00A0) or another Unicode space stays one token.
    """
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"invalid UTF-8 at byte {e.start}", path=path, line=n) from None
    return raw.split()


class _Codes:
    """String -> dense integer code, in order of first appearance."""

    __slots__ = ("codes", "names")

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}
        self.names: list[str] = []

    def get(self, s: str) -> int:
        c = self.codes.get(s)
        if c is None:
            c = self.codes[s] = len(self.names)
            self.names.append(s)
        return c


def _group(qcodes: np.ndarray, n_queries: int) -> tuple[np.ndarray | slice, np.ndarray]:
    """Stable order that groups entries by query code, and the CSR offsets."""
    counts = np.bincount(qcodes, minlength=n_queries)
    grouped = not np.any(qcodes[1:] < qcodes[:-1])  # the usual file: no reordering, no copies
    order = slice(None) if grouped else np.argsort(qcodes, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return order, offsets


def _any_duplicate(qcodes: np.ndarray, dcodes: np.ndarray, chunk: int = 1 << 20) -> bool:
    """Whether any (query, doc) pair repeats. Entries grouped by query (the usual file) are checked in chunks cut
    at query boundaries, so the sort never holds more than about ``chunk`` keys."""
    if len(dcodes):  # only a doc that occurs twice in the run can repeat for a query
        many = np.bincount(dcodes)[dcodes] > 1
        if int(np.count_nonzero(many)) < len(dcodes) // 2:
            qcodes, dcodes = qcodes[many], dcodes[many]
    n = len(qcodes)
    grouped = not np.any(qcodes[1:] < qcodes[:-1])
    cuts = [0, n]
    if grouped and n > chunk:
        bounds = np.flatnonzero(qcodes[1:] != qcodes[:-1]) + 1
        cuts = [0, *bounds[np.unique(np.searchsorted(bounds, np.arange(chunk, n, chunk)).clip(0, len(bounds) - 1))]
                .tolist(), n] if len(bounds) else [0, n]
    width = int(dcodes.max(initial=0)) + 1
    for i in range(len(cuts) - 1):
        a, b = cuts[i], cuts[i + 1]
        key = np.sort(qcodes[a:b].astype(np.int64) * width + dcodes[a:b])
        if np.any(key[1:] == key[:-1]):
            return True
    return False


def _first_duplicate(qcodes: np.ndarray, dcodes: np.ndarray) -> np.ndarray:
    """Boolean mask of entries whose (query, doc) pair appeared at an earlier entry (entries are in file order)."""
    if not _any_duplicate(qcodes, dcodes):  # the common case, in little memory
        return np.zeros(len(qcodes), dtype=bool)
    key = qcodes.astype(np.int64) * (int(dcodes.max(initial=0)) + 1) + dcodes
    order = np.argsort(key, kind="stable")
    sk = key[order]
    dup_sorted = np.zeros(len(sk), dtype=bool)
    dup_sorted[1:] = sk[1:] == sk[:-1]
    mask = np.zeros(len(sk), dtype=bool)
    mask[order] = dup_sorted
    return mask


def _is_comment(parts: list[bytes]) -> bool:
    """A line whose first field starts with ``#`` (trec_eval 10.0 skips such lines in qrels and runs)."""
    return parts[0][:1] == b"#"


def _line_of_entry(path: Path, entry: int, skip: int) -> int:
    """Line number of the ``entry``-th (0-based) non-blank, non-comment line after ``skip`` header lines.

    Only called when an error needs it, so readers need not keep a line number per entry in memory.
    """
    seen = -skip
    for n, raw in _raw_lines(path):
        parts = raw.split()
        if parts and not _is_comment(parts):
            if seen == entry:
                return n
            seen += 1
    raise AssertionError("entry beyond end of file")  # pragma: no cover


# --------------------------------------------------------------------------------------------------- qrels


def read_qrels(path: str | Path, *, name: str | None = None) -> Qrels:
    """Read a TREC qrels file (``qid iter docid rel``; BEIR's ``query-id corpus-id score`` TSV also accepted).

    A 3-column file with a header line (``query-id  corpus-id  score``) is read as BEIR qrels. Fields are split on
    ASCII whitespace only, like trec_eval; a grade is a decimal integer that fits in 32 bits. ``#`` comment lines
    are skipped (trec_eval 10.0) before the header check.
    """
    path = Path(path)
    with small_pages():
        fast = read_qrels_columns(path) if path.is_file() else None  # whole blocks at once; None: the loop
        if fast is None:
            qnames, dnames, qa, da, ga, header, ncols = _qrels_lines(path)
        else:
            (qnames, dnames, qa, da, ga), header, ncols = fast, 0, 4
        _check_read_ids(path, qnames, dnames, doc_col=1 if ncols == 3 else 2)
        dup = _first_duplicate(qa, da)
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            raise InputError(
                f"duplicate judgment for query {qnames[qa[i]]!r} doc {dnames[da[i]]!r}",
                path=path, line=_line_of_entry(path, i, header), field="docid",
            )
        order, offsets = _group(qa, len(qnames))
        return Qrels(qnames, offsets, da[order], ga[order], dnames, name=name or _stem(path))


def _qrels_lines(path: Path) -> tuple[list[str], list[str], np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The line loop of :func:`read_qrels`: ``(query names, doc names, query codes, doc codes, grades, header
    lines, columns)``; a bad line is an InputError naming it."""
    q = _Codes()
    d = _Codes()
    qc, dc, gr = array("i"), array("i"), array("i")
    ncols: int | None = None
    header = 0
    for n, raw in _raw_lines(path):
        parts = _fields(raw, path, n)
        if not parts or _is_comment(parts):
            continue
        if ncols is None:
            if len(parts) == 3 and _is_beir_header(parts):
                ncols = 3  # BEIR header line
                header = 1
                continue
            ncols = 3 if len(parts) == 3 else 4
        if len(parts) != ncols:
            want = "3 (query-id corpus-id score)" if ncols == 3 else "4 (qid iter docid rel)"
            raise InputError(f"expected {want} columns, found {len(parts)}", path=path, line=n, field="columns")
        qid, doc, rel = (parts[0], parts[1], parts[2]) if ncols == 3 else (parts[0], parts[2], parts[3])
        if not _INT.fullmatch(rel):
            raise InputError(f"relevance must be an integer, got {_s(rel)!r}", path=path, line=n, field="rel")
        g = int(rel) if len(rel) < 20 else _I32 + 1  # int() of 4,301+ digits raises; any 20 digits is too big
        if not -_I32 <= g <= _I32:
            raise InputError(
                f"relevance {_s(rel)} is out of range (|rel| <= {_I32})", path=path, line=n, field="rel",
            )
        qc.append(q.get(qid.decode()))
        dc.append(d.get(doc.decode()))
        gr.append(g)
    if not qc:
        raise InputError("no judgments in file (only a header?)", path=path)
    return (q.names, d.names, np.frombuffer(qc, dtype=np.int32), np.frombuffer(dc, dtype=np.int32),
            np.frombuffer(gr, dtype=np.int32), header, int(ncols or 4))


def write_qrels(qrels: Qrels, path: str | Path) -> None:
    """Write TREC qrels (``qid 0 docid rel``) atomically; an id the file cannot hold is refused first."""
    check_written_ids(qrels, path, what="qrels")
    with atomic_open(path, "w") as fh:
        vocab = qrels.doc_vocab
        for i, qid in enumerate(qrels.query_ids):
            s, e = int(qrels.offsets[i]), int(qrels.offsets[i + 1])
            for c, g in zip(qrels.doc_index[s:e].tolist(), qrels.grades[s:e].tolist()):
                fh.write(f"{qid} 0 {vocab[c]} {g}\n")


def write_beir_qrels(qrels: Qrels, path: str | Path) -> None:
    """Write BEIR qrels TSV with its header line (ids a TSV cannot hold round-trip are refused first)."""
    check_written_ids(qrels, path, what="qrels")
    with atomic_open(path, "w") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for qid, docs in qrels.items():
            for doc, g in docs.items():
                fh.write(f"{qid}\t{doc}\t{g}\n")


# --------------------------------------------------------------------------------------------------- runs


def read_run(path: str | Path, *, name: str | None = None, dedupe: bool = False) -> Run:
    """Read a TREC run (``qid Q0 docid rank score tag``), plain or gzip.

    A doc listed twice for one query is an error (trec_eval refuses it too) unless ``dedupe`` keeps the first
    occurrence. The run's name is ``name``, else the file stem. Fields are split on ASCII whitespace only; ``#``
    comment lines are skipped, also at the top of the file (trec_eval 10.0).
    """
    path = Path(path)
    with small_pages():
        fast = read_run_columns(path) if path.is_file() else None  # whole blocks at once (trec_fast); None: loop
        if fast is None:
            qnames, dnames, qa, da, sa, extra_cols_line = parse_run_lines(_raw_lines(path), path)
            if extra_cols_line:
                warn_extra_columns(path, extra_cols_line, stacklevel=3)
        else:
            qnames, dnames, qa, da, sa = fast
        return run_from_columns(path, qnames, dnames, qa, da, sa, dedupe=dedupe, name=name or _stem(path))


def parse_run_lines(lines: Iterable[tuple[int, bytes]], path: Path
                    ) -> tuple[list[str], list[str], np.ndarray, np.ndarray, np.ndarray, int]:
    """The line loop of :func:`read_run` over ``(line number, raw line)`` pairs: ``(query names, doc names, query
    codes, doc codes, scores, first line with more than 6 columns or 0)``; a bad line is an InputError naming it."""
    q = _Codes()
    d = _Codes()
    qc, dc = array("i"), array("i")
    sc = array("d")
    extra_cols_line = 0
    q_get, d_get, qc_append, dc_append, sc_append = q.get, d.get, qc.append, dc.append, sc.append  # hot loop
    for n, raw in lines:
        parts = raw.split() if raw.isascii() else _fields(raw, path, n)
        if not parts or parts[0][:1] == b"#":
            continue
        if len(parts) < 6:
            raise InputError(
                f"expected 6 columns (qid Q0 docid rank score tag), found {len(parts)}",
                path=path, line=n, field="columns",
            )
        if len(parts) > 6 and not extra_cols_line:
            extra_cols_line = n
        try:
            score = float(parts[4])
        except ValueError:
            raise InputError(f"score is not a number: {_s(parts[4])!r}", path=path, line=n, field="score") from None
        if b"_" in parts[4]:
            _refuse_underscore(parts[4], path, n)
        if not math.isfinite(score):
            raise InputError(f"score must be finite, got {_s(parts[4])!r}", path=path, line=n, field="score")
        qc_append(q_get(parts[0].decode()))
        dc_append(d_get(parts[2].decode()))
        sc_append(score)
    return (q.names, d.names, np.frombuffer(qc, dtype=np.int32), np.frombuffer(dc, dtype=np.int32),
            np.frombuffer(sc, dtype=np.float64), extra_cols_line)


def warn_extra_columns(path: Path, line: int, stacklevel: int = 2) -> None:
    warnings.warn(
        f"{path}:{line}: run lines have more than 6 columns; the extra ones are ignored "
        "(as trec_eval does)", HcrbenchWarning, stacklevel=stacklevel,
    )


def run_from_columns(path: Path, qnames: list[str], dnames: list[str], qa: np.ndarray, da: np.ndarray,
                     sa: np.ndarray, *, dedupe: bool, name: str, entry_offset: int = 0,
                     check_ids: bool = True) -> Run:
    """A :class:`Run` from parsed columns in file order: ids checked, duplicates refused (or the first kept with
    ``dedupe``), entries grouped by query. ``entry_offset`` (entries of ``path`` before these) lets an error name
    the right line of a file read in parts."""
    if check_ids:  # (a run read in parts checks each part's ids as it is parsed)
        _check_read_ids(path, qnames, dnames, doc_col=2)  # the loop's ids or the fast path's alike
    dup = _first_duplicate(qa, da)
    if dup.any():
        if not dedupe:
            i = int(np.flatnonzero(dup)[0])
            entry = entry_offset + i
            raise InputError(
                f"doc {dnames[da[i]]!r} appears twice for query {qnames[qa[i]]!r} "
                "(use --dedupe to keep the first occurrence)",
                path=path, line=_line_of_entry(path, entry, 0), field="docid",
            )
        keep = ~dup
        qa, da, sa = qa[keep], da[keep], sa[keep]
    order, offsets = _group(qa, len(qnames))
    return Run(qnames, offsets, da[order], sa[order], dnames, name=name)


def write_run(run: Run, path: str | Path, *, tag: str | None = None, k: int | None = None) -> None:
    """Write a TREC run atomically, each query in trec_eval order with ranks 1..n (``.gz`` compresses).

    Scores are written with ``repr`` precision so reading the file back gives the identical run. A NaN or
    infinite score is refused (one line naming the system and query), since every reader refuses it too; so is
    an id the file cannot hold round-trip (whitespace, a control character, empty: :mod:`hcrbench.data.ids`).
    """
    tag = check_writable_run(run, path, tag=tag)
    with atomic_open(path, "w") as fh:
        for qid in run.query_ids:
            ranked = run.ranked(qid)
            if k is not None:
                ranked = ranked[:k]
            fh.writelines(f"{qid} Q0 {doc} {r} {score!r} {tag}\n" for r, (doc, score) in enumerate(ranked, 1))


def check_writable_run(run: Run, path: str | Path, *, tag: str | None = None) -> str:
    """Refuse a run no reader would take back (a non-finite score, an id a run file cannot hold round-trip), one
    line naming the system and query, before anything is written; returns the run tag to write (no blanks)."""
    tag = tag or run.name or "hcrbench"
    tag = "_".join(tag.split()) or "hcrbench"
    bad = np.flatnonzero(~np.isfinite(np.asarray(run.scores, dtype=np.float64)))
    if bad.size:
        i = int(bad[0])
        qid = run.query_ids[int(np.searchsorted(run.offsets, i, side="right")) - 1]
        raise InputError(f"system {tag!r} gave query {qid!r} doc {run.doc_vocab[int(run.doc_index[i])]!r} a "
                         f"non-finite score ({float(run.scores[i])}); refusing to write a run no tool can read "
                         "(a damaged cache or a broken model?)", path=path)
    check_written_ids(run, path, what=f"system {tag!r}")
    return tag


# --------------------------------------------------------------------------------------------------- helpers


_INT = re.compile(rb"[+-]?[0-9]+")
_I32 = 2**31 - 1


def _s(b: bytes) -> str:
    """A raw field as text for an error message (a long one cut, so the message stays one readable line)."""
    return cut(b.decode("utf-8", "replace"), 80)


#: A BEIR header's third column is a word (``score``), never a number: ``2.0`` or ``1e0`` is a grade.
_NUMBER = re.compile(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(inf|infinity|nan)", re.I)


def _is_beir_header(parts: list[bytes]) -> bool:
    """A first 3-column line is a BEIR header when its grade column is not a number at all.

    Detected by content: ``q1 d1 2.0`` is a judgement with a bad grade (an error naming the line), not a header
    to skip silently.
    """
    return not _NUMBER.fullmatch(parts[2])


def _refuse_underscore(field: bytes, path: Path, n: int) -> None:
    """Python's float reads ``1_000`` as 1000, trec_eval's ``atof`` as 1: refuse rather than disagree."""
    raise InputError(f"score {_s(field)!r} holds '_': trec_eval reads it as {_atof_prefix(field)!r}, Python as "
                     f"{float(field)!r}; write the number without '_'", path=path, line=n, field="score")


def _atof_prefix(field: bytes) -> str:
    m = re.match(rb"[+-]?([0-9]*\.?[0-9]*)([eE][+-]?[0-9]+)?", field)
    return (m.group() if m else b"").decode() or "0"


def _check_read_ids(path: Path, qids: list[str], dids: list[str], *, doc_col: int) -> None:
    """Refuse ids read from a TREC file that could not be written back (control characters: whitespace cannot
    reach here, it splits columns). One pass over the distinct ids; the line is looked up only on error."""
    check_ids(qids, what="query id", path=path, field="qid",
              line_of=lambda i: _line_of_field(path, 0, qids[i]))
    if getattr(dids, "checked", False):  # the reader saw only ASCII without control characters
        return
    dids = list(dids)  # a BytesVocab decoded once, not once per pass of the check
    check_ids(dids, what="doc id", path=path, field="docid",
              line_of=lambda i: _line_of_field(path, doc_col, dids[i]))


def _line_of_field(path: Path, col: int, value: str) -> int | None:
    want = value.encode("utf-8", "surrogatepass")
    for n, raw in _raw_lines(path):
        parts = raw.split()
        if len(parts) > col and parts[col] == want and not _is_comment(parts):
            return n
    return None


def check_written_ids(obj: Qrels | Run, path: str | Path, *, what: str) -> None:
    """Refuse to write a run or qrels whose ids a TREC file cannot hold round-trip, naming ``what`` (the system)
    and the id, before anything is written."""
    check_ids(obj.query_ids, what=f"{what}: query id", path=path, query=True)
    vocab = obj.doc_vocab
    if first_bad_id(vocab) is None:
        return
    used = [vocab[c] for c in np.unique(obj.doc_index).tolist()]
    check_ids(used, what=f"{what}: doc id", path=path)


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".trec", ".run", ".txt", ".tsv", ".qrels", ".res"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name
