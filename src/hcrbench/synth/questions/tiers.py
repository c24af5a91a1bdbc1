"""Difficulty tiers and budget feasibility measured in deliverable chunks, with the design's meaning.

A query's evidence is counted in the units the harness delivers: every document is cut into 128-token chunks as
the context step does (:func:`hcrbench.data.chunking.chunk_text`: sentence-respecting, no overlap, cl100k), and the
**minimal evidence** is the cheapest set of chunks (or runs of up to three consecutive chunks of one document)
stating every needed fact (:func:`hcrbench.data.cover.cheapest_cover`, the experiment oracle's cover). From it:

- **budget-feasible**: the cover costs at most 400 tokens (:data:`~hcrbench.data.evidence.BUDGET_TOKENS`);
- **tier** (the design's meaning, :func:`evidence_tier`): *easy* = the answer in one chunk (so within the right
  branch); *medium* = two or three chunks of one branch (sibling documents of one document domain), at most two
  hops; *hard* = more chunks, evidence across branches (two or more document domains), or a chain of three or
  more hops (several levels). Branches are document domains (``metadata.domain``).

Both are labels of the generator (``queries.meta.jsonl``: ``difficulty``, ``n_chunks``, ``chunk_tokens``,
``chunk_domains``, ``budget_feasible_chunks``) and are re-derived from the files by ``hcrbench describe``.

The design's targets per category: the feasible shares of :data:`FEASIBLE_DESIGN` (within
:data:`FEASIBLE_BAND`), and tiers 40/35/25 where the category allows (:func:`tier_targets`): a query that does
not fit 400 tokens needs four or more chunks, so it is hard, and a category's hard share is at least its
infeasible share; a category whose queries cannot take a tier by construction (a detail question is one fact,
a 3+-hop chain is several levels) moves that tier's share to the nearest tier it allows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from hcrbench.data.chunking import chunk_text
from hcrbench.data.cover import cheapest_cover
from hcrbench.data.evidence import BUDGET_TOKENS, QueryEvidence
from hcrbench.data.tokens import TokenCounter
from hcrbench.synth.questions.category import TIERS as _TIERS
from hcrbench.synth.questions.category import RegistryView

CHUNK_TOKENS = 128
TIERS = _TIERS
#: The design's tier shares within a category (where the category allows them).
TIER_SHARES = {"easy": 0.40, "medium": 0.35, "hard": 0.25}
#: Design shares of budget-feasible queries per category (minimal evidence within 400 tokens, in 128-token chunks):
#: each category's ``feasible`` (:mod:`~hcrbench.synth.questions.builtin`; a category without evidence has none).
FEASIBLE_DESIGN = RegistryView(lambda cats: {c.name: c.feasible for c in cats if c.feasible is not None})
#: How far (absolute share) a category's feasible share may be from the design's.
FEASIBLE_BAND = 0.10
#: Tiers a category's queries can take by construction (each category's ``tiers``; those that allow only some).
TIER_ALLOWED = RegistryView(lambda cats: {c.name: c.tiers for c in cats if tuple(c.tiers) != TIERS})


class Unit(NamedTuple):
    """One deliverable chunk of a document (``text[start:end]``, ``n_tokens`` cl100k tokens)."""

    doc_id: str
    start: int
    end: int
    n_tokens: int


def chunk_units(doc_id: str, text: str, counter: TokenCounter) -> list[Unit]:
    """The context step's chunks of one document: 128 tokens, sentence-respecting, no overlap."""
    return [Unit(doc_id, s, e, c) for s, e, c, _ in
            chunk_text(text, max_tokens=CHUNK_TOKENS, overlap=0, counter=counter)]


@dataclass(frozen=True)
class ChunkEvidence:
    """The minimal evidence of one query in chunks: how many, their tokens, the documents' domains (branches),
    and whether the cover states every needed fact."""

    n_chunks: int
    tokens: int
    domains: tuple[str, ...]
    complete: bool

    @property
    def feasible(self) -> bool:
        return self.complete and self.tokens <= BUDGET_TOKENS


def chunk_evidence(evidence: QueryEvidence, units_of: Callable[[str], list[Unit]],
                   domain_of: Callable[[str], str], texts: Mapping[str, str]) -> ChunkEvidence:
    """The cheapest chunk cover of ``evidence``'s needed facts (``units_of(doc_id)``: a document's chunks;
    ``texts``: the documents' texts, for chunks that meet across whitespace)."""
    if not evidence.facts:
        return ChunkEvidence(0, 0, (), False)
    units: list[Unit] = []
    by_doc: dict[str, list[int]] = {}
    for doc in dict.fromkeys(sp.doc_id for sp in evidence.evidence):
        us = units_of(doc)
        by_doc[doc] = list(range(len(units), len(units) + len(us)))
        units += us
    cover = cheapest_cover(evidence, units, by_doc, None, texts)
    domains = tuple(sorted({domain_of(units[i].doc_id) for i in cover.units}))
    return ChunkEvidence(len(cover.units), cover.tokens, domains, cover.complete)


def evidence_tier(n_chunks: int, n_domains: int, hops: int) -> str:
    """The design's tier of a query whose minimal evidence is ``n_chunks`` chunks over ``n_domains`` document
    domains and whose chain has ``hops`` hops (1 for a query that is not a chain)."""
    if n_chunks <= 1 and hops <= 1:
        return "easy"
    if n_chunks <= 3 and n_domains <= 1 and hops <= 2:
        return "medium"
    return "hard"


def tier_of(ce: ChunkEvidence, hops: int) -> str:
    return evidence_tier(ce.n_chunks, len(ce.domains), hops)


def tier_targets(category: str, n: int, fixed: Mapping[str, int] | None = None) -> dict[str, int]:
    """Queries per tier for a category of ``n``: 40/35/25, with the hard share raised to the category's
    infeasible share (an infeasible query is hard) and the easy and medium shares scaled to the rest; a tier the
    category cannot take (:data:`TIER_ALLOWED`) passes its share to the nearest tier it can. Counts by largest
    remainder (sum ``n``).

    ``fixed``: budget-feasible queries per tier that the category's hand-written patterns hold by construction
    (``adversarial.toml``'s ``tier``: a wrong-branch question is a decision record and a people profile, two
    branches, so hard; a negation question names four systems, four chunks, so hard; an outdated-version question
    is one policy version, one chunk, so easy). The category cannot give those queries another tier, so a fixed
    hard count adds to the infeasible share (both are hard), and a fixed easy or medium count raises its tier's
    target to it, the other of the two taking the rest (and the hard share leaves them room: questions that exist
    come before a share)."""
    held = {t: (fixed or {}).get(t, 0) / n if n else 0.0 for t in TIERS}  # shares of the category, fixed
    hard = max(TIER_SHARES["hard"], 1.0 - FEASIBLE_DESIGN.get(category, 1.0) + held["hard"])
    hard = min(hard, 1.0 - held["easy"] - held["medium"])  # they exist: room for them
    rest = (1.0 - hard) / (TIER_SHARES["easy"] + TIER_SHARES["medium"])
    share = {"easy": TIER_SHARES["easy"] * rest, "medium": TIER_SHARES["medium"] * rest, "hard": hard}
    for t, other in (("easy", "medium"), ("medium", "easy")):
        if held[t] > share[t]:
            share[t] = min(1.0 - hard, held[t])
            share[other] = 1.0 - hard - share[t]
    allowed = TIER_ALLOWED.get(category, TIERS)
    for t in TIERS:
        if t not in allowed and share[t]:
            to = min(allowed, key=lambda a: (abs(TIERS.index(a) - TIERS.index(t)), -TIERS.index(a)))
            share[to] += share[t]
            share[t] = 0.0
    return _apportion(share, n)


def feasible_target(category: str, n: int) -> int:
    """Budget-feasible queries a category of ``n`` should hold (the design's share, rounded)."""
    return min(n, round(FEASIBLE_DESIGN.get(category, 1.0) * n))


def _apportion(share: Mapping[str, float], n: int) -> dict[str, int]:
    exact = {t: share[t] * n for t in TIERS}
    out = {t: math.floor(v) for t, v in exact.items()}
    for t in sorted(TIERS, key=lambda t: (-(exact[t] - out[t]), TIERS.index(t)))[:n - sum(out.values())]:
        out[t] += 1
    return out


def slot_targets(category: str, n: int) -> list[tuple[str, bool]]:
    """The ``(tier, feasible)`` a category's ``n`` slots aim at, easiest first: the tier targets, with the
    infeasible queries among the hard ones (all of them when the feasible target leaves more infeasible queries
    than hard slots)."""
    tiers = tier_targets(category, n)
    infeasible = min(n - feasible_target(category, n), tiers["hard"])  # only a hard query can be infeasible
    out = [(t, True) for t in TIERS for _ in range(tiers[t])]
    for i in range(min(infeasible, n)):
        t, _ = out[n - 1 - i]
        out[n - 1 - i] = (t, False)
    return out
