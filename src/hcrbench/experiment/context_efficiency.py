"""The token-efficiency ratio's bootstrap interval: how sure is "the flat system needs B tokens to match X@400"?

Queries are resampled with replacement (percentile bootstrap), both systems' sufficiency curves are recomputed on
each resample and the ratio of :func:`hcrbench.metrics.sufficiency.token_efficiency` is taken on each: the
vectorised form here equals that function resample by resample (tested).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _key(b: int | None) -> str:
    return "all" if b is None else str(b)


def efficiency_interval(x: dict[str, dict[str, list[bool | None]]], y: dict[str, dict[str, list[bool | None]]],
                        budgets: list[int | None], headline: str, ref: int, n_resamples: int, seed: int
                        ) -> dict[str, Any]:
    """A percentile-bootstrap 95% interval of the token-efficiency ratio (queries resampled, both systems' curves
    recomputed on the same resample): ``{"ratio_ci": [low, high], "n_resamples"}``; an end is ``None`` where in
    that share of the resamples X never matches Y within the budgets (an unbounded ratio)."""
    numeric = [b for b in budgets if b is not None]
    if ref not in numeric:
        return {}
    keep = [i for i, v in enumerate(y[_key(ref)][headline]) if v is not None
            and all(x[_key(b)][headline][i] is not None for b in numeric)]
    if not keep:
        return {}
    xs = np.array([[bool(x[_key(b)][headline][i]) for i in keep] for b in numeric], dtype=np.float64)
    ys = np.array([bool(y[_key(ref)][headline][i]) for i in keep], dtype=np.float64)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(keep), size=(n_resamples, len(keep)))
    target = ys[idx].mean(axis=1)
    rates = xs[:, idx].mean(axis=2)  # budgets x resamples
    ok = rates >= target[None, :] - 1e-12
    first = np.where(ok.any(axis=0), np.argmax(ok, axis=0), len(numeric))
    ratio = np.append(np.asarray(numeric, dtype=np.float64), np.inf)[first] / ref
    lo, hi = np.percentile(ratio, [2.5, 97.5], method="inverted_cdf")
    return {"ratio_ci": [None if not np.isfinite(v) else float(v) for v in (lo, hi)],
            "ci_method": "percentile bootstrap over queries", "n_resamples": int(n_resamples)}
