"""Disaggregation and bench-size calibration of a paired comparison.

:func:`stratify` splits a paired delta by a per-query label (query category or any metadata field) with the
shares of queries helped / hurt / tied. :func:`calibration_curve` shows how wide the CI of the delta is at
N in {n/8, n/4, n/2, n} (seeded random subsets, paired bootstrap) next to the standard-error projection, which
it extends beyond n; :func:`plot_calibration` draws it. Together they answer "is this bench big enough?".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.errors import InputError


@dataclass(frozen=True)
class StratumRow:
    stratum: str
    n: int
    mean_a: float
    mean_b: float
    delta: float
    helped: float   # share of the stratum's queries where a > b
    hurt: float
    tied: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def strata_from_metadata(queries: Any, field: str) -> dict[str, str]:
    """``{qid: str(metadata[field])}`` from a :class:`~hcrbench.data.Queries` (missing field -> "(none)")."""
    out = {}
    for qid in queries.query_ids:
        v = queries.meta(qid).get(field)
        out[qid] = "(none)" if v is None else str(v)
    if all(v == "(none)" for v in out.values()):
        raise InputError(f"no query has metadata field {field!r}", field="--stratify")
    return out


def stratify(query_ids: Sequence[str], a: Sequence[float], b: Sequence[float],
             strata: Mapping[str, str], *, tie_eps: float = 1e-12) -> list[StratumRow]:
    """Per-stratum mean delta (a - b) and helped / hurt / tied shares; the last row is ``(all)``."""
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if not len(query_ids) == va.size == vb.size:
        raise InputError(f"query_ids ({len(query_ids)}), a ({va.size}) and b ({vb.size}) differ in length",
                         field="a")
    labels = np.array([strata.get(q, "(none)") for q in query_ids], dtype=object)
    rows = []
    for s in sorted(set(labels.tolist())):
        rows.append(_row(s, va[labels == s], vb[labels == s], tie_eps))
    rows.append(_row("(all)", va, vb, tie_eps))
    return rows


def _row(name: str, a: np.ndarray, b: np.ndarray, eps: float) -> StratumRow:
    d = a - b
    n = d.size
    return StratumRow(name, n, float(a.mean()), float(b.mean()), float(d.mean()),
                      float(np.mean(d > eps)), float(np.mean(d < -eps)), float(np.mean(np.abs(d) <= eps)))


@dataclass(frozen=True)
class CalibrationRow:
    n: int
    kind: str              # "measured" (subsets of the bench) or "projected" (SE scaling beyond n)
    ci_width: float | None     # mean width of the paired-bootstrap CI over the repeats (measured rows)
    projected_width: float     # 2 * t * sd / sqrt(N), sd of the full bench's differences

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def calibration_curve(a: Sequence[float], b: Sequence[float], fractions: Sequence[float] = (1 / 8, 1 / 4, 1 / 2, 1),
                      *, seed: int = 0, repeats: int = 5, n_resamples: int = 2000, confidence: float = 0.95,
                      project_to: Sequence[int] = (2, 4)) -> list[CalibrationRow]:
    """CI width of mean(a - b) at N = fraction * n (measured on seeded random subsets) and beyond n (projected)."""
    from scipy import stats as st

    from hcrbench.stats import paired_bootstrap_ci

    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = d.size
    if n < 4:
        raise InputError(f"need at least 4 paired queries, got {n}", field="a")
    sd = float(d.std(ddof=1))
    q = (1 + confidence) / 2

    def proj(m: int) -> float:
        return float(2 * st.t.ppf(q, m - 1) * sd / math.sqrt(m))

    rng = np.random.default_rng([seed, 7])
    rows = []
    for f in fractions:
        m = max(2, round(f * n))
        widths = []
        for r in range(repeats if m < n else 1):
            idx = rng.choice(n, size=m, replace=False) if m < n else np.arange(n)
            ci = paired_bootstrap_ci(d[idx], np.zeros(m), n_resamples=n_resamples, confidence=confidence,
                                     seed=seed + r)
            widths.append(ci.high - ci.low)
        rows.append(CalibrationRow(m, "measured", float(np.mean(widths)), proj(m)))
    for mult in project_to:
        rows.append(CalibrationRow(int(mult * n), "projected", None, proj(int(mult * n))))
    return rows


def plot_calibration(rows: Sequence[CalibrationRow], path: str | Path, *, title: str = "CI width vs bench size") -> None:
    """Draw measured CI widths and the SE projection against N (log x axis) into ``path`` (png/svg/pdf)."""
    import matplotlib

    matplotlib.use("Agg")
    import io

    import matplotlib.pyplot as plt

    from hcrbench.data import atomic_write_bytes

    fig, ax = plt.subplots(figsize=(5, 3.5))
    ns = [r.n for r in rows]
    ax.plot(ns, [r.projected_width for r in rows], "--", color="gray", label="SE projection")
    meas = [r for r in rows if r.ci_width is not None]
    ax.plot([r.n for r in meas], [r.ci_width for r in meas], "o-", label="measured (bootstrap)")
    ax.set_xscale("log")
    ax.set_xlabel("queries (N)")
    ax.set_ylabel("95% CI width of delta")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    buf = io.BytesIO()
    fmt = Path(path).suffix.lstrip(".") or "png"
    fig.savefig(buf, format=fmt, metadata={"Software": None} if fmt == "png" else None)
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())
