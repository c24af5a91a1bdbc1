"""How a planned question is worded (synth/questions/wording.py): other phrasings keep every name, date and list of
the plain form, frames name nothing, and no wording pastes a parameter name or a degenerate range."""

from __future__ import annotations

import random
import re

import pytest

from hcrbench.synth.checks.describe_templates import degenerate_range, pasted_parameters, skeleton
from hcrbench.synth.questions.wording import CLOSERS, OPENERS, PARAPHRASES, frame, rephrase, swap_phrases

#: one plain form per canonical pattern, as the generators write them (names, dates and lists in place)
PLAIN = [
    "What was the root cause of the Atlas CRM incident of 9 May 2024?",
    "What caused the Nova Build incident of 2 March 2024?",
    "How long did the disruption in INC-28521 last?",
    "What is the expected cost of decision DEC-2240?",
    "What did the Tundra decision of 3 July 2024 decide?",
    "When did version 2 of the Parental leave Policy take effect?",
    "Who approved the Bonus Plan?",
    "In which office is the person Sofia Bauer reports to based?",
    "Where is the person assigned to the incident opened on 4 April 2024 based?",
    "Of the projects Pelican, Cinder, Tundra and Solstice, which has the largest approved budget?",
    "Which of Nova Build, Beacon Monitor and Atlas CRM has the most users?",
    "Summarise project Sequoia: who leads it, its budget and its status at the end of Q3 2024.",
    "For Olga Schneider, give their job title, their team and every meeting they attended.",
    "What is project Tundra for, who leads it and what is its budget?",
    "Who is S. Lambert at Meridian, and what is their job title?",
    "Which meetings did Kofi Weber attend?",
    "Which incidents were assigned to Kofi Weber?",
    "Which team owns Nova Build, who administers it and how many people use it?",
    "What kind of system is Harbor Registry, which vendor supplies it, which team owns it and who administers it?",
]
ANCHOR = re.compile(r"\b(?:[A-Z][\w.-]*(?: [A-Z][\w.-]*)*|\d+ \w+ \d{4}|Q\d \d{4}|[A-Z]+-\d+)")


def _anchors(text: str) -> set[str]:
    """Names, dates and identifiers of a text (its first word left out: capitalised as a sentence start)."""
    return {a for a in ANCHOR.findall(text.split(" ", 1)[1]) if a not in {"I", "Meridian"}}


def test_every_canonical_pattern_has_a_plain_form_here():
    matched = {i for t in PLAIN for i, (p, _) in enumerate(PARAPHRASES) if p.fullmatch(t)}
    assert matched == set(range(len(PARAPHRASES)))


@pytest.mark.parametrize("plain", PLAIN)
def test_each_phrasing_keeps_the_names_dates_and_lists_of_the_plain_form(plain):
    forms = {rephrase(plain, random.Random(s)) for s in range(60)}
    assert plain in forms and len(forms) >= 3  # the plain form is one of several phrasings
    for f in forms:
        assert _anchors(plain) <= {a for a in ANCHOR.findall(f)} | _anchors(f), f
        assert not pasted_parameters(f) and not degenerate_range(f), f


def test_a_choice_among_a_list_reads_with_or_once_the_list_stands_alone():
    plain = "Of the projects Pelican, Cinder, Tundra and Solstice, which has the largest approved budget?"
    forms = {rephrase(plain, random.Random(s)) for s in range(60)}
    assert "Which project got the largest budget: Pelican, Cinder, Tundra or Solstice?" in forms


def test_frames_add_no_name_and_vary_the_skeleton():
    plain = "What caused the Atlas CRM incident of 9 May 2024?"
    forms = [frame(plain, random.Random(s), lambda _: []) for s in range(200)]
    assert all(plain[1:] in f or plain in f for f in forms)
    assert len({skeleton(f) for f in forms}) >= 20 and forms.count(plain) >= 50  # most questions stay plain
    assert all(f.count(":") <= 1 for f in (frame("Project X: what is it for?", random.Random(s), lambda _: [])
                                           for s in range(100)))
    # a frame that would name a world entity is not used
    assert {frame(plain, random.Random(s), lambda t: ["E1"] if t else []) for s in range(50)} == {plain}


def test_frames_are_words_a_person_types():
    for piece in (*OPENERS, *CLOSERS):
        assert not pasted_parameters(piece) and not re.search(r"\d|[A-Z]{2,}", piece), piece


def test_aspect_phrases_change_only_as_items_of_a_list():
    listed = "Summarise project Sequoia: who leads it, its budget and its goal."
    forms = {swap_phrases(listed, random.Random(s)) for s in range(80)}
    assert any("how much money it has" in f for f in forms) and listed in forms
    clause = "What is project Tundra for, who leads it and what is its budget?"
    assert all("what is its budget?" in swap_phrases(clause, random.Random(s)) for s in range(80))
