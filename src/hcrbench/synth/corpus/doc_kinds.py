"""The form a planned document is written in (its *kind*), chosen from the spec alone, before any text.

An intranet holds more than reference pages: incidents are worked in chat channels, decisions are agreed by mail,
meetings are minuted, systems have how-to guides and long technical specifications, and old copies of pages
linger. A document's **type** (``metadata.doc_type``) says what it writes up and keeps deciding which facts it
states; its **kind** (``metadata.kind``) says how it is written:

- ``page``: the reference page of its type (every type; the default);
- ``chat_thread``: an incident's chat channel, a few lines per message (incidents);
- ``mail_thread``: a mail and its replies, each reply quoting the message it answers (decisions, announcements);
- ``minutes``: formal minutes naming the meeting's id, date, attendees, decisions and actions (meetings);
- ``howto``: numbered steps for getting started with a system (system overviews);
- ``spec``: a long technical specification with tables of the system's parameters (system overviews);
- ``stale_copy``: a superseded copy of an older policy version, still on the intranet (planned by the schedule).

Records (incidents, decisions, meetings, systems) take their kind from their own number with a seeded offset, so
every stretch of ten records has the kind's share and even the smallest world holds every kind; announcements
draw theirs per document. The choice reads only the seed and the spec, so a grown world keeps every earlier
document's kind and the schedule is unchanged.
"""

from __future__ import annotations

from typing import Any

from hcrbench.synth.world_model.seeds import rng

KINDS = ("page", "chat_thread", "mail_thread", "minutes", "howto", "spec", "stale_copy")
NEW_KINDS = KINDS[1:]

#: (doc_type, kind, the tenths of records written in it) for record-numbered types.
_RECORD_SHARES: dict[str, tuple[tuple[str, int], ...]] = {
    "incident": (("chat_thread", 3),),
    "decision": (("mail_thread", 4),),
    "meeting": (("minutes", 2),),
    "system_overview": (("howto", 3), ("spec", 2)),
}
ANNOUNCEMENT_MAIL = 0.4


def _record_number(world: Any, spec: Any) -> int | None:
    ref = spec.ref
    if spec.doc_type == "incident":
        return ref["ticket"]
    if spec.doc_type == "decision":
        return ref["decision"]
    if spec.doc_type == "meeting":
        return ref["meeting"]
    if spec.doc_type == "system_overview":
        return int(ref["system"].split("-")[1])
    return None


def doc_kind(world: Any, spec: Any) -> str:
    """The kind of the planned document ``spec`` of ``world`` (one of :data:`KINDS`)."""
    if spec.cluster:  # near-duplicate clusters share their wording: always pages
        return "page"
    if spec.doc_type == "policy" and spec.ref.get("stale"):
        return "stale_copy"
    shares = _RECORD_SHARES.get(spec.doc_type)
    if shares is not None:
        k = _record_number(world, spec)
        slot = (k + rng(world.seed, "kind_offset", spec.doc_type).randrange(10)) % 10
        for kind, tenths in shares:
            if slot < tenths:
                return kind
            slot -= tenths
        return "page"
    if spec.doc_type == "announcement" and rng(world.seed, "kind", spec.index).random() < ANNOUNCEMENT_MAIL:
        return "mail_thread"
    return "page"


__all__ = ["KINDS", "NEW_KINDS", "doc_kind"]
