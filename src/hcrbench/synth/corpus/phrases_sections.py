"""Sentence pools for sections that belong to one document type (policy exceptions, incident lessons, meeting
retrospectives, profile backgrounds, ...), assembled under their pool keys from ``pools/*.toml``; same rules as
:mod:`hcrbench.synth.corpus.phrases`.

Every entry is a template: :func:`hcrbench.synth.corpus.text.vary` expands each ``[a|b|c]`` group per document, so one
template yields hundreds to thousands of surface forms and no body sentence recurs across many documents. The
templates live in one file per document family (policy, incident, meeting, systems, profile, announce, cluster);
``pools/sections_extra.toml`` appends vocabulary-rich templates to the most-drawn pools.
"""

from __future__ import annotations

from hcrbench.synth.corpus.pool_data import extend_pools, load_pools

POOLS: dict[str, list[str]] = extend_pools(
    load_pools("policy", "incident", "meeting", "systems", "profile", "announce", "cluster"), "sections_extra")
