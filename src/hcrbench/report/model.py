"""The report as data: sections of paragraphs, tables and figures, rendered alike to HTML, Markdown and LaTeX.

The builders (:mod:`hcrbench.report.sections`, :mod:`hcrbench.report.sections_hcr`) turn the experiment folder's
files into these records once; each renderer (``html``, ``markdown``, ``latex``) only formats them, so the three
outputs cannot disagree. Text in a record is plain text, never markup: every renderer escapes it for its format
(corpus and query text included).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Cell and badge tones; renderers map them to colours (HTML) or leave them out (Markdown, LaTeX).
TONES = ("good", "bad", "warn", "muted", "info")


@dataclass
class Cell:
    """One table cell: plain text, an optional tone, bold (best in column), and a superscript (significance
    letters, as in ranx's tables)."""

    text: str
    tone: str | None = None
    bold: bool = False
    sup: str = ""
    num: bool = False  # right-aligned number


@dataclass
class Table:
    """A captioned table; ``latex=False`` keeps it out of ``tables.tex`` (e.g. long text columns)."""

    key: str
    caption: str
    columns: list[str]
    rows: list[list[Cell]]
    notes: str = ""
    latex: bool = True
    fold: str = ""  # HTML: shown collapsed (<details>) under this one-line summary; the other formats show it


@dataclass
class Figure:
    """A plot as PNG bytes (embedded in the HTML, written beside the Markdown)."""

    key: str
    caption: str
    png: bytes
    fold: str = ""  # as Table.fold


@dataclass
class Para:
    """A paragraph (``kind``: "p", "note", "bullets" with one item per line of ``items``)."""

    text: str = ""
    kind: str = "p"
    items: list[str] = field(default_factory=list)
    fold: str = ""  # as Table.fold


@dataclass
class Verdict:
    """The headline: the overall verdict word and the bottom line in plain words; ``items``, the short lines
    under it (the console's verdict block: the subject, vs the best simple system, each rule's word) and
    ``short``, the bottom line in one sentence (the HTML shows it, with ``bottom_line`` folded under it)."""

    overall: str
    bottom_line: str
    tone: str
    items: list[str] = field(default_factory=list)
    short: str = ""


@dataclass
class Section:
    """A titled part of the report; ``status="not run"`` when its input file is absent (``missing`` says which
    and how to make it)."""

    key: str
    title: str
    blocks: list = field(default_factory=list)
    status: str = "ok"
    missing: str = ""

    @property
    def ran(self) -> bool:
        return self.status == "ok"


def not_run(key: str, title: str, missing: str) -> Section:
    """A section whose input is absent: shown as "not run", with what would produce it."""
    return Section(key, title, [], status="not run", missing=missing)


def tone_of_verdict(word: str) -> str:
    """go -> good; kill / no-go -> bad; soft no-go -> warn; inconclusive / not run -> muted."""
    from hcrbench.protocol.verdict import Verdict

    w = (word or "").strip().lower()
    if w in ("hit", "trusted"):
        return "good"
    if w in ("fail", "null-fail") or w.startswith("stop and diagnose"):
        return "bad"
    if w in ("under-ns", "warn"):
        return "warn"
    try:
        v = Verdict(w)
    except ValueError:
        return "muted"
    return {Verdict.GO: "good", Verdict.PASS: "good", Verdict.KILL: "bad", Verdict.NOGO: "bad",
            Verdict.INVALIDATED: "bad", Verdict.SOFT: "warn", Verdict.UNDECIDABLE: "warn"}.get(v, "muted")
