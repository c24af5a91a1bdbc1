"""When two question texts are one question: the definition both the generator (which rejects such a draw) and
``hcrbench audit``'s ``duplicate_queries`` check use, so the one cannot drift from the other.

Two texts are the same question when they have the same content terms (:func:`content_terms`) or their word-3-
shingle sets have Jaccard >= :data:`NEAR_DUP`, unless they differ in a token that names something
(:func:`differ_in_a_name`): "What did DEC-0408 decide?" and "What did DEC-0414 decide?" are two questions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from hcrbench.synth.corpus.stems import STOPWORDS, _stemmer

WORD = re.compile(r"[a-z0-9]+")
#: Identifiers written with hyphens ("HR-POL-011", "INC-20122", "IL-6"): kept whole beside their parts, since a
#: part ("hr", 2 letters) may be dropped and "HR-POL-011" and "CMP-POL-011" must not share every term.
IDENT = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")
NEAR_DUP = 0.8
QUESTION_WORDS = frozenset({"what", "which", "who", "whom", "whose", "how", "when", "where", "why", "is", "are",
                            "was", "were", "did", "does", "do", "list", "name", "give", "show", "find"})


def content_terms(text: str) -> set[str]:
    """Content terms of ``text``: words (stopwords and 1-2 letter words dropped) as Snowball English stems, tokens
    with digits (ids, numbers, years) kept whole, so "INC-20122" and "INC-20156" differ, and hyphenated
    identifiers with a digit kept whole too ("hr-pol-011")."""
    low = text.lower()
    terms = {t for t in IDENT.findall(low) if any(ch.isdigit() for ch in t)}
    words = []
    for w in WORD.findall(low):
        if w in STOPWORDS:
            continue
        if w.isalpha():
            if len(w) > 2:
                words.append(w)
        else:
            terms.add(w)
    terms.update(_stemmer().stemWords(words))
    return terms


def shingles(text: str, n: int = 3) -> set[str]:
    """Word n-grams of ``text`` (lower case, word tokens only); the whole text when it is shorter than n words."""
    words = WORD.findall(text.lower())
    return {" ".join(words[i:i + n]) for i in range(max(len(words) - n + 1, 1))} if words else set()


def differ_in_a_name(a: str, b: str) -> bool:
    """Whether two query texts differ in a token that names something (holds a digit or a capital after the
    first word): 'What did DEC-0408 decide?' and 'What did DEC-0414 decide?' are two questions, not one."""
    ta, tb = a.replace("?", " ").split(), b.replace("?", " ").split()
    diff = {t.lower() for t in ta} ^ {t.lower() for t in tb}
    named = {t.lower() for t in [*ta, *tb] if t[:1].isupper() and t.lower() not in QUESTION_WORDS}
    return any(any(ch.isdigit() for ch in t) or t in named for t in diff)


class QuestionSet:
    """The questions kept so far; :meth:`repeats` tells whether a new text is one of them. Indexed, so a check
    compares only the texts that can repeat it (the same content terms, or a shingle in common among the prefixes
    a Jaccard of :data:`NEAR_DUP` needs: prefix filtering), in the order they were added."""

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self._items: list[tuple[str, frozenset[str], set[str]]] = []
        self._by_terms: dict[frozenset[str], list[int]] = {}
        self._by_prefix: dict[str, list[int]] = {}
        for t in texts:
            self.add(t)

    def add(self, text: str) -> None:
        terms, sh = frozenset(content_terms(text)), shingles(text)
        i = len(self._items)
        self._items.append((text, terms, sh))
        self._by_terms.setdefault(terms, []).append(i)
        for g in _prefix(sh):
            self._by_prefix.setdefault(g, []).append(i)

    def repeats(self, text: str) -> str | None:
        """The kept text that ``text`` repeats (same content terms or shingle Jaccard >= NEAR_DUP, not differing
        in a name), or None."""
        terms, sh = frozenset(content_terms(text)), shingles(text)
        cands = set(self._by_terms.get(terms, ())) if terms else set()
        for g in _prefix(sh):
            cands.update(self._by_prefix.get(g, ()))
        for i in sorted(cands):
            other, o_terms, o_sh = self._items[i]
            same = bool(terms) and terms == o_terms
            if not same and sh and o_sh:
                inter = len(sh & o_sh)
                same = inter / (len(sh) + len(o_sh) - inter) >= NEAR_DUP
            if same and not differ_in_a_name(text, other):
                return other
        return None


def _prefix(sh: set[str]) -> list[str]:
    """The first ``|s| - ceil(NEAR_DUP |s|) + 1`` shingles of ``s`` in one fixed order: two sets with a Jaccard
    of at least NEAR_DUP share one of their prefixes (prefix filtering), so only texts sharing one can repeat."""
    if not sh:
        return []
    k = len(sh) - math.ceil(NEAR_DUP * len(sh) - 1e-9) + 1
    return sorted(sh)[:k]
