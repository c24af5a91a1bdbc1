"""Comparisons on few queries: intervals kept inside a measure's range, and one warning saying how little they say."""

from __future__ import annotations

import warnings
from typing import Any

from hcrbench.errors import HcrbenchWarning, InputError

#: Below this many queries an interval is reported with a warning (the t interval's width grows as 1/sqrt(n) times
#: a t quantile that is 12.7 at n = 2: wider than the metric's whole range).
SMALL_N = 10
#: Measure kinds whose per-query values lie in [0, 1], so a paired difference lies in [-1, 1].
UNIT_KINDS = frozenset({"nDCG", "AP", "RR", "P", "R", "Rprec", "nERR", "alpha_nDCG", "Success", "IPrec", "SetP",
                        "SetR", "SetF", "F1", "Judged", "RBP", "bpref", "infAP", "Unjudged"})


def difference_range(metric: str) -> tuple[float, float] | None:
    """The range of a paired difference on ``metric``: (-1, 1) for a measure in [0, 1], else None (unknown)."""
    try:
        from hcrbench.metrics.measures import parse_measure

        kind = parse_measure(metric).kind
    except (InputError, ValueError, KeyError):
        return None
    return (-1.0, 1.0) if kind in UNIT_KINDS else None


def small_n_interval(low: float, high: float, metric: str) -> tuple[float, float]:
    """``(low, high)`` kept inside the difference's range (a mean difference of values in [0, 1] cannot leave
    [-1, 1]); unchanged for a measure of unknown range."""
    rng = difference_range(metric)
    if rng is not None:
        low, high = max(low, rng[0]), min(high, rng[1])
    return float(low), float(high)


def warn_small_n(rows: list[dict[str, Any]]) -> None:
    """One warning for every comparison on fewer than :data:`SMALL_N` queries: how little its interval says."""
    small = [r for r in rows if r["n"] < SMALL_N]
    if not small:
        return
    ns = sorted({r["n"] for r in small})
    unknown = sorted({r["metric"] for r in small if difference_range(r["metric"]) is None})
    how = "kept inside [-1, 1] for measures in [0, 1]" + (f"; not cut for {', '.join(unknown)} (range not known)"
                                                           if unknown else "")
    warnings.warn(f"{len(small)} comparison(s) rest on {', '.join(map(str, ns))} queries: the 95% interval at this "
                  f"n says little ({how}); compare on at least {SMALL_N} queries", HcrbenchWarning, stacklevel=3)
