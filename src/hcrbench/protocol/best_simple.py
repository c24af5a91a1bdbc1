"""The subject against the best simple system of the field: the one comparison a newcomer asks for first.

"Simple" is a flat retriever, as its type declares it (:meth:`hcrbench.retrieve.Traits.is_simple`): BM25, dense,
hybrid fusion, a flat reranking cascade (``rerank``, or HCR's cascade with ``flat = true``: the kill baseline of
the model-free run). Trees (HCR, RAPTOR), runfiles and plugins that declare no stage are not simple. The best is the one with the highest mean of the protocol's metric on the test
split; the subject is taken as its seed mean when it has seeds. The difference is paired per query with its 95%
interval (:func:`hcrbench.stats.paired_ci`: t below 30 queries, BCa above, seeded), and the cost is the ratio of
items scored per query (eval.json's ``cost``; wall-clock time is added by the console, never written here, so
``verdicts.json`` stays byte-identical across fresh runs).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hcrbench.retrieve.system_traits import traits


def is_simple(entry: dict[str, Any]) -> bool:
    """A manifest system entry of a flat retriever (see the module docstring)."""
    params = entry.get("config_params") or entry.get("params") or {}
    return traits(entry.get("type")).is_simple(params)


def vs_best_simple(evaluation: Any, cfg: Any, manifest: dict[str, Any], cost: dict[str, Any] | None,
                   *, system: str, metric: str) -> dict[str, Any] | None:
    """``{"system", "best", "metric", "subject_mean", "best_mean", "delta", "ci", "n", "ci_method",
    "cost_item", "cost_subject", "cost_best", "cost_ratio", "field"}``; None when the subject was not scored or
    no simple system was."""
    from hcrbench.experiment.cost import scored_unit
    from hcrbench.protocol.inputs import members, per_query
    from hcrbench.stats import paired_ci

    runs = evaluation.runs
    group = members(cfg, system, runs)
    sub = per_query(evaluation, group, metric)
    entries = manifest.get("systems") or {}
    field = {n: float(np.mean(np.asarray(runs[n].values[metric], dtype=np.float64)))
             for n, e in entries.items() if n in runs and n not in group and is_simple(e)}
    if sub is None or not field:
        return None
    best = max(sorted(field), key=lambda n: field[n])
    b = runs[best]
    pos = {q: i for i, q in enumerate(b.query_ids)}
    common = [i for i, q in enumerate(sub.query_ids) if q in pos]
    a = np.asarray(sub.values[metric], dtype=np.float64)[common]
    bv = np.asarray(b.values[metric], dtype=np.float64)[[pos[sub.query_ids[i]] for i in common]]
    ci = paired_ci(a, bv, n_resamples=cfg.n_resamples, seed=cfg.seed) if len(common) >= 2 else None
    item, cs, cb = _cost(cost or {}, group, best)
    units = {n: scored_unit(e.get("type"), bool(e.get("chunking")), ((e.get("costs") or {}).get("counters") or {}))
             for n, e in ((system, entries.get(group[0]) or {}), (best, entries.get(best) or {}))}
    external = traits((entries.get(system) or {}).get("type")).stage == "replay"
    if external:  # a replayed run file: what it cost was spent outside hcrbench
        item, cs, cb = None, None, None
    return {"system": system, "seeds": group, "best": best, "metric": metric, "field": dict(sorted(field.items())),
            "subject_mean": float(a.mean()) if len(a) else None, "best_mean": field[best],
            "delta": float((a - bv).mean()) if len(a) else None,
            "ci": None if ci is None else [float(ci.low), float(ci.high)], "n": len(common),
            "ci_method": None if ci is None else ci.method, "level": 0.95,
            "interval_kind": "fixed-n 95% per-query paired interval (descriptive: no rule decides on it)",
            "cost_item": item, "cost_subject": cs, "cost_best": cb,
            "cost_ratio": cs / cb if cs is not None and cb else None,
            "cost_units": None if item is None else [units[system], units[best]],
            **({"cost_note": "unknown (a run file made outside hcrbench)"} if external else {})}


def _cost(cost: dict[str, Any], group: list[str], best: str) -> tuple[str | None, float | None, float | None]:
    """Items scored per query (chunks, else documents) of the subject (seed mean) and of ``best``."""
    for item in ("chunks_scored", "docs_scored"):
        vals = [(cost.get(n) or {}).get(item) for n in group]
        vb = (cost.get(best) or {}).get(item)
        if vb is not None and vals and all(v is not None for v in vals):
            return item.replace("_", " "), float(np.mean(vals)), float(vb)
    return None, None, None
