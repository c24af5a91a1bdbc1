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

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from hcrbench.data.evidence import BUDGET_TOKENS, QueryEvidence
from hcrbench.data.tokens import TokenCounter, default_counter

#: The three judgements, in the order they are preferred as the headline one.
KINDS = ("evidence_coverage", "answer_containment", "relevant_passage")
#: The design's bands for the failure rate on budget-feasible queries (upper bounds, inclusive).
FAILURE_BANDS = ((0.10, "good"), (0.20, "acceptable"), (0.30, "concerning"), (1.00, "kill"))


class SpanLike(Protocol):
    doc_id: str
    start: int
    end: int


def _stretches(chunks: Iterable[SpanLike], doc_texts: Mapping[str, str] | None) -> dict[str, list[list[int]]]:
    """Per document, the merged ``[start, end]`` stretches the chunks cover (whitespace gaps bridged)."""
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append((c.start, c.end))
    out: dict[str, list[list[int]]] = {}
    for doc, spans in by_doc.items():
        spans.sort()
        text = doc_texts.get(doc) if doc_texts is not None else None
        merged: list[list[int]] = []
        for s, e in spans:
            if merged:
                last = merged[-1]
                gap_ok = s <= last[1] or (text is not None and text[last[1]:s].isspace())
                if gap_ok:
                    last[1] = max(last[1], e)
                    continue
            merged.append([s, e])
        out[doc] = merged
    return out


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


def answer_containment(context: str, answer: str | Sequence[str] | None) -> bool | None:
    """Whether the answer (every item of a list) occurs in ``context``; ``None`` when there is no answer."""
    if answer is None:
        return None
    items = [answer] if isinstance(answer, str) else [str(a) for a in answer]
    items = [normalise(a) for a in items]
    items = [a for a in items if a]
    if not items:
        return None
    ctx = normalise(context)
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


def judge(chunks: Sequence[SpanLike], context_text: str, evidence: QueryEvidence | None,
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


class UnitLike(SpanLike, Protocol):
    n_tokens: int


@dataclass(frozen=True)
class Cover:
    """The cheapest set of deliverable units that states the needed facts (see :func:`cheapest_cover`).

    ``units``: indices into the unit list given; ``tokens``: their total; ``facts``: the facts they state;
    ``complete``: every needed fact is stated (the query is *budget-feasible in these units* at ``tokens``)."""

    units: tuple[int, ...]
    tokens: int
    facts: tuple[str, ...]
    complete: bool


#: More facts than this and the exact search (2^facts states) gives way to a greedy cover (flagged ``exact``).
MAX_EXACT_FACTS = 16


def _cover_items(evidence: QueryEvidence, units: Sequence[UnitLike], by_doc: Mapping[str, Sequence[int]],
                 doc_texts: Mapping[str, str] | None, max_run: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """``(fact mask, tokens, unit indices)`` for every unit, and every run of up to ``max_run`` consecutive units of
    one document, that states at least one needed fact (a statement inside one stretch, as :func:`covered_facts`)."""
    bit = {f: 1 << i for i, f in enumerate(evidence.facts)}
    spans_by_doc: dict[str, list[EvidenceSpanLike]] = {}
    for fact in evidence.facts:
        for sp in evidence.statements(fact):
            spans_by_doc.setdefault(sp.doc_id, []).append(sp)
    items: dict[tuple[int, ...], tuple[int, int]] = {}
    for doc, spans in spans_by_doc.items():
        ix = sorted(by_doc.get(doc, ()), key=lambda i: (units[i].start, units[i].end))
        for a in range(len(ix)):
            for b in range(a + 1, min(a + max_run, len(ix)) + 1):
                run = ix[a:b]
                stretch = _stretches([units[i] for i in run], doc_texts).get(doc, [])
                if len(stretch) != 1:  # not one contiguous stretch: a longer run cannot mend it
                    break
                lo, hi = stretch[0]
                mask = 0
                for sp in spans:
                    if lo <= sp.start and sp.end <= hi:
                        mask |= bit[sp.fact_id]
                if not mask:
                    continue
                # a run is only worth keeping when its first and last unit are both needed for some statement
                if b - a > 1 and _cover_mask([units[i] for i in run[1:]], spans, bit, doc_texts) == mask:
                    continue
                if b - a > 1 and _cover_mask([units[i] for i in run[:-1]], spans, bit, doc_texts) == mask:
                    continue
                key = tuple(run)
                items[key] = (mask, sum(int(units[i].n_tokens) for i in run))
    return [(m, t, k) for k, (m, t) in sorted(items.items())]


class EvidenceSpanLike(Protocol):
    doc_id: str
    start: int
    end: int
    fact_id: str


def _cover_mask(units: Sequence[UnitLike], spans: Sequence[EvidenceSpanLike], bit: Mapping[str, int],
                doc_texts: Mapping[str, str] | None) -> int:
    mask = 0
    for doc, stretch in _stretches(units, doc_texts).items():
        for sp in spans:
            if sp.doc_id == doc and any(a <= sp.start and sp.end <= b for a, b in stretch):
                mask |= bit[sp.fact_id]
    return mask


def _popcounts(n_bits: int) -> np.ndarray:
    """The number of set bits of every integer in ``[0, 2**n_bits)``."""
    ar = np.arange(1 << n_bits, dtype=np.int64)
    return sum(((ar >> k) & 1 for k in range(n_bits)), np.zeros_like(ar))


def _exact_cover(items: Sequence[tuple[int, int, tuple[int, ...]]], n_facts: int, limit: float
                 ) -> list[tuple[int, ...]]:
    """The unit runs of the exact cover: a shortest path over the ``2**n_facts`` fact subsets (vectorised).

    Items are taken in order; item ``(m, t, k)`` relaxes ``cost[s | m]`` from ``cost[s] + t`` (within ``limit``)
    for every ``s``. It gives exactly what the one-state-at-a-time loop ``for s in range(2**n): if cost[s] + t <
    cost[s | m]: ...`` gives: a state updated in the same pass is a superset of ``m``, whose own relaxation only
    leads back to itself (``t >= 0``), so every source reads the cost from before the pass; and each target keeps
    the smallest source reaching its new minimum, as the loop's strict ``<`` does. The sources of target ``T``
    are ``(T & ~m) | sub`` for ``sub`` within ``m``: folding the bits of ``m`` pairwise, lowest first, ties to the
    bit being 0 (the smaller source), leaves the minimum and its smallest source. The state ending the path: most facts, then fewest
    tokens, then the smallest mask."""
    full = (1 << n_facts) - 1
    ar = np.arange(full + 1, dtype=np.int64)
    cost = np.full(full + 1, np.inf)
    cost[0] = 0.0
    back_s = np.full(full + 1, -1, dtype=np.int64)
    back_j = np.full(full + 1, -1, dtype=np.int64)
    shape = (2,) * n_facts  # C order: axis a holds bit n_facts - 1 - a
    for j, (m, t, _k) in enumerate(items):
        c = cost + t
        c[c > limit] = np.inf
        val, src = c.reshape(shape), ar.reshape(shape)
        for b in [b for b in range(n_facts) if m >> b & 1]:  # lowest bit (last axis) first: later axes stay put
            ax = n_facts - 1 - b
            v0, v1 = val.take(0, axis=ax), val.take(1, axis=ax)
            one = v1 < v0
            val, src = np.where(one, v1, v0), np.where(one, src.take(1, axis=ax), src.take(0, axis=ax))
        targets = ar[(ar & m) == 0] | m  # C order of the remaining axes: increasing base = T & ~m
        val, src = val.reshape(-1), src.reshape(-1)
        better = val < cost[targets]
        hit = targets[better]
        cost[hit], back_s[hit], back_j[hit] = val[better], src[better], j
    pc = _popcounts(n_facts)
    reach = cost < np.inf
    top = reach & (pc == pc[reach].max())
    least = cost[top].min()
    s = int(np.flatnonzero(top & (cost == least))[0])
    keys: list[tuple[int, ...]] = []
    while back_j[s] >= 0:
        keys.append(items[int(back_j[s])][2])
        s = int(back_s[s])
    return keys


def cheapest_cover(evidence: QueryEvidence, units: Sequence[UnitLike], by_doc: Mapping[str, Sequence[int]],
                   budget: int | None = None, doc_texts: Mapping[str, str] | None = None, *,
                   max_run: int = 3) -> Cover:
    """The fewest-token set of ``units`` (chunks a system can deliver) that states every needed fact.

    ``by_doc`` maps a document id to the indices of its units in ``units``. A fact is stated when one of its
    statement spans lies inside one unit, or inside a run of up to ``max_run`` consecutive units of its document
    (as :func:`evidence_coverage` judges). Exact (a shortest path over the 2^facts subsets of facts) up to
    :data:`MAX_EXACT_FACTS` facts, greedy by facts per token beyond. Overlapping units (chunks with overlap) are
    paid in full, as a reader gets them. With ``budget``: the complete cover when it fits, else the subset of
    units within the budget that states the most facts (fewest tokens among ties) — the oracle's context at B.
    """
    facts = list(evidence.facts)
    if not facts:
        return Cover((), 0, (), False)
    items = _cover_items(evidence, units, by_doc, doc_texts, max_run)
    cheapest: dict[int, tuple[int, int, tuple[int, ...]]] = {}
    for it in items:  # only the cheapest way to state each set of facts matters (first in unit order on ties)
        if it[0] not in cheapest or it[1] < cheapest[it[0]][1]:
            cheapest[it[0]] = it
    items = [it for it in items if cheapest[it[0]] is it]
    full = (1 << len(facts)) - 1
    limit = float("inf") if budget is None else budget
    if len(facts) > MAX_EXACT_FACTS:
        chosen: list[tuple[int, ...]] = []
        mask, used = 0, 0
        while mask != full:
            best = None
            for m, t, k in items:
                gain = bin(m & ~mask).count("1")
                if gain and used + t <= limit and (best is None or gain / max(t, 1) > best[0]):
                    best = (gain / max(t, 1), m, t, k)
            if best is None:
                break
            chosen.append(best[3])
            mask |= best[1]
            used += best[2]
        picked = tuple(sorted({i for k in chosen for i in k}))
    else:
        picked = tuple(sorted({i for k in _exact_cover(items, len(facts), limit) for i in k}))
    got = _cover_mask([units[i] for i in picked], [sp for f in facts for sp in evidence.statements(f)],
                      {f: 1 << i for i, f in enumerate(facts)}, doc_texts)
    return Cover(picked, sum(int(units[i].n_tokens) for i in picked),
                 tuple(f for i, f in enumerate(facts) if got >> i & 1), got == full)


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
