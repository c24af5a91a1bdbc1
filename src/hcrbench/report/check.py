"""Terminal table of ``hcrbench check``: per system the baseline, now, delta, p of the drop, gate and status."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from hcrbench.report.evaluation import _fmt, _fmt_p
from hcrbench.report.terminal import Table


def _signed(x: float | None) -> str:
    return "—" if x is None else f"{x:+.4f}"


def check_table(result: Any) -> Table:
    """One row per system of a :class:`~hcrbench.experiment.check.CheckResult`."""
    title = (f"Regression check on {result.metric} ({result.suite} suite, {result.n_queries} queries; "
             f"fails on a drop > {result.max_drop:g})")
    table = Table(title=title, title_justify="left")
    table.add_column("system", style="bold")
    for col in ("baseline", "now", "delta", "p (drop)", "queries"):
        table.add_column(col, justify="right")
    table.add_column("gate", justify="left")
    table.add_column("status", justify="left")
    for r in result.systems:
        gate = "—" if r.gate_before is None and r.gate_now is None else f"{r.gate_before or '—'} -> {r.gate_now or '—'}"
        status = {"ok": "[green]ok[/]", "new": "[dim]new[/]"}.get(r.status, "[red]FAIL[/]")
        if r.status == "FAIL" and r.reasons:
            status += escape(f" ({'; '.join(r.reasons)})")
        table.add_row(escape(r.system), _fmt(r.baseline), _fmt(r.now), _signed(r.delta), _fmt_p(r.p_drop),
                      str(r.n_paired) if r.n_paired else "—", gate, status)
    return table
