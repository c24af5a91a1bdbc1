"""Each query category's defining property, checked against the fact provenance (the generator rejects a draw
that breaks one, and the tests re-check the written files with the same rules).

- two-hop / 3+-hop: no single document states every hop of the chain (no shortcut);
- vocabulary mismatch: the query shares no content-word stem with any statement of a needed fact;
- thematic: the needed facts are stated across at least two documents (a theme, not a single-page lookup);
- entity-spanning: the facts come from at least two kinds of document;
- ambiguous: at least two interpretations, each with facts stated somewhere;
- every judged query has a non-empty answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hcrbench.synth.stems import content_stems


def violations(category: str, origin: str, text: str, answer: object, facts: list[str],
               stated: Callable[[str], Iterable[tuple[int, str, str]]], n_interpretations: int = 0) -> list[str]:
    """Why a query does not have its category's property (empty when it does). ``stated(fact)`` yields
    ``(doc, doc_type, statement text)`` for every statement of the fact."""
    out: list[str] = []
    if category == "out_of_distribution":
        return out if not facts else ["out-of-distribution query needs facts"]
    if not facts:
        return ["no needed facts"]
    if answer in (None, "", []):
        out.append("empty answer")
    docs_of = {f: {d for d, _, _ in stated(f)} for f in facts}
    if any(not ds for ds in docs_of.values()):
        out.append("a needed fact is stated nowhere")
        return out
    if category in ("two_hop", "multi_hop"):
        common = set.intersection(*docs_of.values())
        if common:
            out.append(f"chain shortcut by document(s) {sorted(common)[:3]}")
    if category == "thematic" and len(set().union(*docs_of.values())) < 2:
        out.append("thematic query answered by a single document")
    if category == "entity_spanning" and len({t for f in facts for _, t, _ in stated(f)}) < 2:
        out.append("entity-spanning facts come from one kind of document")
    if category == "ambiguous" and n_interpretations < 2:
        out.append("ambiguous query with fewer than two interpretations")
    if origin == "adversarial:vocabulary":
        ev: set[str] = set()
        for f in facts:
            for _, _, s in stated(f):
                ev |= content_stems(s)
        shared = content_stems(text) & ev
        if shared:
            out.append(f"vocabulary-mismatch query shares stems {sorted(shared)} with its evidence")
    return out
