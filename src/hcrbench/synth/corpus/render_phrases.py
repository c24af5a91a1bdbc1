"""Wording variants for the sentences that render code writes around facts (incident, decision, meeting,
announcement, news and update pages), so the same document type reads differently from page to page.

The templates live in ``pools/render*.toml``. ``R[name]`` is a list of templates for
:func:`hcrbench.synth.corpus.text.pick` (each ``[a|b]`` group is expanded with the document's RNG, ``{placeholders}`` are filled by the renderer). A template whose renderer keys
it as a fact statement keeps the fact's value placeholder in every expansion; the rest state no world fact. The
same safety rules as the filler pools apply (no ``lexicon.SYNONYMS`` form, no identifier, no entity name), and
``tests/synth/test_meridian.py`` scans every option.
"""

from __future__ import annotations

import random

from hcrbench.synth.corpus.pool_data import extend_pools, load_pools
from hcrbench.synth.corpus.text import pick


def tail(r: random.Random, name: str) -> str:
    """An optional ending drawn from ``R[name]`` (a single ``[|a|b]`` group), with its leading space."""
    t = pick(r, R[name])
    return f" {t}" if t else ""


HEADINGS: dict[str, list[str]] = load_pools("render_headings")


def head(r: random.Random, name: str) -> str:
    """A section heading: ``name`` or one of its alternatives in :data:`HEADINGS`."""
    return r.choice([name, *HEADINGS.get(name, [])])


# Render-code wordings (pools/render.toml), entity pages (pools/render_pages.toml) and the extra wordings that
# widen the vocabulary (pools/render_extra.toml).
R: dict[str, list[str]] = extend_pools(load_pools("render", "render_pages"), "render_extra")
