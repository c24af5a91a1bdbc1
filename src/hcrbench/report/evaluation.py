"""Terminal rendering of an evaluation: means, comparisons against a baseline, the denominator ledger."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape

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


def comparisons_table(comparisons: Sequence[Any], confidence: float = 0.95, alpha: float = 0.05) -> Table:
    """Delta, bootstrap CI, permutation p, Holm p, Cohen's d and helped/hurt/tied per (run, metric); a bold delta
    is significant by the comparisons' own test and correction at ``alpha`` (a ``p (decides)`` column and the
    caption name them when they are not the default Holm-adjusted permutation p)."""
    pct = round(confidence * 100)
    baselines = sorted({c.baseline for c in comparisons})
    methods = ", ".join(dict.fromkeys(getattr(c, "ci_method", "percentile") for c in comparisons))
    fam = getattr(comparisons[0], "family", "all") if comparisons else "all"
    holm_over = {"run": "each run's metrics", "metric": "every run, per metric"}.get(fam, "all rows")
    if len(baselines) > 1 and fam == "run":
        holm_over = "each pair's metrics"
    against = f"baseline {escape(baselines[0])}" if len(baselines) == 1 else "each other (all pairs)"
    first = comparisons[0] if comparisons else None
    chosen = (getattr(first, "test", "permutation"), getattr(first, "correction", "holm")) if first else None
    custom = chosen is not None and chosen != ("permutation", "holm")
    decides = f"; bold: {first.legend(alpha)}" if custom else (f"; bold: p (Holm) < {alpha:g}" if first else "")
    table = Table(title=f"Against {against} ({pct}% CI of the delta: {methods}; paired "
                        f"permutation test; Holm family: {holm_over}, size m{decides})", title_justify="left")
    pairs = len(baselines) > 1
    tukey = any(getattr(c, "p_tukey", None) is not None for c in comparisons)
    cols = [("run", "left")] + ([("vs", "left")] if pairs else []) + [
        ("metric", "left"), ("delta", "right"), (f"{pct}% CI", "right"), ("p", "right"), ("p (Holm)", "right")]
    cols += ([("p (Tukey)", "right")] if tukey else []) + ([("p (decides)", "right")] if custom else [])
    cols += [("d", "right"), ("helped/hurt/tied", "right")]
    for col, justify in cols:
        table.add_column(col, justify=justify)
    for c in comparisons:
        sig = c.significant(alpha) if hasattr(c, "significant") else (
            c.p_holm is not None and not math.isnan(c.p_holm) and c.p_holm < alpha)
        delta = f"{c.delta:+.4f}"
        cells = [escape(c.run)] + ([escape(c.baseline)] if pairs else []) + [
            escape(c.metric), f"[bold]{delta}[/bold]" if sig else delta, f"[{_fmt(c.ci_low)}, {_fmt(c.ci_high)}]",
            _fmt_p(c.p), f"{_fmt_p(c.p_holm)} (m={getattr(c, 'family_size', 0) or len(comparisons)})"]
        cells += ([_fmt_p(getattr(c, "p_tukey", None))] if tukey else []) + (
            [_fmt_p(c.p_adj)] if custom else []) + [
            _fmt(c.cohens_d, 2), f"{c.helped}/{c.hurt}/{c.tied}"]
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
                     letters_note: str | None = None, alpha: float = 0.05) -> None:
    if console is None:

        # Piped output (CI logs, files) gets a wide fixed width instead of rich's 80 columns.
        console = Console(width=width())
    if per_query:
        console.print(per_query_table(evaluation))
    console.print(means_table(evaluation, letters=letters))
    if letters_note:
        console.print(f"[dim]{letters_note}[/dim]", highlight=False)
    if comparisons:
        console.print(comparisons_table(comparisons, alpha=alpha))
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
