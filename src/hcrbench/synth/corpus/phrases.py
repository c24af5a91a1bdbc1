"""Sentence templates for the closing notes of Meridian documents, one pool per domain plus a general pool.

The templates live in ``pools/closing.toml`` (and ``pools/closing_extra.toml``, which widens the vocabulary of
the most-drawn pools); the headings in ``pools/closing_headings.toml``. Every document ends with a closing section
or two drawn from these (:func:`hcrbench.synth.corpus.filler.pad`), so the pools are used thousands of times in a medium corpus: each entry is a template whose ``[a|b|c]`` groups
:func:`hcrbench.synth.corpus.text.vary` expands with the document's RNG, and every template has far more expansions than
documents that draw it (``tests/synth/test_phrases_domain.py`` holds the floor), so a closing sentence rarely repeats
across documents. One template per line, because the groups read best unbroken. Rules the tests enforce on the text
outside the groups and on every option: no synonym surface form from ``lexicon.SYNONYMS`` (vocabulary-mismatch
ground truth), no identifier-shaped token, and no name of a person, team, system, product or project (a document
names only the entities its metadata lists). The notes are generic practice and colour: they state no fact about
the company's world (owners, dates, figures, offices) that a query could ask about.
"""

from __future__ import annotations

from hcrbench.synth.corpus.pool_data import extend_pools, load_pools

DOMAIN: dict[str, list[str]] = extend_pools(load_pools("closing"), "closing_extra")

# Section headings for a domain's own closing section, drawn per document.
DOMAIN_HEADINGS: dict[str, list[str]] = load_pools("closing_headings")
