"""Gated runs against a baseline: paired comparisons in the declared Holm family, each with its verdict.

The gate's per-query values (graded metric and strict single-gold metric) are compared run vs baseline with
:func:`hcrbench.stats.compare` (the declared Holm family; every command's default is every run on one metric,
:data:`hcrbench.stats.compare.DEFAULT_FAMILY`), and each comparison is classified with
:func:`hcrbench.gate.verdict` (HIT / UNDER-NS / MISS / NULL-FAIL) using that run's own gate result. Shared by
``hcrbench gate --baseline`` and the runner's gate step (``hcrbench.experiment.gate_step``), so both give the
same numbers for the same runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from hcrbench.data.display import ResultDisplay
from hcrbench.errors import InputError

STRICT_PREFIX = "strict "


@dataclass(frozen=True)
class GateComparison(ResultDisplay):
    """One run vs the baseline on one gated metric: per-query values, the comparison and its verdict."""

    run: str
    baseline: str
    metric: str            # the gated metric, "strict R@5" for the strict single-gold one
    query_ids: list[str]
    values_run: np.ndarray
    values_baseline: np.ndarray
    gate_pass: bool
    failed_nulls: list[str]
    comparison: Any        # hcrbench.stats.Comparison
    verdict: Any           # hcrbench.gate.Verdict

    def to_dict(self) -> dict[str, Any]:
        """Flat JSON row: the comparison's fields, then the verdict's (``label``, ``sign``, ``n_needed``...)."""
        out = {"run": self.run, "baseline": self.baseline, "metric": self.metric, "gate_pass": bool(self.gate_pass),
               "failed_nulls": list(self.failed_nulls)}
        out.update(self.comparison.to_dict())
        out.update(self.verdict.to_dict())
        return _clean(out)


def _clean(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj


def _results(pair: Any) -> list[tuple[str, Any]]:
    out = [(pair.graded.metric, pair.graded)]
    if pair.strict is not None:
        out.append((STRICT_PREFIX + pair.strict.metric, pair.strict))
    return out


def compare_to_baseline(pairs: Mapping[str, Any], baseline: str, *, min_delta: float = 0.01, power: float = 0.8,
                        alpha: float = 0.05, n_resamples: int = 10_000, seed: int = 0, family: str = "run",
                        pool_pairings: bool = False) -> list[GateComparison]:
    """Compare every gated run (``{name: GatePair}``) with ``baseline`` on each gated metric, with verdicts.

    The Holm family is declared: (baseline, metric set) per run (``family="run"``, the default of every
    command: :data:`hcrbench.stats.compare.DEFAULT_FAMILY`), (baseline, metric) over every run (``"metric"``) or
    over all runs (``"all"``); for ``"run"`` and ``"all"`` the graded and the strict pairing are separate metric sets
    (two families) unless ``pool_pairings``. The same family adjusts the difference p-values (HIT) and the TOST p-values (MISS).
    Each verdict uses the run's own gate result on that metric.
    """
    from hcrbench.gate import verdicts
    from hcrbench.stats import compare

    if baseline not in pairs:
        raise InputError(f"no run named {baseline!r} (runs: {', '.join(pairs)})", field="--baseline")
    if len(pairs) < 2:
        raise InputError(f"nothing to compare: {baseline!r} is the only run; give at least one other run",
                         field="--baseline")
    metrics = [m for m, _ in _results(pairs[baseline])]
    runs = {name: SimpleNamespace(query_ids=list(p.graded.query_ids),
                                  values={m: np.asarray(r.real_values, dtype=np.float64) for m, r in _results(p)})
            for name, p in pairs.items()}
    evaluation = SimpleNamespace(metrics=metrics, runs=runs)
    metric_sets = [metrics] if pool_pairings else [[mm] for mm in metrics]
    comps = []
    for ms in metric_sets:
        comps.extend(compare(evaluation, baseline, ms, n_resamples=n_resamples, seed=seed, family=family))
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(comps):
        key = (c.run if family == "run" else "",
               (c.metric,) if family == "metric" else tuple(next(ms for ms in metric_sets if c.metric in ms)))
        groups.setdefault(key, []).append(i)
    out: list[GateComparison | None] = [None] * len(comps)
    for idx in groups.values():
        items = []
        for i in idx:
            c = comps[i]
            res = dict(_results(pairs[c.run]))[c.metric]
            a, b = runs[c.run].values[c.metric], runs[baseline].values[c.metric]
            items.append((c, bool(res.gate_pass), a - b))
        for i, (c, g, _), v in zip(idx, items, verdicts(items, min_delta=min_delta, power=power, alpha=alpha)):
            res = dict(_results(pairs[c.run]))[c.metric]
            out[i] = GateComparison(c.run, baseline, c.metric, list(res.query_ids), runs[c.run].values[c.metric],
                                    runs[baseline].values[c.metric], g, list(res.failed_nulls), c, v)
    order = {m: j for j, m in enumerate(metrics)}
    names = list(pairs)
    done = [g for g in out if g is not None]
    return sorted(done, key=lambda g: (names.index(g.run), order[g.metric]))
