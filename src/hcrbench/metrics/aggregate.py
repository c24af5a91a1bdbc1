"""How a measure's per-query values become the one number of a run (``RunEvaluation.means``).

Each measure is aggregated as the tool that defines it aggregates it: a mean over the averaged queries for most;
GMAP's geometric mean (trec_eval's ``gm_map``: per-query values are ``ln(max(AP, 1e-5))``); the **sum** for the
counts (``NumRel``, ``NumRet``, ``NumRelRet``: trec_eval's ``all`` line and ir_measures' ``SumAgg``); and for a
measure handed to ir_measures (``ir_measures:X``), that measure's own aggregator (``NumQ``, ``NumRet(rel=2)``...
sum; the rest average), so the number equals ``ir_measures.calc_aggregate`` on the same run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hcrbench.metrics.foreign import FOREIGN

#: Native kinds whose per-query values are counts and whose run value is their sum.
SUMMED_KINDS = frozenset({"NumRel", "NumRet", "NumRelRet"})


def aggregation(measure: Any) -> str:
    """``"mean"``, ``"geometric"`` or ``"sum"``: how ``measure`` (a parsed Measure; None for a label that names
    no measure) is aggregated over queries."""
    if measure is None:
        return "mean"
    if measure.kind == "GMAP":
        return "geometric"
    if measure.kind in SUMMED_KINDS:
        return "sum"
    if measure.kind == FOREIGN:
        import ir_measures

        agg = ir_measures.parse_measure(measure.params[0][1]).aggregator()
        return "sum" if isinstance(agg, ir_measures.SumAgg) else "mean"
    return "mean"


def aggregate(measure: Any, values: np.ndarray) -> float:
    """The run's value of ``measure`` from its per-query ``values`` (NaN for a mean over no query)."""
    how = aggregation(measure)
    if measure is not None and measure.kind == FOREIGN:  # their aggregator, added in query order: calc_aggregate's number, bit for bit
        import ir_measures

        agg = ir_measures.parse_measure(measure.params[0][1]).aggregator()
        for v in np.asarray(values, dtype=np.float64).tolist():
            agg.add(v)
        return float(agg.result())
    if how == "sum":
        return float(np.sum(values))
    mean = float(np.mean(values)) if np.size(values) else float("nan")
    return float(np.exp(mean)) if how == "geometric" else mean


def measure_of(name: str) -> Any:
    """The parsed measure a result's key names, or None for a label that is no measure."""
    from hcrbench.errors import InputError
    from hcrbench.metrics.measures import parse_measure

    try:
        return parse_measure(name)
    except (InputError, ValueError):
        return None
