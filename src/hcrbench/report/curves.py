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


#: Fixed styles of the curves a reader looks for first; every other system gets a thin, faded line of its own.
ROLE_STYLE = {"system": ("#0550ae", "o"), "kill_baseline": ("#cf222e", "s"), "flat": ("#bf8700", "v"),
              "perfect": ("#1a7f37", "D"), "oracle": ("#000000", "*"), "passage": ("#8250df", "P"),
              "passage-degraded": ("#8c959f", "X")}
ROLE_LABEL = {"system": "{} (under test)", "kill_baseline": "{} (kill baseline)", "flat": "{} (best flat)",
              "perfect": "{} (perfect document ranking, the harness's passage choice)",
              "oracle": "{} (cheapest deliverable cover)", "passage": "{} (passage-level perfect retriever: the gate)",
              "passage-degraded": "{} (degraded passage control)"}
#: Colours for the other systems (20, none close to the role colours) and markers (13): a distinct pair each.
PALETTE = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#17becf", "#8c564b",
           "#bcbd22", "#9467bd", "#ff7f0e", "#2ca02c", "#f781bf", "#999999", "#4daf4a", "#984ea3", "#a65628",
           "#6a3d9a", "#b15928")
MARKERS = ("^", "v", "D", "P", "X", "<", ">", "p", "h", "H", "d", "8", "o")


def roles(doc: dict[str, Any]) -> dict[str, str]:
    """``{system: role}`` for the highlighted curves: the system under test, the kill baseline (the protocol's,
    else the experiment's baseline), the best flat system (the protocol's ``flat``, else the non-control system
    with the highest headline rate at the reference budget), the perfect retriever and the oracle controls."""
    hl = doc.get("highlight") or {}
    out: dict[str, str] = {}
    if doc.get("oracle"):
        out[doc["oracle"]] = "oracle"
    if doc.get("perfect"):
        out[doc["perfect"]] = "perfect"
    for n, e in (doc.get("systems") or {}).items():
        if isinstance(e, dict) and e.get("control") in ("passage", "passage-degraded"):
            out[n] = e["control"]
    kill = hl.get("kill_baseline") or doc.get("baseline")
    flat = hl.get("flat") or _best_other(doc, {*out, kill, hl.get("system")})
    if flat and flat in doc.get("systems", {}):
        out[flat] = "flat"
    if kill:
        out[kill] = "kill_baseline"
    if hl.get("system"):
        out[hl["system"]] = "system"
    return out


def _best_other(doc: dict[str, Any], taken: set[Any]) -> str | None:
    """The system (not a control, not already highlighted) with the highest headline rate at the reference."""
    key, headline = str(doc.get("reference_budget")), doc.get("headline")
    rates = {n: ((e.get("rates") or {}).get(key) or {}).get(headline, {}).get("rate")
             for n, e in (doc.get("systems") or {}).items() if n not in taken and "control" not in e}
    rates = {n: r for n, r in rates.items() if r is not None}
    return max(rates, key=lambda n: (rates[n], n)) if rates else None


def styles(doc: dict[str, Any], names: list[str]) -> dict[str, dict[str, Any]]:
    """One style per system: colour, marker, line width, whether its CI band is drawn, its legend label.

    The highlighted systems (:func:`roles`): thick lines with fixed colours; every other system a thin, faded line
    with its own colour and marker (distinct pairs for up to 260 systems). Every curve has its 95% CI band (the
    faded ones fainter)."""
    role = roles(doc)
    out: dict[str, dict[str, Any]] = {}
    i = 0
    for n in names:
        r = role.get(n)
        if r is not None:
            c, m = ROLE_STYLE[r]
            out[n] = {"color": c, "marker": m, "lw": 2.2, "band": True, "label": ROLE_LABEL[r].format(n),
                      "zorder": 3, "ls": "--" if r in ("oracle", "perfect", "passage", "passage-degraded") else "-", "alpha": 1.0,
                      "band_alpha": 0.15}
        else:
            out[n] = {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[i % len(MARKERS)], "lw": 0.9,
                      "band": True, "label": n, "zorder": 2, "ls": "-", "alpha": 0.4, "band_alpha": 0.025}
            i += 1
    return out


def draw_curves(ax: Any, doc: dict[str, Any], series: dict[str, dict[str, dict[str, float]]], title: str,
                *, legend: bool = False) -> Any:
    """Draw one line per system (rate by numeric budget) onto ``ax`` (:func:`styles`: a CI band on every curve,
    the highlighted systems in colour, the rest faded); the unconstrained point ("all") goes to a narrow panel of
    its own on the right, so it is not spaced as if it were a number. Returns that panel (or ``None``)."""
    keys = [k for k in doc["budgets"] if k != UNCONSTRAINED]
    xs = [float(k) for k in keys]
    st = styles(doc, list(series))
    has_all = any(UNCONSTRAINED in by for by in series.values())
    side = ax.inset_axes([1.03, 0.0, 0.07, 1.0], sharey=ax) if has_all else None
    for j, (name, by_budget) in enumerate(series.items()):
        s = st[name]
        pts = [(x, by_budget[k]) for x, k in zip(xs, keys) if k in by_budget]
        if pts:
            x = [p[0] for p in pts]
            ax.plot(x, [p[1]["rate"] for p in pts], marker=s["marker"], color=s["color"], lw=s["lw"], ls=s["ls"],
                    ms=6 if s["zorder"] == 3 else 4, label=s["label"], zorder=s["zorder"], alpha=s["alpha"])
            if s["band"]:
                ax.fill_between(x, [p[1]["low"] for p in pts], [p[1]["high"] for p in pts], alpha=s["band_alpha"],
                                color=s["color"], linewidth=0)
        a = by_budget.get(UNCONSTRAINED)
        if side is not None and a is not None:
            off = (j - (len(series) - 1) / 2) * (0.6 / max(len(series), 1))
            side.errorbar([off], [a["rate"]], yerr=[[a["rate"] - a["low"]], [a["high"] - a["rate"]]]
                          if s["band"] else None, marker=s["marker"], color=s["color"],
                          ms=6 if s["zorder"] == 3 else 4, lw=s["lw"], capsize=2, alpha=s["alpha"])
    ax.set_xticks(xs)
    ax.set_xticklabels(keys, fontsize=7)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    if side is not None:
        side.set_xlim(-0.5, 0.5)
        side.set_xticks([0.0])
        side.set_xticklabels(["all"], fontsize=7)
        side.tick_params(axis="y", labelleft=False)
        side.grid(alpha=0.3)
        side.set_title("no limit", fontsize=7)
    if legend:  # below the axes, so it never hides a curve
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=min(4, max(len(series), 1)),
                  frameon=False)
    return side


def legend_rows(n: int) -> int:
    """Rows the legend of :func:`draw_curves` takes for ``n`` systems (to size the figure's bottom margin)."""
    return -(-n // 4)


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
    xlabel = f"token budget B ({doc['token_counter']} tokens; default selection: {doc['selection']})"
    with matplotlib.rc_context({"svg.hashsalt": "hcrbench", "figure.dpi": 100}):
        rows = legend_rows(len(doc["systems"]))
        fig, ax = plt.subplots(figsize=(7.2, 4.4 + 0.18 * rows))
        series = {n: {k: v[headline] for k, v in e["rates"].items() if headline in v}
                  for n, e in doc["systems"].items()}
        draw_curves(ax, doc, series, f"sufficiency@B: {label}, 95% bootstrap CI bands",
                    legend=True)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel("share of queries", fontsize=8)
        fig.subplots_adjust(left=0.09, right=0.86, bottom=0.17 + 0.04 * rows, top=0.92)
        files.update(_save(fig, folder, "sufficiency"))
        plt.close(fig)
        cats = sorted({c for e in doc["systems"].values() for c in e.get("by_category", {})})
        if cats:
            ncol = min(3, len(cats))
            nrow = -(-len(cats) // ncol)
            fig, axes = plt.subplots(nrow, ncol, figsize=(4.4 * ncol, 3.2 * nrow), squeeze=False)
            for ax, cat in zip(axes.flat, cats):
                draw_curves(ax, doc, {n: e.get("by_category", {}).get(cat, {}) for n, e in doc["systems"].items()},
                      f"{cat}")
            for ax in list(axes.flat)[len(cats):]:
                ax.axis("off")
            handles, names = axes.flat[0].get_legend_handles_labels()
            fig.legend(handles, names, loc="lower center", ncol=min(4, max(len(names), 1)), fontsize=7,
                       frameon=False)
            fig.suptitle(f"sufficiency@B by category: {label}", fontsize=10)
            fig.subplots_adjust(wspace=0.35, hspace=0.45, right=0.93,
                                bottom=min(0.3, (0.35 + 0.22 * legend_rows(len(names))) / (3.2 * nrow)))
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
                        f"(default selection {doc['selection']}, {doc['token_counter']} tokens; under each "
                        "system: what it delivers, its selection)", title_justify="left")
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
        how = f"\n{e['delivers']}, {e.get('selection', doc['selection'])}" if e.get("delivers") else ""
        table.add_row(f"{escape(name)}{escape(how)}", *cells)
    return table


def bottom_lines(doc: dict[str, Any]) -> list[str]:
    """What a person can act on: failure rate bands, significant differences, token efficiency."""
    lines = []
    ref = doc["reference_budget"]
    oracle = doc.get("oracle")
    feas = doc.get("feasibility") or {}
    sent = (feas.get("sentence") or {}).get("all")
    for us, f in (feas.get("unit_sets") or {}).items():
        if f.get("all", {}).get("n") and sent:
            lines.append(f"budget-feasible at B={ref}: {f['all']['feasible']} of {f['all']['n']} queries in "
                         f"{us} units ({sent['feasible']} by the minimal sentences)")
    if oracle and oracle in doc["systems"]:
        f = doc["systems"][oracle].get("failure_on_feasible")
        if f:
            ok = f["rate"] <= 0.05
            lines.append(f"control: the oracle (cheapest cover by {f['feasible_in']}) fails {100 * f['rate']:.1f}% "
                         f"of {f['n']} feasible queries at B={ref}: "
                         + ("the pipeline can score sufficiency (<= 5%)" if ok else
                            "the failure-rate rule is NOT decidable here (oracle > 5%)"))
    perfect = doc.get("perfect")
    if perfect and perfect in doc["systems"]:
        e = doc["systems"][perfect]
        f, fl = e.get("failure_on_feasible"), e.get("failures") or {}
        if f:
            ok = f["rate"] <= 0.05
            split = (f" (retrieval {fl['retrieval']}, selection {fl['selection']}, delivery {fl['delivery']} misses)"
                     if fl else "")
            lines.append(f"reference: the perfect retriever's document ranking (every relevant document first, "
                         f"the harness's passage choice) fails {100 * f['rate']:.1f}% of {f['n']} feasible queries "
                         f"at B={ref}{split}: the ceiling of a document ranking under this delivery"
                         + (" (<= 5%)" if ok else "; it gates nothing"))
    controls = {n for n, e in doc["systems"].items() if e.get("control")}
    for name, e in doc["systems"].items():
        f = e.get("failure_on_feasible")
        if f and e.get("control") in ("passage", "passage-degraded"):
            ok = f["rate"] <= 0.05
            what = ("control: the passage-level perfect retriever" if e["control"] == "passage" else
                    "control: the degraded passage control")
            verdict = (("the harness lets a retriever that hands it the right passages pass (<= 5%)" if ok else
                        "a harness defect: units, selection or the judge fail the right passages (> 5%)")
                       if e["control"] == "passage" else
                       ("it fails as it must: the gate can fail" if f["rate"] >= 0.4 else
                        "it should fail >= 40%: the gate could not fail"))
            lines.append(f"{what} ({name}, in {f['feasible_in']}) fails {100 * f['rate']:.1f}% of {f['n']} "
                         f"feasible queries at B={ref}: {verdict}")
        if f and name not in controls:
            lines.append(f"{name}: fails {100 * f['rate']:.1f}% of budget-feasible queries at B={ref} "
                         f"({f['band']}; design: <=20% acceptable, >30% kill; n={f['n']}, feasible in "
                         f"{f.get('feasible_in', 'sentences')}; delivers {e.get('delivers', 'documents')}, "
                         f"{e.get('selection', doc.get('selection'))})")
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
            ci = t.get("ratio_ci")
            band = "" if not ci else (" [95% CI " + ", ".join("never" if v is None else f"{v:.2f}" for v in ci)
                                      + "]")
            lines.append(f"{doc['baseline']} needs B={t['budget']} to match {name}'s sufficiency at B={ref} "
                         f"(token-efficiency ratio {t['ratio']:.2f}{band})")
    return lines
