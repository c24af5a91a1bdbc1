"""Body text that no query depends on, drawn without replacement so that no sentence repeats inside a document.

A rendered document first states its facts; :func:`pad` then adds the optional sections of its document type
(policy exceptions, incident lessons, meeting retrospectives, profile backgrounds; see
:data:`hcrbench.synth.corpus.phrases_sections.EXTRAS`) in a seeded order, then, only if it is still short of its drawn length,
one closing section per domain. Every sentence comes from :class:`Prose`, which pops from per-document shuffled
copies of the pools, so a sentence can appear at most once per document. A pool sentence is a template: each
``[a|b|c]`` group is expanded with the document's RNG (:func:`hcrbench.synth.corpus.text.vary`), so one template reads
differently from document to document.
"""

from __future__ import annotations

import math
import random
import re
import string

from hcrbench.synth.corpus.phrases import DOMAIN, DOMAIN_HEADINGS
from hcrbench.synth.corpus.phrases_sections import POOLS
from hcrbench.synth.corpus.subjects import on_subject
from hcrbench.synth.corpus.text import TextBuilder, vary

ALL_POOLS: dict[str, list[str]] = {**DOMAIN, **POOLS}

# The optional sections a document type may carry: (headings, pool, "para"|"bullets", min, max sentences). They are
# added in a seeded order until the document reaches its drawn length, so two documents of one type differ in
# which sections they carry and in what order.
_QUESTIONS = (["Open questions", "Questions to resolve"], "meeting.questions", "bullets", 2, 3)
EXTRAS: dict[str, list[tuple[list[str], str, str, int, int]]] = {
    "policy": [
        (["Exceptions", "Departures from this document"], "policy.exceptions", "para", 2, 4),
        (["Roles and responsibilities", "Who does what"], "policy.roles", "bullets", 3, 5),
        (["Review", "Review and updates", "Document control"], "policy.review", "para", 2, 3),
    ],
    "incident": [
        (["Impact", "Who was affected"], "incident.impact", "para", 2, 3),
        (["Lessons learned", "What we learned", "Postmortem findings"], "incident.lessons", "bullets", 2, 4),
        (["Communication", "Stakeholder updates"], "incident.comms", "para", 2, 3),
    ],
    "meeting:retrospective": [
        (["What went well"], "meeting.went_well", "bullets", 2, 3),
        (["What to improve", "What could be better"], "meeting.improve", "bullets", 2, 3),
        _QUESTIONS,
    ],
    "meeting:steering meeting": [(["Risks and escalations", "Risks raised"], "meeting.risks", "bullets", 2, 3), _QUESTIONS],
    "meeting:planning session": [(["Priorities", "Agreed priorities"], "meeting.priorities", "bullets", 2, 4), _QUESTIONS],
    "meeting:weekly sync": [(["Watch list", "Things to keep an eye on"], "meeting.risks", "bullets", 2, 3), _QUESTIONS],
    "project_status": [
        (["Highlights", "Progress this quarter"], "status.highlights", "bullets", 2, 4),
        (["Dependencies", "External dependencies"], "status.dependencies", "bullets", 2, 3),
    ],
    "project_status:done": [(["Highlights", "Progress this quarter"], "status.highlights", "bullets", 2, 4)],
    "project_update": [(["Also this month", "Other news"], "update.notes", "bullets", 2, 3)],
    "project_charter": [
        (["Out of scope", "Not included"], "charter.out_of_scope", "bullets", 2, 4),
        (["Assumptions"], "charter.assumptions", "bullets", 2, 4),
        (["Governance", "How the project is run"], "charter.governance", "para", 2, 3),
    ],
    "system_overview": [
        (["Known limitations", "Limits"], "system.limits", "bullets", 2, 4),
        (["Support", "Support model"], "system.support", "para", 2, 3),
        (["Data held", "Data and privacy"], "system.data", "para", 2, 3),
    ],
    "system_status": [
        (["Support", "Support model"], "system.support", "para", 2, 3),
        (["Data and privacy"], "system.data", "para", 2, 3),
    ],
    "profile": [
        (["Background", "Before Meridian"], "profile.background", "para", 1, 2),
        (["Working with me", "How to work with {first}"], "profile.style", "para", 2, 3),
        (["Beyond the day job", "Outside the role"], "profile.interests", "para", 1, 2),
    ],
    "team_page": [
        (["Team rituals", "How we run the week"], "team.rituals", "bullets", 2, 4),
        (["What you can expect from us", "Our commitments"], "team.owns", "para", 2, 3),
    ],
    "product_spec": [
        (["Target users", "Who it is for"], "product.users", "para", 2, 3),
        (["Non-goals", "What it is not"], "product.non_goals", "bullets", 2, 4),
        (["Success metrics", "How we measure success"], "product.metrics", "bullets", 2, 4),
    ],
    "eng_process": [
        (["Checklist", "Before you start"], "engproc.checklist", "bullets", 3, 5),
        (["Common mistakes", "Pitfalls"], "engproc.mistakes", "bullets", 2, 4),
        (["When a lighter process is fine", "Exceptions"], "engproc.when_not", "para", 1, 2),
    ],
    "decision": [
        (["Rationale", "Why this option"], "decision.rationale", "bullets", 2, 3),
        (["Risks of this choice", "Known risks"], "decision.risks", "bullets", 1, 3),
    ],
    **{f"announcement:{t}": [(["Details", "Practical details"], f"announce.{t}", "para", 2, 4)]
       for t in ("project", "system")},
    **{f"announcement:{t}": [(["What this means for you", "What changes"], "announce.meaning", "para", 2, 3),
                              (["Details", "Practical details"], f"announce.{t}", "para", 2, 3)]
       for t in ("policy", "people")},
    "team_news": [
        (["Shout-outs", "Thank you"], "news.shoutouts", "para", 1, 2),
        (["Coming up", "Dates for your diary"], "news.upcoming", "bullets", 2, 3),
    ],
    "access_review": [(["Method"], "cluster.review_method", "para", 2, 3)],
    "onboarding": [(["Tips from the team"], "cluster.onboarding_tips", "bullets", 2, 3)],
    "release_notes": [(["Known issues"], "cluster.release_known", "bullets", 2, 3)],
    "ops_digest": [(["On the radar"], "cluster.digest_radar", "bullets", 2, 3)],
}

WORDS_PER_SENTENCE = 16


def placeholders(s: str) -> frozenset[str]:
    """The ``{names}`` a pool sentence needs from the document."""
    return frozenset(f for _, f, _, _ in string.Formatter().parse(s) if f)


_NEEDS = {pool: [(s, placeholders(s)) for s in xs] for pool, xs in ALL_POOLS.items()}


class Prose:
    """One document's sentence source: each pool is shuffled once (by the document's RNG) and popped."""

    def __init__(self, r: random.Random, ctx: dict[str, str] | None = None, avoid: re.Pattern[str] | None = None):
        self.r = r
        self.ctx = ctx or {}
        self.avoid = avoid  # templates matching this are never drawn (e.g. good schedule news in a late report)
        self.used: set[str] = set()
        self._left: dict[str, list[str]] = {}

    def take(self, pool: str, n: int) -> list[str]:
        """Up to ``n`` unused sentences from ``pool`` whose placeholders this document can fill."""
        left = self._left.get(pool)
        if left is None:
            left = on_subject([s for s, need in _NEEDS[pool] if need <= self.ctx.keys()
                               and not (self.avoid and self.avoid.search(s))])
            self.r.shuffle(left)
            self._left[pool] = left
        out: list[str] = []
        while left and len(out) < n:
            s = vary(self.r, left.pop()).format_map(self.ctx)
            if s not in self.used:
                self.used.add(s)
                out.append(s)
        return out


# The closing-notes pools of each document type, in the order they are drawn (first the type's own topic; a
# reference page may add general notes about the page). Keyed by document type, or by type and topic where the
# type's topic varies (a policy's domain, or "finance" for the policies Finance Operations owns). There is no
# fallback: a type missing here is an error (tests/synth/test_filler_topics.py), so no document draws notes of
# another topic (a battery-recycling note in a project update).
CLOSING: dict[str, tuple[str, ...]] = {
    "policy:hr": ("hr", "page"), "policy:it": ("it", "page"), "policy:engineering": ("engineering", "page"),
    "policy:compliance": ("compliance", "page"), "policy:finance": ("finance", "page"),
    "project_status": ("projects",), "project_update": ("projects",), "project_charter": ("projects", "page"),
    "decision": ("projects",), "meeting": ("projects",),
    "system_status": ("it",), "system_overview": ("it", "page"), "incident": ("it",), "ops_digest": ("it",),
    "profile": ("people", "page"), "team_page": ("people", "page"),
    "product_spec": ("products", "page"), "release_notes": ("products",),
    "eng_process": ("engineering", "page"),
    "announcement": ("announce",), "team_news": ("news",),
    "access_review": ("compliance",), "onboarding": ("hr",),
}


def closing_pools(tb: TextBuilder, doc_type: str) -> tuple[str, ...]:
    """The closing-notes pools of a document (its :attr:`TextBuilder.topic` or its type, see :data:`CLOSING`)."""
    return CLOSING[tb.topic or doc_type.split(":")[0]]


FLOOR_WORDS = 135  # below this a document keeps drawing closing notes (keeps every document >= 150 tokens)


def prose_for(tb: TextBuilder, r: random.Random) -> Prose:
    """The document's shared :class:`Prose` (created on first use), so no two sections repeat a sentence."""
    if tb.prose is None:
        tb.prose = Prose(r, tb.ctx, tb.avoid)
    return tb.prose


def section(tb: TextBuilder, r: random.Random, heads: list[str], pool: str, form: str, n: int) -> None:
    """Add one section of ``n`` sentences from ``pool`` (nothing if the pool is used up)."""
    sentences = prose_for(tb, r).take(pool, n)
    if sentences:
        tb.heading(r.choice(heads).format_map(tb.ctx))
        if form == "bullets":
            tb.bullets(sentences)
        else:
            tb.para(sentences)


def pad(tb: TextBuilder, r: random.Random, doc_type: str, domains: list[str], min_words: int) -> None:
    """Add type-specific sections until ``tb`` has about ``min_words`` words, then at most one closing-notes
    sections of the document's own topics (:data:`CLOSING`; two, or three while under :data:`FLOOR_WORDS`)."""

    def words() -> int:
        return tb.words + tb.closing_words

    extras = list(EXTRAS.get(doc_type, ()))
    r.shuffle(extras)
    for heads, pool, form, lo, hi in extras:
        need = min_words - words()
        if need < 25:
            break
        section(tb, r, heads, pool, form, max(lo, min(hi, round(need / WORDS_PER_SENTENCE))))
    pools = closing_pools(tb, doc_type)
    for k, pool in enumerate((pools * 3)[:3]):  # a one-topic type may add a second section of its own topic
        need = min_words - words()
        if words() >= FLOOR_WORDS and (need <= 0 or k >= 2):
            return
        most = 4 if k == 0 else 3  # closing notes stay short: the body of a document is its facts
        section(tb, r, DOMAIN_HEADINGS[pool], pool, "para", max(2, min(most, math.ceil(need / WORDS_PER_SENTENCE))))
