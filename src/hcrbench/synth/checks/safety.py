"""The rules every body-text template must keep so that Meridian's ground truth stays right.

A pool sentence or render-code wording must not contain a surface form from ``lexicon.SYNONYMS`` (vocabulary-
mismatch queries are built on those forms being absent from the evidence), an identifier-shaped token (it would
skew the identifier share) or the name of a team, system, product, project or person (a document names only the
entities its metadata lists). :func:`unsafe` says what a text breaks; the synth tests run it on every option of
every template (``text.options``).
"""

from __future__ import annotations

import re

from hcrbench.synth.checks.describe import IDENTIFIER
from hcrbench.synth.world_model import lexicon as lx

FORMS = re.compile("|".join(re.escape(f.lower()) for fs in lx.SYNONYMS.values() for f in fs))
NAMES = re.compile("|".join(map(re.escape, [t[0] for t in lx.TEAMS] + [s[0] for s in lx.SYSTEMS]
                                + [p[0] for p in lx.PRODUCTS] + lx.ALL_CODE_NAMES + lx.EXTRA_TEAM_WORDS)))
PEOPLE = re.compile(r"\b(?:" + "|".join(map(re.escape, lx.FIRST_NAMES + lx.LAST_NAMES)) + r")\b")


def unsafe(text: str) -> list[str]:
    """What in ``text`` would break the ground truth: synonym forms (lower-cased substrings), entity and person
    names, an identifier; empty when the text is safe."""
    found = FORMS.findall(text.lower()) + NAMES.findall(text) + PEOPLE.findall(text)
    ident = IDENTIFIER.search(text)
    return found + ([ident.group()] if ident else [])
