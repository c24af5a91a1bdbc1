"""How a meeting is named, in its notes and in a question, so that a question names it by what the notes write.

A meeting's notes open with its project, kind and date ("Basalt retrospective: notes from 26 May 2024"). The
first meeting of a day is named by its kind and date ("the retrospective of 26 May 2024"). A later meeting the
same day cannot always be told apart by those, so its notes carry its reference id ("Basalt weekly sync
(MTG-00148): notes from 26 March 2024") and a question names it by that id and its date. Whether the notes carry
the id depends only on the meetings before it, so a grown world leaves every earlier document byte for byte as it
was; a reference number on every meeting's notes would have given most of the corpus an identifier.
"""

from __future__ import annotations

from typing import Any

from hcrbench.synth.corpus.text import human_date

#: The kinds of meeting notes (the renderer draws one per meeting; the title and first line write it).
MEETING_KINDS = ("steering meeting", "weekly sync", "planning session", "retrospective")


def _first_of_day(w: Any) -> dict[str, str]:
    """date -> id of the first meeting held that day (cached on the world, rebuilt when meetings were added)."""
    got = getattr(w, "_first_meeting_of_day", None)
    if got is None or got[0] != len(w.meetings):
        first: dict[str, str] = {}
        for m in w.meetings:
            first.setdefault(m["date"], m["id"])
        got = (len(w.meetings), first)
        w._first_meeting_of_day = got
    return got[1]


def carries_id(w: Any, m: dict) -> bool:
    """True when meeting ``m``'s notes write its id: an earlier meeting of world ``w`` was held the same day."""
    return _first_of_day(w)[m["date"]] != m["id"]


def notes_heading(w: Any, m: dict, code: str, kind: str) -> str:
    """The first line of meeting ``m``'s notes."""
    ref = f" ({m['id']})" if carries_id(w, m) else ""
    return f"{code} {kind}{ref}: notes from {human_date(m['date'])}"


def kind_in(title: str) -> str:
    """The kind of meeting a notes title writes ('' when it writes none)."""
    return next((k for k in MEETING_KINDS if f" {k} " in f" {title} "), "")


def question_words(w: Any, m: dict, kind: str, kinds_that_day: list[str]) -> str | None:
    """How a question names meeting ``m`` (of ``kind``; ``kinds_that_day``: the kinds of every meeting held on its
    date, its own included): by its id and date when its notes write the id, else by its kind and date; None when
    another meeting that day is of the same kind (the words would not pick it out)."""
    if carries_id(w, m):
        return f"the meeting {m['id']} of {human_date(m['date'])}"
    if kinds_that_day.count(kind) > 1:
        return None
    return f"the {kind} of {human_date(m['date'])}"


__all__ = ["MEETING_KINDS", "carries_id", "kind_in", "notes_heading", "question_words"]
