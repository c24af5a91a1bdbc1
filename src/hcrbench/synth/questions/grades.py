"""The grade a relevant document earns: what it is about, not how many needed facts it happens to state.

**A document's subject** is the record it writes up (a meeting's notes are about the meeting, an incident page
about its ticket, a decision record about the decision), else the first entity of its routing metadata (a
profile's person, a policy's id, a system overview's system, a charter's project, a team page's team).

**A fact's subject** is the entity it is an attribute of: the second field of its id (``per:P0012:location`` is
about ``P0012``, ``mtg:MTG-00029:attendee:P0108`` about ``MTG-00029``).

**Primary grades** (``qrels/``), for the documents that state at least one of a query's needed facts:

- 3: the document states a needed fact *about its own subject*: the page the question is about, or a page whose
  subject the needed fact is about (a profile stating where its person is based; an incident page stating its
  assignee; the notes of a meeting stating who attended it);
- 2: every needed fact the document states is about something else: it states them *in passing* (an *aside*: a
  policy signed "Sana Schneider, Director of Engineering" states her title; an incident page that mentions
  "project Tundra, whose lead is Kofi Weber" states the lead; a team page's roster states a member's office);
- 1 (the topical view ``qrels-topical/`` only): the document is about a query entity (its routing metadata names
  it) and states no needed fact: it only mentions the entity;
- 0: a judged negative, checked to name no query entity.

So the page a question is about ranks above a page that states the fact in passing, which ranks above a page
that only mentions the entity. The rule reads only provenance and each document's subject, so ``describe`` and
the tests re-derive it from the written files (:func:`subjects_from_files`) and the evidence oracle ranks by it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: Document types that write up one world record: (the world's list, the spec's ``ref`` key for its index).
RECORD_DOCS = {"meeting": ("meetings", "meeting"), "incident": ("tickets", "ticket"),
               "decision": ("decisions", "decision")}
SUBJECT, ASIDE = 3, 2


def fact_subject(fid: str) -> str:
    """The entity a fact is an attribute of (its id's second field)."""
    return fid.split(":")[1]


def spec_subject(world: Any, spec: Any) -> str:
    """The subject of a planned document (``DocSpec``) of ``world``: the record it writes up, else the first entity
    of its routing metadata ('' when it has none)."""
    rec = RECORD_DOCS.get(spec.doc_type)
    if rec is not None and rec[1] in spec.ref:
        return getattr(world, rec[0])[spec.ref[rec[1]]]["id"]
    return spec.entities[0] if spec.entities else ""


def subjects_from_files(rows: Iterable[tuple[str, list[str]]], world: Mapping[str, Any]) -> dict[str, str]:
    """Each written document's subject, from ``corpus.jsonl`` rows ``(doc_id, metadata entities)`` and
    ``world.json`` (whose meetings, tickets and decisions name the document that writes each up)."""
    out = {doc_id: ents[0] for doc_id, ents in rows if ents}
    for kind, _ in RECORD_DOCS.values():
        for rec in world.get(kind, []):
            if isinstance(rec.get("doc"), int):
                out[f"MER-{rec['doc']:06d}"] = rec["id"]
    return out


def is_aside(stated: Iterable[str], subject: str) -> bool:
    """True when none of the needed facts a document states (``stated``) is about its subject."""
    return not any(fact_subject(f) == subject for f in stated)


def evidence_grade(stated: Iterable[str], subject: str) -> int:
    """3 when the document states a needed fact about its own subject, 2 when it states them only in passing."""
    return ASIDE if is_aside(stated, subject) else SUBJECT


__all__ = ["ASIDE", "RECORD_DOCS", "SUBJECT", "evidence_grade", "fact_subject", "is_aside", "spec_subject",
           "subjects_from_files"]
