"""The cheapest set of deliverable units (chunks) that states every needed fact of a query.

Pure over evidence records (:mod:`hcrbench.data.evidence`) and unit spans, so every stage can count feasibility
the same way: the generator (``hcrbench.synth``) labels budget feasibility and difficulty tiers in 128-token chunks
with it, and the sufficiency metrics (:mod:`hcrbench.metrics.sufficiency`, which re-exports these names) and the
experiment's oracle use it for what a system can deliver. Moved here from ``metrics.sufficiency`` unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from hcrbench.data.evidence import QueryEvidence


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
                   max_run: int = 3, items: Sequence[tuple[int, int, tuple[int, ...]]] | None = None) -> Cover:
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
    if items is None:  # else the caller's _cover_items of these same arguments (computed once per query)
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
