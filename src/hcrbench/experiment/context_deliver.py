"""Feasibility in deliverable units, and the two controls of the context step: the oracle and the perfect retriever.

What a system delivers is :mod:`hcrbench.context.delivery`'s (its own ranked units, or its documents round robin,
best passage first); the names it defined are re-exported here for the code that imported them from this module.
This module adds what needs the evidence and :mod:`hcrbench.metrics`:

- Feasibility, counted in the units a system delivers: a query is budget-feasible at B for a unit set when the
  cheapest cover of its needed facts by those units costs at most B tokens (:func:`unit_feasibility`).
- The oracle control delivers the cheapest cover of the needed facts by the context chunks that fits the budget
  (:func:`hcrbench.metrics.sufficiency.cheapest_cover`), or the most facts that fit when none does. It passes by
  construction (its context *is* the feasibility witness), so it checks the judge, not the delivery.
- The passage-level perfect control (:func:`passage_rankings`) ranks units of one unit set: first the units that
  state the query's needed facts, each next one adding the most needed facts not yet stated (ties: fewer tokens,
  then unit order), then the other units of the relevant documents by grade. Put through the same selection and
  judge as every system, its failures are the harness's (units, budget accounting, selection, judge): it is the
  gate of the sufficiency rules. Its degraded twin drops every fact-stating unit of a seeded half of the queries,
  so it must fail: the gate can fail.
- The perfect document ranking (:func:`perfect_run`): every relevant document by grade, ties in a given system's
  order, delivered like any document-level system. It is the ceiling of a document ranking under the harness's
  passage choice, a reference that gates nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hcrbench.context.candidates import Candidate
from hcrbench.context.delivery import (  # noqa: F401  (re-exported: the names' old home)
    PASSAGE_SCORER,
    Delivery,
    UnitSet,
    best_passage_first,
    chunking_unit_set,
    context_unit_set,
    document_delivery,
    load_unit_set,
    load_units,
    make_unit_set,
    round_robin,
    spans_unit_set,
    unit_delivery,
)
from hcrbench.data.evidence import QueryEvidence
from hcrbench.data.types import Qrels, Run
from hcrbench.metrics.sufficiency import MAX_EXACT_FACTS, Cover, _cover_items, cheapest_cover

#: The longest run of consecutive units of one document a cover item may be (cheapest_cover's default).
COVER_RUN = 3


def perfect_run(qrels: Qrels, qids: Sequence[str], threshold: int = 1, order: Run | None = None,
                name: str = "perfect") -> Run:
    """The perfect document ranking: per query every document judged ``>= threshold``, by grade (higher first),
    ties in ``order``'s ranking (a system's run: the kill baseline's), then by document id. Scores are
    descending integers, so trec_eval order is this order."""
    ranked: dict[str, list[tuple[str, float]]] = {}
    for q in qids:
        if q not in qrels:
            continue
        rel = {d: g for d, g in qrels[q].items() if g >= threshold}
        if not rel:
            continue
        pos = {d: i for i, (d, _) in enumerate(order.ranked(q))} if order is not None and q in order else {}
        docs = sorted(rel, key=lambda d: (-rel[d], pos.get(d, len(pos)), d))
        ranked[q] = [(d, float(len(docs) - i)) for i, d in enumerate(docs)]
    return Run.from_ranked(ranked, name=name)


class _Units:
    """Candidates of a unit set, indexed the way :func:`cheapest_cover` wants them."""

    def __init__(self, us: UnitSet) -> None:
        self.index = us.index
        self.units = [us.index.candidate(i, 0.0, i) for i in range(len(us.index.tokens))]
        if us.index.tokens is not None:  # recounted tokens (another counter) replace the chunker's
            self.units = [u._replace(n_tokens=int(t)) for u, t in zip(self.units, us.index.tokens)]
        self.by_doc = us.index.by_doc


class Covers:
    """Each unit set's units indexed once, and each query's cover items (:func:`_cover_items`, runs of up to
    three units) and cheapest covers per budget computed once: feasibility, the passage controls and the oracle
    ask for the same covers, and unit sets of the same units (every HCR variant declares its tree's chunks) share
    them. A cover is a function of the units' documents, offsets and tokens in index order (its unit indices,
    tokens and facts), so unit sets equal in those read one computation. A pure memo (the same results as
    computing each anew); one lives for one context step, with one evidence and one corpus."""

    def __init__(self) -> None:
        self._units: dict[int, tuple[UnitSet, _Units, int]] = {}
        self._shapes: dict[tuple[tuple[str, int, int, int], ...], int] = {}
        self._items: dict[tuple[int, str], tuple[QueryEvidence, list[tuple[int, int, tuple[int, ...]]]]] = {}
        self._covers: dict[tuple[int, str, int | None], tuple[QueryEvidence, Cover]] = {}

    def _entry(self, us: UnitSet) -> tuple[UnitSet, _Units, int]:
        got = self._units.get(id(us))
        if got is None or got[0] is not us:
            u = _Units(us)
            shape = tuple((c.doc_id, int(c.start), int(c.end), int(c.n_tokens)) for c in u.units)
            # the unit set kept: its id stays its own
            got = self._units[id(us)] = (us, u, self._shapes.setdefault(shape, len(self._shapes)))
        return got

    def units(self, us: UnitSet) -> _Units:
        return self._entry(us)[1]

    def items(self, us: UnitSet, q: str, ev: QueryEvidence, doc_texts: Mapping[str, str]
              ) -> list[tuple[int, int, tuple[int, ...]]]:
        _, u, shape = self._entry(us)
        got = self._items.get((shape, q))
        if got is None or got[0] is not ev:
            got = self._items[(shape, q)] = (ev, _cover_items(ev, u.units, u.by_doc, doc_texts, COVER_RUN))
        return got[1]

    def cover(self, us: UnitSet, q: str, ev: QueryEvidence, budget: int | None, doc_texts: Mapping[str, str]
              ) -> Cover:
        _, u, shape = self._entry(us)
        got = self._covers.get((shape, q, budget))
        if got is None or got[0] is not ev:
            c = cheapest_cover(ev, u.units, u.by_doc, budget, doc_texts, max_run=COVER_RUN,
                               items=self.items(us, q, ev, doc_texts))
            got = self._covers[(shape, q, budget)] = (ev, c)
        return got[1]


def unit_feasibility(us: UnitSet, evidence: Mapping[str, QueryEvidence], qids: Sequence[str],
                     doc_texts: Mapping[str, str], covers: Covers | None = None) -> dict[str, dict[str, Any]]:
    """Per query with facts: ``{"cover_tokens": int | None, "exact": bool}`` — the cheapest complete cover by
    this unit set (``None``: no set of units states every fact)."""
    covers = covers or Covers()
    out: dict[str, dict[str, Any]] = {}
    for q in qids:
        ev = evidence.get(q)
        if ev is None or not ev.facts:
            continue
        c = covers.cover(us, q, ev, None, doc_texts)
        out[q] = {"cover_tokens": c.tokens if c.complete else None, "exact": len(ev.facts) <= MAX_EXACT_FACTS}
    return out


def oracle_candidates(us: UnitSet, evidence: Mapping[str, QueryEvidence], qids: Sequence[str],
                      budgets: Sequence[int | None], doc_texts: Mapping[str, str], covers: Covers | None = None
                      ) -> dict[str | None, dict[str, list[Candidate]]]:
    """``{budget: {query: candidates}}``: the cheapest cover that fits each budget (the most facts when none
    does), in text order; a query without evidence gets no candidates."""
    covers = covers or Covers()
    u = covers.units(us)
    out: dict[str | None, dict[str, list[Candidate]]] = {}
    for b in budgets:
        per: dict[str, list[Candidate]] = {}
        for q in qids:
            ev = evidence.get(q)
            if ev is None or not ev.facts:
                per[q] = []
                continue
            c = covers.cover(us, q, ev, b, doc_texts)
            per[q] = [u.units[i]._replace(score=1.0, rank=r) for r, i in enumerate(c.units)]
        out[b] = per  # type: ignore[index]
    return out


def _fact_order(items: Sequence[tuple[int, int, tuple[int, ...]]], tokens: Sequence[int],
                first: set[int] | None = None) -> list[int]:
    """Unit indices in the order that states the most needed facts first: each next item (a unit, or a run of
    units of one document that states a fact only together) adds the most facts not yet stated; ties: fewer new
    tokens, then the smaller unit indices (a stable order). With ``first`` (a cover's units), the items inside it
    are ordered so before any other."""
    covered, placed, order = 0, set(), []
    pools = [[it for it in items if set(it[2]) <= first], list(items)] if first is not None else [list(items)]
    for pool in pools:
        covered = _greedy(pool, tokens, covered, placed, order)
    return order


def _greedy(items: Sequence[tuple[int, int, tuple[int, ...]]], tokens: Sequence[int], covered: int,
            placed: set[int], order: list[int]) -> int:
    """One greedy pass of :func:`_fact_order` over ``items``, appending to ``order``: the facts then stated."""
    while True:
        best: tuple[int, int, tuple[int, ...]] | None = None
        pick: tuple[int, int, tuple[int, ...]] | None = None
        for m, _t, k in items:
            new = bin(m & ~covered).count("1")
            if not new:
                continue
            key = (-new, sum(int(tokens[i]) for i in k if i not in placed), k)
            if best is None or key < best:
                best, pick = key, (m, _t, k)
        if pick is None:
            return covered
        covered |= pick[0]
        for i in pick[2]:
            if i not in placed:
                placed.add(i)
                order.append(i)


def passage_rankings(us: UnitSet, evidence: Mapping[str, QueryEvidence], qids: Sequence[str],
                     grades: Mapping[str, Mapping[str, int]], doc_texts: Mapping[str, str], limit: int,
                     degraded: set[str] | frozenset[str] = frozenset(), covers: Covers | None = None
                     ) -> tuple[dict[str, list[Candidate]], dict[str, list[Candidate]]]:
    """The passage-level perfect control and its degraded twin, ``({query: candidates}, {query: candidates})``.

    Per query with needed facts: the units of ``us`` that state them (:func:`_fact_order`: each next adds the
    most needed facts not yet stated, the cheapest complete cover's units before any other, so the ranking's
    first units state every fact in the fewest tokens that can: a greedy over every unit may spend the budget on
    a unit stating many facts and leave the last one out of reach of a feasible budget), then the remaining
    units of the documents in ``grades[q]`` (the relevant ones and their grades), higher grade first, document id
    on ties, a document's units in text order; cut at ``limit``. The degraded ranking is the same with every
    fact-stating unit dropped for the queries in ``degraded``. Scores descend with the rank."""
    covers = covers or Covers()
    u = covers.units(us)
    tokens = [c.n_tokens for c in u.units]
    good: dict[str, list[Candidate]] = {}
    bad: dict[str, list[Candidate]] = {}
    for q in qids:
        ev = evidence.get(q)
        if ev is None or not ev.facts:
            continue
        items = covers.items(us, q, ev, doc_texts)
        cover = covers.cover(us, q, ev, None, doc_texts)
        first = _fact_order(items, tokens, set(cover.units))
        stating = {i for _m, _t, k in items for i in k}
        rel = grades.get(q, {})
        rest = [i for d in sorted(rel, key=lambda d: (-rel[d], d))
                for i in sorted(u.by_doc.get(d, ()), key=lambda i: (u.units[i].start, u.units[i].end, i))]
        seen = set(first)
        ranked = first + [i for i in rest if not (i in seen or seen.add(i))]
        keep = ranked[:limit]
        good[q] = [u.units[i]._replace(score=float(len(keep) - r), rank=r) for r, i in enumerate(keep)]
        if q in degraded:
            keep = [i for i in ranked if i not in stating][:limit]
            bad[q] = [u.units[i]._replace(score=float(len(keep) - r), rank=r) for r, i in enumerate(keep)]
        else:  # the same ranking: the same (immutable) candidates in a list of its own
            bad[q] = list(good[q])
    return good, bad


def degraded_queries(feasible: Mapping[str, bool], seed: int) -> set[str]:
    """A seeded random half (rounded up) of the feasible queries and of the others, drawn apart so the degraded
    control loses its facts on half of the queries the gate counts, whatever the draw."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out: set[str] = set()
    for flag in (True, False):
        group = sorted(q for q, v in feasible.items() if bool(v) is flag)
        if group:
            out.update(group[i] for i in rng.permutation(len(group))[:(len(group) + 1) // 2])
    return out
