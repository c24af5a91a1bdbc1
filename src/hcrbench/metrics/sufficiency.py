"""Sufficiency@B: does a token-budgeted context contain what the query needs? Three offline judgements.

- ``evidence_coverage`` — every needed fact has at least one of its statement spans inside the context (Meridian's
  provenance, :mod:`hcrbench.data.evidence`). A span is inside when the selected chunks of its document cover all
  of it; adjacent chunks count as one stretch when only whitespace separates them.
- ``answer_containment`` — the answer string, or every item of a list answer, occurs in the context text after
  Unicode (NFKC) case folding and whitespace collapsing ("contains GT" in the Sufficient Context paper).
- ``relevant_passage`` — *a proxy for BEIR-style data without evidence*: the context holds a chunk of a document
  judged relevant (grade >= threshold). It says nothing about whether that chunk states the answer.

Also here (numbers from these judgements, no statistics): the failure-rate band of the design, precision/recall of
a budget-impossible flag, and the token-efficiency ratio between two sufficiency curves. Confidence intervals and
paired tests are computed above this stage (``hcrbench.stats``), where the experiment runner combines them.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from hcrbench.data.cover import (  # noqa: F401  (the cover's names, re-exported: their old home)
    MAX_EXACT_FACTS,
    Cover,
    EvidenceSpanLike,
    SpanLike,
    UnitLike,
    _cover_items,
    _cover_mask,
    _exact_cover,
    _popcounts,
    _stretches,
    cheapest_cover,
)
from hcrbench.data.evidence import BUDGET_TOKENS, QueryEvidence
from hcrbench.data.tokens import TokenCounter, default_counter

#: The three judgements, in the order they are preferred as the headline one.
KINDS = ("evidence_coverage", "answer_containment", "relevant_passage")
#: The design's bands for the failure rate on budget-feasible queries (upper bounds, inclusive).
FAILURE_BANDS = ((0.10, "good"), (0.20, "acceptable"), (0.30, "concerning"), (1.00, "kill"))


def covered_facts(chunks: Iterable[SpanLike], evidence: QueryEvidence,
                  doc_texts: Mapping[str, str] | None = None) -> list[str]:
    """The needed facts that have at least one statement span inside the chunks."""
    stretch = _stretches(chunks, doc_texts)
    out = []
    for fact in evidence.facts:
        for span in evidence.statements(fact):
            if any(a <= span.start and span.end <= b for a, b in stretch.get(span.doc_id, ())):
                out.append(fact)
                break
    return out


def evidence_coverage(chunks: Iterable[SpanLike], evidence: QueryEvidence,
                      doc_texts: Mapping[str, str] | None = None) -> bool:
    """True when every needed fact is stated inside the chunks (a query with no facts is never covered)."""
    return bool(evidence.facts) and len(covered_facts(chunks, evidence, doc_texts)) == len(evidence.facts)


_SPACES = re.compile(r"\s+")


def normalise(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed to single spaces, stripped."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


@functools.lru_cache(maxsize=1 << 16)
def _normalised_piece(text: str) -> str:
    return normalise(text)


def normalise_pieces(pieces: Iterable[str]) -> str:
    """``normalise("\n\n".join(pieces))``, from each piece normalised once (a chunk recurs across budgets and
    systems): NFKC and case folding never act across the blank line between two pieces, and the whitespace run
    there collapses to the one space that joins the non-empty normalised pieces (a property test checks it)."""
    return " ".join(p for p in map(_normalised_piece, pieces) if p)


def answer_containment(context: str | Sequence[str], answer: str | Sequence[str] | None) -> bool | None:
    """Whether the answer (every item of a list) occurs in ``context``; ``None`` when there is no answer.
    ``context`` is the text, or its pieces (chunks in reading order) as the reader gets them joined by a blank
    line."""
    if answer is None:
        return None
    items = [answer] if isinstance(answer, str) else [str(a) for a in answer]
    items = [normalise(a) for a in items]
    items = [a for a in items if a]
    if not items:
        return None
    ctx = normalise(context) if isinstance(context, str) else normalise_pieces(context)
    return all(a in ctx for a in items)


def relevant_passage(chunks: Iterable[SpanLike], relevant_docs: Iterable[str]) -> bool:
    """Proxy: some chunk comes from a document judged relevant."""
    rel = set(relevant_docs)
    return any(c.doc_id in rel for c in chunks)


@dataclass(frozen=True)
class QuerySufficiency:
    """The three judgements for one (query, context); ``None`` where the data cannot say."""

    evidence_coverage: bool | None
    answer_containment: bool | None
    relevant_passage: bool | None

    def get(self, kind: str) -> bool | None:
        return getattr(self, kind)


def judge(chunks: Sequence[SpanLike], context_text: str | Sequence[str], evidence: QueryEvidence | None,
          relevant_docs: Iterable[str] | None, doc_texts: Mapping[str, str] | None = None) -> QuerySufficiency:
    """All three judgements that the available ground truth allows."""
    cov = evidence_coverage(chunks, evidence, doc_texts) if evidence is not None and evidence.evidence else None
    ans = answer_containment(context_text, evidence.answer) if evidence is not None else None
    rel = relevant_passage(chunks, relevant_docs) if relevant_docs is not None else None
    return QuerySufficiency(cov, ans, rel)


def is_budget_feasible(evidence: QueryEvidence, budget: int = BUDGET_TOKENS,
                       counter: TokenCounter | None = None) -> bool:
    """The record's ``budget_feasible`` flag when ``budget`` is the design's 400, else (or when absent) whether its
    minimal evidence fits: ``minimal_tokens`` if given, else the tokens of the minimal spans counted one by one."""
    if evidence.budget_feasible is not None and budget == BUDGET_TOKENS:
        return evidence.budget_feasible
    if evidence.minimal_tokens is not None:
        return evidence.minimal_tokens <= budget
    counter = counter or default_counter()
    return sum(counter.count(s.text) for s in evidence.minimal) <= budget


def failure_band(rate: float) -> str:
    """The design's verdict on a failure rate on budget-feasible queries: good (<= 10%), acceptable (<= 20%),
    concerning (<= 30%), kill (> 30%)."""
    for bound, name in FAILURE_BANDS:
        if rate <= bound:
            return name
    return "kill"


@dataclass(frozen=True)
class Detection:
    """Precision / recall of a "budget-impossible" flag against the ground truth (positive = infeasible)."""

    precision: float | None
    recall: float | None
    true_positive: int
    false_positive: int
    false_negative: int
    n: int

    def to_dict(self) -> dict[str, float | int | None]:
        return {"precision": self.precision, "recall": self.recall, "true_positive": self.true_positive,
                "false_positive": self.false_positive, "false_negative": self.false_negative, "n": self.n}


def detection(flags: Mapping[str, bool], feasible: Mapping[str, bool]) -> Detection:
    """Score ``flags[q]`` (True = the system says the budget cannot hold the evidence) against ``not feasible[q]``
    over the queries both know. Precision is ``None`` when nothing was flagged, recall when nothing is infeasible."""
    qs = [q for q in flags if q in feasible]
    tp = sum(1 for q in qs if flags[q] and not feasible[q])
    fp = sum(1 for q in qs if flags[q] and feasible[q])
    fn = sum(1 for q in qs if not flags[q] and not feasible[q])
    return Detection(tp / (tp + fp) if tp + fp else None, tp / (tp + fn) if tp + fn else None, tp, fp, fn, len(qs))


def token_efficiency(curve_x: Mapping[int, float], curve_y: Mapping[int, float],
                     reference_budget: int = BUDGET_TOKENS) -> dict[str, float | int | None]:
    """The budget at which system X first matches system Y's sufficiency at ``reference_budget``.

    ``curve_*`` map budget -> sufficiency rate. Returns ``{"target", "budget", "ratio"}``: Y's rate at the
    reference, X's smallest budget reaching it, and ``budget / reference_budget`` (< 1: X needs fewer tokens;
    ``None``: X never matches Y within its budgets). The design's go criterion "HCR@400 >= flat@600" holds when
    ``token_efficiency(flat, hcr)["budget"]`` is ``None`` or >= 600 (X = the flat baseline, Y = HCR).
    """
    if reference_budget not in curve_y:
        return {"target": None, "budget": None, "ratio": None}
    target = curve_y[reference_budget]
    for b in sorted(curve_x):
        if curve_x[b] >= target - 1e-12:
            return {"target": target, "budget": b, "ratio": b / reference_budget}
    return {"target": target, "budget": None, "ratio": None}
