"""Retrieval policies over any retriever: single-hop at K against multi-hop under the same total budget.

``1-hop@K`` asks the question once and keeps the top K units (documents or chunks). ``H-hop@K`` asks it once,
keeps ``chunks_per_hop`` units, turns what they say into at most 5 expansion queries (text only,
:mod:`hcrbench.retrieve.expand`), asks those, adds the new units they find (round-robin over the expansion
queries, deduplicated across hops), and repeats up to ``max_hops`` hops; the last hop may fill the whole remaining
budget. A hop with no new expansion query ends the loop. Whatever budget is left is filled from the question's own
ranking, so both policies examine the same number of units: a gain is never bought with more slots. The
``total_budget`` is the number of units examined; ``budget_multiplier`` (multi-hop only, e.g. 1.5) grants the
multi-hop policy more examined units, a cost the comparison reports. The final list is the pool ranked by the
*original* question's relevance score, cut to ``total_budget`` (units the question's ranking does not return,
e.g. BM25 documents sharing no term with it, score 0).

Costs per query: retrieval passes (1 + expansion queries asked), embedding calls (one per pass when the system
encodes queries, 0 for BM25), units examined (the final pool size; never above the budget), hops used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from hcrbench.data.types import Corpus, Queries, Run, trec_score_key
from hcrbench.errors import InputError
from hcrbench.retrieve.expand import MAX_EXPANSIONS, get_expander

_SEP = "\x1f"
_NAME = re.compile(r"^\s*(\d+)-hop@(\d+)(?:x([0-9.]+))?\s*$")


@dataclass(frozen=True)
class Policy:
    """One policy. ``max_hops=1`` is single-hop; ``total_budget`` is K, the units examined and returned."""

    max_hops: int = 1
    total_budget: int = 15
    chunks_per_hop: int = 5
    budget_multiplier: float = 1.0
    max_expansions: int = MAX_EXPANSIONS
    expander: str = "prose"

    def __post_init__(self) -> None:
        for key, lo in (("max_hops", 1), ("total_budget", 1), ("chunks_per_hop", 1), ("max_expansions", 1)):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise InputError(f"must be an integer >= {lo}, got {v!r}", field=key)
        if self.max_expansions > MAX_EXPANSIONS:
            raise InputError(f"at most {MAX_EXPANSIONS} expansion queries per hop, got {self.max_expansions}",
                             field="max_expansions")
        m = self.budget_multiplier
        if isinstance(m, bool) or not isinstance(m, (int, float)) or not 1.0 <= m <= 10.0:
            raise InputError(f"must be a number in [1, 10], got {m!r}", field="budget_multiplier")
        get_expander(self.expander)

    @property
    def name(self) -> str:
        """``1-hop@15``, ``2-hop@15``, ``2-hop@15x1.5`` (multiplier shown when not 1)."""
        tail = f"x{self.budget_multiplier:g}" if self.budget_multiplier != 1.0 and self.max_hops > 1 else ""
        return f"{self.max_hops}-hop@{self.total_budget}{tail}"

    @property
    def examined_budget(self) -> int:
        """Units this policy may examine: ``total_budget``, times ``budget_multiplier`` (floored) for multi-hop."""
        if self.max_hops == 1:
            return self.total_budget
        return int(self.total_budget * float(self.budget_multiplier))  # floor: never more than asked

    @classmethod
    def parse(cls, text: str, **defaults: Any) -> Policy:
        """``"1-hop@15"``, ``"2-hop@15"`` or ``"2-hop@15x1.5"`` plus other fields as keywords."""
        m = _NAME.match(str(text))
        if m is None:
            raise InputError(f"expected a policy like '1-hop@15', '2-hop@15' or '2-hop@15x1.5', got {text!r}",
                             field="policy")
        kw = dict(defaults)
        kw["max_hops"], kw["total_budget"] = int(m.group(1)), int(m.group(2))
        if m.group(3):
            kw["budget_multiplier"] = float(m.group(3))
        return cls(**kw)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **asdict(self), "examined_budget": self.examined_budget}


@dataclass
class SampleCost:
    """What one query cost under a policy."""

    embedding_calls: int = 0
    chunks_examined: int = 0
    retrieval_passes: int = 0
    hops_used: int = 0


@dataclass
class PolicyResult:
    """The final run (top ``total_budget`` by original score), per-query costs and the expansion queries asked."""

    policy: Policy
    run: Run
    costs: dict[str, SampleCost]
    expansions: dict[str, list[list[str]]] = field(default_factory=dict)
    encodes_queries: bool = False


def _ranked(run: Run, qid: str) -> list[tuple[str, float]]:
    return run.ranked(qid) if qid in run else []


def _encodes(counters: dict[str, int]) -> bool:
    """Whether the system embeds its queries: it encoded texts, or found their embeddings in its cache (a
    cached query still counts as one embedding call: the cache is an artefact of re-running, not of the policy)."""
    return any(counters.get(k, 0) > 0 for k in ("texts_encoded", "embedding_calls", "cache_hits"))


def run_policy(retriever: Any, corpus: Corpus, queries: Queries, policy: Policy,
               exclude: Mapping[str, set[str]] | None = None) -> PolicyResult:
    """Run ``policy`` with ``retriever`` (already indexed on ``corpus``) for every query.

    Hops are batched: every query's expansion queries of one hop go to the retriever in one ``search`` call.
    ``exclude`` names, per query, units that must never be returned or examined (e.g. the code set's own
    function of the query, RepoEval's leakage rule); they are dropped from every ranking before the policy acts.
    """
    exclude = exclude or {}
    n_units = len(corpus)
    if n_units == 0:
        raise InputError("the corpus is empty", field="corpus")
    expander = get_expander(policy.expander)
    budget = min(policy.examined_budget, n_units)
    first = retriever.search(queries, k=n_units)
    encodes = _encodes(first.costs.counters)
    qids = list(queries.query_ids)
    orig = {q: [x for x in _ranked(first.run, q) if x[0] not in exclude.get(q, ())] for q in qids}
    score = {q: dict(v) for q, v in orig.items()}
    pools: dict[str, list[str]] = {}
    fresh: dict[str, list[str]] = {}
    costs: dict[str, SampleCost] = {}
    seen: dict[str, set[str]] = {}
    expansions: dict[str, list[list[str]]] = {q: [] for q in qids}
    n1 = budget if policy.max_hops == 1 else min(policy.chunks_per_hop, budget)
    for q in qids:
        pools[q] = [d for d, _ in orig[q][:n1]]
        fresh[q] = list(pools[q])
        costs[q] = SampleCost(retrieval_passes=1, hops_used=1)
        seen[q] = set()
    active = [q for q in qids if len(pools[q]) < budget]
    for hop in range(2, policy.max_hops + 1):
        asks: list[tuple[str, int, str]] = []
        allot: dict[str, int] = {}
        for q in active:
            remaining = budget - len(pools[q])
            if remaining <= 0 or not fresh[q]:
                continue
            texts = [corpus.full_text(corpus.index_of(d)) for d in fresh[q]]
            exp = expander(queries[q], texts, seen[q])[: policy.max_expansions]
            if not exp:
                continue  # nothing new to ask: this query's loop ends
            seen[q].update(e.lower() for e in exp)
            expansions[q].append(list(exp))
            allot[q] = remaining if hop == policy.max_hops else min(policy.chunks_per_hop, remaining)
            asks.extend((q, i, e) for i, e in enumerate(exp))
        if not asks:
            break
        k = min(n_units, budget + max(allot.values()) + max((len(exclude.get(q, ())) for q in allot), default=0))
        batch = Queries([f"{q}{_SEP}{hop}{_SEP}{i}" for q, i, _ in asks], [e for _, _, e in asks])
        res = retriever.search(batch, k=k)
        lists: dict[str, list[list[str]]] = {}
        for (q, _, _), bq in zip(asks, batch.query_ids):
            drop = exclude.get(q, ())
            lists.setdefault(q, []).append([d for d, _ in _ranked(res.run, bq) if d not in drop])
        next_active = []
        for q, ranked_lists in lists.items():
            have = set(pools[q])
            added: list[str] = []
            depth = 0
            while len(added) < allot[q] and any(depth < len(r) for r in ranked_lists):
                for r in ranked_lists:  # round-robin: each expansion query's next unseen unit in turn
                    if depth < len(r) and r[depth] not in have and len(added) < allot[q]:
                        have.add(r[depth])
                        added.append(r[depth])
                depth += 1
            pools[q].extend(added)
            fresh[q] = added
            c = costs[q]
            c.retrieval_passes += len(ranked_lists)
            c.hops_used = hop
            if added and len(pools[q]) < budget:
                next_active.append(q)
        active = next_active
    items: dict[str, list[tuple[str, float]]] = {}
    for q in qids:
        pool = pools[q]
        if len(pool) < budget:  # fill the unused budget from the question's own ranking
            have = set(pool)
            pool.extend([d for d, _ in orig[q] if d not in have][: budget - len(pool)])
        c = costs[q]
        c.chunks_examined = len(pool)
        c.embedding_calls = c.retrieval_passes if encodes else 0
        sc = score[q]
        scored = [(d, float(sc.get(d, 0.0))) for d in pool]
        scored.sort(key=lambda x: x[0], reverse=True)
        keys = trec_score_key([s for _, s in scored]).tolist()
        order = sorted(range(len(scored)), key=keys.__getitem__, reverse=True)
        items[q] = [scored[i] for i in order][: policy.total_budget]
    run = Run.from_ranked(items, name=policy.name)
    return PolicyResult(policy, run, costs, expansions, encodes)
