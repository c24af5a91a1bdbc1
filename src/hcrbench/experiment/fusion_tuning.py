"""Fusion parameters chosen on a tune split, as ranx's ``optimize_fusion``: a grid, one measure, the best point.

``wsum`` searches every weight vector on a ``step`` grid whose weights sum to 1 (integer compositions, so no
float-sum rounding drops a point, which ranx's ``sum(seq) == 1.0`` filter can); ``rrf`` searches k in 10..100 by
10 (ranx's grid); ``rbc`` searches phi in 0.05..0.95 by 0.05. Each point fuses the runs on the tune queries (those
in ``qrels``) and scores the mean of ``metric`` over the tune qrels (a query a run lacks scores 0). The first best
point in grid order wins, so the choice is deterministic. Methods without a parameter have nothing to tune.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from hcrbench.data.types import Qrels, Run
from hcrbench.errors import InputError
from hcrbench.retrieve.fusion_methods import fuse, method_name

TUNABLE = ("wsum", "rrf", "rbc")
MAX_POINTS = 200_000


@dataclass(frozen=True)
class FusionTuning:
    """The chosen parameters, their tune score, and every point tried (``[(params, score), ...]``)."""

    method: str
    params: dict[str, Any]
    score: float
    metric: str
    n_queries: int
    trials: list[tuple[dict[str, Any], float]] = field(default_factory=list)


def weight_grid(n_runs: int, step: float = 0.1) -> list[tuple[float, ...]]:
    """Every weight vector of ``n_runs`` non-negative multiples of ``step`` summing to 1 (lexicographic order)."""
    parts = round(1 / step)
    if parts < 1 or abs(parts * step - 1) > 1e-9:
        raise InputError(f"must divide 1 into whole parts (0.1, 0.05, 0.25, ...), got {step}", field="step")
    from math import comb

    if comb(parts + n_runs - 1, n_runs - 1) > MAX_POINTS:
        raise InputError(f"{n_runs} runs at step {step} make more than {MAX_POINTS} weight vectors; use a larger step",
                         field="step")
    out = []
    for bars in combinations(range(parts + n_runs - 1), n_runs - 1):  # stars and bars, lexicographic
        edges = (-1, *bars, parts + n_runs - 1)
        out.append(tuple((edges[i + 1] - edges[i] - 1) / parts for i in range(n_runs)))
    return sorted(out)


def _grid(method: str, n_runs: int, step: float) -> list[dict[str, Any]]:
    if method == "wsum":
        return [{"weights": list(w)} for w in weight_grid(n_runs, step)]
    if method == "rrf":
        return [{"k": k} for k in range(10, 101, 10)]
    return [{"phi": round(0.05 * i, 2)} for i in range(1, 20)]


def optimize_fusion(qrels: Qrels, runs: Sequence[Run], method: str = "wsum", norm: str | None = "min-max", *,
                    metric: str = "nDCG@10", step: float = 0.1, ties: str = "ranx") -> FusionTuning:
    """Grid-search ``method``'s parameter on ``qrels``'s queries; see the module docstring (``ties``: as
    :func:`~hcrbench.retrieve.fusion_methods.fuse`)."""
    from hcrbench.metrics import evaluate, parse_measures

    method = method_name(method)
    if method not in TUNABLE:
        raise InputError(f"method {method!r} has no parameter to tune (tunable: {', '.join(TUNABLE)})",
                         field="method")
    measure = parse_measures(metric)
    if len(measure) != 1:
        raise InputError(f"tune on one measure, got {metric!r}", field="metric")
    name = measure[0].name
    tune_q = list(qrels.query_ids)
    subset = [r.subset(tune_q) for r in runs]
    if not any(r.n_entries for r in subset):
        raise InputError("no run retrieved anything for the tune queries (do the runs cover the tune split?)",
                         field="qrels")
    trials: list[tuple[dict[str, Any], float]] = []
    best: tuple[dict[str, Any], float] | None = None
    for params in _grid(method, len(runs), step):
        fused = fuse(subset, method, norm, ties=ties, **params)
        res = evaluate(qrels, {"fused": fused}, [name], missing="zero")
        score = float(res.runs["fused"].means[name])
        trials.append((params, score))
        if best is None or score > best[1]:
            best = (params, score)
    assert best is not None
    return FusionTuning(method, best[0], best[1], name, len(tune_q), trials)
