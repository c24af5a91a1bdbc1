"""The fast path of :func:`~hcrbench.data.trec.read_run`: whole blocks of a well-formed run at once.

The file is read in 4 MiB blocks cut at a newline. Per block, numpy counts the fields of every line (ASCII
whitespace, as ``bytes.split``); when every line has exactly 6 fields or none (blank), one ``block.split()`` gives
all fields and every sixth is a query id, doc id or score, so no Python code runs per field beyond a dict lookup
and a ``float()``. A line whose first field starts with ``#`` is a comment (trec_eval 10.0) and is dropped first.
Anything else (a line with other than 6 fields, a score that is not a finite number or holds '_', bad UTF-8 in any
field, a NUL byte, a field over :data:`MAX_FIELD` bytes, a 64-bit id hash collision) makes this path return
None, and the caller re-reads the file with the line loop that names the offending line, so errors and warnings
are exactly the loop's (tests/data/test_trec_fast_property.py compares both on generated files). Ids are kept as bytes while reading and decoded once per distinct id.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hcrbench.data.compressed import MAX_LINE, STREAM_ERRORS, open_input, stream_error
from hcrbench.errors import InputError

BLOCK = 1 << 22
#: Longest field (bytes) the block reader takes: fields are laid out as fixed-width rows, so a longer one (a 50 MB
#: id) goes to the line loop instead of making a block's matrix width x lines bytes.
MAX_FIELD = 4096
_WS = np.zeros(256, dtype=bool)
_WS[[9, 10, 11, 12, 13, 32]] = True  # exactly what bytes.split() splits on


def _fields(block: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a block ending in a newline: its bytes, field starts, field ends, and fields per line."""
    arr = np.frombuffer(block, dtype=np.uint8)
    ws = _WS[arr]
    start = ~ws
    start[1:] &= ws[:-1]
    end = ~ws
    end[:-1] &= ws[1:]
    starts = np.flatnonzero(start)
    before = np.searchsorted(starts, np.flatnonzero(arr == 10))  # fields before each newline
    counts = np.diff(before, prepend=0)
    return arr, starts, np.flatnonzero(end) + 1, counts


def _matrix(arr: np.ndarray, s: np.ndarray, e: np.ndarray, width: int) -> np.ndarray:
    """Fields [s, e) as rows of ``width`` bytes, zero-padded."""
    padded = np.concatenate([arr, np.zeros(width, dtype=np.uint8)])
    mat = np.lib.stride_tricks.sliding_window_view(padded, width)[s]
    mat[np.arange(width)[None, :] >= (e - s)[:, None]] = 0
    return mat


def _column(arr: np.ndarray, s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Fields [s, e) as fixed-width bytes, a 64-bit key of each, and whether the key is the id itself (<= 8 bytes).

    Longer ids get an FNV-style hash over their own 8-byte words (never the block's padding); ids of up to 8 bytes
    keep their bytes as key in every block, however wide the block's longest id, so equal ids get equal keys in
    every block; a collision between different ids is caught by the caller's check."""
    lengths = e - s
    width = max(int(lengths.max()) if len(s) else 1, 1)
    words = -(-width // 8)
    mat = _matrix(arr, s, e, words * 8)
    w = mat.view("<u8")
    ids = mat.view(f"S{words * 8}").ravel()
    if words == 1:
        return ids, w[:, 0].copy(), True
    h = np.full(len(s), 14695981039346656037, dtype=np.uint64) ^ lengths.astype(np.uint64)
    prime = np.uint64(1099511628211)
    nwords = (lengths + 7) // 8
    for j in range(words):
        h = np.where(nwords > j, (h ^ w[:, j]) * prime, h)
    short = lengths <= 8  # an id's key never depends on its block: short ids keep their own bytes in every block
    h = np.where(short, w[:, 0], h)
    return ids, h, bool(short.all())


_POW10 = np.array([10.0 ** k for k in range(23)])  # exact in float64


def _scores(arr: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Parse decimal scores exactly as ``float()``: fields of at most 15 digits, an optional leading '-' and one
    '.' are m / 10^k with both exact in float64, so the one division rounds correctly (Clinger's fast path); every
    other field (exponents, 16+ digits, 'inf', ...) goes through ``float()``."""
    lengths = e - s
    width = max(int(lengths.max()) if len(s) else 1, 1)
    mat = _matrix(arr, s, e, width).astype(np.int64)
    neg = mat[:, 0] == 45  # '-'
    mant = np.zeros(len(s), dtype=np.int64)
    ndig = np.zeros(len(s), dtype=np.int64)
    frac = np.zeros(len(s), dtype=np.int64)
    dots = np.zeros(len(s), dtype=np.int64)
    bad = np.zeros(len(s), dtype=bool)
    for j in range(width):
        c = mat[:, j]
        inside = j < lengths
        digit = inside & (c >= 48) & (c <= 57)
        dot = inside & (c == 46)
        sign = inside & (j == 0) & (c == 45)
        bad |= inside & ~digit & ~dot & ~sign
        mant = np.where(digit, mant * 10 + (c - 48), mant)
        ndig += digit
        frac += digit & (dots > 0)
        dots += dot
    bad |= (ndig == 0) | (ndig > 15) | (dots > 1) | (frac > 22)
    out = mant.astype(np.float64) / _POW10[np.minimum(frac, 22)]
    out = np.where(neg, -out, out)
    if bad.any():
        idx = np.flatnonzero(bad)
        out[idx] = [float(x) for x in mat_bytes(arr, s[idx], e[idx])]
    return out


def mat_bytes(arr: np.ndarray, s: np.ndarray, e: np.ndarray) -> list[bytes]:
    raw = arr.tobytes() if len(s) > 64 else None
    return [(raw if raw is not None else arr.tobytes())[a:b] for a, b in zip(s.tolist(), e.tolist())]


class _Coder:
    """Ids -> dense codes in order of first appearance, block by block, without a Python object per entry.

    Each id has a 64-bit key (its bytes up to 8, else a hash). The coder keeps the keys seen so far sorted, with
    their codes and ids; a block's distinct keys are looked up with ``searchsorted``, new ones get the next codes in
    order of first appearance, and for hashed keys every entry's id is compared with the id kept for its code, so a
    hash collision is detected (the caller then falls back to the line loop) instead of merging two ids."""

    def __init__(self) -> None:
        self.known = np.zeros(0, dtype=np.uint64)  # sorted keys
        self.known_code = np.zeros(0, dtype=np.int32)
        self.reps: list[np.ndarray] = []  # ids in code order, one array per block
        self.rep = np.zeros(0, dtype="S1")  # the id of every code so far
        self.codes: list[np.ndarray] = []
        self.n = 0
        self.hashed = False  # some key so far is a hash: every later block is checked against the kept ids

    def add(self, ids: np.ndarray, h: np.ndarray, exact: bool) -> bool:
        uk, first, inv = np.unique(h, return_index=True, return_inverse=True)
        pos = np.searchsorted(self.known, uk)
        hit = pos < len(self.known)
        hit[hit] = self.known[pos[hit]] == uk[hit]
        code = np.empty(len(uk), dtype=np.int32)
        code[hit] = self.known_code[pos[hit]]
        new = np.flatnonzero(~hit)
        if new.size:
            new = new[np.argsort(first[new], kind="stable")]  # first appearance within the block
            code[new] = np.arange(self.n, self.n + new.size, dtype=np.int32)
            self.n += new.size
            order = np.argsort(uk[new])
            at = np.searchsorted(self.known, uk[new][order])
            self.known = np.insert(self.known, at, uk[new][order])
            self.known_code = np.insert(self.known_code, at, code[new][order])
            self.reps.append(ids[first[new]])
        entry = code[inv.ravel()]
        width = max(self.rep.dtype.itemsize, ids.dtype.itemsize)
        if new.size:  # kept for every code (also before the first hash), so any later block can be checked
            self.rep = np.concatenate([self.rep.astype(f"S{width}"), ids[first[new]].astype(f"S{width}")])
        self.hashed |= not exact
        if self.hashed and not np.array_equal(self.rep[entry].astype(f"S{width}"), ids.astype(f"S{width}")):
            return False  # a 64-bit hash collision (a hash equal to another id's bytes included)
        self.codes.append(entry)
        return True

    def finish(self) -> tuple[list[str], np.ndarray]:
        width = max((a.dtype.itemsize for a in self.reps), default=1)
        rep = np.concatenate([a.astype(f"S{width}") for a in self.reps]) if self.reps else np.zeros(0, "S1")
        self.reps, self.rep, self.known, self.known_code = [], np.zeros(0, "S1"), None, None
        codes = np.concatenate(self.codes) if self.codes else np.zeros(0, np.int32)
        self.codes = []
        return _decode(rep), codes


def _decode(rep: np.ndarray) -> list[str]:
    """Fixed-width, zero-padded ids -> str, through one newline-joined buffer (no bytes object per id)."""
    if not len(rep):
        return []
    w = rep.dtype.itemsize
    mat = np.ascontiguousarray(rep).view(np.uint8).reshape(-1, w)
    buf = np.concatenate([mat, np.full((len(mat), 1), 10, dtype=np.uint8)], axis=1)
    keep = buf != 0
    return buf[keep].tobytes()[:-1].decode("utf-8").split("\n")


def _drop_comments(block: bytes) -> bytes:
    """The block without its comment lines; lines end at b"\\n" only, as the loop's file iteration (a lone CR is
    whitespace inside a line, never a line break: ``bytes.splitlines`` would cut there)."""
    lines = block.split(b"\n")[:-1]  # the block ends with a newline
    return b"".join(ln + b"\n" for ln in lines if ln.lstrip()[:1] != b"#")


def _blocks(path: Path):
    rest = b""
    first = True
    with open_input(path) as fh:  # gzip / bzip2 / xz as a capped stream (data.compressed)
        while True:
            try:
                chunk = fh.read(BLOCK)
            except InputError:
                raise
            except STREAM_ERRORS as e:  # a truncated gzip raises EOFError: one line naming the file, not Ctrl-C
                raise stream_error(path, e) from None
            if not chunk:
                break
            if first and chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            first = False
            data = rest + chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                if len(data) > MAX_LINE:  # one endless line: refuse before it fills memory
                    raise InputError(f"line longer than {MAX_LINE:,} bytes: not a line of a run or qrels file",
                                     path=path)
                rest = data
                continue
            rest = data[cut:]
            yield data[:cut]
    if rest:
        yield rest + b"\n"


def _underscore_in(arr: np.ndarray, s: np.ndarray, e: np.ndarray) -> bool:
    """Whether any field [s, e) holds '_' (ids may; a score may not)."""
    at = np.flatnonzero(arr == ord("_"))
    i = np.searchsorted(s, at, side="right") - 1
    ok = i >= 0
    return bool(np.any(at[ok] < e[i[ok]]))


def read_run_columns(path: Path):
    """``(query names, doc names, query codes, doc codes, scores)`` in file order, or None to use the line loop."""
    out = parse_blocks(_blocks(path))
    if out is not None:
        _trim()
    return out


def parse_blocks(blocks):
    """:func:`read_run_columns` over ``blocks`` (bytes, each ending in a newline: :func:`_blocks`' output, or a part
    of it when a run is read a batch at a time by :mod:`hcrbench.data.trec_stream`); None to use the line loop."""
    queries, docs = _Coder(), _Coder()
    scores: list[np.ndarray] = []
    try:
        for block in blocks:
            if b"\x00" in block:  # ids are kept NUL-padded: a NUL in an id would vanish; the loop refuses it
                return None
            if not block.isascii():  # bad UTF-8 anywhere on a line (the tag too): the loop names the line
                block.decode("utf-8")
            if b"#" in block:  # maybe a comment line (trec_eval 10.0): drop those, keep ids that contain '#'
                block = _drop_comments(block)
                if not block:
                    continue
            arr, starts, ends, counts = _fields(block)
            if np.any((counts != 6) & (counts != 0)):
                return None
            if not starts.size:
                continue
            if int((ends - starts).max()) > MAX_FIELD:  # one huge field would make every row of the matrix huge
                return None
            for coder, f in ((queries, 0), (docs, 2)):
                if not coder.add(*_column(arr, starts[f::6], ends[f::6])):
                    return None
            if b"_" in block and _underscore_in(arr, starts[4::6], ends[4::6]):
                return None  # a score like 1_000: float() reads 1000, trec_eval 1; the loop refuses it by line
            s = _scores(arr, starts[4::6], ends[4::6])
            if not np.all(np.isfinite(s)):
                return None
            scores.append(s)
        if not scores:
            return None
        q, d = queries.finish(), docs.finish()
    except InputError:  # a compression bomb or an endless line (data.compressed): refused once, here
        raise
    except (ValueError, UnicodeDecodeError):  # a score float() refuses, or bad UTF-8: the loop names the line
        return None
    except STREAM_ERRORS:
        return None  # the loop reports unreadable files with its own message
    out = q[0], d[0], q[1], d[1], np.concatenate(scores)
    del scores
    return out


def _trim() -> None:
    """Give freed heap pages back to the OS (glibc keeps the per-block temporaries' pages otherwise, which a
    following evaluate then stacks on); a no-op where there is no glibc."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
