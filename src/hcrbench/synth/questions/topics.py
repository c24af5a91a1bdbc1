"""Topics: which queries are about the same thing, so a split's n counts independent questions, not rewordings.

Two queries belong to one **cluster** when they share an expected entity (including every entity their text
names: a person, team, system or product by name, a project by code name, a policy, ticket, decision or meeting by
id or title), a needed fact, or their relevant-document set; clusters are the connected components of that graph
(union-find). Meridian writes each query's cluster into ``queries.meta.jsonl`` and ``hcrbench describe`` reports
per split: queries, clusters, the share of queries in distinct clusters (clusters / queries), the **effective
number of independent topics** (inverse Simpson index of the cluster sizes, 1 / sum p_c^2: n when every query is
its own topic, 1 when all share one), repeated relevant sets and pairs of queries that need a common fact.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

#: Ids that text writes as themselves (tickets, decisions, meetings, policies, projects, systems ...).
ID_PATTERN = re.compile(r"\b(?:[A-Z]{2,4}-){1,2}\d{2,6}\b")
#: The share of a split's queries that must be in distinct clusters (clusters / queries).
MIN_DISTINCT_SHARE = 2 / 3


class UnionFind:
    """Disjoint sets over hashable keys, with path halving and union by size."""

    def __init__(self) -> None:
        self.parent: dict[Any, Any] = {}
        self.size: dict[Any, int] = {}

    def find(self, x: Any) -> Any:
        if x not in self.parent:
            self.parent[x], self.size[x] = x, 1
            return x
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: Any, b: Any) -> Any:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]
        return ra


class NameIndex:
    """How text writes each world entity, and which entities a text names (whole words, case-sensitive)."""

    def __init__(self, names: Mapping[str, Iterable[str]]) -> None:
        self.by_name: dict[str, set[str]] = defaultdict(set)
        for eid, written in names.items():
            for n in written:
                if n and len(n) >= 3:
                    self.by_name[n].add(eid)
        ordered = sorted(self.by_name, key=lambda s: (-len(s), s))
        self._pattern = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in ordered) + r")(?![\w-])") \
            if ordered else None
        self._named: dict[str, list[str]] = {}  # text -> its names (a planner asks about one text many times)

    def named(self, text: str) -> list[str]:
        """Entity ids ``text`` names, in order of first mention (an id pattern such as INC-20031 names itself)."""
        got = self._named.get(text)
        if got is None:
            got = self._named[text] = self._scan(text)
        return list(got)

    def written(self, text: str) -> list[str]:
        """The world names ``text`` writes (whole words, the longest at each place), in order of first mention."""
        if self._pattern is None:
            return []
        return list(dict.fromkeys(m.group(0) for m in self._pattern.finditer(text)))

    def _scan(self, text: str) -> list[str]:
        out: list[str] = []
        if self._pattern is not None:
            for m in self._pattern.finditer(text):
                out += sorted(self.by_name[m.group(0)])
        out += ID_PATTERN.findall(text)
        return list(dict.fromkeys(out))


def world_names(world: Mapping[str, Any]) -> dict[str, list[str]]:
    """Written forms of the entities of a ``world.json`` mapping: names, code names ("project X" and X), policy
    ids and titles; tickets, decisions and meetings are written as their ids (found by :data:`ID_PATTERN`)."""
    out: dict[str, list[str]] = {}
    for kind in ("people", "teams", "systems", "products"):
        for e in world.get(kind, []):
            out[e["id"]] = [e["name"]]
    for p in world.get("projects", []):
        out[p["id"]] = [p["code_name"], p["id"]]
    for p in world.get("policies", []):
        out[p["id"]] = [p["id"], p["title"]]
    return out


def query_nodes(meta: Mapping[str, Any], names: NameIndex | None = None) -> list[tuple[str, Any]]:
    """The graph nodes of one query: expected entities and entities named in its text, needed facts (every
    interpretation's too) and its relevant-document set (grade >= 2)."""
    ents = list(meta.get("expected_entities") or [])
    if names is not None:
        ents += names.named(str(meta.get("text", "")))
    facts = list(meta.get("facts") or [])
    for i in meta.get("interpretations") or []:
        facts += list(i.get("facts") or [])
    rel = frozenset(d for d, g in (meta.get("qrels") or {}).items() if g >= 2)
    out: list[tuple[str, Any]] = [("entity", e) for e in dict.fromkeys(ents)]
    out += [("fact", f) for f in dict.fromkeys(facts)]
    if rel:
        out.append(("relevant", rel))
    return out


def clusters(metas: list[Mapping[str, Any]], names: NameIndex | None = None) -> dict[str, str]:
    """query id -> cluster id (``T0001``, ``T0002`` ... numbered in order of each cluster's first query)."""
    uf = UnionFind()
    for m in metas:
        q = ("query", m["query_id"])
        uf.find(q)
        for node in query_nodes(m, names):
            uf.union(q, node)
    label: dict[Any, str] = {}
    out = {}
    for m in metas:
        root = uf.find(("query", m["query_id"]))
        label.setdefault(root, f"T{len(label) + 1:04d}")
        out[m["query_id"]] = label[root]
    return out


def effective_topics(sizes: Iterable[int]) -> float:
    """Inverse Simpson index of cluster sizes: the number of equally sized topics with the same concentration."""
    sizes = [s for s in sizes if s > 0]
    n = sum(sizes)
    return round(n * n / sum(s * s for s in sizes), 2) if n else 0.0


def split_topics(metas: list[Mapping[str, Any]], cluster_of: Mapping[str, str] | None = None,
                 names: NameIndex | None = None) -> dict[str, dict[str, Any]]:
    """Per split: queries, clusters, distinct share, effective topics, largest cluster, repeated relevant sets
    (queries whose grade >= 2 set another query of the split already has) and pairs of queries needing a common
    fact. ``cluster_of`` defaults to :func:`clusters` over ``metas``."""
    cluster_of = cluster_of or clusters(metas, names)
    out: dict[str, dict[str, Any]] = {}
    for split in sorted({m["split"] for m in metas}):
        rows = [m for m in metas if m["split"] == split]
        sizes = Counter(cluster_of[m["query_id"]] for m in rows)
        rel = Counter(frozenset(d for d, g in (m.get("qrels") or {}).items() if g >= 2) for m in rows)
        by_fact: dict[str, int] = Counter(f for m in rows for f in set(m.get("facts") or []))
        pairs = set()
        holders: dict[str, list[str]] = defaultdict(list)
        for m in rows:
            for f in set(m.get("facts") or []):
                holders[f].append(m["query_id"])
        for f, qs in holders.items():
            if by_fact[f] > 1:
                pairs |= {(a, b) for i, a in enumerate(sorted(qs)) for b in sorted(qs)[i + 1:]}
        out[split] = {
            "queries": len(rows), "clusters": len(sizes),
            "distinct_share": round(len(sizes) / len(rows), 3) if rows else 0.0,
            "effective_topics": effective_topics(sizes.values()),
            "largest_cluster": max(sizes.values(), default=0),
            "repeated_relevant_sets": sum(k - 1 for s, k in rel.items() if s),
            "pairs_sharing_a_fact": len(pairs),
        }
    return out


class TopicGraph:
    """The planner's view of topics while it draws: which graph nodes (entities, facts, relevant sets) planned
    queries hold, joined by union-find, so a draw can be asked how many existing topics it would touch."""

    def __init__(self) -> None:
        self.uf = UnionFind()
        self.held: set[Any] = set()

    def loss(self, linked: Iterable[tuple[str, Any]]) -> int:
        """Existing topics the draw touches: 0 opens a new one, 1 joins one, 2+ also merges topics."""
        return len({self.uf.find(n) for n in linked if n in self.held})

    def reuses_evidence(self, linked: Iterable[tuple[str, Any]]) -> bool:
        """True when the draw's relevant-document set is one a planned query already has."""
        return any(n in self.held for n in linked if n[0] == "relevant")

    def claim(self, linked: list[tuple[str, Any]]) -> None:
        for n in linked:
            self.held.add(n)
            self.uf.union(linked[0], n)


__all__ = ["ID_PATTERN", "MIN_DISTINCT_SHARE", "NameIndex", "TopicGraph", "UnionFind", "clusters",
           "effective_topics", "query_nodes", "split_topics", "world_names"]
