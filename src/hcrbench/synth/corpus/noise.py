"""Noise a real intranet has: a footer pasted by the wiki or the mail client, and the odd typo.

Both leave every fact statement as it was: a footer is appended after the text, and a typo swaps two adjacent
letters of a lower-case word outside every recorded span and outside the first line, so the text keeps its length
and every span still points at its sentence. Draws come from their own RNG (seed, document), never the renderer's.
"""

from __future__ import annotations

import random
import re

from hcrbench.synth.corpus.text import TextBuilder, vary
from hcrbench.synth.world_model.seeds import rng

FOOTER_SHARE = 0.12
TYPO_SHARE = 0.12
FOOTERS = {
    "page": ["Classification: internal",
             "[Page maintained on|This page lives on] the Meridian intranet[; printed copies are not controlled.|.]",
             "[Imported from the old wiki|Migrated from the previous wiki]; some links may [not work|be broken].",
             "Was this page helpful? [Rate it|Leave a comment] below.",
             "Edit | History | Watch"],
    "mail_thread": ["Sent from my phone",
                    "[This message is|This e-mail is] internal to Meridian; [do not forward it outside the "
                    "company|please do not forward it externally].",
                    "[Please consider the environment before printing this e-mail.|Internal - do not forward]"],
    "chat_thread": ["[Channel archived by the incident bot.|Thread exported by the incident bot.]"],
}
_WORD = re.compile(r"\b[a-z]{6,}\b")


def add_footer(tb: TextBuilder, kind: str, seed: int, index: int) -> None:
    """Now and then, a boilerplate footer line of the document's kind."""
    r = rng(seed, "footer", index)
    if r.random() >= FOOTER_SHARE:
        return
    tb.line()
    tb.line(vary(r, r.choice(FOOTERS.get(kind, FOOTERS["page"]))))


def add_typos(text: str, spans: list[tuple[int, int]], seed: int, index: int) -> str:
    """``text`` with, now and then, one or two typos (two adjacent inner letters of a word swapped) outside
    ``spans`` and the first line; the length never changes."""
    r = rng(seed, "typo", index)
    if r.random() >= TYPO_SHARE:
        return text
    first = text.find("\n") + 1
    words = [m for m in _WORD.finditer(text, first)
             if not any(s < m.end() and m.start() < e for s, e in spans)]
    if not words:
        return text
    chars = list(text)
    for m in random.Random(r.random()).sample(words, min(len(words), r.randint(1, 2))):
        j = m.start() + r.randrange(1, len(m.group(0)) - 2)
        if chars[j] != chars[j + 1]:
            chars[j], chars[j + 1] = chars[j + 1], chars[j]
    return "".join(chars)


__all__ = ["FOOTERS", "add_footer", "add_typos"]
