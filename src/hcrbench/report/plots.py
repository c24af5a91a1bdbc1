"""The report's plots, each returned as PNG bytes (Agg backend, no timestamp: same input, same bytes).

Deltas against the baseline with CIs, a per-category heat map, the token-efficiency curves (drawn by
:mod:`hcrbench.report.curves`), per-level routing accuracy against the (1 - eps)^d model, the gate's bench-size
calibration (:mod:`hcrbench.report.gate`) and corpus growth. Without matplotlib every function returns ``None``
and the report says the plot was left out.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

_RC = {"font.size": 9, "axes.titlesize": 10, "axes.spines.top": False, "axes.spines.right": False,
       "axes.grid": True, "grid.alpha": 0.3, "figure.dpi": 100, "svg.hashsalt": "hcrbench"}
GOOD, BAD, NEUTRAL = "#1a7f37", "#cf222e", "#57606a"


def _plt() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _png(fig: Any) -> bytes:
    plt = _plt()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None}, dpi=100)
    plt.close(fig)
    return buf.getvalue()


def available() -> bool:
    """Whether plots can be drawn (matplotlib installed)."""
    return _plt() is not None


def delta_forest(rows: Sequence[Mapping[str, Any]], metric: str, baseline: str) -> bytes | None:
    """One row per system: delta vs the baseline on ``metric`` with its 95% CI; green / red when Holm p < 0.05."""
    plt = _plt()
    if plt is None or not rows:
        return None
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(6.4, 0.45 * len(rows) + 1.3))
        for i, r in enumerate(reversed(rows)):
            sig = r["p_holm"] is not None and r["p_holm"] < 0.05
            col = (GOOD if r["delta"] > 0 else BAD) if sig else NEUTRAL
            ax.plot([r["ci_low"], r["ci_high"]], [i, i], color=col, lw=2.2, solid_capstyle="round")
            ax.plot([r["delta"]], [i], "o", color=col, ms=6)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(range(len(rows)), [r["label"] for r in reversed(rows)])
        ax.set_xlabel(f"{metric} difference vs {baseline} (95% CI); colour = Holm p < 0.05")
        ax.set_title(f"{metric}: each system minus {baseline}")
        ax.grid(axis="y", alpha=0)
        fig.tight_layout()
        return _png(fig)


def category_heatmap(systems: Sequence[str], categories: Sequence[str], values: Sequence[Sequence[float]],
                     metric: str) -> bytes | None:
    """Systems x categories mean of ``metric``, annotated (``nan`` = no query of that category)."""
    plt = _plt()
    if plt is None or not systems or not categories:
        return None
    import matplotlib
    import numpy as np

    m = np.asarray(values, dtype=np.float64)
    with matplotlib.rc_context({**_RC, "axes.grid": False}):
        fig, ax = plt.subplots(figsize=(max(5.0, 0.75 * len(categories) + 2.2), 0.42 * len(systems) + 1.6))
        im = ax.imshow(np.ma.masked_invalid(m), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if math.isfinite(m[i, j]):
                    ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if m[i, j] > 0.6 else "black")
        ax.set_xticks(range(len(categories)), list(categories), rotation=35, ha="right")
        ax.set_yticks(range(len(systems)), list(systems))
        ax.set_title(f"{metric} by query category")
        fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02)
        fig.tight_layout()
        return _png(fig)


def sufficiency_curves(doc: Mapping[str, Any]) -> bytes | None:
    """The headline sufficiency@B per system (the runner's ``curves/`` plot): the system under test, the kill
    baseline and the oracle thick with 95% bootstrap CI bands, the others thin; "all" in a panel of its own."""
    plt = _plt()
    headline = doc.get("headline")
    if plt is None or headline is None:
        return None
    import matplotlib

    from hcrbench.report.curves import draw_curves

    with matplotlib.rc_context(_RC):
        from hcrbench.report.curves import legend_rows

        rows = legend_rows(len(doc["systems"]))
        fig, ax = plt.subplots(figsize=(7.2, 4.2 + 0.18 * rows))
        series = {n: {k: v[headline] for k, v in e["rates"].items() if headline in v}
                  for n, e in doc["systems"].items()}
        proxy = " (proxy)" if headline in doc.get("proxy_kinds", []) else ""
        draw_curves(ax, dict(doc), series, f"sufficiency@B: {headline}{proxy}, 95% bootstrap CI", legend=True)
        ax.set_xlabel(f"token budget B ({doc.get('token_counter')} tokens; default selection: "
                      f"{doc.get('selection')})")
        ax.set_ylabel("share of queries")
        fig.subplots_adjust(left=0.09, right=0.86, bottom=0.17 + 0.04 * rows, top=0.92)
        return _png(fig)


def zoom_floor(values: Sequence[float], step: float = 0.05) -> float:
    """The lower end of a [.., 1] axis that shows the differences between ``values`` (shares in [0, 1]): a
    multiple of ``step`` below their minimum with a margin of a quarter of their range (at least ``step`` / 2);
    0 when the values spread over more than half the axis."""
    vals = [v for v in values if v is not None and math.isfinite(v)]
    if not vals:
        return 0.0
    lo, hi = min(vals), max(vals)
    if lo < 0.5:
        return 0.0
    pad = max((hi - lo) / 4, step / 2)
    return max(0.0, math.floor((lo - pad) / step) * step)


def routing_values(reports: Mapping[str, Mapping[str, Any]]) -> list[float]:
    """Every value the routing plot draws (1 - eps per level, their running product, observed and predicted)."""
    out: list[float] = []
    for rep in reports.values():
        r = rep["routing"]
        if not (r.get("eps_any") and r.get("n_queries")):
            continue
        acc = 1.0
        for e in r["eps_any"]:
            e = e if e is not None and math.isfinite(e) else 0.0
            acc *= 1 - e
            out += [1 - e, acc]
        out += [x for x in (r.get("accuracy"), r.get("predicted_power")) if x is not None and math.isfinite(x)]
    return out


def routing_levels(reports: Mapping[str, Mapping[str, Any]]) -> bytes | None:
    """Per level, routing accuracy 1 - eps_l (bars) and the cumulative product (dashed) per system; the observed
    share of queries routed correctly to the leaves (diamond) beside (1 - mean eps)^d (cross) at depth d."""
    plt = _plt()
    names = [n for n in reports if reports[n]["routing"].get("eps_any") and reports[n]["routing"].get("n_queries")]
    if plt is None or not names:
        return None
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(8.4, 4.0))
        width = 0.8 / len(names)
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        depth = 0
        for k, name in enumerate(names):
            r = reports[name]["routing"]
            eps = [e if e is not None and math.isfinite(e) else 0.0 for e in r["eps_any"]]
            col = colors[k % len(colors)]
            levels = list(range(1, len(eps) + 1))
            depth = max(depth, len(eps))
            ax.bar([lv - 0.4 + width * (k + 0.5) for lv in levels], [1 - e for e in eps], width=width * 0.9,
                   color=col, alpha=0.35, label=name)
            cum, acc = [], 1.0
            for e in eps:
                acc *= 1 - e
                cum.append(acc)
            ax.plot(levels, cum, "o--", color=col, ms=4)
            x = len(eps) + 0.3 + 0.08 * k
            if r.get("accuracy") is not None:
                ax.plot([x], [r["accuracy"]], "D", color=col, ms=7)
            if r.get("predicted_power") is not None:
                ax.plot([x], [r["predicted_power"]], "x", color=col, ms=9, mew=2)
        ax.plot([], [], "o--", color="gray", label="prod (1 - eps) down to the level")
        ax.plot([], [], "D", color="gray", label="observed at the leaves")
        ax.plot([], [], "x", color="gray", mew=2, label="(1 - mean eps)^d")
        low = zoom_floor(routing_values({n: reports[n] for n in names}))  # zoomed to the values drawn
        ax.set_ylim(low, 1.0 + (1.0 - low) * 0.04)
        ax.set_xticks(range(1, depth + 1))
        ax.set_xlabel("tree level (1 = below the root); bars: 1 - eps at the level")
        ax.set_ylabel("share of queries keeping a relevant branch"
                      + (f"\n(axis starts at {low:.2f}, not 0)" if low > 0 else ""))
        ax.set_title("Routing accuracy per level vs the (1 - eps)^d model")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        fig.tight_layout()
        return _png(fig)


def calibration(rows: Sequence[Mapping[str, Any]], n_bench: int, min_delta: float | None) -> bytes | None:
    """The gate's bench-size calibration: 95% CI width of the delta against the number of queries."""
    plt = _plt()
    if plt is None or not rows:
        return None
    import matplotlib

    from hcrbench.report.gate import calibration_figure

    with matplotlib.rc_context(_RC):
        return _png(calibration_figure(rows, n_bench=n_bench, min_delta=min_delta))


def growth(doc: Mapping[str, Any]) -> bytes | None:
    """The system - baseline delta against corpus size (documents), with 95% CIs."""
    plt = _plt()
    pts = [p for p in doc.get("points", []) if p.get("delta") is not None]
    if plt is None or not pts:
        return None
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(6.4, 3.8))
        xs = [p.get("n_docs") or i + 1 for i, p in enumerate(pts)]
        ys = [p["delta"] for p in pts]
        lo = [p["delta"] - (p.get("ci_low") if p.get("ci_low") is not None else p["delta"]) for p in pts]
        hi = [(p.get("ci_high") if p.get("ci_high") is not None else p["delta"]) - p["delta"] for p in pts]
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", capsize=4, color="#0969da")
        for x, y, p in zip(xs, ys, pts):
            ax.annotate(str(p.get("size", "")), (x, y), textcoords="offset points", xytext=(6, 6), fontsize=8)
        ax.axhline(0, color="black", lw=0.8)
        if all(isinstance(x, (int, float)) and x > 0 for x in xs) and len(xs) > 1:
            ax.set_xscale("log")
        ax.set_xlabel("corpus size (documents)")
        ax.set_ylabel(f"{doc.get('metric', '')} delta (95% CI)")
        ax.set_title(f"{doc.get('system', 'system')} - {doc.get('baseline', 'baseline')} as the corpus grows")
        fig.tight_layout()
        return _png(fig)
