"""Labelled-substring relevance: judgments for teams that have no doc-id qrels.

Each query lists expected substrings at three grades; a document is relevant when its title (or
``metadata["name"]``) contains one of them, case-insensitively, and takes the highest grade that matches:
``exact`` = 3, ``close`` = 2, ``related`` = 1. The result is an ordinary :class:`~hcrbench.data.Qrels`, so every
metric, statistic and gate works on it unchanged. Input is JSONL, one query per line::

    {"query_id": "q1", "text": "how do I rotate the signing key?", "exact": ["Key rotation runbook"],
     "close": ["signing key"], "related": ["secrets"]}
"""

from __future__ import annotations

import bisect
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.beir import iter_jsonl
from hcrbench.data.types import Corpus, Qrels, Queries
from hcrbench.errors import HcrbenchWarning, InputError

#: Grade of each label kind.
GRADES: dict[str, int] = {"exact": 3, "close": 2, "related": 1}
_KEYS = {"query_id", "_id", "text", "metadata", *GRADES}


@dataclass(frozen=True)
class LabelledQuery:
    """One query's expected substrings per grade (and optionally its text, for running retrievers on it)."""

    query_id: str
    text: str = ""
    exact: tuple[str, ...] = ()
    close: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)

    def labels(self) -> Iterable[tuple[str, int]]:
        """``(substring, grade)`` pairs, highest grade first."""
        for kind, grade in GRADES.items():
            for s in getattr(self, kind):
                yield s, grade


def read_labelled(path: str | Path) -> list[LabelledQuery]:
    """Read a labelled-substring JSONL file; every mistake is a one-line error naming file, line and field."""
    out: list[LabelledQuery] = []
    seen: dict[str, int] = {}
    for n, obj in iter_jsonl(path):
        unknown = sorted(set(obj) - _KEYS)
        if unknown:
            raise InputError(f"unknown key (allowed: {', '.join(sorted(_KEYS - {'_id'}))})", path=path,
                             line=n, field=unknown[0])
        key = "query_id" if "query_id" in obj else "_id"
        qid = obj.get(key)
        if not isinstance(qid, (str, int)) or isinstance(qid, bool) or not str(qid).strip():
            raise InputError(f"must be a non-empty string, got {qid!r}", path=path, line=n, field="query_id")
        qid = str(qid)
        if qid in seen:
            raise InputError(f"duplicate query id {qid!r} (first on line {seen[qid]})", path=path, line=n,
                             field="query_id")
        seen[qid] = n
        text = obj.get("text", "")
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise InputError(f"must be a string, got {type(text).__name__}", path=path, line=n, field="text")
        meta = obj.get("metadata") or {}
        if not isinstance(meta, dict):
            raise InputError("must be a JSON object", path=path, line=n, field="metadata")
        lists: dict[str, tuple[str, ...]] = {}
        for kind in GRADES:
            v = obj.get(kind, [])
            if isinstance(v, str):
                v = [v]
            if not isinstance(v, list):
                raise InputError(f"must be a list of strings, got {type(v).__name__}", path=path, line=n,
                                 field=kind)
            for s in v:
                if not isinstance(s, str) or not s.strip():
                    raise InputError(f"every entry must be a non-empty string, got {s!r}", path=path, line=n,
                                     field=kind)
            lists[kind] = tuple(s.strip() for s in v)
        if not any(lists.values()):
            raise InputError("query lists no expected substring (need one of exact, close, related)",
                             path=path, line=n, field="exact")
        out.append(LabelledQuery(qid, text, metadata=dict(meta), **lists))
    return out


def _haystacks(corpus: Corpus, field: str) -> list[str]:
    if field == "title":
        return [
            f"{t}\x00{m.get('name')}" if isinstance(m.get("name"), str) else t
            for t, m in zip(corpus.titles, corpus.metadata)
        ]
    if field == "text":
        return list(corpus.texts)
    out = []
    for m in corpus.metadata:
        v = m.get(field, "")
        out.append(v if isinstance(v, str) else "" if v is None else str(v))
    return out


def labelled_qrels(spec: Iterable[LabelledQuery], corpus: Corpus, field: str = "title", *,
                   name: str = "labelled") -> Qrels:
    """Qrels from expected substrings: grade = highest label whose substring occurs in the document's ``field``.

    ``field="title"`` matches the title or ``metadata["name"]``; ``"text"`` the body; any other value a
    metadata key. Matching is case-insensitive (``str.casefold``). Queries whose substrings match no document
    are left out of the qrels (they cannot be scored) and named in a :class:`HcrbenchWarning`.
    """
    hays = [h.casefold() for h in _haystacks(corpus, field)]
    hay = "\x01".join(hays)
    starts: list[int] = []
    pos = 0
    for h in hays:
        starts.append(pos)
        pos += len(h) + 1
    judged: dict[str, dict[str, int]] = {}
    empty: list[str] = []
    for q in spec:
        grades: dict[int, int] = {}
        for sub, grade in q.labels():
            needle = sub.casefold()
            i = hay.find(needle)
            while i >= 0:
                d = bisect.bisect_right(starts, i) - 1
                if grades.get(d, 0) < grade:
                    grades[d] = grade
                nxt = starts[d + 1] if d + 1 < len(starts) else len(hay)
                i = hay.find(needle, nxt)
        if not grades:
            empty.append(q.query_id)
            continue
        judged[q.query_id] = {corpus.doc_ids[d]: g for d, g in sorted(grades.items())}
    if empty:
        shown = ", ".join(empty[:5]) + (", ..." if len(empty) > 5 else "")
        warnings.warn(f"{len(empty)} labelled queries match no document's {field} and are left out: {shown}",
                      HcrbenchWarning, stacklevel=2)
    return Qrels.from_dict(judged, name=name)


def labelled_queries(spec: Iterable[LabelledQuery], *, name: str = "labelled") -> Queries:
    """The queries of a labelled spec (those with text), metadata kept, for running retrievers on them."""
    spec = [q for q in spec if q.text]
    return Queries([q.query_id for q in spec], [q.text for q in spec], [dict(q.metadata) for q in spec],
                   name=name)
