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
from hcrbench.data.vocab import BytesVocab, decode_all, id_keys
from hcrbench.errors import InputError

BLOCK = 1 << 22
#: Longest field (bytes) the block reader takes: fields are laid out as fixed-width rows, so a longer one (a 50 MB
#: id) goes to the line loop instead of making a block's matrix width x lines bytes.
MAX_FIELD = 4096
_WS = np.zeros(256, dtype=bool)
_WS[[9, 10, 11, 12, 13, 32]] = True  # exactly what bytes.split() splits on
#: ASCII control characters that are not whitespace (whitespace separates fields, so no id holds it)
_CONTROL = np.zeros(256, dtype=bool)
_CONTROL[[*range(0, 9), *range(14, 32), 127]] = True


def usual_fields(arr: np.ndarray, n_fields: int = 6) -> tuple[np.ndarray, np.ndarray] | None:
    """Field starts and ends of the usual file's lines (one space between fields, a newline after the last of
    ``n_fields``, no other byte below '!'), or None when ``arr`` is not laid out so. Then the separators are every
    byte <= 32 and field j ends at the j-th of them; checked, not assumed."""
    sep = np.flatnonzero(arr <= 32)
    k = n_fields
    n = len(sep) // k
    if n and len(sep) == k * n and arr[0] > 32 and bool(np.all(np.diff(sep) > 1)):
        kind = arr[sep]
        if bool(np.all(kind[k - 1::k] == 10)) and int(np.count_nonzero(kind == 32)) == (k - 1) * n:
            starts = np.empty(len(sep), dtype=np.int64)
            starts[0] = 0
            np.add(sep[:-1], 1, out=starts[1:])
            return starts, sep
    return None


def _fields(block: bytes, n_fields: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a block ending in a newline: its bytes, field starts, field ends, and fields per line."""
    arr = np.frombuffer(block, dtype=np.uint8)
    usual = usual_fields(arr, n_fields)
    if usual is not None:
        return arr, usual[0], usual[1], np.full(len(usual[0]) // n_fields, n_fields, dtype=np.int64)
    ws = _WS[arr]
    start = ~ws
    start[1:] &= ws[:-1]
    end = ~ws
    end[:-1] &= ws[1:]
    starts = np.flatnonzero(start)
    before = np.searchsorted(starts, np.flatnonzero(arr == 10))  # fields before each newline
    counts = np.diff(before, prepend=0)
    return arr, starts, np.flatnonzero(end) + 1, counts


def _has_control(arr: np.ndarray) -> bool:
    """Whether the bytes hold an ASCII control character other than whitespace (cheap when the only byte below
    32 is the newline, as in most files)."""
    if int(np.count_nonzero(arr < 32)) != int(np.count_nonzero(arr == 10)) and bool(_CONTROL[arr].any()):
        return True
    return bool(np.any(arr == 127))


def _matrix(arr: np.ndarray, s: np.ndarray, e: np.ndarray, width: int) -> np.ndarray:
    """Fields [s, e) as rows of ``width`` bytes, zero-padded."""
    padded = np.concatenate([arr, np.zeros(width, dtype=np.uint8)])
    mat = np.lib.stride_tricks.sliding_window_view(padded, width)[s]
    np.multiply(mat, np.arange(width)[None, :] < (e - s)[:, None], out=mat)
    return mat


_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # the low k bytes of a word


def _words(arr: np.ndarray, s: np.ndarray, e: np.ndarray, n_words: int) -> np.ndarray:
    """Fields [s, e) as ``(n, n_words)`` little-endian uint64 words, zero past each field's end: one gather of
    ``8 * n_words`` bytes per field, viewed as words, and each word's bytes past the end cleared with one mask."""
    padded = np.concatenate([arr, np.zeros(8 * n_words, dtype=np.uint8)])
    out = np.ascontiguousarray(np.lib.stride_tricks.sliding_window_view(padded, 8 * n_words)[s]).view("<u8")
    lengths = e - s
    shortest = int(lengths.min()) if len(lengths) else 0
    for j in range(n_words):
        if shortest < 8 * (j + 1):  # some field ends inside this word: clear the bytes past its end
            out[:, j] &= _LOW_BYTES[np.clip(lengths - 8 * j, 0, 8)]
    return out


def _column(arr: np.ndarray, s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Fields [s, e) as fixed-width bytes, a 64-bit key of each (:func:`~hcrbench.data.vocab.id_keys`: the id's
    own bytes up to 8, else a hash of its own words, the same in every block) and whether every key is the id
    itself (all ids <= 8 bytes); a collision between different ids is caught by :class:`_Coder`."""
    lengths = e - s
    width = max(int(lengths.max()) if len(s) else 1, 1)
    words = -(-width // 8)
    mat = _words(arr, s, e, words)
    ids = mat.view(f"S{words * 8}").ravel()
    keys = id_keys(mat, lengths)
    return ids, keys, words == 1


_POW10 = np.array([10.0 ** k for k in range(23)])  # exact in float64


def _pow10_long() -> np.ndarray | None:
    """10^0..10^27 in long double, exact (5^27 < 2^64), where long double has a 64-bit (or wider) significand."""
    if np.finfo(np.longdouble).nmant < 63:
        return None
    p = [np.longdouble(1)]
    for _ in range(27):
        p.append(p[-1] * np.longdouble(10))  # exact: every power up to 10^27 fits a 64-bit significand
    return np.array(p, dtype=np.longdouble)


_POW10L = _pow10_long()


def _long_path(mant: np.ndarray, frac: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``mant / 10^frac`` rounded to float64 exactly as ``float()`` would, for mantissas below 10^18 and ``frac`` <=
    27, with a mask of the values it cannot vouch for. Both operands are exact in long double, so the quotient is
    correctly rounded to 64 bits; rounding that to 53 bits again gives float()'s value unless the 64-bit quotient
    lies exactly half-way between two doubles (the real quotient lies on the same side of every such midpoint as
    its 64-bit rounding, since midpoints are themselves long doubles): those few are left to ``float()``."""
    q = mant.astype(np.longdouble) / _POW10L[frac]
    d = q.astype(np.float64)
    if _X87:
        return d, _midway_bits(q)
    return d, _midway(q, d)


#: long double is x87's 80-bit format (64-bit significand with its leading bit, little-endian in 16 bytes)
_X87 = np.finfo(np.longdouble).nmant == 63 and np.dtype(np.longdouble).itemsize == 16 and np.little_endian


def _midway(q: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Whether each long double ``q`` lies exactly half-way between ``d`` (``q`` rounded to a double) and a
    neighbouring double."""
    dl = d.astype(np.longdouble)
    lo = np.nextafter(d, -np.inf).astype(np.longdouble)
    hi = np.nextafter(d, np.inf).astype(np.longdouble)
    return (q == (dl + lo) / 2) | (q == (dl + hi) / 2)


def _midway_bits(q: np.ndarray) -> np.ndarray:
    """:func:`_midway` read off x87 bits: a double keeps the top 53 of the 64 significand bits, so a normal ``q``
    lies half-way between two doubles exactly when the 11 bits below them are 1 then ten 0s (the quotients here,
    0 or at least 1e-27, are never subnormal doubles)."""
    low = np.ascontiguousarray(q).view(np.uint64)[::2]  # each value's significand word
    return (low & np.uint64(0x7FF)) == np.uint64(0x400)


class _Underscore(Exception):
    """A score holds '_' (``float()`` reads ``1_000`` as 1000, trec_eval as 1): the line loop refuses it."""


_U = np.uint64
_ASCII_ZEROS = _U(0x3030303030303030)
_POW10U = np.array([10 ** k for k in range(20)], dtype=np.uint64)


def _eight_digits(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Words of 8 ASCII characters (the first in the lowest byte) -> their value as an 8-digit decimal and
    whether all 8 are digits: three multiply-and-shift steps per word, no loop over characters."""
    ok = ((w & _U(0xF0F0F0F0F0F0F0F0)) | (((w + _U(0x0606060606060606)) & _U(0xF0F0F0F0F0F0F0F0)) >> _U(4))) == _U(
        0x3333333333333333)
    v = w - _ASCII_ZEROS
    v = v * _U(10) + (v >> _U(8))
    v = ((v & _U(0x000000FF000000FF)) * _U(100 + (1000000 << 32))
         + ((v >> _U(16)) & _U(0x000000FF000000FF)) * _U(1 + (10000 << 32))) >> _U(32)
    return v, ok


def _digit_run(at8: np.ndarray, end: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``length`` (<= 24) bytes before each ``end`` as a decimal number and whether they are all digits.
    Words are read ending at ``end``; the bytes of a word before the run are replaced by '0'."""
    n_words = max(-(-int(length.max()) // 8), 1) if len(length) else 1
    val = np.zeros(len(end), dtype=np.uint64)
    ok = np.ones(len(end), dtype=bool)
    for j in range(n_words):
        outside = _LOW_BYTES[8 - np.clip(length - 8 * j, 0, 8)]
        w = (at8[end - 8 * (j + 1)] & ~outside) | (_ASCII_ZEROS & outside)
        v, good = _eight_digits(w)
        ok &= good
        val += v * _POW10U[8 * j]
    return val, ok


def _scores(arr: np.ndarray, s: np.ndarray, e: np.ndarray, *, refuse_underscore: bool = False) -> np.ndarray:
    """Parse decimal scores exactly as ``float()``. A field of an optional '-', digits, an optional '.' and
    digits, 18 digits at most, is read 8 characters at a time (:func:`_eight_digits`) into an integer mantissa m
    and a count k of decimals; with m below 10^15 (and k <= 22) m / 10^k has both operands exact in float64, so
    the one division rounds correctly (Clinger's fast path); 16 to 18 significant digits (``repr`` of a float
    writes 17) go through long double (:func:`_long_path`). Every other field (exponents, more digits, 'inf',
    a second '.', ...) goes through :func:`_scores_general`. With ``refuse_underscore``, raises
    :class:`_Underscore` for a score holding '_'."""
    n = len(s)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    lead = 24  # words are read up to 24 bytes before a field's end
    padded = np.concatenate([np.zeros(lead, dtype=np.uint8), arr, np.zeros(8, dtype=np.uint8)])
    at8 = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded.data, strides=(1,))
    neg = arr[s] == 45  # '-'
    s1 = s + neg
    dots = np.flatnonzero(arr == 46)
    k = np.searchsorted(dots, s1)
    dot = np.append(dots, len(arr))[k]
    has_dot = dot < e
    second = np.append(dots, [len(arr), len(arr)])[k + 1]
    p = np.where(has_dot, dot, e)
    n_int = p - s1
    n_frac = np.where(has_dot, e - p - 1, 0)
    ndig = n_int + n_frac
    bad = (ndig == 0) | (ndig > 18) | (has_dot & (second < e))
    n_int_c, n_frac_c = np.minimum(n_int, 24), np.minimum(n_frac, 24)
    int_val, ok_int = _digit_run(at8, p + lead, np.where(bad, 0, n_int_c))
    frac_val, ok_frac = _digit_run(at8, e + lead, np.where(bad, 0, n_frac_c))
    bad |= ~ok_int | ~ok_frac
    frac = np.where(bad, 0, n_frac)
    mant = int_val * _POW10U[frac] + frac_val  # below 10^18 wherever not bad
    fast = ~bad & (mant < _U(10 ** 15))
    out = mant.astype(np.float64) / _POW10[frac]
    slow = ~bad & ~fast
    if slow.any():
        idx = np.flatnonzero(slow)
        if _POW10L is None:
            bad[idx] = True
        else:
            out[idx], unsure = _long_path(mant[idx].astype(np.int64), frac[idx])
            bad[idx[unsure]] = True
    out = np.where(neg, -out, out)
    if bad.any():
        idx = np.flatnonzero(bad)
        if len(idx) <= 64:  # a few (a repr's rare exact midpoints): float() itself, without a block-wide matrix
            fields = mat_bytes(arr, s[idx], e[idx])
            if refuse_underscore and any(b"_" in f for f in fields):
                raise _Underscore
            out[idx] = [float(x) for x in fields]
        else:
            out[idx] = _scores_general(arr, s[idx], e[idx], refuse_underscore=refuse_underscore)
    return out


def _scores_general(arr: np.ndarray, s: np.ndarray, e: np.ndarray, *, refuse_underscore: bool = False) -> np.ndarray:
    """:func:`_scores` for any field, a character column at a time: fields of at most 15 significant digits,
    an optional leading '-' and one '.' by Clinger's fast path; 16 to 18 significant digits through long double
    (:func:`_long_path`); every other field (exponents, 19+ digits, 'inf', ...) through ``float()``."""
    lengths = e - s
    width = max(int(lengths.max()) if len(s) else 1, 1)
    mat = _matrix(arr, s, e, width)
    neg = mat[:, 0] == 45  # '-'
    n = len(s)
    mant = np.zeros(n, dtype=np.int64)
    ndig = np.zeros(n, dtype=np.int64)
    nsig = np.zeros(n, dtype=np.int64)
    frac = np.zeros(n, dtype=np.int64)
    dots = np.zeros(n, dtype=np.int64)
    bad = np.zeros(n, dtype=bool)
    for j in range(width):
        c = mat[:, j]
        inside = j < lengths
        d = c - np.uint8(48)  # wraps below '0': a digit is d <= 9
        digit = inside & (d <= 9)
        dot = inside & (c == 46)
        bad |= inside & ~digit & ~dot & ~((j == 0) & (c == 45))
        nsig += digit & ((mant > 0) | (d > 0))
        mant = np.where(digit, mant * 10 + d, mant)
        ndig += digit
        frac += digit & (dots > 0)
        dots += dot
    bad |= (ndig == 0) | (dots > 1) | (nsig > 18) | (frac > 27)  # 18 digits: below 10^18, no int64 overflow
    fast = ~bad & (nsig <= 15) & (frac <= 22)
    out = mant.astype(np.float64) / _POW10[np.minimum(frac, 22)]
    slow = ~bad & ~fast
    if slow.any():
        idx = np.flatnonzero(slow)
        if _POW10L is None:
            bad[idx] = True
        else:
            out[idx], unsure = _long_path(mant[idx], frac[idx])
            bad[idx[unsure]] = True
    out = np.where(neg, -out, out)
    if bad.any():
        idx = np.flatnonzero(bad)
        fields = mat_bytes(arr, s[idx], e[idx])
        if refuse_underscore and any(b"_" in f for f in fields):
            raise _Underscore
        out[idx] = [float(x) for x in fields]
    return out


def mat_bytes(arr: np.ndarray, s: np.ndarray, e: np.ndarray) -> list[bytes]:
    """Fields [s, e) of ``arr`` as bytes: a few sliced out one by one (a copy of a 4 MiB block costs about as
    much as slicing 2,000 fields), many from one copy of the whole block."""
    if len(s) > 64 and len(s) * 2048 > len(arr):
        raw = arr.tobytes()
        return [raw[a:b] for a, b in zip(s.tolist(), e.tolist())]
    return [arr[a:b].tobytes() for a, b in zip(s.tolist(), e.tolist())]


def _sorted_with_positions(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(o, h[o])`` with ``h[o]`` ascending and equal values in ascending position: a stable argsort of ``h``.

    Sorting values is about twice as fast as ``argsort`` on millions of keys, so each position rides in the low
    bits of its value's top bits (one ``np.sort`` of uint64), and only where two different values share those top
    bits (a handful among millions of hashes) is that stretch put in order by the whole value afterwards."""
    n = len(h)
    bits = max(n - 1, 1).bit_length()
    if bits > 40 or h.dtype != np.uint64:
        o = np.argsort(h, kind="stable")
        return o, h[o]
    b = np.uint64(bits)
    packed = h >> b  # built and sorted in place: every array here is millions of entries
    packed <<= b
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort()
    packed &= np.uint64((1 << bits) - 1)
    o = packed.view(np.int64)
    sh = h[o]
    # A stretch of equal top bits is in position order; it is in (value, position) order unless its values
    # decrease somewhere (then two different values share the top bits): only such stretches are sorted again.
    # ``sh`` is ordered by its top bits, so a stretch's bounds are found by searching for its smallest possible
    # value and the next stretch's.
    for top in np.unique(sh[np.flatnonzero(sh[1:] < sh[:-1])] >> b).tolist():
        lo = int(np.searchsorted(sh, np.uint64(top << bits)))
        nxt = (top + 1) << bits
        hi = n if nxt >> 64 else int(np.searchsorted(sh, np.uint64(nxt)))
        fix = np.lexsort((o[lo:hi], sh[lo:hi]))
        o[lo:hi], sh[lo:hi] = o[lo:hi][fix], sh[lo:hi][fix]
    return o, sh


def _first_codes(h: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(first, codes, sorted values, their codes)``: the position of each distinct value's first occurrence, in
    order of first occurrence; each element's code (its value's place in that order); the distinct values sorted
    and the code of each (for lookups by ``searchsorted``). One sort of the values with their positions packed in
    (:func:`_sorted_with_positions`; ``np.unique`` with ``return_index`` is several times slower); runs of equal
    neighbours (a query's lines) are coded once."""
    n = len(h)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32), h[:0], np.zeros(0, dtype=np.int32)
    change = np.empty(n, dtype=bool)
    change[0] = True
    np.not_equal(h[1:], h[:-1], out=change[1:])
    runs = int(np.count_nonzero(change))
    if runs < n // 2:
        at = np.flatnonzero(change)
        first, codes, sk, sc = _first_codes(h[at])
        return at[first], np.repeat(codes, np.diff(np.append(at, n))), sk, sc
    o, sh = _sorted_with_positions(h)
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sh[1:], sh[:-1], out=new[1:])
    if new.all():  # every value distinct (a run's doc ids, often): codes are positions
        return np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int32), sh, o.astype(np.int32)
    repeats = np.flatnonzero(~new)  # in sorted order: every member of a run of equal values but its first
    if len(repeats) * 8 < n:
        return _first_codes_few_repeats(o, sh, new, repeats)
    starts = np.flatnonzero(new)
    del new
    firstpos = o[starts]  # positions ascend within a run of equal values
    sk = sh[starts]
    del sh
    mark = np.zeros(n, dtype=bool)
    mark[firstpos] = True
    first = np.flatnonzero(mark)  # first occurrences in file order: a value's code is its place here
    del mark
    place = np.empty(n, dtype=np.int32)
    place[first] = np.arange(len(first), dtype=np.int32)
    rank = place[firstpos]
    del place
    codes = np.empty(n, dtype=np.int32)
    codes[o] = np.repeat(rank, np.diff(np.append(starts, n)))
    return first, codes, sk, rank


def _first_codes_few_repeats(o: np.ndarray, sh: np.ndarray, new: np.ndarray, repeats: np.ndarray
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_first_codes` from the sorted values ``sh`` and their positions ``o`` when few values repeat (a run's
    doc ids: most occur once). A first occurrence's code is its position less the repeats before it (one running
    sum); each repeat takes the code of its value's first occurrence (found by a search per repeat), so nothing
    is scattered over all n entries."""
    n = len(o)
    again = o[repeats]  # file positions of the repeats
    first_of = o[np.searchsorted(sh, sh[repeats], "left")]  # positions ascend within a run: its first occurrence
    is_repeat = np.zeros(n, dtype=bool)
    is_repeat[again] = True
    codes = np.arange(n, dtype=np.int32)
    codes -= np.cumsum(is_repeat, dtype=np.int32)
    codes[again] = codes[first_of]
    first = np.flatnonzero(~is_repeat)
    del is_repeat
    return first, codes, sh[new], codes[o[new]]


def _same_rows(ids: np.ndarray, rep: np.ndarray, codes: np.ndarray) -> bool:
    """Whether ``ids[i] == rep[codes[i]]`` for every i, compared as 8-byte words (widths are 8-byte multiples)."""
    if ids.dtype.itemsize != rep.dtype.itemsize:
        ids = ids.astype(rep.dtype)
    words = rep.dtype.itemsize // 8
    a = ids.view("<u8").reshape(len(ids), words)
    b = rep.view("<u8").reshape(len(rep), words)
    return bool(np.array_equal(a, b[codes]))


class _Coder:
    """Ids -> dense codes in order of first appearance, without a Python object per entry.

    Blocks hand in each entry's id (fixed-width bytes) and 64-bit key; :meth:`finish` numbers the keys of all
    blocks at once and, where some key is a hash, compares every entry's id with the id kept for its code, so two
    ids sharing a key are caught (the caller then falls back to the line loop instead of merging them)."""

    def __init__(self) -> None:
        self.ids: list[np.ndarray] = []
        self.keys: list[np.ndarray] = []
        self.hashed = False  # some key is a hash: finish() compares ids

    def add(self, ids: np.ndarray, h: np.ndarray, exact: bool) -> bool:
        self.ids.append(ids)
        self.keys.append(h)
        self.hashed |= not exact
        return True

    def finish(self, lazy: bool = False):
        """``(names, codes)``: names a list of str, or with ``lazy`` a :class:`BytesVocab`; None on a collision."""
        if not self.keys:
            names = BytesVocab(np.zeros(0, "S8"), np.zeros(0, np.uint64)) if lazy else []
            return names, np.zeros(0, np.int32)
        keys = np.concatenate(self.keys)
        self.keys = []
        first, codes, sk, sc = _first_codes(keys)
        width = max(a.dtype.itemsize for a in self.ids)
        rep = np.empty(len(first), dtype=f"S{width}")
        again = None  # where some key is a hash and some entry is not a first occurrence: which ones are not
        if self.hashed and len(first) < len(keys):
            again = np.ones(len(keys), dtype=bool)
            again[first] = False
        blocks, self.ids = self.ids[::-1], []
        at = 0
        while blocks:  # each block's first occurrences into rep, its repeats checked against rep, then let go
            a = blocks.pop()
            lo, hi = np.searchsorted(first, [at, at + len(a)])
            rep[lo:hi] = a if hi - lo == len(a) else a[first[lo:hi] - at]
            if again is not None:  # a first occurrence is its own rep: only a repeat can hold another id
                idx = np.flatnonzero(again[at:at + len(a)])
                if len(idx) and not _same_rows(a[idx], rep, codes[at + idx]):
                    return None  # a key shared by two different ids
            at += len(a)
        if lazy:
            return BytesVocab(rep, keys[first], sorted_keys=(sk, sc)), codes
        return decode_all(rep), codes


def _drop_comments(block: bytes) -> bytes:
    """The block without its comment lines; lines end at b"\\n" only, as the loop's file iteration (a lone CR is
    whitespace inside a line, never a line break: ``bytes.splitlines`` would cut there)."""
    lines = block.split(b"\n")[:-1]  # the block ends with a newline
    return b"".join(ln + b"\n" for ln in lines if ln.lstrip()[:1] != b"#")


def _blocks(path: Path, size: int | None = None):
    """The file's bytes in blocks of about ``size`` (default :data:`BLOCK`), each cut after a newline."""
    size = BLOCK if size is None else size
    rest = b""
    first = True
    with open_input(path) as fh:  # gzip / bzip2 / xz as a capped stream (data.compressed)
        while True:
            try:
                chunk = fh.read(size)
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
    plain = True  # every block ASCII without control characters: no doc id can fail the id check
    try:
        for block in blocks:
            if b"\x00" in block:  # ids are kept NUL-padded: a NUL in an id would vanish; the loop refuses it
                return None
            if not block.isascii():  # bad UTF-8 anywhere on a line (the tag too): the loop names the line
                block.decode("utf-8")
                plain = False
            if b"#" in block:  # maybe a comment line (trec_eval 10.0): drop those, keep ids that contain '#'
                block = _drop_comments(block)
                if not block:
                    continue
            arr = np.frombuffer(block, dtype=np.uint8)
            usual = usual_fields(arr)
            if usual is not None:  # no byte below '!' but the single spaces and newlines: only DEL to look for
                starts, ends = usual
                if plain and bool(np.any(arr == 127)):
                    plain = False
            else:
                arr, starts, ends, counts = _fields(block)
                if plain and _has_control(arr):
                    plain = False
                if np.any((counts != 6) & (counts != 0)):
                    return None
            if not starts.size:
                continue
            if int((ends - starts).max()) > MAX_FIELD:  # one huge field would make every row of the matrix huge
                return None
            for coder, f in ((queries, 0), (docs, 2)):
                if not coder.add(*_column(arr, starts[f::6], ends[f::6])):
                    return None
            s = _scores(arr, starts[4::6], ends[4::6], refuse_underscore=True)
            if not np.all(np.isfinite(s)):
                return None
            scores.append(s)
        if not scores:
            return None
        q, d = queries.finish(), docs.finish(lazy=True)
        if q is None or d is None:
            return None
        d[0].checked = plain
    except InputError:  # a compression bomb or an endless line (data.compressed): refused once, here
        raise
    except (ValueError, UnicodeDecodeError, _Underscore):  # a score float() refuses, or bad UTF-8: the loop
        return None  # names the line
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
