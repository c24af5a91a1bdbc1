"""Evidence records: which text spans state the facts a query needs (``evidence.jsonl``).

A generator (Meridian) writes them; token-budget selection (``hcrbench.context``) and sufficiency metrics read
them. They live here, below both, so neither imports the other. One line per query::

    {"query_id": "MQ001",
     "facts": ["F12", "F40"],                         # the facts the query needs (a chain for multi-hop)
     "evidence": [{"doc_id", "start", "end", "text", "fact_id"}, ...],   # every statement of every needed fact
     "minimal": [{"doc_id", "start", "end", "text", "fact_id"}, ...],    # fewest tokens covering all facts
     "minimal_tokens": 57, "budget_feasible": true, "answer": "..." | ["...", ...]}

Offsets are character offsets into the document's ``text``. Files without ``fact_id`` (Meridian 1.x, or a user's
own evidence) are read with each distinct span as its own fact, and ``minimal`` defaults to every span, so older
folders still load; what was defaulted is recorded in :attr:`QueryEvidence.defaulted`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.beir import iter_jsonl, write_jsonl
from hcrbench.errors import InputError

#: The design's tight context budget: ``budget_feasible`` means the minimal evidence fits in this many tokens.
BUDGET_TOKENS = 400


@dataclass(frozen=True)
class EvidenceSpan:
    """One statement of one fact: ``text == corpus[doc_id].text[start:end]``."""

    doc_id: str
    start: int
    end: int
    text: str
    fact_id: str

    def to_dict(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id, "start": self.start, "end": self.end, "text": self.text,
                "fact_id": self.fact_id}


@dataclass
class QueryEvidence:
    """Everything known about where a query's needed facts are stated."""

    query_id: str
    facts: list[str]
    evidence: list[EvidenceSpan]
    minimal: list[EvidenceSpan]
    minimal_tokens: int | None = None
    budget_feasible: bool | None = None
    answer: str | list[str] | None = None
    defaulted: list[str] = field(default_factory=list)

    def statements(self, fact_id: str) -> list[EvidenceSpan]:
        """Every span that states ``fact_id``."""
        return [e for e in self.evidence if e.fact_id == fact_id]

    def to_dict(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "facts": list(self.facts),
                "evidence": [e.to_dict() for e in self.evidence],
                "minimal": [e.to_dict() for e in self.minimal],
                "minimal_tokens": self.minimal_tokens, "budget_feasible": self.budget_feasible,
                "answer": self.answer}


def _span(obj: Any, path: Path, n: int, key: str) -> EvidenceSpan:
    if not isinstance(obj, dict):
        raise InputError(f"each entry must be an object, got {type(obj).__name__}", path=path, line=n, field=key)
    for k in ("doc_id", "start", "end"):
        if k not in obj:
            raise InputError(f"missing '{k}' in an evidence entry", path=path, line=n, field=key)
    start, end = obj["start"], obj["end"]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)) or not 0 <= start <= end:
        raise InputError(f"start/end must be integers with 0 <= start <= end, got {start!r}, {end!r}",
                         path=path, line=n, field=key)
    doc_id = str(obj["doc_id"])
    fact = obj.get("fact_id")
    return EvidenceSpan(doc_id, start, end, str(obj.get("text", "")),
                        str(fact) if fact is not None else f"{doc_id}:{start}-{end}")


def parse_evidence(obj: dict[str, Any], path: Path, n: int) -> QueryEvidence:
    """One ``evidence.jsonl`` object to a :class:`QueryEvidence` (errors name file, line and field)."""
    qid = obj.get("query_id", obj.get("_id"))
    if qid is None or str(qid).strip() == "":
        raise InputError("missing 'query_id'", path=path, line=n, field="query_id")
    raw = obj.get("evidence", [])
    if not isinstance(raw, list):
        raise InputError("'evidence' must be a list", path=path, line=n, field="evidence")
    spans = [_span(e, path, n, "evidence") for e in raw]
    defaulted: list[str] = []
    if "facts" in obj:
        if not isinstance(obj["facts"], list):
            raise InputError("'facts' must be a list", path=path, line=n, field="facts")
        facts = [str(f) for f in obj["facts"]]
    else:
        facts = list(dict.fromkeys(s.fact_id for s in spans))
        defaulted.append("facts")
    if "minimal" in obj:
        if not isinstance(obj["minimal"], list):
            raise InputError("'minimal' must be a list", path=path, line=n, field="minimal")
        minimal = [_span(e, path, n, "minimal") for e in obj["minimal"]]
    else:
        minimal = list(spans)
        defaulted.append("minimal")
    tokens = obj.get("minimal_tokens")
    if tokens is not None and (not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0):
        raise InputError(f"'minimal_tokens' must be a non-negative integer, got {tokens!r}", path=path, line=n,
                         field="minimal_tokens")
    feasible = obj.get("budget_feasible")
    if feasible is not None and not isinstance(feasible, bool):
        raise InputError("'budget_feasible' must be true or false", path=path, line=n, field="budget_feasible")
    return QueryEvidence(str(qid), facts, spans, minimal, tokens, feasible, obj.get("answer"), defaulted)


def iter_evidence(path: str | Path) -> Iterator[QueryEvidence]:
    """Stream the records of an ``evidence.jsonl`` file."""
    p = Path(path)
    for n, obj in iter_jsonl(p):
        yield parse_evidence(obj, p, n)


def read_evidence(path: str | Path) -> dict[str, QueryEvidence]:
    """All records of an ``evidence.jsonl`` file by query id (a repeated query id is an error)."""
    out: dict[str, QueryEvidence] = {}
    p = Path(path)
    for n, obj in iter_jsonl(p):
        rec = parse_evidence(obj, p, n)
        if rec.query_id in out:
            raise InputError(f"query '{rec.query_id}' appears twice", path=p, line=n, field="query_id")
        out[rec.query_id] = rec
    return out


def write_evidence(path: str | Path, records: Iterable[QueryEvidence]) -> None:
    """Write records as ``evidence.jsonl`` atomically, in the order given."""
    write_jsonl(path, (r.to_dict() for r in records))
