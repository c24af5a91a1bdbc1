"""The fast path of :func:`~hcrbench.data.trec.read_qrels`: whole blocks of a 4-column qrels file at once.

The block reader of runs (:mod:`hcrbench.data.trec_fast`) applied to ``qid iter docid rel`` lines: fields found on
the bytes, ids coded in order of first appearance without a Python object per line, grades read a character
column at a time. Only what the line loop would read without a word is taken here: every non-blank, non-comment
line of exactly 4 fields and every grade an optional sign and 1 to 9 digits (so within 32 bits). Anything else (a
3-column BEIR file, a bad or huge grade, bad UTF-8, a NUL, a field over ``MAX_FIELD`` bytes, a 64-bit key shared
by two ids) returns None and the line loop reads the file, so its errors, naming the line, are unchanged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hcrbench.data.compressed import STREAM_ERRORS
from hcrbench.data.trec_fast import MAX_FIELD, _blocks, _Coder, _column, _drop_comments, _fields, _matrix
from hcrbench.errors import InputError

#: Longest grade read here: 9 digits stay below 2^31, the loop's bound.
_GRADE_DIGITS = 9


def grades_of(arr: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray | None:
    """Fields [s, e) as int32 grades (an optional '+' or '-', then 1 to 9 digits), or None if any is not so."""
    lengths = e - s
    if not len(s):
        return np.zeros(0, dtype=np.int32)
    width = int(lengths.max())
    if width > _GRADE_DIGITS + 1:
        return None
    mat = _matrix(arr, s, e, width)
    sign = (mat[:, 0] == 45) | (mat[:, 0] == 43)  # '-' or '+'
    if bool(np.any(sign & (lengths == 1))) or bool(np.any(~sign & (lengths > _GRADE_DIGITS))):
        return None
    value = np.zeros(len(s), dtype=np.int64)
    for j in range(width):
        d = mat[:, j] - np.uint8(48)  # wraps below '0': a digit is d <= 9
        digit = (j < lengths) & ~(sign & (j == 0))
        if bool(np.any(digit & (d > 9))):
            return None
        value = np.where(digit, value * 10 + d, value)
    return np.where(mat[:, 0] == 45, -value, value).astype(np.int32)


def read_qrels_columns(path: Path):
    """``(query names, doc names, query codes, doc codes, grades)`` of a 4-column qrels file in file order, or None
    to use the line loop."""
    queries, docs = _Coder(), _Coder()
    grades: list[np.ndarray] = []
    try:
        for block in _blocks(path):
            if b"\x00" in block:
                return None
            if not block.isascii():
                block.decode("utf-8")  # bad UTF-8: the loop names the line
            if b"#" in block:
                block = _drop_comments(block)
                if not block:
                    continue
            arr, starts, ends, counts = _fields(block, 4)
            if np.any((counts != 4) & (counts != 0)):
                return None
            if not starts.size:
                continue
            if int((ends - starts).max()) > MAX_FIELD:
                return None
            g = grades_of(arr, starts[3::4], ends[3::4])
            if g is None:
                return None
            for coder, f in ((queries, 0), (docs, 2)):
                coder.add(*_column(arr, starts[f::4], ends[f::4]))
            grades.append(g)
        if not grades:
            return None
        q, d = queries.finish(), docs.finish()
        if q is None or d is None:
            return None
    except InputError:
        raise
    except (ValueError, UnicodeDecodeError):  # bad UTF-8: the loop names the line
        return None
    except STREAM_ERRORS:  # the loop reports an unreadable file with its own message
        return None
    return q[0], d[0], q[1], d[1], np.concatenate(grades)
