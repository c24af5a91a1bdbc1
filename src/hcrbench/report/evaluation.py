"""Terminal rendering of an evaluation: means, comparisons against a baseline, the denominator ledger."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape

from hcrbench.report.legend import p_header
from hcrbench.report.terminal import Table, width


def _fmt(x: float | None, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def _fmt_p(p: float | None) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "—"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def means_table(evaluation: Any, title: str = "Means", letters: dict[tuple[str, str], str] | None = None) -> Table:
    """One row per run, one column per metric, plus the number of queries averaged.

    ``letters`` (``{(run, metric): superscripts}``, from ``stats.significance_letters``) adds ranx's letter column
    and marks each mean with the letters of the runs it significantly beats."""
    table = Table(title=title, title_justify="left")
    if letters is not None:
        from hcrbench.stats.letters import letter

        table.add_column("#", style="dim")
    table.add_column("run", style="bold")
    for m in evaluation.metrics:
        table.add_column(m, justify="right")
    table.add_column("queries", justify="right", style="dim")
    for i, (name, ev) in enumerate(evaluation.runs.items()):
        cells = [_fmt(ev.means[m]) + (letters or {}).get((name, m), "") for m in evaluation.metrics]
        lead = [letter(i)] if letters is not None else []
        table.add_row(*lead, escape(name), *cells, str(len(ev.query_ids)))
    return table


#: The p a table can show (one per table): comparison field -> (header's method, what the caption says).
P_SHOWN = {"p_holm": ("Holm", "paired permutation test, Holm-adjusted"),
           "p_tukey": ("Tukey HSD", "Tukey's HSD over every run on the metric"),
           "t_p": ("t-test, unadjusted", "paired t-test, not adjusted for multiple comparisons")}


def _num(x: Any) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def shown_p(c: Any, field: str) -> float | None:
    """The one p of a comparison row a table shows: ``field`` (``p_adj`` falls back to the Holm p)."""
    if field == "p_adj":
        return _num(c.p_adj) if _num(getattr(c, "p_adj", None)) is not None else _num(c.p_holm)
    return _num(getattr(c, field, None))


def comparisons_table(comparisons: Sequence[Any], confidence: float = 0.95, alpha: float = 0.05,
                      p_field: str | None = None) -> Table:
    """Delta, bootstrap CI, one p, Cohen's d and helped/hurt/tied per (run, metric).

    One test per table: the p shown is the one that decides the bold deltas (and, with ``--all-pairs``, the
    letters of the means table): ``p_field`` when given (``p_holm``, ``p_tukey``, ``t_p``, ``p_adj``), else the
    comparisons' own deciding p (the Holm-adjusted permutation p by default; ``p_adj`` after ``--test`` /
    ``--correction``). Its column header names the family (``p (Holm, 15 comparisons)``); the caption names the
    test and the family, and says where the other p values are (``--json``)."""
    pct = round(confidence * 100)
    baselines = sorted({c.baseline for c in comparisons})
    methods = ", ".join(dict.fromkeys(getattr(c, "ci_method", "percentile") for c in comparisons))
    fam = getattr(comparisons[0], "family", "all") if comparisons else "all"
    holm_over = {"run": "each run's metrics", "metric": "every run, per metric"}.get(fam, "all rows")
    pairs = len(baselines) > 1
    if pairs and fam == "run":
        holm_over = "each pair's metrics"
    against = f"baseline {escape(baselines[0])}" if len(baselines) == 1 else "each other (all pairs)"
    first = comparisons[0] if comparisons else None
    chosen = (getattr(first, "test", "permutation"), getattr(first, "correction", "holm")) if first else None
    custom = chosen is not None and chosen != ("permutation", "holm")
    field = p_field or ("p_adj" if custom else "p_holm")
    sizes = [getattr(c, "family_size", 0) or len(comparisons) for c in comparisons]
    if field == "p_adj" and first is not None:
        from hcrbench.stats.multiple import LABELS

        method = LABELS.get(first.correction, first.correction)
        header = p_header(sizes, method) if first.correction != "none" else (
            "p (Tukey HSD)" if first.test == "tukey" else "p (unadjusted)")
        test_text = first.legend(alpha).rsplit(", p < ", 1)[0]
        fam_text = "" if first.correction == "none" else f"; family: {holm_over}"
    elif field == "p_tukey":
        header, test_text, fam_text = "p (Tukey HSD)", P_SHOWN[field][1], ""
    elif field == "t_p":
        header, test_text, fam_text = "p (t-test, unadjusted)", P_SHOWN[field][1], ""
    else:
        header, test_text = p_header(sizes, "Holm"), P_SHOWN["p_holm"][1]
        if pairs and fam == "run" and len(set(sizes)) == 1:
            header = f"p (Holm, {sizes[0]} per pair)"
        fam_text = f"; Holm family: {holm_over}"
        one = sorted(set(sizes)) == [1]
        if one and pairs:
            fam_text += " (a family of 1 per pair: not corrected across pairs; --family metric or all is)"
    cmp = "<=" if p_field else "<"  # with letters: the letters' rule (stats.letters: p <= alpha)
    sim = any(getattr(c, "simultaneous", False) for c in comparisons)
    note = (f"{pct}% CI: per comparison, not adjusted for multiple comparisons"
            + (f"; simultaneous {pct}% CI: every comparison of a family at once (Bonferroni's level "
               f"1 - {1 - confidence:g}/m, m = the family's size)" if sim else ""))
    table = Table(title=f"Against {against} ({pct}% CI of the delta: {methods}; one test per table: {test_text}"
                        f"{fam_text}; bold: p {cmp} {alpha:g}; every p of every test in --json)", title_justify="left",
                  caption=note, caption_justify="left")
    cols = [("run", "left")] + ([("vs", "left")] if pairs else []) + [
        ("metric", "left"), ("delta", "right"), (f"{pct}% CI (unadjusted)", "right")] + (
        [(f"simultaneous {pct}% CI", "right")] if sim else []) + [(header, "right"),
                                                                  ("d", "right"), ("helped/hurt/tied", "right")]
    for col, justify in cols:
        table.add_column(escape(col), justify=justify)
    per_row_m = "m=)" in header
    for c, m in zip(comparisons, sizes):
        p = shown_p(c, field)
        sig = p is not None and (p <= alpha if p_field else p < alpha)
        delta = f"{c.delta:+.4f}"
        cells = [escape(c.run)] + ([escape(c.baseline)] if pairs else []) + [
            escape(c.metric), f"[bold]{delta}[/bold]" if sig else delta, f"[{_fmt(c.ci_low)}, {_fmt(c.ci_high)}]"] + (
            [f"[{_fmt(c.sim_low)}, {_fmt(c.sim_high)}]"] if sim else []) + [
            _fmt_p(p) + (f" (m={m})" if per_row_m else ""), _fmt(c.cohens_d, 2), f"{c.helped}/{c.hurt}/{c.tied}"]
        table.add_row(*cells)
    return table


def ledger_lines(evaluation: Any) -> list[str]:
    """One line per run saying exactly which queries the means are over."""
    lines = []
    for name, ev in evaluation.runs.items():
        d = ev.ledger.to_dict()
        parts = [f"averaged over {d.get('n_queries_averaged', len(ev.query_ids))} queries"]
        for key, label in (("zero_filled", "zero-filled (in qrels, missing from run)"),
                           ("ignored", "ignored (in run, not in qrels)"),
                           ("no_relevant", "with no relevant docs")):
            v = d.get(key)
            n = len(v) if isinstance(v, (list, tuple)) else v
            if n:
                parts.append(f"{n} {label}")
        unj = d.get("unjudged_at_k") or {}
        for k, v in unj.items():
            total = v.get("total") if isinstance(v, dict) else v
            if total:
                parts.append(f"{total} unjudged docs in top {k}")
        lines.append(f"{name}: " + "; ".join(parts))
    return lines


def per_query_table(evaluation: Any) -> Table:
    """Per-query values: one row per (query), one column per (run, metric)."""
    table = Table(title="Per query", title_justify="left")
    table.add_column("query", style="bold")
    names = list(evaluation.runs)
    for name in names:
        for m in evaluation.metrics:
            table.add_column(escape(f"{name}\n{m}" if len(names) > 1 else m), justify="right")
    qids: list[str] = []
    seen: set[str] = set()
    for ev in evaluation.runs.values():
        for q in ev.query_ids:
            if q not in seen:
                seen.add(q)
                qids.append(q)
    for q in qids:
        row = [escape(q)]
        for name in names:
            pq = evaluation.runs[name].per_query
            row.extend(_fmt(pq[m].get(q)) for m in evaluation.metrics)
        table.add_row(*row)
    return table


def print_evaluation(evaluation: Any, comparisons: Sequence[Any], *, per_query: bool = False,
                     console: Console | None = None, letters: dict[tuple[str, str], str] | None = None,
                     letters_note: str | None = None, alpha: float = 0.05, p_field: str | None = None) -> None:
    """Means (with ``letters``), the comparisons (one p per row: ``p_field``, the test that decides the letters
    and the bold deltas; see :func:`comparisons_table`) and the ledger."""
    if console is None:

        # Piped output (CI logs, files) gets a wide fixed width instead of rich's 80 columns.
        console = Console(width=width())
    if per_query:
        console.print(per_query_table(evaluation))
    console.print(means_table(evaluation, letters=letters))
    if letters_note:
        console.print(f"[dim]{letters_note}[/dim]", highlight=False)
    if comparisons:
        console.print(comparisons_table(comparisons, alpha=alpha, p_field=p_field))
    console.print("[dim]Ledger[/dim]")
    for line in ledger_lines(evaluation):
        console.print(f"  [dim]{escape(line)}[/dim]", highlight=False)


def strata_table(frame: Any, metric: str, field: str) -> Table:
    """Mean ``metric`` per value of query metadata ``field`` (rows) and run (columns), with query counts.

    ``frame`` is the long per-query table (columns ``run``, ``query_id``, metrics, metadata fields).
    """
    pivot = frame.pivot_table(index=field, columns="run", values=metric, aggfunc="mean", sort=True)
    counts = frame.drop_duplicates("query_id").groupby(field).size()
    runs = list(dict.fromkeys(frame["run"]))
    table = Table(title=f"{metric} by {field}", title_justify="left")
    table.add_column(field, style="bold")
    table.add_column("queries", justify="right", style="dim")
    for r in runs:
        table.add_column(escape(str(r)), justify="right")
    for value in pivot.index:
        row = pivot.loc[value]
        best = max(row[r] for r in runs)
        cells = [f"[bold]{row[r]:.4f}[/bold]" if row[r] == best else f"{row[r]:.4f}" for r in runs]
        table.add_row(escape(str(value)), str(int(counts.get(value, 0))), *cells)
    return table
