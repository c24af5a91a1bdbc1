"""A TREC run read a batch of whole queries at a time, in memory bounded by the batch, not by the run.

:func:`iter_run_batches` yields :class:`~hcrbench.data.Run` objects that each hold every line of their queries,
so a measure computed per batch is the measure of the whole run (every trec_eval measure depends on one query's
lines only). Parsing, validation and error messages are :func:`~hcrbench.data.trec.read_run`'s (same block parser,
same line loop, same id and duplicate checks; an error names the file's own line).

Two ways through the file:

* **Grouped** (the usual run: all lines of a query together, in any query order): blocks are gathered until a batch
  holds about ``batch_bytes``, cut before the trailing lines of its last query (they start the next batch), parsed
  and yielded. One read, nothing written. Memory: one batch (or one query, if a query is larger).
* **Ungrouped** (a query's lines in several places, e.g. shard runs concatenated): noticed when a query seen in
  an earlier batch comes back. Then the file is read again from the start, each batch's entries are spilled to
  ``n`` bucket files by a hash of the query id (``n`` = file size / ``batch_bytes``, so a bucket is about one
  batch), and each bucket is read back as one batch. Every query lies in one bucket and keeps its lines in file
  order (so ``dedupe`` keeps the first occurrence, as read_run). Disk: about the run text's size, in a
  temporary folder removed afterwards. Memory: one bucket.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hcrbench.data.run_formats import as_trec_file
from hcrbench.data.trec import (
    _INT,
    _check_read_ids,
    _first_duplicate,
    _group,
    _line_of_entry,
    _raw_lines,
    _stem,
    parse_run_lines,
    run_from_columns,
    warn_extra_columns,
)
from hcrbench.data.trec_fast import (
    MAX_FIELD,
    _blocks,
    _drop_comments,
    _fields,
    _first_codes,
    _matrix,
    _same_rows,
    parse_blocks,
)
from hcrbench.data.types import Run
from hcrbench.data.vocab import BytesVocab, decode_all, fixed_width, keys_of
from hcrbench.errors import InputError

#: Default batch size (bytes of run text): ~250k lines of a typical run, ~70 MB of memory while scored. Larger
#: batches cost as much time per line and hold more memory (at 128 MiB, more than reading the run whole).
BATCH_BYTES = 16 << 20


class RunNotGrouped(Exception):
    """A query's lines are not together in the file (internal signal: :func:`iter_run_batches` then spills)."""


def _tail(block: bytes) -> tuple[int, bytes | None]:
    """``(offset, query id)``: where the trailing lines of ``block``'s last query begin (0: the whole block, blank
    and comment lines aside, is that query) and that query's id (None: the block holds no entry)."""
    last: bytes | None = None
    pos = len(block)
    while pos > 0:
        start = block.rfind(b"\n", 0, pos - 1) + 1
        parts = block[start:pos].split(None, 1)
        if parts and parts[0][:1] != b"#":
            if last is None:
                last = parts[0]
            elif parts[0] != last:
                return pos, last
        pos = start
    return 0, last


def _first_query(block: bytes) -> bytes | None:
    """The query id of ``block``'s first entry (None: only blank and comment lines)."""
    pos = 0
    while pos < len(block):
        end = block.find(b"\n", pos)
        end = len(block) if end < 0 else end
        parts = block[pos:end].split(None, 1)
        if parts and parts[0][:1] != b"#":
            return parts[0]
        pos = end + 1
    return None


def _grouped_parts(path: Path, batch_bytes: int) -> Iterator[list[bytes]]:
    """Lists of blocks, each ending at a query boundary and holding at least ``batch_bytes`` (but the last): a
    full batch is cut before the trailing lines of its last query, or before a block that starts another query."""
    pending: list[bytes] = []
    size = 0
    last: bytes | None = None  # the query id of the last entry in ``pending``
    for block in _blocks(path):
        if size >= batch_bytes and last is not None:  # the batch is full, but its last query filled its last block
            first = _first_query(block)
            if first is not None and first != last:
                yield pending
                pending, size = [], 0
        pending.append(block)
        size += len(block)
        cut, tail = _tail(block)
        last = tail if tail is not None else last
        if size >= batch_bytes and cut > 0:
            yield [*pending[:-1], block[:cut]]
            pending = [block[cut:]]
            size = len(pending[0])
    if pending:
        yield pending


def _parse(path: Path, blocks: list[bytes], first_line: int):
    """``(query names, doc names, query codes, doc codes, scores)`` of ``blocks`` (their first line is line
    ``first_line`` of the file): the block parser, else the line loop (which names a bad line)."""
    fast = parse_blocks(blocks)
    if fast is not None:
        return fast, 0
    data = b"".join(blocks)
    lines = data.split(b"\n")[:-1]  # every block ends with a newline
    *cols, extra = parse_run_lines(zip(range(first_line, first_line + len(lines)), lines), path)
    return tuple(cols), extra


@dataclass
class RunBatch:
    """One batch: a :class:`Run` of whole queries and, per query of ``run.query_ids``, the position of its first
    line among the file's entries (so a caller can put queries back in file order)."""

    run: Run
    first_entry: np.ndarray
    #: Entries read for the batch's queries, before ``dedupe`` dropped any.
    n_read: int = -1
    #: With ``texts``: each entry's raw ``Q0``, rank, score and tag fields (bytes arrays, in ``run``'s entry order;
    #: the rank as an int64, :data:`NO_RANK` where it is not an integer).
    columns: dict[str, np.ndarray] | None = None
    #: With ``texts``: per query (rows in ``run.query_ids`` order) and input file, the position of the query's
    #: first line in that file among the concatenation's entries (-1: not in that file).
    file_first: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.n_read < 0:
            self.n_read = self.run.n_entries


def iter_run_batches(paths: str | Path | list, *, batch_bytes: int = BATCH_BYTES, dedupe: bool = False,
                     name: str | None = None, spill: bool = False, tmp_dir: str | Path | None = None,
                     texts: bool = False) -> Iterator[RunBatch]:
    """Yield the run at ``paths`` in :class:`RunBatch` es of whole queries (see the module docstring).

    Without ``spill`` the file is read once, assuming its queries are grouped; a query that comes back after its
    batch raises :class:`RunNotGrouped` (batches already yielded are then void: start again with ``spill=True``,
    as :func:`hcrbench.metrics.stream.evaluate_stream` does). With ``spill`` the entries go through bucket files
    in ``tmp_dir`` (default: the system's temporary folder) first, so any line order works. Several files (shard
    runs) are read as their concatenation, always through the buckets; ``first_entry`` then counts the entries of
    the files before. Every query is in exactly one batch. ``texts`` (spilled reads only) also carries each entry's
    raw fields (:attr:`RunBatch.columns`), so a writer can keep the score text as written. Bad lines raise :class:`~hcrbench.errors.InputError`
    naming the file and line, as :func:`~hcrbench.data.trec.read_run`.
    """
    files = [Path(p) for p in paths] if isinstance(paths, (list, tuple)) else [Path(paths)]
    if not files:
        raise ValueError("no run files")
    for path in files:
        if not path.is_file():
            next(iter(_raw_lines(path)), None)  # read_run's one-line error for a missing file, a folder, ...
    if batch_bytes < 1:
        raise ValueError("batch_bytes must be >= 1")
    name = name or _stem(files[0])
    with contextlib.ExitStack() as stack:  # ranx JSON / parquet runs: read by their format, then as TREC text
        texts_of = {stack.enter_context(as_trec_file(p, tmp_dir)): p for p in files}
        read = list(texts_of)
        try:
            if spill or len(read) > 1 or texts:
                yield from _spilled(read, batch_bytes, dedupe, name, tmp_dir, texts)
            else:
                yield from _grouped(read[0], batch_bytes, dedupe, name)
        except InputError as e:  # name the user's file, not its TREC copy (whose line numbers mean nothing)
            orig = next((o for t, o in texts_of.items() if t != o and str(t) == e.path), None)
            if orig is None:
                raise
            raise InputError(e.problem, path=orig, field=e.field) from None


class _Parts:
    """Parses lists of blocks in file order, keeping the line and entry count and warning once for extra
    columns."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.line = 1
        self.entries = 0
        self.warned = False
        self.content = False
        self.texts: tuple[np.ndarray, ...] | None = None

    def parse(self, blocks: list[bytes], texts: bool = False):
        (qnames, dnames, qa, da, sa), extra = _parse(self.path, blocks, self.line)
        self.texts = text_columns(blocks) if texts else None
        _check_read_ids(self.path, qnames, dnames, doc_col=2)
        if extra and not self.warned:
            warn_extra_columns(self.path, extra, stacklevel=5)
            self.warned = True
        self.line += sum(b.count(b"\n") for b in blocks)
        self.content = self.content or bool(len(qa)) or any(b.strip() for b in blocks)
        start = self.entries
        self.entries += len(qa)
        return qnames, dnames, qa, da, sa, start

    def finish(self) -> None:
        if not self.content:
            list(_raw_lines(self.path))  # read_run's "file is empty"


def _first_entries(qa: np.ndarray, n: int, start: int) -> np.ndarray:
    first = np.full(n, -1, dtype=np.int64)
    codes, at = np.unique(qa, return_index=True)
    first[codes] = at
    return first + start


def _grouped(path: Path, batch_bytes: int, dedupe: bool, name: str) -> Iterator[RunBatch]:
    seen: set[str] = set()
    parts = _Parts(path)
    for blocks in _grouped_parts(path, batch_bytes):
        qnames, dnames, qa, da, sa, start = parts.parse(blocks)
        if not len(qa):
            continue
        if not seen.isdisjoint(qnames):
            raise RunNotGrouped(next(q for q in qnames if q in seen))
        seen.update(qnames)
        run = run_from_columns(path, qnames, dnames, qa, da, sa, dedupe=dedupe, name=name, entry_offset=start,
                               check_ids=False)
        yield RunBatch(run, _first_entries(qa, len(qnames), start))
    parts.finish()


def _sized_parts(path: Path, batch_bytes: int) -> Iterator[list[bytes]]:
    pending: list[bytes] = []
    size = 0
    for block in _blocks(path):
        pending.append(block)
        size += len(block)
        if size >= batch_bytes:
            yield pending
            pending, size = [], 0
    if pending:
        yield pending


def _text_size(path: Path) -> int:
    """The run's size as text: the file's, or for gzip the size its trailer records (mod 2^32), at least 4x."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        if fh.read(2) != b"\x1f\x8b":
            return size
        fh.seek(-4, os.SEEK_END)
        isize = int.from_bytes(fh.read(4), "little")
    return max(4 * size, isize)


#: Most bucket files open at once (a larger run makes each bucket larger instead).
MAX_BUCKETS = 256


def _spilled(files: list[Path], batch_bytes: int, dedupe: bool, name: str, tmp_dir: str | Path | None,
             texts: bool = False) -> Iterator[RunBatch]:
    n = max(1, min(MAX_BUCKETS, math.ceil(sum(_text_size(p) for p in files) / batch_bytes)))
    offsets = [0]  # entries of the files before each file (first_entry counts across the concatenation)
    with tempfile.TemporaryDirectory(prefix="hcrbench-spill-", dir=tmp_dir) as tmp:
        buckets = [Path(tmp) / f"{k}.bin" for k in range(n)]
        fhs = [open(b, "wb") for b in buckets]  # noqa: SIM115 (closed below)
        try:
            for path in files:
                parts = _Parts(path)
                for blocks in _sized_parts(path, batch_bytes):
                    qnames, dnames, qa, da, sa, start = parts.parse(blocks, texts)
                    if len(qa):
                        _spill(fhs, qnames, dnames, qa, da, sa, start + offsets[-1], parts.texts)
                parts.finish()
                offsets.append(offsets[-1] + parts.entries)
        finally:
            for fh in fhs:
                fh.close()
        for bucket in buckets:
            batch = _read_bucket(bucket, files, offsets, dedupe, name)
            if batch is not None:
                yield batch


def _names_at(names, idx: np.ndarray):
    """``[names[i] for i in idx]``; the bytes themselves (an ``S`` array) when ``names`` is a :class:`BytesVocab`."""
    if isinstance(names, BytesVocab):
        return names.raw[idx]
    return [names[i] for i in idx.tolist()]


def _bucket_docs(parts: list) -> tuple[object, list[np.ndarray]] | None:
    """A bucket's doc names (each spilled part's distinct ids, as bytes) coded at once by key, as the block reader
    codes them: ``(BytesVocab, codes of each part's names)``; None when some part holds str names or two ids share
    a key (then the caller codes str names one by one)."""
    if not parts or not all(isinstance(p, np.ndarray) for p in parts):
        return None
    width = max(p.dtype.itemsize for p in parts)
    raw = fixed_width(np.concatenate([p.astype(f"S{width}") for p in parts]))
    keys = keys_of(raw)
    first, codes, sk, sc = _first_codes(keys)
    rep = raw[first]
    if len(first) < len(keys) and not _same_rows(raw, rep, codes):
        return None
    cuts = np.cumsum([len(p) for p in parts])[:-1]
    return BytesVocab(rep, keys[first], checked=True, sorted_keys=(sk, sc)), np.split(codes, cuts)


def _spill(fhs: list, qnames: list[str], dnames: list[str], qa: np.ndarray, da: np.ndarray, sa: np.ndarray,
           start: int, texts: tuple[np.ndarray, ...] | None = None) -> None:
    """Append each entry to its query's bucket file (``crc32(query id) % n``), keeping file order."""
    n = len(fhs)
    bucket = np.array([zlib.crc32(q.encode("utf-8", "surrogatepass")) % n for q in qnames], dtype=np.int64)[qa]
    order = np.argsort(bucket, kind="stable")  # entries of a bucket stay in file order
    bounds = np.searchsorted(bucket[order], np.arange(n + 1))
    for k in range(n):
        idx = order[bounds[k]:bounds[k + 1]]
        if not idx.size:
            continue
        uq, qinv = np.unique(qa[idx], return_inverse=True)
        ud, dinv = np.unique(da[idx], return_inverse=True)
        pickle.dump(([qnames[i] for i in uq.tolist()], _names_at(dnames, ud),
                     qinv.ravel().astype(np.int32), dinv.ravel().astype(np.int32), sa[idx],
                     idx.astype(np.int64) + start, None if texts is None else tuple(t[idx] for t in texts)),
                    fhs[k], protocol=pickle.HIGHEST_PROTOCOL)


def _read_bucket(bucket: Path, files: list[Path], offsets: list[int], dedupe: bool, name: str
                 ) -> RunBatch | None:
    qmap: dict[str, int] = {}
    qs, dns, dis, ss, es, ts = [], [], [], [], [], []
    with open(bucket, "rb") as fh:
        while True:
            try:
                qn, dn, qi, di, sa, en, tx = pickle.load(fh)
            except EOFError:
                break
            if tx is not None:
                ts.append(tx)
            qcode = np.array([qmap.setdefault(q, len(qmap)) for q in qn], dtype=np.int32)
            qs.append(qcode[qi])
            dns.append(dn)
            dis.append(di)
            ss.append(sa)
            es.append(en)
    bucket.unlink()
    if not qs:
        return None
    coded = _bucket_docs(dns)
    if coded is not None:
        dnames, dcodes = coded
        da = np.concatenate([c[di] for c, di in zip(dcodes, dis)])
    else:  # str names (or a key shared by two ids): one dict lookup per name
        dmap: dict[str, int] = {}
        parts = []
        for dn, di in zip(dns, dis):
            names_k = decode_all(dn) if isinstance(dn, np.ndarray) else dn
            parts.append(np.array([dmap.setdefault(d, len(dmap)) for d in names_k], dtype=np.int32)[di])
        dnames, da = list(dmap), np.concatenate(parts)
    del dns, dis
    qa, sa, en = (np.concatenate(x) for x in (qs, ss, es))
    # query codes in order of first appearance in the files (the bucket's entries are in that order)
    uq, first, inv = np.unique(qa, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    rank = np.empty(len(uq), dtype=np.int32)
    rank[by_first] = np.arange(len(uq), dtype=np.int32)
    names = list(qmap)
    qnames = [names[c] for c in uq[by_first].tolist()]
    qa = rank[inv.ravel()]
    dup = _first_duplicate(qa, da)
    if dup.any() and not dedupe:
        i = int(np.flatnonzero(dup)[0])
        f = int(np.searchsorted(offsets, en[i], side="right")) - 1
        raise InputError(
            f"doc {dnames[da[i]]!r} appears twice for query {qnames[qa[i]]!r} "
            "(use --dedupe to keep the first occurrence)",
            path=files[f], line=_line_of_entry(files[f], int(en[i]) - offsets[f], 0), field="docid",
        )
    run = run_from_columns(files[0], qnames, dnames, qa, da, sa, dedupe=True, name=name, check_ids=False)
    columns = file_first = None
    if ts:  # the raw fields, put in the run's entry order as run_from_columns did (first kept, grouped by query)
        keep = ~dup if dup.any() else slice(None)
        order, _ = _group(qa[keep], len(qnames))
        columns = {key: np.concatenate([t[j] for t in ts])[keep][order] for j, key in enumerate(TEXT_FIELDS)}
        nf = len(files)
        in_file = np.searchsorted(offsets, en, side="right") - 1
        pairs, at = np.unique(qa.astype(np.int64) * nf + in_file, return_index=True)  # entries are in file order
        file_first = np.full((len(qnames), nf), -1, dtype=np.int64)
        file_first[pairs // nf, pairs % nf] = en[at]
    return RunBatch(run, en[np.sort(first)], n_read=len(qa), columns=columns, file_first=file_first)


#: The raw fields :func:`text_columns` keeps, by name.
TEXT_FIELDS = ("q0", "rank", "score", "tag")
#: The rank of a line whose rank field is not an integer (it sorts after every real rank).
NO_RANK = np.iinfo(np.int64).max


def _as_ranks(col: np.ndarray) -> np.ndarray:
    try:
        return col.astype(np.int64)
    except (ValueError, OverflowError):
        out = np.full(len(col), NO_RANK, dtype=np.int64)
        for i, v in enumerate(col.tolist()):
            if _INT.fullmatch(v) and abs(int(v)) < NO_RANK:
                out[i] = int(v)
        return out


def text_columns(blocks: list[bytes]) -> tuple[np.ndarray, ...]:
    """The raw ``Q0``, rank (int64), score and tag fields of every entry of ``blocks``, in the order the parsers
    give entries (comment and blank lines skipped; a 7th column on is not the tag)."""
    cols: list[list[np.ndarray]] = [[], [], [], []]
    for block in blocks:
        if b"#" in block:
            block = _drop_comments(block)
        arr, starts, ends, counts = _fields(block)
        if not starts.size:
            continue
        if np.all((counts == 6) | (counts == 0)) and int((ends - starts).max()) <= MAX_FIELD:
            for j, f in enumerate((1, 3, 4, 5)):
                s, e = starts[f::6], ends[f::6]
                width = max(int((e - s).max()), 1)
                cols[j].append(_matrix(arr, s, e, width).view(f"S{width}").ravel())
            continue
        rows = [ln.split() for ln in block.split(b"\n")]
        rows = [r for r in rows if len(r) >= 6 and r[0][:1] != b"#"]
        for j, f in enumerate((1, 3, 4, 5)):
            cols[j].append(np.array([r[f] for r in rows], dtype=bytes) if rows else np.zeros(0, "S1"))
    out = [np.concatenate(c) if c else np.zeros(0, "S1") for c in cols]
    out[1] = _as_ranks(out[1])
    return tuple(out)
