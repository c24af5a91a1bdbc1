"""Leak-free splits: tune, dev and test are disjoint connected components of the graph that links each query to
its needed facts, its expected entities and its relevant-document set.

The planner (:func:`hcrbench.synth.questions.suite.plan_queries`) fills every split slot by rejection sampling; a
:class:`SplitLedger` records which split owns each fact, entity and relevant set, and a draw that touches another
split's nodes is rejected, so the components never cross a split boundary. :func:`leakage` re-measures the same
from the written metadata (``hcrbench describe`` and the tests report it; all figures are 0 by construction).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any


def nodes(facts: Iterable[str], entities: Iterable[str], relevant: frozenset) -> list[tuple[str, Any]]:
    """The graph nodes a query is linked to: its needed facts, expected entities and relevant-document set."""
    out: list[tuple[str, Any]] = [("fact", f) for f in facts] + [("entity", e) for e in entities]
    if relevant:
        out.append(("relevant", relevant))
    return out


def pools(units: list[list[str]], shares: dict[str, float], seed_rng) -> dict[str, str]:
    """Deal groups of entities (``units``, shuffled) to the splits, each to the split furthest below its share of
    the entities dealt so far, so every split owns its share of each kind of world entity before any query is
    drawn (a unit, such as the policies one ambiguous word covers, stays together)."""
    units = [list(u) for u in units]
    seed_rng.shuffle(units)
    units.sort(key=len, reverse=True)  # big units first, so the small ones even the shares out
    count = dict.fromkeys(shares, 0)
    out: dict[str, str] = {}
    for u in units:
        total = sum(count.values()) + len(u)
        split = max(shares, key=lambda s: (shares[s] * total - count[s], shares[s]))
        count[split] += len(u)
        out.update(dict.fromkeys(u, split))
    return out


class SplitLedger:
    """Which split owns each fact, entity and relevant-document set drawn so far (``pool`` pre-assigns some
    entities to a split)."""

    def __init__(self, pool: dict[str, str] | None = None) -> None:
        self.owner: dict[tuple[str, Any], str] = {("entity", e): s for e, s in (pool or {}).items()}

    def fits(self, split: str, linked: list[tuple[str, Any]]) -> bool:
        """True when no node of the draw belongs to another split."""
        return all(self.owner.get(n, split) == split for n in linked)

    def claim(self, split: str, linked: list[tuple[str, Any]]) -> None:
        for n in linked:
            self.owner.setdefault(n, split)


def leakage(metas: list[dict[str, Any]]) -> dict[str, int]:
    """Cross-split sharing measured from ``queries.meta.jsonl`` rows: needed facts, expected entities and
    relevant-document sets (grade >= 2) found in two or more splits, and queries linked to another split."""
    seen: dict[str, dict[Any, set[str]]] = {"fact": defaultdict(set), "entity": defaultdict(set),
                                             "relevant": defaultdict(set)}
    linked: dict[str, list[tuple[str, Any]]] = {}
    for m in metas:
        rel = frozenset(d for d, g in (m.get("qrels") or {}).items() if g >= 2)
        ns = nodes(m.get("facts") or [], m.get("expected_entities") or [], rel)
        linked[m["query_id"]] = ns
        for kind, key in ns:
            seen[kind][key].add(m["split"])
    label = {"fact": "needed facts", "entity": "expected entities", "relevant": "relevant-document sets"}
    out = {label[k]: sum(len(v) > 1 for v in d.values()) for k, d in seen.items()}
    out["queries linked to another split"] = sum(
        any(len(seen[k][key]) > 1 for k, key in ns) for ns in linked.values())
    return out


__all__ = ["SplitLedger", "leakage", "nodes", "pools"]
