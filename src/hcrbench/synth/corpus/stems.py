"""Content-word stems (PyStemmer's English Snowball stemmer), used to check vocabulary-mismatch labels.

A vocabulary-mismatch query must share no content-word stem with any statement of the facts it needs; the same
function measures the lexical overlap that difficulty tiers are computed from.
"""

from __future__ import annotations

import re
from functools import lru_cache

_STOP = """
a about above after again all also am an and any are as at be been before being below between both but by can
could did do does doing done each every few for from further had has have having he her here hers him his how i
if in into is it its itself just me more most my no nor not now of off on once only or other our ours out over
own per same she should so some such than that the their theirs them then there these they this those through to
too under until up us very was we were what when where which while who whom whose why will with would you your
yours meridian meridian's company get got tell give gives need needs know want right s t
"""
STOPWORDS = frozenset(_STOP.split())
WORD = re.compile(r"[a-z]+")


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


def content_stems(text: str) -> set[str]:
    """Stems of the content words of ``text`` (lower-cased letters only, stopwords and 1-2 letter words dropped)."""
    words = [w for w in WORD.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS]
    return set(_stemmer().stemWords(words))


def overlap(query: str, evidence: list[str]) -> float:
    """Share of the query's content stems found in the evidence text (0 when the query has none)."""
    q = content_stems(query)
    if not q:
        return 0.0
    ev: set[str] = set()
    for t in evidence:
        ev |= content_stems(t)
    return len(q & ev) / len(q)
