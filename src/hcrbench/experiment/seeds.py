"""The runner's seed hook: systems of one ``seed_group`` are seeds of one stochastic system, reported as one.

For each group with at least one member scored: per metric, the mean ± SD over seeds of the per-seed means
(:func:`hcrbench.stats.aggregate_seeds`), and the paired comparison of the *seed-averaged* per-query scores
with the baseline (same family rule and seeds as the other comparisons), so seed noise is averaged out instead
of being counted as more queries. Added to eval.json as ``seed_aggregates`` and ``seed_comparisons``; the
per-seed runs stay in ``runs`` and ``comparisons`` as before.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np


def seed_groups(cfg: Any, scored: list[str]) -> dict[str, list[str]]:
    """``{group: [system names]}`` for the config's seed groups, restricted to scored systems (config order)."""
    out: dict[str, list[str]] = {}
    for s in cfg.systems:
        if getattr(s, "seed_group", None) and s.name in scored:
            out.setdefault(s.seed_group, []).append(s.name)
    return out


def seed_aggregation(evaluation: Any, cfg: Any, baseline: str) -> dict[str, Any]:
    """``{"seed_aggregates": {group: {metric: {...}}}, "seed_comparisons": [...]}``, or ``{}`` without groups."""
    from hcrbench.stats import aggregate_seeds, compare

    groups = seed_groups(cfg, list(evaluation.runs))
    if not groups:
        return {}
    metrics = list(evaluation.metrics)
    aggregates: dict[str, Any] = {}
    runs: dict[str, Any] = {}
    base = evaluation.runs[baseline]
    qids = list(base.query_ids)
    for group, members in groups.items():
        per_metric: dict[str, Any] = {}
        values: dict[str, np.ndarray] = {}
        for m in metrics:
            vecs = {}
            for name in members:
                r = evaluation.runs[name]
                pos = {q: i for i, q in enumerate(r.query_ids)}
                v = np.asarray(r.values[m], dtype=np.float64)
                vecs[name] = np.array([v[pos[q]] if q in pos else 0.0 for q in qids])
            agg = aggregate_seeds(vecs)
            per_metric[m] = agg.to_dict() | {"members": list(members)}
            values[m] = agg.per_query
        aggregates[group] = per_metric
        runs[f"{group} (seed mean)"] = SimpleNamespace(query_ids=qids, values=values)
    comparisons: list[dict[str, Any]] = []
    if baseline not in {n for ms in groups.values() for n in ms}:
        base_vals = {m: np.asarray(base.values[m], dtype=np.float64) for m in metrics}
        ev = SimpleNamespace(metrics=metrics, runs={baseline: SimpleNamespace(query_ids=qids, values=base_vals), **runs})
        comparisons = [c.to_dict() for c in compare(ev, baseline, metrics, n_resamples=cfg.n_resamples, seed=cfg.seed,
                                                      family=cfg.family)]
    return {"seed_aggregates": aggregates, "seed_comparisons": comparisons}
