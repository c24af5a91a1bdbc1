"""Terminal rendering of ``verdicts.json``: the checkpoint and hypothesis table, then the plain-words bottom line.

Used by ``hcrbench quickstart`` and by ``hcrbench run`` when the config has a ``[protocol]`` table; the HTML /
Markdown / LaTeX report renders the same document (``hcrbench.report.document``).
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from hcrbench.report.terminal import Table

STYLE = {"go": "green", "pass": "green", "soft no-go": "yellow", "inconclusive": "yellow", "no-go": "red",
         "kill": "bold red", "not run": "dim"}


def _value(x: Any) -> str:
    if x is None:
        return "—"
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def verdict_table(v: dict[str, Any]) -> Table:
    """One row per checkpoint (in the design's order) and per hypothesis: criterion, verdict, evidence in words."""
    seeds = v.get("seeds") or []
    agg = v.get("seed_aggregate")
    extra = f"; {v['system']} {v['metric']} {agg['mean']:.3f} ± {agg['sd']:.3f} over seeds {seeds}" \
        if agg and agg.get("sd") is not None else ""
    t = Table(title=escape(f"Protocol: {v['system']} vs {v['kill_baseline']} (kill baseline) — {v['family']}{extra}"),
              title_justify="left", show_lines=False)
    for col in ("step", "criterion", "verdict", "what the numbers say"):
        t.add_column(col, justify="left", overflow="fold")
    for i, c in enumerate(v.get("checkpoints", []), start=1):
        st = c["status"]
        t.add_row(escape(f"{i}. {c['name']}"), escape(c["criterion"]), f"[{STYLE.get(st, '')}]{st}[/]",
                  escape(c["text"]))
    for h in v.get("hypotheses", []):
        vd = h["verdict"]
        label = h["id"] if h["id"].startswith("H") else h["name"]
        t.add_row(escape(label), escape(h["criterion"]), f"[{STYLE.get(vd, '')}]{vd}[/]", escape(h["text"]))
    return t


def print_protocol(console: Any, v: dict[str, Any]) -> None:
    """The verdict table, then the bottom line in bold with the overall verdict coloured."""
    console.print(verdict_table(v))
    if v.get("stopped"):
        console.print(f"[red]stopped early (--fail-fast):[/] {escape(str(v['stopped']))}")
    d = v.get("discipline") or {}
    if d:
        console.print(f"test discipline: split {d.get('split')!r} "
                      f"{'locked' if d.get('locked') else 'not locked'}, scored {d.get('times_scored')} time(s) "
                      f"{'(this run included)' if d.get('locked') else '(scorings of locked splits are counted)'}; "
                      f"tuning: {d.get('tuning')}")
    style = STYLE.get(v["overall"], "")
    console.print(f"[bold]bottom line:[/bold] [{style}]{escape(v['bottom_line'])}[/]")
