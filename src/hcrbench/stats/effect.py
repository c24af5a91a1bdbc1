"""Effect size for paired data: Cohen's d_z = mean(d) / sd(d).

It measures the improvement in units of its own query-to-query spread, which is what decides how many queries
a test needs (see :mod:`hcrbench.stats.power`). Rough conventions: 0.2 small, 0.5 medium, 0.8 large.
"""

from __future__ import annotations

import numpy as np

from hcrbench.stats._arrays import paired_differences


def cohens_d_paired(a: object, b: object | None = None) -> float:
    """Cohen's d for paired samples: ``mean(a - b) / std(a - b, ddof=1)``.

    Defined cases: all differences zero gives 0.0 (no effect); identical non-zero differences (zero spread)
    give ±inf (the effect is certain); a single pair gives NaN (no spread estimate).
    """
    d = paired_differences(a, b)
    if d.size < 2:
        return float("nan")
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if np.all(d == 0.0):
        return 0.0
    if sd == 0.0 or sd <= 1e-14 * abs(mean):
        return float(np.copysign(np.inf, mean))
    return mean / sd
