"""Does a judge earn its use? Agreement between two judges, and calibration against exact labels.

- :func:`judge_agreement` — two judges on the same items: Cohen's kappa (scikit-learn's ``cohen_kappa_score``),
  Kendall's tau-b (scipy's ``kendalltau``) and the disagreement rate; the design asks tau >= 0.7 and flags more
  than 20% disagreement.
- :func:`calibration` — a judge against the exact evidence-coverage labels (:mod:`hcrbench.metrics.sufficiency`):
  kappa below 0.6 labels its numbers "uncalibrated", and a protocol keeps the exact measure.
- :func:`stratified_sample` — the items a calibration looks at: equal shares of every stratum (e.g. query category
  x exact label), drawn with a seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

#: The design's bars.
TAU_MIN = 0.7
DISAGREEMENT_MAX = 0.20
KAPPA_CALIBRATED = 0.6


def _pairs(a: Mapping[str, bool | None], b: Mapping[str, bool | None]) -> list[tuple[int, int]]:
    return [(int(a[q]), int(b[q])) for q in sorted(a) if q in b and a[q] is not None and b[q] is not None]


def _kappa(pairs: list[tuple[int, int]]) -> float | None:
    from hcrbench.llm.judge import cohens_kappa  # the one Cohen's kappa (scikit-learn's)

    k = cohens_kappa([p[0] for p in pairs], [p[1] for p in pairs])
    return None if k is None or k != k else k


def judge_agreement(a: Mapping[str, bool | None], b: Mapping[str, bool | None]) -> dict[str, Any]:
    """Agreement of two judges' labels on the items both judged."""
    from scipy.stats import kendalltau

    pairs = _pairs(a, b)
    n = len(pairs)
    dis = sum(1 for x, y in pairs if x != y) / n if n else None
    tau = None
    if n >= 2 and len({p[0] for p in pairs}) > 1 and len({p[1] for p in pairs}) > 1:
        t = kendalltau([p[0] for p in pairs], [p[1] for p in pairs]).statistic
        tau = None if t != t else float(t)
    return {"n": n, "kappa": _kappa(pairs), "kendall_tau": tau, "disagreement": dis,
            "disagreement_flagged": bool(dis is not None and dis > DISAGREEMENT_MAX),
            "tau_ok": None if tau is None else tau >= TAU_MIN,
            "bars": {"kendall_tau_min": TAU_MIN, "disagreement_max": DISAGREEMENT_MAX}}


def calibration(judge: Mapping[str, bool | None], exact: Mapping[str, bool | None]) -> dict[str, Any]:
    """The judge against exact labels: ``status`` is "calibrated" (kappa >= 0.6), "uncalibrated" (below) or
    "undecidable" (no kappa: nothing judged, or one label only)."""
    pairs = _pairs(judge, exact)
    k = _kappa(pairs)
    status = "undecidable" if k is None else ("calibrated" if k >= KAPPA_CALIBRATED else "uncalibrated")
    agree = sum(1 for x, y in pairs if x == y) / len(pairs) if pairs else None
    return {"n": len(pairs), "kappa": k, "agreement": agree, "status": status, "kappa_min": KAPPA_CALIBRATED,
            "exact_positive": sum(y for _, y in pairs), "judge_positive": sum(x for x, _ in pairs)}


def stratified_sample(ids: Sequence[str], strata: Mapping[str, Any], n: int, seed: int = 0) -> list[str]:
    """Up to ``n`` of ``ids``, as evenly as possible over the strata (``strata[id]``), drawn with ``seed``;
    returned in the order of ``ids``."""
    if n >= len(ids):
        return list(ids)
    groups: dict[str, list[str]] = {}
    for i in ids:
        groups.setdefault(repr(strata.get(i)), []).append(i)
    rng = random.Random(seed)
    for key in sorted(groups):
        rng.shuffle(groups[key])
    picked: list[str] = []
    keys = sorted(groups)
    while len(picked) < n:
        for key in keys:
            if groups[key] and len(picked) < n:
                picked.append(groups[key].pop())
    chosen = set(picked)
    return [i for i in ids if i in chosen]
