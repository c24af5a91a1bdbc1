"""How many queries per test world and how many worlds per batch buy the most evidence per minute.

A batch of ``K`` worlds with ``n`` queries each costs ``K (C_w + n C_q)`` seconds: ``C_w`` builds every system on a
world (encoding, indexes, trees, clustering), ``C_q`` searches and scores one query with every system. Its mean
difference has variance ``(B + E / n) / K`` with, from :func:`variance_components.variance_components`,

- ``B = between_worlds + p * between_topics``: what a world adds whatever its number of queries (``p``, the
  probability that two queries of a world share a topic, is the part of the topic component that more queries of
  the same world cannot average away: their topics repeat);
- ``E = (1 - p) * between_topics + within_topic``: what averages away with ``n``.

Variance times cost, ``(B + E / n)(C_w + n C_q)``, does not depend on ``K`` and is least at the classical nested
optimum ``n* = sqrt(C_w E / (C_q B))`` (Cochran 1977, ch. 10), rounded to the better neighbouring integer and kept
within ``1..max_queries`` (the suite a world holds). ``K`` then follows from what the batch must buy: the worlds a
time budget pays for, or the worlds that bring the standard error to a target, never fewer than ``min_worlds`` (a
t interval over worlds needs two).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from hcrbench.errors import InputError


@dataclass(frozen=True)
class Allocation:
    queries_per_world: int
    worlds_per_batch: int
    n_star: float | None
    between: float
    within: float
    cost_world_s: float
    cost_query_s: float
    batch_seconds: float
    se_per_batch: float
    #: 1 / (variance of a world's mean x its seconds): evidence per second of one world at the chosen n
    evidence_per_minute: float
    #: evidence per minute at the chosen n over evidence per minute at ``max_queries`` (the whole suite)
    gain_over_full_suite: float
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check(x: Any, name: str, positive: bool = False) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0 or (positive and x == 0):
        raise InputError(f"must be a finite {'positive' if positive else 'non-negative'} number, got {x!r}",
                         field=name)
    return float(x)


def world_variance(between: float, within: float, n: int) -> float:
    """Variance of one world's mean difference over ``n`` of its queries."""
    return between + within / n


def allocation(between_worlds: float, between_topics: float, within_topic: float, same_topic_rate: float,
               cost_world_s: float, cost_query_s: float, max_queries: int, budget_s: float | None = None,
               target_se: float | None = None, min_worlds: int = 2) -> Allocation:
    """The queries per world and worlds per batch that minimise the variance of the mean difference per second
    (module docstring), with the reasons for the choice. ``between_worlds`` may be the raw (negative)
    moment estimate: ``B`` is truncated at 0 as a whole, which is less biased than truncating its parts. ``budget_s``: seconds one batch may take; ``target_se``:
    the standard error the batch should reach; with neither, ``min_worlds``."""
    if isinstance(between_worlds, bool) or not isinstance(between_worlds, (int, float)) \
            or not math.isfinite(between_worlds):
        raise InputError(f"must be a finite number, got {between_worlds!r}", field="between_worlds")
    s2w = float(between_worlds)
    s2t, s2e = (_check(v, n) for v, n in ((between_topics, "between_topics"), (within_topic, "within_topic")))
    p = _check(same_topic_rate, "same_topic_rate")
    if p > 1:
        raise InputError(f"must be in 0..1, got {p!r}", field="same_topic_rate")
    cw, cq = _check(cost_world_s, "cost_world_s"), _check(cost_query_s, "cost_query_s")
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or max_queries < 1:
        raise InputError(f"must be a positive integer, got {max_queries!r}", field="max_queries")
    if isinstance(min_worlds, bool) or not isinstance(min_worlds, int) or min_worlds < 1:
        raise InputError(f"must be a positive integer, got {min_worlds!r}", field="min_worlds")
    between = max(0.0, s2w + p * s2t)
    within = (1.0 - p) * s2t + s2e
    reasons: list[str] = []

    def score(n: int) -> float:  # variance x seconds of one world: lower buys more evidence per second
        return world_variance(between, within, n) * (cw + n * cq)

    n_star: float | None
    if between <= 0 or cq <= 0:
        n_star, n = None, max_queries
        reasons.append("no variance between worlds measured" if between <= 0 else "a query costs nothing measurable")
        reasons.append(f"so every query a world holds is worth its cost: {max_queries} per world")
    elif within <= 0 or cw <= 0:
        n_star, n = 0.0, 1
        reasons.append("no variance within a world" if within <= 0 else "a world costs nothing beyond its queries")
        reasons.append("so one query per world and as many worlds as the batch allows")
    else:
        n_star = math.sqrt(cw * within / (cq * between))
        lo, hi = max(1, math.floor(n_star)), max(1, math.ceil(n_star))
        n = min((lo, hi), key=score)
        reasons.append(f"n* = sqrt(C_w E / (C_q B)) = sqrt({cw:.3g} s x {within:.3g} / ({cq:.3g} s x {between:.3g}))"
                       f" = {n_star:.1f} queries per world")
        if n > max_queries:
            reasons.append(f"capped at the {max_queries} queries a world holds")
            n = max_queries
    full = score(max_queries)
    gain = full / score(n) if score(n) > 0 else 1.0
    var_w = world_variance(between, within, n)
    per_world_s = cw + n * cq
    if budget_s is not None:
        budget = _check(budget_s, "budget_s", positive=True)
        k = max(min_worlds, math.floor(budget / per_world_s))
        reasons.append(f"{k} worlds fit a {budget:.0f} s batch at {per_world_s:.1f} s each"
                       + (f" (raised to the minimum {min_worlds})" if k * per_world_s > budget else ""))
    elif target_se is not None:
        target = _check(target_se, "target_se", positive=True)
        k = max(min_worlds, math.ceil(var_w / target ** 2))
        reasons.append(f"{k} worlds bring the standard error to <= {target:.3g}")
    else:
        k = min_worlds
        reasons.append(f"{k} worlds: the fewest a t interval over worlds needs")
    evidence = 60.0 / score(n) if score(n) > 0 else math.inf
    return Allocation(n, k, n_star, between, within, cw, cq, k * per_world_s, math.sqrt(var_w / k), evidence,
                      gain, reasons)
