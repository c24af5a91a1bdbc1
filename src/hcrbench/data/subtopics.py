"""Subtopic (intent) qrels for diversity measures: TREC Web-track ``qid subtopic docid rel`` files.

The same four columns as TREC qrels, but the second one names the subtopic (intent) a judgment is for, as
ndeval (the TREC diversity evaluator) reads it. ``#`` comment lines and blank lines are skipped; errors are
one-line :class:`~hcrbench.errors.InputError` naming file, line and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hcrbench.data.trec import open_lines
from hcrbench.errors import InputError


@dataclass
class SubtopicQrels:
    """``judgments[qid][doc][subtopic] = grade``, queries and docs in file order."""

    judgments: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    name: str = "subtopics"

    @classmethod
    def from_dict(cls, d: dict, name: str = "subtopics") -> SubtopicQrels:
        """From ``{qid: {doc: {subtopic: grade}}}`` (ids made strings, grades ints)."""
        return cls({str(q): {str(doc): {str(s): int(g) for s, g in subs.items()} for doc, subs in docs.items()}
                    for q, docs in d.items()}, name)

    @property
    def query_ids(self) -> list[str]:
        return list(self.judgments)

    def subtopics(self, qid: str, threshold: int = 1) -> list[str]:
        """The query's subtopics that have at least one doc judged relevant (grade >= threshold)."""
        seen: dict[str, None] = {}
        for subs in self.judgments.get(qid, {}).values():
            for s, g in subs.items():
                if g >= threshold:
                    seen.setdefault(s, None)
        return list(seen)


def read_subtopic_qrels(path: str | Path, *, name: str | None = None) -> SubtopicQrels:
    """Read a ``qid subtopic docid rel`` file (plain or gzip)."""
    path = Path(path)
    out: dict[str, dict[str, dict[str, int]]] = {}
    for n, line in open_lines(path):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != 4:
            raise InputError(f"expected 4 columns (qid subtopic docid rel), found {len(parts)}", path=path, line=n,
                             field="columns")
        qid, sub, doc, rel = parts
        try:
            grade = int(rel)
        except ValueError:
            raise InputError(f"relevance must be an integer, got {rel!r}", path=path, line=n, field="rel") from None
        subs = out.setdefault(qid, {}).setdefault(doc, {})
        if sub in subs:
            raise InputError(f"duplicate judgment for query {qid!r} subtopic {sub!r} doc {doc!r}", path=path, line=n,
                             field="docid")
        subs[sub] = grade
    if not out:
        raise InputError("no judgments in file", path=path)
    return SubtopicQrels(out, name or path.stem)
