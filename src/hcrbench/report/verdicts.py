"""Terminal rendering of ``verdicts.json``: the checkpoint and hypothesis table (with n and interval), the
protocol controls table, then the test that decided and the plain-words bottom line.

Used by ``hcrbench quickstart`` and by ``hcrbench run`` when the config has a ``[protocol]`` table; the HTML /
Markdown / LaTeX report renders the same document (``hcrbench.report.document``).
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from hcrbench.protocol.rules import pct
from hcrbench.protocol.words import CONTROLS_CAPTION, control_name, plain, rule_name
from hcrbench.report.terminal import Table

STYLE = {"go": "green", "pass": "green", "soft no-go": "yellow", "inconclusive": "yellow", "no-go": "red",
         "kill": "bold red", "invalidated": "bold red", "not decidable": "yellow", "not run": "dim"}


def _times(n: Any) -> str:
    return f"{n} time" if n == 1 else f"{n} times"


def style_of(word: str) -> str:
    return "bold red" if word.startswith("stop and diagnose") else STYLE.get(word, "")


def _word(word: str) -> str:
    s = style_of(word)
    return f"[{s}]{escape(word)}[/]" if s else escape(word)


def _value(x: Any) -> str:
    if x is None:
        return "—"
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def interval_text(row: dict[str, Any]) -> str:
    iv = row.get("interval")
    return "—" if not iv else f"[{iv[0]:+.3f}, {iv[1]:+.3f}]"


def verdict_table(v: dict[str, Any]) -> Table:
    """One row per checkpoint (in the design's order) and per hypothesis: criterion, verdict, n, the interval (at
    ``confidence``, 95% by default), evidence in words."""
    seeds = v.get("seeds") or []
    agg = v.get("seed_aggregate")
    extra = f"; {v['system']} {v['metric']} {agg['mean']:.3f} ± {agg['sd']:.3f} over seeds {seeds}" \
        if agg and agg.get("sd") is not None else ""
    t = Table(title=escape(f"Protocol: {v['system']} vs {v['kill_baseline']} (kill baseline) — {v['family']}{extra}"),
              title_justify="left", show_lines=False)
    level = f"{pct(float(v.get('confidence') or 0.95))} interval"  # the level the rules judged at
    for col in ("step", "criterion", "verdict", "n", level, "what the numbers say"):
        t.add_column(col, justify="right" if col == "n" else "left", overflow="fold")
    for i, c in enumerate(v.get("checkpoints", []), start=1):
        t.add_row(f"{i}. {escape(c['name'])}", escape(c["criterion"]), _word(c["status"]), _value(c.get("n")),
                  interval_text(c), escape(plain(c["text"])))
    for h in v.get("hypotheses", []):
        label = h["id"] if h["id"].startswith("H") else h["name"]
        t.add_row(escape(label), escape(h["criterion"]), _word(h["verdict"]), _value(h.get("n")), interval_text(h),
                  escape(plain(h["text"])))
    return t


def controls_table(v: dict[str, Any]) -> Table | None:
    """The protocol controls: each (control, rule) with the verdict expected and the one it got."""
    rows = v.get("controls") or []
    if not rows:
        return None
    t = Table(title=f"Protocol controls: {CONTROLS_CAPTION}", title_justify="left")
    for col in ("control", "rule", "expected", "got", "ok"):
        t.add_column(col, overflow="fold")
    for c in rows:
        t.add_row(escape(control_name(c["control"])), escape(rule_name(c["rule"])), escape(c["expected"]), _word(c["got"]),
                  "[green]yes[/]" if c["ok"] else "[bold red]NO: rule not decidable here[/]")
    return t


def _kill_kind(v: dict[str, Any]) -> str | None:
    from hcrbench.protocol.verdicts import architecture_row

    return (architecture_row(v.get("hypotheses") or []) or {}).get("interval_kind")


def decided_by_line(v: dict[str, Any]) -> str | None:
    """Which test decided the kill criterion, in the numbers the systems list shows."""
    d = v.get("decided_by") or {}
    if d.get("delta") is None:
        return None
    from hcrbench.report.verdict_block import interval_label

    ci = d.get("ci")  # the kill row's own interval: its level (a sequential look's) and kind, never "95%" by default
    citxt = f", {interval_label(v, d.get('level'), ci, d.get('interval_kind') or _kill_kind(v))}" if ci else ""
    # no p here: the kill row gives the one p of this comparison (kill-test p, its own family)
    return (f"kill criterion tested on: {d.get('test')}: delta {d['delta']:+.3f}{citxt}, n {d.get('n')} "
            f"(family: {d.get('family')}; its p is the kill row's)")


def print_protocol(console: Any, v: dict[str, Any]) -> None:
    """The verdict table, the controls, then the bottom line in bold with the overall verdict coloured."""
    console.print(verdict_table(v))
    ct = controls_table(v)
    if ct is not None:
        console.print(ct)
    if v.get("stopped"):
        console.print(f"[red]stopped early (--fail-fast):[/] {escape(v['stopped'])}")
    line = decided_by_line(v)
    if line:
        console.print(escape(line))
    if v.get("depth_note"):
        console.print(f"[yellow]depth:[/] {escape(v['depth_note'])}")
    d = v.get("discipline") or {}
    if d:
        console.print(escape(f"test discipline: split {d.get('split')!r} "
                             f"{'locked' if d.get('locked') else 'not locked'}, scored {_times(d.get('times_scored'))} "
                             f"{'(this run included)' if d.get('locked') else '(scorings of locked splits are counted)'}"
                             f"; tuning: {(v.get('tuning') or {}).get('text') or d.get('tuning')}"))
    dev = v.get("dev_selection") or {}
    if dev.get("text"):
        console.print(escape(f"dev selection: {dev['text']}"))
    from hcrbench.report.verdict_block import word as block_word

    style = style_of(v["overall"])
    said = block_word(v["overall"]).upper()  # the verdict block's vocabulary (verdicts.json keeps its own word)
    word = f"[{style}]{escape(said)}[/]" if style else escape(said)
    console.print(f"[bold]bottom line:[/bold] {word} — {escape(plain(v['bottom_line']))}")
    from hcrbench.report.look_stop import stop_lines

    for text in stop_lines(v):  # the looks stopped with rules undecided: what stopped them and how to go on
        console.print(f"[yellow]{escape(text)}[/]")
