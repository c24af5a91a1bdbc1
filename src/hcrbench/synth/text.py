"""Assembling document text from sentence pieces while recording the character span of every fact.

Evidence spans are never searched for after the fact: :class:`TextBuilder` knows where each keyed sentence starts
and ends as it appends it, so ``text[start:end]`` is the sentence by construction.
"""

from __future__ import annotations

import random

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


class TextBuilder:
    """Append-only text with named spans (``key -> (start, end)``)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.n = 0
        self.spans: dict[str, tuple[int, int]] = {}
        self.words = 0
        self.pieces: list[tuple[int, int]] = []

    def add(self, s: str, key: str | None = None) -> None:
        if key is not None:
            self.spans[key] = (self.n, self.n + len(s))
        self.parts.append(s)
        if s.strip():
            self.pieces.append((self.n, self.n + len(s)))
        self.n += len(s)
        self.words += s.count(" ") + 1 if s.strip() else 0

    def line(self, s: str = "", key: str | None = None) -> None:
        self.add(s, key)
        self.add("\n")

    def heading(self, s: str) -> None:
        if self.n:
            self.add("\n")
        self.line(f"## {s}")

    def para(self, sentences: list[tuple[str, str | None] | str]) -> None:
        """A paragraph of sentences; a ``(text, key)`` pair records the sentence's span under ``key``."""
        first = True
        for s in sentences:
            text, key = (s, None) if isinstance(s, str) else s
            if not first:
                self.add(" ")
            self.add(text, key)
            first = False
        self.add("\n")

    def bullets(self, items: list[tuple[str, str | None] | str]) -> None:
        for s in items:
            text, key = (s, None) if isinstance(s, str) else s
            self.add("- ")
            self.line(text, key)

    def table(self, header: list[str], rows: list[tuple[list[str], str | None]]) -> None:
        """A plain-text table; a row's key spans the whole row line."""
        self.line("| " + " | ".join(header) + " |")
        self.line("|" + "|".join("---" for _ in header) + "|")
        for cells, key in rows:
            self.line("| " + " | ".join(cells) + " |", key)

    def text(self) -> str:
        return "".join(self.parts).rstrip("\n") + "\n"


def human_date(iso: str) -> str:
    y, m, d = iso.split("-")
    return f"{int(d)} {MONTHS[int(m) - 1]} {y}"


def pick(r: random.Random, variants: list[str], **kw: object) -> str:
    return r.choice(variants).format(**kw)


def money(k: int) -> str:
    """Thousands of USD as text: 1250 -> "USD 1.25 million", 480 -> "USD 480,000"."""
    return f"USD {k / 1000:g} million" if k >= 1000 else f"USD {k * 1000:,}"


def amount(v: int, unit: str) -> str:
    return f"USD {v:,}" if unit == "USD" else f"{v} {unit}"


FILLER = {
    "general": [
        "If anything on this page looks out of date, say so in the owning team's channel instead of editing "
        "it quietly, so the change can be confirmed.",
        "Links to older material are kept for reference only; the current version always wins when the two disagree.",
        "This page follows the standard documentation template agreed by the Program Office in 2023.",
        "Comments and questions are welcome, but please keep decisions in the decision log rather than in page "
        "comments.",
        "Abbreviations follow the internal glossary; ask the Internal Communications team if a term is unclear.",
        "A read-only export of this page is archived every quarter for audit purposes.",
        "Where this page and a signed contract differ, the contract takes precedence.",
        "Team members are expected to re-read this page when they change roles.",
    ],
    "hr": [
        "Managers should discuss individual circumstances with their HR Business Partner before making exceptions.",
        "Local law takes precedence wherever it grants employees more than this document does.",
        "Contractors are not covered unless their agreement says otherwise.",
        "Questions about how this applies to a specific situation go to People Operations.",
    ],
    "engineering": [
        "Automation enforces most of these rules in the pipeline, but reviewers remain accountable for the outcome.",
        "Exceptions are recorded in the team's architecture decision log with a named owner and an expiry date.",
        "New joiners pair with an experienced engineer for their first two changes under this process.",
        "The guild reviews this practice twice a year and collects feedback in the engineering forum.",
    ],
    "it": [
        "Requests for access or changes go through the IT service portal; direct messages to administrators are "
        "not tracked.",
        "Maintenance windows are announced at least three working days in advance on the status page.",
        "Monitoring dashboards are linked from the service catalogue entry.",
        "All administrative actions are logged and retained according to the records schedule.",
    ],
    "compliance": [
        "Evidence for each control is stored with the audit workpapers and kept for the full retention period.",
        "Findings are tracked to closure by Internal Audit, who report progress to the audit committee.",
        "Staff who suspect a breach must report it within one working day.",
        "This document is reviewed at least annually by Legal and Compliance.",
    ],
    "projects": [
        "Risks are reviewed weekly by the project lead and escalated to the sponsor when they threaten a milestone.",
        "Status colours follow the Program Office definitions: green on track, amber at risk, red delayed.",
        "The delivery plan is kept in the project tracker; this page summarises it for a wider audience.",
        "Dependencies on other teams are agreed in writing before work starts.",
    ],
    "products": [
        "Customer-facing wording is reviewed by the Design Studio before release.",
        "Feature requests are collected in the product feedback board and triaged every two weeks.",
        "Pricing questions should be routed to the product manager rather than answered directly.",
    ],
    "people": [
        "Profiles are updated by their owners; managers confirm role changes.",
        "Contact details are synchronised nightly from the HR information system.",
    ],
    "communications": [
        "Replies to this message go to the sender; questions for a wider audience belong in the company forum.",
        "A recording and the slides are available on the intranet for those who could not attend.",
        "Please forward this to contractors on your team who are not on the all-staff list.",
    ],
}


_OPENERS = ["In practice,", "As a rule,", "Over the last year,", "Where possible,", "For most teams,",
            "During busy periods,", "Before anything is changed,", "Once a quarter,"]
_SUBJECTS = {
    "hr": ["managers", "HR Business Partners", "new joiners", "team leads", "employees"],
    "engineering": ["reviewers", "service owners", "on-call engineers", "tech leads", "platform engineers"],
    "it": ["administrators", "the service desk", "system owners", "security analysts"],
    "compliance": ["control owners", "auditors", "the privacy team", "risk owners"],
    "projects": ["project leads", "sponsors", "workstream owners", "the steering group"],
    "products": ["product managers", "designers", "the product council"],
    "people": ["colleagues", "managers", "mentors"],
    "communications": ["the leadership team", "department heads", "Finance", "internal communications"],
}
_ACTIONS = ["check that", "agree in writing that", "make sure that", "confirm with the owner that",
            "record in the tracker that", "raise early if they doubt that"]
_OBJECTS = ["the plan still matches the agreed scope", "every open action has a named owner",
            "the numbers reconcile with the finance view", "nothing is changed without a rollback plan",
            "dependencies on other teams are visible", "customers are told before behaviour changes",
            "the documentation reflects what actually happens", "exceptions expire on a known date",
            "evidence is kept where the auditors can find it", "the cost of delay is understood"]
_CLOSERS = ["", "", " This keeps surprises to a minimum.", " Small slips are cheaper to fix early.",
            " It also makes handovers easier.", " The same applies to temporary staff."]


def prose(r: random.Random, domains: list[str], n: int) -> list[str]:
    """``n`` plausible process sentences with no world facts (body text that no query depends on)."""
    subjects = [x for d in domains for x in _SUBJECTS.get(d, [])] or _SUBJECTS["communications"]
    out = []
    for _ in range(n):
        s = f"{r.choice(_OPENERS)} {r.choice(subjects)} {r.choice(_ACTIONS)} {r.choice(_OBJECTS)}."
        out.append(s + r.choice(_CLOSERS))
    return out


def target_words(r: random.Random) -> int:
    """A document length drawn from a skewed distribution (most pages short, some long)."""
    u = r.random()
    if u < 0.55:
        return r.randint(130, 240)
    if u < 0.88:
        return r.randint(240, 380)
    return r.randint(380, 520)


def pad(tb: TextBuilder, r: random.Random, domains: list[str], min_words: int) -> None:
    """Add closing notes and process guidance until the document has ``min_words`` words."""
    if tb.words >= min_words:
        return
    pool = [s for d in domains for s in FILLER.get(d, [])] + FILLER["general"]
    r.shuffle(pool)
    heads = ["How we work", "Practical guidance", "Ways of working", "Good practice", "Expectations"]
    r.shuffle(heads)
    while tb.words < min_words - 60 and heads:
        tb.heading(heads.pop())
        tb.para(prose(r, domains, r.randint(3, 5)))
    tb.heading(r.choice(["Notes", "Further information", "Housekeeping", "About this page"]))
    sentences = []
    while tb.words + sum(s.count(" ") + 1 for s in sentences) < min_words and pool:
        sentences.append(pool.pop())
    tb.para(sentences or pool[:1])
