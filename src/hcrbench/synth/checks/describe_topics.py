"""The topic half of ``hcrbench describe``: clusters of queries about the same thing, per split, and leakage
through the entities a query's text names (:mod:`hcrbench.synth.questions.topics`).

Clusters are re-derived here from the files (expected entities, every entity the text names, needed facts,
relevant sets), not read from the ``cluster`` field the generator wrote; a mismatch with that field is reported.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from hcrbench.synth.questions.topics import MIN_DISTINCT_SHARE, NameIndex, clusters, split_topics, world_names


def _prop(name: str, measured: Any, target: str, met: bool) -> dict[str, Any]:
    return {"property": name, "measured": measured, "target": target, "met": bool(met)}


def topic_props(metas: list[dict[str, Any]], world: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict]:
    """Properties (topics per split, repeated relevant and fact sets within a split, leakage through named
    entities, named entities missing from ``expected_entities``, agreement with the written ``cluster``) and the
    per-split topic table."""
    if not metas:
        return [], {}
    names = NameIndex(world_names(world))
    of = clusters(metas, names)
    table = split_topics(metas, of)
    worst = min(t["distinct_share"] for t in table.values())
    rel_rep = sum(t["repeated_relevant_sets"] for t in table.values())
    fact_rep = 0
    for split in table:
        sets = Counter(tuple(sorted(m.get("facts") or [])) for m in metas if m["split"] == split and m.get("facts"))
        fact_rep += sum(k - 1 for k in sets.values())
    where: dict[str, set[str]] = defaultdict(set)
    missing = 0
    for m in metas:
        named = names.named(str(m.get("text", "")))
        missing += any(e not in (m.get("expected_entities") or []) for e in named)
        for e in {*(m.get("expected_entities") or []), *named}:
            where[e].add(m["split"])
    leaked = sorted(e for e, s in where.items() if len(s) > 1)
    written = [m.get("cluster") for m in metas]
    same = None
    if all(written):  # the written partition must equal the re-derived one (ids may differ)
        pairs = {(w, of[m["query_id"]]) for w, m in zip(written, metas, strict=True)}
        same = len(pairs) == len(set(written)) == len(set(of.values()))
    props = [
        _prop("independent topics per split (clusters / queries, effective topics)",
              {s: {k: t[k] for k in ("queries", "clusters", "distinct_share", "effective_topics", "largest_cluster")}
               for s, t in table.items()},
              f">= {MIN_DISTINCT_SHARE:.0%} of each split's queries in distinct clusters", worst >= MIN_DISTINCT_SHARE),
        _prop("relevant-document sets repeated within a split", rel_rep, "0", rel_rep == 0),
        _prop("fact sets repeated within a split", fact_rep, "0", fact_rep == 0),
        _prop("pairs of a split's queries needing a common fact",
              {s: t["pairs_sharing_a_fact"] for s, t in table.items()}, "reported (each pair is one topic)", True),
        _prop("entities (expected or named in the text) in two or more splits", len(leaked), "0", not leaked),
        _prop("queries naming an entity missing from expected_entities", missing, "0", missing == 0),
        _prop("written cluster ids match the re-derived clusters",
              "no cluster field" if same is None else same, "true", bool(same)),
    ]
    return props, table


__all__ = ["topic_props"]
