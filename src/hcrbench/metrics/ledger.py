"""The denominator ledger: which queries a mean is over, and why others are not.

Tools silently differ on what they average (queries missing from the run, queries with no relevant docs,
unjudged docs); the ledger states it for every run of every evaluation so two numbers can be compared honestly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hcrbench.data.display import ResultDisplay


@dataclass
class Ledger(ResultDisplay):
    """What one run's means are averaged over.

    - ``n_queries_averaged``: queries in every mean (the ``query_ids`` of the run's evaluation).
    - ``zero_filled``: qrels queries absent from the run, averaged as 0 (``missing="zero"``, like trec_eval -c).
    - ``skipped``: qrels queries absent from the run, left out of the means (``missing="skip"``, trec_eval's
      default).
    - ``ignored``: run queries absent from the qrels (never scored, as trec_eval).
    - ``no_relevant``: averaged queries with no judged doc at or above ``rel_threshold`` (kept in the means,
      as trec_eval does: AP, R, RR... are 0 for them).
    - ``unjudged_at_k``: ``{k: {"total": docs without any judgment in the top k, summed over averaged queries,
      "mean": that total / n_queries_averaged}}`` for each cutoff of the evaluated measures (10 if none).
    - ``max_docs`` / ``judged_only``: trec_eval's ``-M`` / ``-J`` when the evaluation used them.
    """

    n_queries_averaged: int
    zero_filled: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    no_relevant: list[str] = field(default_factory=list)
    unjudged_at_k: dict[int, dict[str, float]] = field(default_factory=dict)
    rel_threshold: int = 1
    missing_policy: str = "zero"
    n_qrels_queries: int = 0
    n_run_queries: int = 0
    max_docs: int | None = None
    judged_only: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (cutoff keys become strings)."""
        return {
            "n_queries_averaged": self.n_queries_averaged,
            "n_qrels_queries": self.n_qrels_queries,
            "n_run_queries": self.n_run_queries,
            "zero_filled": list(self.zero_filled),
            "skipped": list(self.skipped),
            "ignored": list(self.ignored),
            "no_relevant": list(self.no_relevant),
            "unjudged_at_k": {str(k): dict(v) for k, v in self.unjudged_at_k.items()},
            "rel_threshold": self.rel_threshold,
            "missing_policy": self.missing_policy,
            # trec_eval -M / -J: only stated when used, so existing ledgers are unchanged
            **({"max_docs": self.max_docs} if self.max_docs is not None else {}),
            **({"judged_only": True} if self.judged_only else {}),
        }

    def summary(self) -> str:
        """One line for humans, e.g. ``50 queries averaged (2 zero-filled, 1 ignored, 3 with no relevant)``."""
        parts = []
        if self.zero_filled:
            parts.append(f"{len(self.zero_filled)} zero-filled")
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        if self.ignored:
            parts.append(f"{len(self.ignored)} ignored")
        if self.no_relevant:
            parts.append(f"{len(self.no_relevant)} with no relevant")
        tail = f" ({', '.join(parts)})" if parts else ""
        return f"{self.n_queries_averaged} queries averaged{tail}"
