"""The report's HCR tables in the terminal: what ``hcrbench run`` prints after the scores of an experiment with
tree systems (per-level routing error, tree quality, the ablation table) and the bottom line it ends with.

The tables are the report's own records (:mod:`hcrbench.report.sections_hcr`), rendered with rich, so the terminal,
HTML, Markdown and LaTeX cannot disagree.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from hcrbench.report.model import Section, Table
from hcrbench.report.terminal import Table as RichTable

if TYPE_CHECKING:
    from hcrbench.report.document import ReportResult
    from hcrbench.report.sections import Context

_STYLE = {"good": "green", "bad": "red", "warn": "yellow", "muted": "dim", "info": "cyan"}


def rich_table(t: Table) -> RichTable:
    """A report :class:`~hcrbench.report.model.Table` as a rich table (tones become colours)."""
    numeric = [bool(t.rows) and all(r[i].num for r in t.rows if i < len(r)) for i in range(len(t.columns))]
    out = RichTable(title=t.caption, title_justify="left", caption=t.notes or None, caption_justify="left")
    for col, num in zip(t.columns, numeric, strict=True):
        out.add_column(col, justify="right" if num else "left")
    for row in t.rows:
        cells = []
        for c in row:
            style = _STYLE.get(c.tone or "", "")
            if c.bold:
                style = f"bold {style}".strip()
            cells.append(f"[{style}]{escape(c.text)}[/]" if style else escape(c.text))
        out.add_row(*cells)
    return out


def _print_section(console: Console, section: Section) -> None:
    for block in section.blocks:
        if isinstance(block, Table):
            console.print(rich_table(block))


def print_tree_tables(console: Console, folder: str | Path, report: ReportResult | None = None) -> str:
    """Print the routing, tree-quality and ablation tables of an experiment folder (those that exist) and return
    its bottom line (the protocol's verdict when there is one, else the system under test vs the baseline).

    With ``report`` (what :func:`~hcrbench.report.document.make_report` just returned for the folder) its own
    sections are printed: nothing is read or computed again."""
    from hcrbench.report.document import bottom_line
    from hcrbench.report.inputs import load_inputs
    from hcrbench.report.sections import make_context
    from hcrbench.report.sections_hcr import ablation_section, routing_section

    if report is not None and report.context is not None:
        ctx, sections = report.context, [s for s in report.sections if s.key in ("routing", "ablations")]
    else:
        ctx = make_context(load_inputs(folder))
        sections = [routing_section(ctx), ablation_section(ctx)]
    for section in sections:
        if section.ran:
            _print_section(console, section)
    if ctx.inp.verdicts is not None or ctx.inp.eval is None:
        return bottom_line(ctx)
    return run_bottom_line(ctx)


def run_bottom_line(ctx: Context) -> str:
    """Who is best on the main metric and whether that beats the baseline significantly; then the system under
    test against the baseline when it is another system."""
    from hcrbench.report.sections import plain_comparison

    runs = (ctx.inp.eval or {}).get("runs") or {}
    means = {s: (runs[s].get("means") or {}).get(ctx.metric) for s in ctx.systems if s in runs}
    means = {s: m for s, m in means.items() if isinstance(m, (int, float))}
    if not means:
        return "no scores in this folder (eval.json has no means)"
    best = max(means, key=lambda s: (means[s], s == ctx.baseline))
    if best == ctx.baseline or ctx.comparison(best) is None:
        others = [c for c in ctx.comparisons if c.get("metric") == ctx.metric]
        near = max(others, key=lambda c: c.get("delta") or -1e9, default=None)
        parts = [f"{best} is best on {ctx.metric} ({means[best]:.3f})"]
        if near is not None:
            parts.append(f"closest: {plain_comparison(near)}")
    else:
        parts = [f"{best} is best on {ctx.metric} ({means[best]:.3f}): {plain_comparison(ctx.comparison(best))}"]
    main = ctx.comparison(ctx.main) if ctx.main and ctx.main not in (best, ctx.baseline) else None
    if main is not None:
        parts.append(f"system under test: {plain_comparison(main)}")
    return "; ".join(parts)
