"""Shard runs merged in one streamed pass: :func:`~hcrbench.data.merge.merge_runs`' fast path.

Shards cut from one run (a sharded index's per-shard runs) each hold the same queries in the same order, every
query's lines together. Then the merged run is that query order, and each query's lines are its lines of all
shards: so the files are read side by side, a few MiB each, and every query that all of them have finished is
ordered and written at once: by score descending (as 32-bit floats, trec_eval's), then the rank the line was
given, then doc id descending (byte order), ranks renumbered 1..n, every other byte of the line as read. Nothing is
spilled to disk and memory stays at a few blocks per file.

Anything else leaves this path before a byte reaches the output (:class:`NotSorted`; the caller then merges through
its buckets, which handles every order, names bad lines and does ``--dedupe``): files whose query sequences differ
(a query missing from one shard included) or repeat a query, a line other than six fields with single spaces
and a newline (tabs, CRLF, blank or comment lines), a rank that is not a plain integer, a score that is not a
finite decimal, a doc given twice for one query, ids that are not plain ASCII, or an unreadable file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hcrbench.data.atomic import atomic_open
from hcrbench.data.trec_fast import (
    MAX_FIELD,
    _blocks,
    _column,
    _digit_run,
    _has_control,
    _scores,
    _Underscore,
    usual_fields,
)
from hcrbench.data.types import trec_score_key
from hcrbench.errors import WriteError

#: Bytes read from a file at a time.
READ_BYTES = 1 << 20
#: Lines of each file merged in one round (at least one query): what bounds the memory.
ROUND_LINES = 1 << 14
#: Output lines assembled at a time (the byte gather's index is 4 bytes per output byte).
SLICE = 1 << 14
_MIX = np.uint64(0x9E3779B97F4A7C15)


class NotSorted(Exception):
    """The inputs are not shards of one order (or a line needs the general reader): merge through buckets."""


class _Reader:
    """One input: its bytes read but not yet written (whole lines), their fields, and how far merging got."""

    def __init__(self, path: Path) -> None:
        self.blocks = _blocks(path, READ_BYTES)
        self.buf = b""
        self.eof = False
        self._parse()

    def refill(self) -> None:
        """Drop the merged lines and read on: a block, or as much again as is held (a query longer than a block
        is then read in doubling steps, each parsed once, not once per block)."""
        if self.done:
            self.buf = self.buf[int(self.ends[6 * self.done - 1]) + 1:]
        parts, got, want = [self.buf], 0, max(len(self.buf), READ_BYTES)
        while got < want:
            block = next(self.blocks, None)
            if block is None:
                self.eof = True
                break
            parts.append(block)
            got += len(block)
        self.buf = b"".join(parts)
        self._parse()

    def _parse(self) -> None:
        buf = self.buf
        if b"#" in buf or not buf.isascii() or b"\x00" in buf:
            raise NotSorted
        arr = np.frombuffer(buf, dtype=np.uint8)
        fields = usual_fields(arr) if len(arr) else (np.zeros(0, np.int64), np.zeros(0, np.int64))
        if fields is None or _has_control(arr):
            raise NotSorted
        starts, ends = (f.astype(np.int32) for f in fields) if len(arr) < 2**31 else fields
        if len(starts) and int((ends - starts).max()) > MAX_FIELD:
            raise NotSorted
        ids, keys, _ = _column(arr, starts[0::6], ends[0::6])
        change = np.ones(len(ids), dtype=bool)
        change[1:] = (keys[1:] != keys[:-1]) | (ids[1:] != ids[:-1])
        self.arr, self.starts, self.ends = arr, starts, ends
        self.qids, self.run_starts = ids, np.flatnonzero(change)
        self.n_lines = len(ids)
        self.done = self.runs_done = 0  # lines and queries of ``buf`` already merged

    def ready(self) -> int:
        """Queries of ``buf`` finished and not merged yet (the last one only once the file has ended)."""
        n = len(self.run_starts) - self.runs_done
        return n if self.eof else max(n - 1, 0)

    def line_after(self, k: int) -> int:
        """The line where this reader's next ``k`` queries end."""
        j = self.runs_done + k
        return int(self.run_starts[j]) if j < len(self.run_starts) else self.n_lines


def merge_sorted(files: list[Path], out: Path) -> tuple[int, int]:
    """Merge ``files`` into ``out`` in one pass; ``(queries, lines)``. Raises :class:`NotSorted` (``out``
    untouched) where the inputs need the general merge."""
    queries = lines = 0
    emitted: set[bytes] = set()
    try:
        readers = [_Reader(p) for p in files]
        with atomic_open(out, "wb") as dst:
            while True:
                for r in readers:
                    while not r.eof and r.ready() == 0:
                        r.refill()
                m = min(r.ready() for r in readers)
                if m == 0:
                    if any(r.done < r.n_lines for r in readers):
                        raise NotSorted  # one file has queries left that another lacks
                    break
                for r in readers:  # a round of at most ROUND_LINES lines per file (but one query)
                    offsets = r.run_starts[r.runs_done:r.runs_done + m] - r.done
                    m = min(m, max(int(np.searchsorted(offsets, ROUND_LINES)), 1))
                first = readers[0]
                names = first.qids[first.run_starts[first.runs_done:first.runs_done + m]]
                for r in readers[1:]:
                    if not np.array_equal(r.qids[r.run_starts[r.runs_done:r.runs_done + m]], names):
                        raise NotSorted
                new = {bytes(q) for q in names.tolist()}
                if len(new) < m or not emitted.isdisjoint(new):
                    raise NotSorted  # a query's lines in two places of a file
                emitted |= new
                lines += _merge_round(readers, m, dst)
                queries += m
    except (ValueError, OSError, _Underscore) as e:  # InputError and UnicodeDecodeError are ValueErrors
        if isinstance(e, WriteError):
            raise
        raise NotSorted from None
    if not lines:
        raise NotSorted  # empty inputs: the general reader names them
    return queries, lines


def _merge_round(readers: list[_Reader], m: int, dst) -> int:
    """Write the next ``m`` queries of every reader, merged, and mark their lines done."""
    parts, sources = [], []
    base = 0
    for r in readers:
        lo, hi = r.done, r.line_after(m)
        s, e = r.starts[6 * lo:6 * hi], r.ends[6 * lo:6 * hi]
        score = _scores(r.arr, s[4::6], e[4::6], refuse_underscore=True)
        rank_len = e[3::6] - s[3::6]
        if not np.all(np.isfinite(score)) or int(rank_len.max()) > 16:
            raise NotSorted
        a, b = int(s[0]), int(e[-1]) + 1
        rank, ok = _digit_run(_at8(r.arr[a:b]), e[3::6] - a + 24, rank_len)
        if not ok.all():
            raise NotSorted
        docs, doc_keys, _ = _column(r.arr, s[2::6], e[2::6])
        runs = r.run_starts[r.runs_done:r.runs_done + m]
        group = np.repeat(np.arange(m), np.diff(np.append(runs, hi)))
        shift = base - a
        parts.append((group, score, rank.astype(np.int64), docs, doc_keys, s[0::6] + shift, s[3::6] + shift,
                      e[3::6] + shift, e[5::6] + shift))
        sources.append(r.arr[a:b])
        base += b - a
        r.done, r.runs_done = hi, r.runs_done + m
    group, score, rank, _, doc_keys, line_at, rank_at, rank_end, line_end = (
        np.concatenate([p[k] for p in parts]) for k in range(9))
    width = max(p[3].dtype.itemsize for p in parts)
    docs = np.concatenate([p[3].astype(f"S{width}") for p in parts])
    pair = np.sort(doc_keys ^ (group.astype(np.uint64) * _MIX))
    if np.any(pair[1:] == pair[:-1]):
        raise NotSorted  # a doc twice for a query (or a 64-bit key shared): the general merge decides
    neg = -trec_score_key(score)
    order = np.lexsort((rank, neg, group))
    g, ng, rk = group[order], neg[order], rank[order]
    tie = (g[1:] == g[:-1]) & (ng[1:] == ng[:-1]) & (rk[1:] == rk[:-1])
    if tie.any():  # equal on all the rest: doc id descending (byte order, strcmp's)
        start = np.concatenate([[True], ~tie])
        tgroup = np.cumsum(start) - 1
        member = np.zeros(len(order), dtype=bool)
        member[1:] |= tie
        member[:-1] |= tie
        at = np.flatnonzero(member)
        order[at] = order[at][np.lexsort((_desc_rank(docs[order[at]]), tgroup[at]))]
    first = np.concatenate([[True], g[1:] != g[:-1]])
    pos = np.arange(len(order))
    new_rank = pos - np.maximum.accumulate(np.where(first, pos, 0)) + 1
    digits, d_at, d_len = _rank_text(int(new_rank.max()))
    pool = np.concatenate([*sources, digits])  # the round's lines, then the digits of every rank
    d_at = d_at + base
    for lo in range(0, len(order), SLICE):
        o = order[lo:lo + SLICE]
        dst.write(_lines(pool, line_at[o], rank_at[o], rank_end[o], line_end[o], d_at, d_len,
                         new_rank[lo:lo + SLICE]))
    return len(order)


def _desc_rank(docs: np.ndarray) -> np.ndarray:
    """Each id's place in byte order, negated (a key for doc id descending)."""
    rank = np.empty(len(docs), dtype=np.int64)
    rank[np.argsort(docs, kind="stable")] = np.arange(len(docs))
    return -rank


def _at8(arr: np.ndarray) -> np.ndarray:
    padded = np.concatenate([np.zeros(24, dtype=np.uint8), arr, np.zeros(8, dtype=np.uint8)])
    return np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded.data, strides=(1,))


_RANK_TEXT: list = [b"", np.zeros(1, np.int64), np.zeros(1, np.int64)]


def _rank_text(top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``b"12...top"`` as bytes with where each rank's digits start and how many there are (index = rank)."""
    if len(_RANK_TEXT[1]) <= top:
        n = max(top + 1, 2 * len(_RANK_TEXT[1]), 1024)
        texts = [str(i).encode() for i in range(n)]
        lengths = np.array([len(t) for t in texts], dtype=np.int64)
        _RANK_TEXT[:] = [b"".join(texts), np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths]
    text, at, lengths = _RANK_TEXT
    return np.frombuffer(text, dtype=np.uint8), at, lengths


def _lines(pool: np.ndarray, line_at, rank_at, rank_end, line_end, d_at, d_len, new_rank) -> bytes:
    """The output lines: each input line up to its rank field, the new rank's digits (``d_at`` / ``d_len`` by
    rank), and the rest of the line (the newline included), gathered byte by byte from ``pool``."""
    seg_src = np.stack([line_at, d_at[new_rank], rank_end], axis=1).ravel()
    seg_len = np.stack([rank_at - line_at, d_len[new_rank], line_end + 1 - rank_end], axis=1).ravel()
    total = int(seg_len.sum())
    idx_type = np.int32 if len(pool) < 2**31 else np.int64
    seg_out = np.concatenate([[0], np.cumsum(seg_len)[:-1]])
    idx = np.repeat((seg_src - seg_out).astype(idx_type), seg_len)
    idx += np.arange(total, dtype=idx_type)
    return pool[idx].tobytes()
