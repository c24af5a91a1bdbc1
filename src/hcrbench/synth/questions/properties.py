"""Each query category's defining property, checked against the fact provenance, the document titles and the
rendered text (the generator rejects a draw that breaks one, and the tests re-check the written files).

- two-hop / 3+-hop: no single document states two consecutive hops of the chain (so none states them all), and
  no document that states the first hop already contains the chain's final answer (a world regularity such as
  "a person's manager leads their team" would otherwise answer it from one page);
- vocabulary mismatch: the query shares no content-word stem with any statement of a needed fact nor with the
  title of any document that states one (the grade-2/3 documents);
- thematic: the needed facts are stated across at least two documents (a theme, not a single-page lookup);
- entity-spanning: the facts come from at least two kinds of document;
- ambiguous: at least two interpretations, each with facts stated somewhere;
- every judged query has a non-empty answer.

A category names its own check in its registry entry (``check``, :mod:`~hcrbench.synth.questions.builtin`): the
functions below are the ten categories'; :func:`violations` runs the checks every query gets and then the
category's.

Bridges (the entities a chain passes through) are counted by the planner, which caps how many queries of a
category may go through one (:func:`bridges`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import pairwise

from hcrbench.synth.corpus.stems import content_stems
from hcrbench.synth.questions.category import PropertyInput
from hcrbench.synth.questions.category import get as get_category

#: The origin of queries worded to share no stem with their evidence (any category).
VOCABULARY_ORIGIN = "adversarial:vocabulary"


def subject(fid: str) -> str:
    return fid.split(":")[1]


def bridges(chain_facts: list[str], chain: bool = True) -> list[str]:
    """The entities a chain goes through: subjects of its later hops other than the starting subject."""
    if not chain or len(chain_facts) < 2:
        return []
    start = subject(chain_facts[0])
    return list(dict.fromkeys(subject(f) for f in chain_facts[1:] if subject(f) != start))


def violations(category: str, origin: str, text: str, answer: object, facts: list[str],
               stated: Callable[[str], Iterable[tuple[int, str, str]]], n_interpretations: int = 0, *,
               title: Callable[[int], str] | None = None, text_of: Callable[[int], str | None] | None = None,
               final_value: str | None = None, chain_facts: list[str] | None = None) -> list[str]:
    """Why a query does not have its category's property (empty when it does). ``stated(fact)`` yields
    ``(doc, doc_type, statement text)`` for every statement of the fact; ``title(doc)`` and ``text_of(doc)``
    give a document's title and text (when known); ``final_value`` is the chain's answer as written in text and
    ``chain_facts`` its hops (default: every needed fact). The category's own check is its registry entry's
    (:class:`~hcrbench.synth.questions.category.QueryCategory` ``check``)."""
    spec = get_category(category)
    out: list[str] = []
    if spec is not None and not spec.needs_facts:
        return out if not facts else [f"{category} query needs no facts"]
    if not facts:
        return ["no needed facts"]
    if answer in (None, "", []):
        out.append("empty answer")
    docs_of = {f: {d for d, _, _ in stated(f)} for f in facts}
    if any(not ds for ds in docs_of.values()):
        out.append("a needed fact is stated nowhere")
        return out
    if spec is not None and spec.check is not None:
        out += spec.check(PropertyInput(category, origin, text, answer, facts, docs_of, stated, n_interpretations,
                                        title, text_of, final_value, chain_facts))
    if origin == VOCABULARY_ORIGIN:
        out += vocabulary_mismatch(facts, stated, text, title)
    return out


def chain_property(q: PropertyInput) -> list[str]:
    """Two-hop / 3+-hop: no document states two consecutive hops, and none stating the first hop holds the
    chain's final answer."""
    out: list[str] = []
    hops = q.chain_facts or q.facts
    for a, b in pairwise(hops):
        common = q.docs_of[a] & q.docs_of[b]
        if common:
            out.append(f"hops {a} and {b} both stated by document(s) {sorted(common)[:3]}")
    if q.final_value and q.text_of is not None:
        for d in sorted(q.docs_of[hops[0]]):
            body = q.text_of(d)
            if body is not None and q.final_value in body:
                out.append(f"document {d} states the first hop and contains the answer {q.final_value!r}")
                break
    return out


def thematic_property(q: PropertyInput) -> list[str]:
    return ["thematic query answered by a single document"] if len(set().union(*q.docs_of.values())) < 2 else []


def spanning_property(q: PropertyInput) -> list[str]:
    kinds = {t for f in q.facts for _, t, _ in q.stated(f)}
    return ["entity-spanning facts come from one kind of document"] if len(kinds) < 2 else []


def ambiguous_property(q: PropertyInput) -> list[str]:
    return ["ambiguous query with fewer than two interpretations"] if q.n_interpretations < 2 else []


def vocabulary_mismatch(facts: list[str], stated: Callable[[str], Iterable[tuple[int, str, str]]], text: str,
                        title: Callable[[int], str] | None) -> list[str]:
    """A vocabulary-mismatch query (any category) shares no content stem with its evidence or their titles."""
    ev: set[str] = set()
    for f in facts:
        for d, _, s in stated(f):
            ev |= content_stems(s)
            if title is not None:
                ev |= content_stems(title(d))
    shared = content_stems(text) & ev
    if shared:
        return [f"vocabulary-mismatch query shares stems {sorted(shared)} with its evidence or its titles"]
    return []
