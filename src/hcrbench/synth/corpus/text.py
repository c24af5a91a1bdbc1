"""Assembling document text from sentence pieces while recording the character span of every fact.

Evidence spans are never searched for after the fact: :class:`TextBuilder` knows where each keyed sentence starts
and ends as it appends it, so ``text[start:end]`` is the sentence by construction.
"""

from __future__ import annotations

import random
import re

from hcrbench.synth.corpus.subjects import on_subject

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


class TextBuilder:
    """Append-only text with named spans (``key -> (start, end)``)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.n = 0
        self.spans: dict[str, tuple[int, int]] = {}
        self.kept: list[tuple[int, int]] = []  # text a world rule reads (key "~..."): noise never touches it
        self.words = 0
        self.pieces: list[tuple[int, int]] = []
        # Facts the body-text pools may use ({placeholders}) and the section-set key (e.g. the meeting kind).
        self.ctx: dict[str, str] = {}
        self.kind: str | None = None
        self.avoid: re.Pattern[str] | None = None  # body-text templates this document must not draw (filler.Prose)
        self.topic: str | None = None  # the closing-notes key when the type alone does not fix it (filler.CLOSING)
        self.prose = None  # the document's hcrbench.synth.corpus.filler.Prose, shared by every section that draws filler
        self.closing_words = 0
        self._closing: list[tuple[str | None, list[tuple[str, str | None] | str], str]] = []

    def add(self, s: str, key: str | None = None) -> None:
        if key is not None and key.startswith("~"):
            self.kept.append((self.n, self.n + len(s)))
        elif key is not None:
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

    def close(self, heading: str | None, items: list[tuple[str, str | None] | str], form: str = "para") -> None:
        """Queue a section (``form`` para, bullets or lines) that :meth:`finish` writes after any body text, so
        contacts and sign-offs stay at the end of the document."""
        self._closing.append((heading, items, form))
        self.closing_words += sum((x if isinstance(x, str) else x[0]).count(" ") + 1 for x in items)

    def finish(self) -> None:
        for heading, items, form in self._closing:
            if heading is None:
                self.line()
            else:
                self.heading(heading)
            if form == "bullets":
                self.bullets(items)
            elif form == "lines":
                for x in items:
                    text, key = (x, None) if isinstance(x, str) else x
                    self.line(text, key)
            else:
                self.para(items)
        self._closing = []
        self.closing_words = 0

    def text(self) -> str:
        return "".join(self.parts).rstrip("\n") + "\n"


def human_date(iso: str) -> str:
    y, m, d = iso.split("-")
    return f"{int(d)} {MONTHS[int(m) - 1]} {y}"


_GROUP = re.compile(r"\[([^\[\]]*)\]")


def vary(r: random.Random, template: str) -> str:
    """Expand every ``[a|b|c]`` group of ``template`` to one of its options, left to right, with ``r``.

    ``[|x]`` makes ``x`` optional. Groups do not nest. Double spaces left by an empty option are closed up, and
    a space before punctuation is dropped, so pool authors can write ``"Backups are tested [|monthly] ."``-style
    templates without stray spaces. The same ``r`` state gives the same text (one ``r.randrange`` per group).
    """
    if "[" not in template:
        return template
    out = _GROUP.sub(lambda m: (opts := m.group(1).split("|"))[r.randrange(len(opts))], template)
    out = re.sub(r" {2,}", " ", out)
    return re.sub(r" ([,.;:!?)])", r"\1", out).strip()


def variants(template: str) -> int:
    """How many distinct strings :func:`vary` can make from ``template`` (the product of the group sizes)."""
    n = 1
    for m in _GROUP.finditer(template):
        n *= len(m.group(1).split("|"))
    return n


def options(template: str) -> list[str]:
    """Every option of every group plus the text outside the groups (what pool-safety tests scan)."""
    parts = [o for m in _GROUP.finditer(template) for o in m.group(1).split("|")]
    return [_GROUP.sub(" ", template), *parts]


def pick(r: random.Random, variants_: list[str], **kw: object) -> str:
    """One of ``variants_`` (each may hold ``[a|b]`` groups, expanded by :func:`vary`), formatted with ``kw``."""
    return vary(r, r.choice(on_subject(variants_))).format(**kw)


def money(k: int) -> str:
    """Thousands of USD as text: 1250 -> "USD 1.25 million", 480 -> "USD 480,000"."""
    return f"USD {k / 1000:g} million" if k >= 1000 else f"USD {k * 1000:,}"


def amount(v: int, unit: str) -> str:
    """A policy figure with its unit: "USD 1,200", "3 weeks", "1 week" (a plural unit is made singular for 1)."""
    if unit == "USD":
        return f"USD {v:,}"
    if v == 1 and unit.endswith("s") and not unit.endswith("ss"):
        unit = unit[:-1]
    return f"{v} {unit}"


def target_words(r: random.Random) -> int:
    """A document length drawn from a skewed distribution (most pages short, some long)."""
    u = r.random()
    if u < 0.55:
        return r.randint(130, 240)
    if u < 0.88:
        return r.randint(240, 380)
    return r.randint(380, 520)
