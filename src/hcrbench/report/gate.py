"""Verdicts, per-stratum deltas and bench-size calibration of gated runs against a baseline (``hcrbench gate``).

The gate's per-query values (graded metric and strict single-gold metric) are compared run vs baseline with
:func:`hcrbench.gate.baseline.compare_to_baseline` (the declared Holm family, by default every run on one
metric), each comparison classified with :func:`hcrbench.gate.verdict`, and optionally disaggregated by a query
metadata field (:func:`hcrbench.gate.stratify`) and calibrated against bench size
(:func:`hcrbench.gate.calibration_curve`). Rendering is rich tables; the plot is one curve per run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape

from hcrbench.gate.baseline import (  # noqa: F401  (re-exported: the comparison logic lives in the gate)
    STRICT_PREFIX,
    GateComparison,
    _clean,
    _results,
    compare_to_baseline,
)


def strata_rows(comparisons: Sequence[GateComparison], queries: Any, fields: Sequence[str]) -> list[dict[str, Any]]:
    """Per-stratum delta and helped / hurt / tied shares for every comparison and metadata field."""
    from hcrbench.gate import strata_from_metadata, stratify

    rows = []
    for field in fields:
        labels = strata_from_metadata(queries, field)
        for gc in comparisons:
            for r in stratify(gc.query_ids, gc.values_run, gc.values_baseline, labels):
                rows.append(_clean({"field": field, "run": gc.run, "baseline": gc.baseline, "metric": gc.metric,
                                    **r.to_dict()}))
    return rows


def calibration_rows(comparisons: Sequence[GateComparison], *, seed: int = 0) -> list[dict[str, Any]]:
    """Bench-size calibration (CI width at n/8, n/4, n/2, n; SE projection to 2n, 4n) per run, graded metric."""
    from hcrbench.gate import calibration_curve

    rows = []
    for gc in comparisons:
        if gc.metric.startswith(STRICT_PREFIX):
            continue
        for r in calibration_curve(gc.values_run, gc.values_baseline, seed=seed):
            rows.append(_clean({"run": gc.run, "baseline": gc.baseline, "metric": gc.metric, **r.to_dict()}))
    return rows


def calibration_figure(rows: Sequence[Mapping[str, Any]], *, n_bench: int, min_delta: float | None = None) -> Any:
    """The figure of :func:`plot_calibration_runs` (a matplotlib Figure; the caller saves and closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    runs = list(dict.fromkeys(r["run"] for r in rows))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, run in enumerate(runs):
        rr = sorted((r for r in rows if r["run"] == run), key=lambda r: r["n"])
        col = colors[i % len(colors)]
        ax.plot([r["n"] for r in rr], [r["projected_width"] for r in rr], "--", color=col, alpha=0.7)
        meas = [r for r in rr if r["ci_width"] is not None]
        ax.plot([r["n"] for r in meas], [r["ci_width"] for r in meas], "o-", color=col, label=run)
    ax.axvline(n_bench, color="black", lw=0.8, ls=":")
    ax.annotate(f"this bench (n={n_bench})", (n_bench, 0.98), xycoords=("data", "axes fraction"), ha="right",
                va="top", fontsize=8, rotation=90)
    if min_delta is not None:
        ax.axhline(2 * min_delta, color="gray", lw=0.8, ls="-.")
        ax.annotate(f"2 x min_delta = {2 * min_delta:g}", (0.01, 2 * min_delta), xycoords=("axes fraction", "data"),
                    va="bottom", fontsize=8, color="gray")
    ax.plot([], [], "o-", color="gray", label="measured (bootstrap)")
    ax.plot([], [], "--", color="gray", label="SE projection")
    ax.set_xscale("log")
    ticks = sorted({int(r["n"]) for r in rows})
    ax.set_xticks(ticks, [str(n) for n in ticks])
    ax.minorticks_off()
    ax.set_ylim(bottom=0)
    ax.set_xlabel("queries (N, log scale)")
    ax.set_ylabel("95% CI width of delta")
    base = rows[0]["baseline"] if rows else ""
    metric = rows[0]["metric"] if rows else ""
    ax.set_title(f"CI width of {metric} delta vs {base}, by bench size", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_calibration_runs(rows: Sequence[Mapping[str, Any]], path: str | Path, *, n_bench: int,
                          min_delta: float | None = None) -> None:
    """One figure, one colour per run: measured bootstrap CI widths (dots) and the SE projection (dashed).

    Same conventions as :func:`hcrbench.gate.plot_calibration` (Agg backend, no timestamp in the PNG, atomic
    write), but several runs on one axis, the bench size marked, and 2 x ``min_delta`` as a reference line
    (a CI narrower than that can tell a ``min_delta`` effect from 0).
    """
    import io

    import matplotlib.pyplot as plt

    from hcrbench.data import atomic_write_bytes

    fig = calibration_figure(rows, n_bench=n_bench, min_delta=min_delta)
    buf = io.BytesIO()
    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    fig.savefig(buf, format=fmt, metadata={"Software": None} if fmt == "png" else None)
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())


# ------------------------------------------------------------------------------------------ rendering


def _f(x: float | None, digits: int = 4) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _p(p: float) -> str:
    return "—" if not math.isfinite(p) else f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _detail(gc: GateComparison) -> str:
    v = gc.verdict
    if v.label == "HIT":
        return "better than baseline" if v.sign == "+" else "worse than baseline"
    if v.label == "NULL-FAIL":
        return f"fails the gate (nulls {','.join(gc.failed_nulls) or '?'})"
    if v.label == "MISS":
        return (f"equivalent within ±{v.min_delta:g}: TOST CI [{v.eq_ci_low:+.4f}, {v.eq_ci_high:+.4f}] "
                "(its Holm p: --json)")
    if v.reason.startswith("not decidable"):
        return v.reason.split(": ", 1)[1].split(" (every")[0]
    obs = f", {v.n_needed_observed_text} for observed" if v.n_needed_observed_text else ""
    proj = f" (CI ±{v.projected_half_width:.4f})" if v.projected_half_width is not None else ""
    return f"N={v.n_needed_text} for {v.min_delta:g}{proj}{obs}"


_STYLE = {"HIT": "green", "UNDER-NS": "yellow", "MISS": "cyan", "NULL-FAIL": "red"}


def verdict_table(comparisons: Sequence[GateComparison]) -> Any:
    """run, metric, delta, CI, p Holm, verdict (sign for HIT), and what it rests on (N needed, MDE, nulls)."""
    from hcrbench.report.terminal import Table

    base = comparisons[0].baseline if comparisons else ""
    fam = getattr(comparisons[0].comparison, "family", "run") if comparisons else "run"
    over = "per run and metric set" if fam == "run" else "over all runs, per metric set"
    from hcrbench.report.legend import p_header

    t = Table(title=f"Verdicts vs baseline {escape(str(base))} (one test: paired permutation, Holm family {over})",
              title_justify="left")
    sizes = [gc.verdict.family_size for gc in comparisons]
    head = p_header(sizes)
    for col in ("run", "metric", "delta", "95% CI", head, "verdict", "detail"):
        t.add_column(col, justify="right" if col in ("delta", "95% CI", head) else "left")
    for gc in comparisons:
        v = gc.verdict
        label = f"HIT {v.sign}" if v.label == "HIT" else v.label
        method = getattr(gc.comparison, "ci_method", "")
        t.add_row(escape(gc.run), escape(gc.metric), f"{v.delta:+.4f}", f"[{v.ci_low:+.4f}, {v.ci_high:+.4f}] {method}",
                  _p(v.p_holm) + (f" (m={v.family_size})" if "m=)" in head else ""), f"[{_STYLE[v.label]}]{label}[/]", _detail(gc))
    return t


def strata_tables(rows: Sequence[Mapping[str, Any]]) -> list[Any]:
    """One table per (field, metric): per run and stratum, n, means, delta and % helped / hurt / tied."""
    from hcrbench.report.terminal import Table

    tables = []
    for key in dict.fromkeys((r["field"], r["metric"]) for r in rows):
        sel = [r for r in rows if (r["field"], r["metric"]) == key]
        t = Table(title=escape(f"Per {key[0]}: {key[1]} delta vs {sel[0]['baseline']}"), title_justify="left")
        for col in ("run", key[0], "n", "run mean", "base mean", "delta", "helped", "hurt", "tied"):
            t.add_column(col, justify="left" if col in ("run", key[0]) else "right")
        prev = None
        for r in sel:
            t.add_row(escape(r["run"]) if r["run"] != prev else "", escape(str(r["stratum"])), str(r["n"]),
                      _f(r["mean_a"]),
                      _f(r["mean_b"]), f"{r['delta']:+.4f}", f"{100 * r['helped']:.0f}%", f"{100 * r['hurt']:.0f}%",
                      f"{100 * r['tied']:.0f}%", end_section=r["stratum"] == "(all)")
            prev = r["run"]
        tables.append(t)
    return tables


def calibration_table(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Measured and projected CI widths per run and N."""
    from hcrbench.report.terminal import Table

    t = Table(title="Bench-size calibration: 95% CI width of the delta", title_justify="left")
    for col in ("run", "N", "kind", "measured width", "SE projection"):
        t.add_column(col, justify="left" if col in ("run", "kind") else "right")
    prev = None
    for r in rows:
        t.add_row(escape(r["run"]) if r["run"] != prev else "", str(r["n"]), r["kind"], _f(r["ci_width"]),
                  _f(r["projected_width"]))
        prev = r["run"]
    return t
