"""Token-efficiency curves: sufficiency@B per system (and per category) with bootstrap 95% CI bands.

Reads the ``sufficiency`` section of ``eval.json`` (written by the runner's context step) and writes, into one
folder: ``sufficiency.png`` / ``.svg`` (all systems, the headline judgement), ``sufficiency_by_category.png`` /
``.svg`` (one panel per query category) and ``sufficiency.csv`` (the table behind the plots). The unconstrained
point is drawn at the right edge, labelled "all". Files are byte-identical for identical input (fixed SVG hash
salt, no dates in metadata). :func:`sufficiency_table` renders the same numbers for the terminal.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from rich.markup import escape

from hcrbench.data.atomic import atomic_open, atomic_write_text
from hcrbench.report.terminal import Table

UNCONSTRAINED = "all"


def _xs(keys: list[str]) -> tuple[list[float], list[str]]:
    finite = [int(k) for k in keys if k != UNCONSTRAINED]
    right = (max(finite) * 1.25) if finite else 1.0
    xs = [right if k == UNCONSTRAINED else float(k) for k in keys]
    return xs, keys


def curve_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (system, category, budget, judgement): rate, CI, n, mean tokens used."""
    rows = []
    for name, entry in doc["systems"].items():
        for key in doc["budgets"]:
            for kind, r in entry["rates"].get(key, {}).items():
                rows.append({"system": name, "category": "all", "budget": key, "kind": kind, "rate": r["rate"],
                             "low": r["low"], "high": r["high"], "n": r["n"],
                             "mean_tokens": entry["mean_tokens"].get(key)})
        for cat, by_budget in entry.get("by_category", {}).items():
            for key in doc["budgets"]:
                r = by_budget.get(key)
                if r is not None:
                    rows.append({"system": name, "category": cat, "budget": key, "kind": doc["headline"],
                                 "rate": r["rate"], "low": r["low"], "high": r["high"], "n": r["n"],
                                 "mean_tokens": None})
    return rows


def draw_curves(ax: Any, doc: dict[str, Any], series: dict[str, dict[str, dict[str, float]]], title: str) -> None:
    """Draw one line per system (rate by budget) with its 95% CI band onto ``ax``; budgets from ``doc``."""
    xs, labels = _xs(doc["budgets"])
    for name, by_budget in series.items():
        pts = [(x, by_budget[k]) for x, k in zip(xs, labels) if k in by_budget]
        if not pts:
            continue
        x = [p[0] for p in pts]
        line = ax.plot(x, [p[1]["rate"] for p in pts], marker="o", label=name)[0]
        ax.fill_between(x, [p[1]["low"] for p in pts], [p[1]["high"] for p in pts], alpha=0.2,
                        color=line.get_color(), linewidth=0)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)


def write_curves(doc: dict[str, Any], folder: str | Path) -> dict[str, str]:
    """Write the plots and the CSV into ``folder``; returns ``{what: path relative to folder's parent}``.

    Without matplotlib (``pip install 'hcrbench[context]'``) only the CSV is written, and a warning says so."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    buf = io.StringIO()
    rows = curve_rows(doc)
    fields = ["system", "category", "budget", "kind", "rate", "low", "high", "n", "mean_tokens"]
    writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(folder / "sufficiency.csv", buf.getvalue())
    files["table"] = f"{folder.name}/sufficiency.csv"
    headline = doc.get("headline")
    if headline is None:
        return files
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        import warnings

        from hcrbench.errors import HcrbenchWarning

        warnings.warn("matplotlib is not installed: wrote the curve table only (pip install 'hcrbench[context]')",
                      HcrbenchWarning, stacklevel=2)
        return files
    label = f"{headline}{' (proxy)' if headline in doc.get('proxy_kinds', []) else ''}"
    xlabel = f"token budget B ({doc['token_counter']} tokens; selection: {doc['selection']})"
    with matplotlib.rc_context({"svg.hashsalt": "hcrbench", "figure.dpi": 100}):
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        series = {n: {k: v[headline] for k, v in e["rates"].items() if headline in v}
                  for n, e in doc["systems"].items()}
        draw_curves(ax, doc, series, f"sufficiency@B: {label}, 95% bootstrap CI")
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel("share of queries", fontsize=8)
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        files.update(_save(fig, folder, "sufficiency"))
        plt.close(fig)
        cats = sorted({c for e in doc["systems"].values() for c in e.get("by_category", {})})
        if cats:
            ncol = min(3, len(cats))
            nrow = -(-len(cats) // ncol)
            fig, axes = plt.subplots(nrow, ncol, figsize=(4.0 * ncol, 3.2 * nrow), squeeze=False)
            for ax, cat in zip(axes.flat, cats):
                draw_curves(ax, doc, {n: e.get("by_category", {}).get(cat, {}) for n, e in doc["systems"].items()},
                      f"{cat}")
            for ax in list(axes.flat)[len(cats):]:
                ax.axis("off")
            axes.flat[0].legend(fontsize=6, loc="lower right")
            fig.suptitle(f"sufficiency@B by category: {label}", fontsize=10)
            fig.tight_layout()
            files.update({f"{k}_by_category": v for k, v in _save(fig, folder, "sufficiency_by_category").items()})
            plt.close(fig)
    return files


def _save(fig: Any, folder: Path, stem: str) -> dict[str, str]:
    out = {}
    for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None, "Creator": None})):
        with atomic_open(folder / f"{stem}.{ext}", "wb") as fh:
            fig.savefig(fh, format=ext, metadata=meta)
        out[ext] = f"{folder.name}/{stem}.{ext}"
    return out


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def sufficiency_table(doc: dict[str, Any]) -> Table:
    """Systems x budgets: the headline sufficiency rate in % with its 95% CI, and the mean tokens used."""
    headline = doc.get("headline")
    proxy = " (proxy)" if headline in doc.get("proxy_kinds", []) else ""
    table = Table(title=f"Sufficiency@B: {headline}{proxy}, % of {doc['n_queries']} queries [95% CI] "
                        f"({doc['selection']} selection, {doc['token_counter']} tokens)", title_justify="left")
    table.add_column("system", style="bold")
    for key in doc["budgets"]:
        table.add_column(f"B={key}", justify="right")
    for name, e in doc["systems"].items():
        cells = []
        for key in doc["budgets"]:
            r = e["rates"].get(key, {}).get(headline) if headline else None
            tok = e["mean_tokens"].get(key)
            cells.append("—" if r is None else f"{_pct(r['rate'])} [{_pct(r['low'])}, {_pct(r['high'])}]"
                         f"\n{tok:.0f} tok")
        table.add_row(escape(name), *cells)
    return table


def bottom_lines(doc: dict[str, Any]) -> list[str]:
    """What a person can act on: failure rate bands, significant differences, token efficiency."""
    lines = []
    ref = doc["reference_budget"]
    for name, e in doc["systems"].items():
        f = e.get("failure_on_feasible")
        if f:
            lines.append(f"{name}: fails {100 * f['rate']:.1f}% of budget-feasible queries at B={ref} "
                         f"({f['band']}; design: <=20% acceptable, >30% kill; n={f['n']})")
        d = e.get("impossible_detection")
        if d and d.get("n"):
            p = "—" if d["precision"] is None else f"{d['precision']:.2f}"
            r = "—" if d["recall"] is None else f"{d['recall']:.2f}"
            lines.append(f"{name}: budget-impossible rule precision {p}, recall {r}")
    for c in doc.get("comparisons", []):
        if c["pvalue_holm"] < 0.05:
            better = c["system"] if c["a_only"] > c["b_only"] else c["baseline"]
            lines.append(f"B={c['budget']}: {better} is sufficient more often ({c['system']} only "
                         f"{c['a_only']}, {c['baseline']} only {c['b_only']}; McNemar Holm p={c['pvalue_holm']:.3g})")
    for name, t in doc.get("token_efficiency", {}).items():
        if t.get("target") is None:
            continue
        if t["budget"] is None:
            lines.append(f"{doc['baseline']} never reaches {name}'s sufficiency at B={ref} "
                         f"({100 * t['target']:.1f}%) within the budgets tried")
        else:
            lines.append(f"{doc['baseline']} needs B={t['budget']} to match {name}'s sufficiency at B={ref} "
                         f"(token-efficiency ratio {t['ratio']:.2f})")
    return lines
