"""Run-file lint beyond syntax: what trec_eval silently accepts but usually means a bug in the producing system.

:func:`check_run` reads a TREC run line by line and collects, per problem class, a count and the first offending
lines (file:line): a second column that is not ``Q0``; more than one run tag; ranks that contradict scores (a
larger rank number with a strictly higher score than the line ranked just before it, in the same query; a rank
that is not an integer); more than ``k`` documents for a query; a document listed twice for one query; with qrels,
queries the qrels do not know (trec_eval scores them nowhere); with qrels, a run none of whose documents the
qrels judge (ids of another collection: every score 0). Ranks are checked against scores as the ranker orders
them (:func:`~hcrbench.data.types.trec_score_key`, 32-bit floats). Queries of the qrels that the run lacks are
reported for information (they score 0 or are skipped, depending on the evaluator's setting), not as a problem.
Syntax the readers refuse (fewer than 6 columns, a score that is not a finite number, bad UTF-8, a corrupt gzip)
raises :class:`~hcrbench.errors.InputError` naming the line, as :func:`~hcrbench.data.trec.read_run` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.trec import _fields, _raw_lines
from hcrbench.data.types import trec_score_key
from hcrbench.errors import InputError

FIRST = 3  # offending lines shown per class


@dataclass
class Problem:
    """One problem class: a key, what it means, how many instances, the first ``FIRST`` lines."""

    key: str
    label: str
    count: int = 0
    unit: str = "lines"
    first: list[int] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)

    def add(self, line: int, example: str = "") -> None:
        self.count += 1
        if len(self.first) < FIRST:
            self.first.append(line)
            if example:
                self.examples.append(example)


@dataclass
class RunCheck:
    """Everything :func:`check_run` found: the classes in a fixed order and a few totals."""

    path: Path
    problems: list[Problem]
    n_lines: int
    n_queries: int
    k: int
    qrels_missing: list[str] = field(default_factory=list)
    qrels_path: Path | None = None

    @property
    def failed(self) -> list[Problem]:
        return [p for p in self.problems if p.count]

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "lines": self.n_lines, "queries": self.n_queries, "k": self.k,
                "problems": {p.key: {"count": p.count, "first_lines": p.first} for p in self.problems},
                "qrels_queries_missing": len(self.qrels_missing)}


def check_run(path: str | Path, qrels: Any = None, k: int = 1000) -> RunCheck:
    """Lint the run at ``path``; ``qrels`` (a Qrels or anything with ``query_ids``) enables the unknown-query check."""
    path = Path(path)
    if k < 1:
        raise InputError(f"must be a positive integer, got {k}", field="--k")
    col2 = Problem("column2", "column 2 is not Q0")
    tags = Problem("tags", "more than one run tag")
    ranks = Problem("ranks", "ranks contradict scores")
    depth = Problem("depth", f"more than {k} documents for a query", unit="queries")
    dups = Problem("duplicates", "a document listed twice for one query")
    unknown = Problem("unknown_queries", "queries unknown to the qrels", unit="queries")
    first_tag: bytes | None = None
    per_query: dict[bytes, list[tuple[float, float, int]]] = {}
    seen: dict[bytes, set[bytes]] = {}
    n_lines = 0
    for n, raw in _raw_lines(path):
        parts = raw.split() if raw.isascii() else _fields(raw, path, n)
        if not parts or parts[0][:1] == b"#":
            continue
        if len(parts) < 6:
            raise InputError(f"expected 6 columns (qid Q0 docid rank score tag), found {len(parts)}",
                             path=path, line=n, field="columns")
        try:
            score = float(parts[4])
        except ValueError:
            raise InputError(f"score is not a number: {parts[4].decode(errors='replace')!r}", path=path, line=n,
                             field="score") from None
        if not math.isfinite(score):
            raise InputError(f"score must be finite, got {parts[4].decode(errors='replace')!r}", path=path,
                             line=n, field="score")
        n_lines += 1
        qid, doc = parts[0], parts[2]
        if parts[1] != b"Q0":
            col2.add(n, parts[1].decode(errors="replace"))
        if first_tag is None:
            first_tag = parts[5]
        elif parts[5] != first_tag:
            tags.add(n, parts[5].decode(errors="replace"))
        docs = seen.setdefault(qid, set())
        if doc in docs:
            dups.add(n, f"{qid.decode(errors='replace')}/{doc.decode(errors='replace')}")
        docs.add(doc)
        try:
            rank = float(int(parts[3]))
        except ValueError:
            ranks.add(n, f"rank {parts[3].decode(errors='replace')!r}")
            rank = math.inf
        per_query.setdefault(qid, []).append((rank, score, n))
    if n_lines == 0:
        raise InputError("no run lines in file (only comments?)", path=path)
    bad_rank_lines: list[int] = []
    for entries in per_query.values():
        entries.sort(key=lambda e: (e[0], e[2]))
        # scores compared as the ranker and trec_eval compare them (32-bit floats: trec_score_key), so a run that
        # hcrbench's own writer ranked is never flagged for differences below float32 precision
        keys = trec_score_key([e[1] for e in entries]).tolist()
        for i in range(1, len(entries)):
            prev, cur = entries[i - 1], entries[i]
            if cur[0] > prev[0] and cur[0] != math.inf and keys[i] > keys[i - 1]:
                bad_rank_lines.append(cur[2])
    for line in sorted(bad_rank_lines):
        ranks.add(line)
    for qid, entries in per_query.items():
        if len(entries) > k:
            depth.add(min(e[2] for e in entries), f"{qid.decode(errors='replace')}: {len(entries)}")
    depth.first.sort()
    missing: list[str] = []
    judged = Problem("no_judged_docs", "no retrieved document is judged (document ids of another collection?)",
                     unit="queries")
    if qrels is not None:
        known = {q.encode() for q in qrels.query_ids}
        for qid, entries in per_query.items():
            if qid not in known:
                unknown.add(min(e[2] for e in entries), qid.decode(errors="replace"))
        missing = [q for q in qrels.query_ids if q.encode() not in per_query]
        common = [q for q in per_query if q in known]
        judged_docs = {d.encode() for q in common for d in qrels[q.decode()]}
        if common and not any(seen[q] & judged_docs for q in common):
            for q in common:  # every query the qrels judge retrieved only documents they never judged
                judged.add(min(e[2] for e in per_query[q]), q.decode(errors="replace"))
    problems = [col2, tags, ranks, depth, dups] + ([unknown, judged] if qrels is not None else [])
    return RunCheck(path, problems, n_lines, len(per_query), k, missing)
