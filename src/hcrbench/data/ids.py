"""Ids a TREC or BEIR file can hold round-trip: checked where ids enter and where they are written.

TREC qrels and runs split their columns on ASCII whitespace, so a document id ``"doc 7"`` written as is comes back
as two fields: the columns shift and the rank is read as the score (a wrong number, no error). An id is refused
when it is empty, holds whitespace or a control character (``\\x00``-``\\x20``, ``\\x7f``-``\\x9f``, the Unicode
line and paragraph separators), or a lone surrogate (not UTF-8); a *query* id may also not start with ``#``
(trec_eval 10.0 reads such a line as a comment). Other Unicode (``CR#93E``, ``café``, a no-break space) is fine:
trec_eval keeps it.

Cost: :func:`first_bad_id` joins the distinct ids and runs one regular expression over them, so checking the
vocabulary of a 5M-line run (100k distinct ids) takes milliseconds; readers and writers call it once per file,
never per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from hcrbench.errors import InputError, cut

#: Characters no id may hold: ASCII whitespace and controls, C1 controls, U+2028/9, lone surrogates.
_BAD_CHAR = re.compile("[\x00-\x20\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def id_problem(value: str, *, query: bool = False) -> str | None:
    """Why ``value`` cannot be an id in a TREC/BEIR file, or None when it round-trips."""
    if not isinstance(value, str):
        return f"must be a string, got {type(value).__name__}"
    if value == "":
        return "is empty"
    m = _BAD_CHAR.search(value)
    if m is not None:
        ch = m.group()
        if "\ud800" <= ch <= "\udfff":
            return f"holds a lone surrogate ({ch!r} at position {m.start()}), which cannot be written as UTF-8"
        kind = "whitespace" if ch.isspace() else "a control character"
        why = "the columns would shift when read back" if ch.isspace() else "trec_eval and other tools may cut it"
        return f"holds {kind} ({ch!r} at position {m.start()}), which a TREC file cannot hold round-trip ({why})"
    if query and value.startswith("#"):
        return "starts with '#', which trec_eval reads as a comment line"
    return None


def first_bad_id(ids: Iterable[str], *, query: bool = False) -> tuple[int, str, str] | None:
    """``(position, id, problem)`` of the first id that cannot round-trip, or None when all can.

    Fast path: one regex search over the joined ids; only when it finds something are the ids checked one by one.
    """
    ids = ids if isinstance(ids, Sequence) else list(ids)
    if not ids:
        return None
    try:
        suspect = bool(_BAD_CHAR.search("".join(ids))) or "" in ids or (
            query and "\n#" in "\n" + "\n".join(ids))  # exact once no id holds a newline
    except TypeError:  # a non-string id: find it below
        suspect = True
    if not suspect:
        return None
    for i, v in enumerate(ids):
        problem = id_problem(v, query=query)
        if problem is not None:
            return i, v, problem
    return None


def check_ids(ids: Iterable[str], *, what: str, path=None, line_of=None, field: str | None = None,
              query: bool = False) -> None:
    """Raise :class:`InputError` naming the first bad id (``what``: "doc id", "query id"), its file and line.

    ``line_of(position)`` gives the line number of the id at ``position`` (computed only on error).
    """
    bad = first_bad_id(ids, query=query)
    if bad is None:
        return
    i, value, problem = bad
    line = line_of(i) if line_of is not None else None
    raise InputError(f"{what} {cut(repr(value))} {problem}", path=path, line=line, field=field)
