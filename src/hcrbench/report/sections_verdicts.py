"""The report's verdict section (from verdicts.json): the verdict block's headline, the facts of the run, the
interval that decided the kill criterion (its level and kind), the checkpoints, hypotheses, controls and cost."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol.words import CONTROLS_CAPTION, control_name, plain, rule_name
from hcrbench.report.model import Cell, Para, Section, Table, Verdict, not_run, tone_of_verdict
from hcrbench.report.sections import Context, f3, settings_words


def headline(v: dict[str, Any], folder: str | None = None) -> tuple[str, list[str]]:
    """The verdict in one sentence and the short lines under it: the console's verdict block
    (:mod:`hcrbench.report.verdict_block`, counts only: a report holds no wall-clock time) without its pointers
    to files."""
    from hcrbench.report.verdict_block import block_lines

    lines = [t for _, t in block_lines(v, folder=folder)]  # folder: the one a command to go on names
    head, bottom = lines[0], lines[1]
    short = bottom.removeprefix("bottom line: ").split(" ", 1)[-1]  # "for hcr: ..." (the word is the badge's)
    if short == f"for {v.get('system') or '?'}":
        short = head.removeprefix("verdict ")
    from hcrbench.report.verdict_block import WORDS

    items = []
    for t in lines[2:]:
        if t.startswith(("report:", "full tables:")) or " more undecided" in t:
            continue
        w = next((w for w in WORDS if t.startswith(f"  {w} ")), None)  # a rule line: "  no-go      dual path"
        items.append(f"{w}: {t[len(w) + 2:].strip()}" if w else t)
    return short, items


def verdicts_section(ctx: Context) -> Section:
    v = ctx.inp.verdicts
    title = "Verdict"
    if v is None:
        return not_run("verdicts", title, "verdicts.json is absent: the protocol's checkpoints and hypothesis "
                                          "verdicts were not run (hcrbench quickstart runs them).")
    short, items = headline(v, str(ctx.inp.folder))
    from hcrbench.report.verdict_block import word

    blocks: list[Any] = [Verdict(word(v["overall"]), plain(v["bottom_line"]), tone_of_verdict(v["overall"]), items,
                                 short)]
    facts = []
    if v.get("system"):
        facts.append(f"system under test: {v['system']}")
    if v.get("kill_baseline"):
        facts.append(f"kill baseline: {v['kill_baseline']}")
    if v.get("metric"):
        facts.append(f"metric: {v['metric']}")
    if v.get("seeds"):
        facts.append(f"seeds: {', '.join(str(s) for s in v['seeds'])}")
    if v.get("family"):
        facts.append(f"multiple testing: {v['family']}")
    if facts:
        blocks.append(Para("; ".join(facts) + ".", kind="note"))
    from hcrbench.report.verdicts import decided_by_line, interval_text

    line = decided_by_line(v)
    if line:
        blocks.append(Para(line + ".", kind="note"))
    cps = v.get("checkpoints") or []
    if cps:
        lvl = level_text(v)
        rows = [[Cell(str(c.get("name", c.get("id", "")))), Cell(str(c.get("criterion", ""))),
                 Cell(f3(c.get("value")), num=True), Cell(f3(c.get("threshold")), num=True),
                 Cell(str(c.get("n") if c.get("n") is not None else "—"), num=True), Cell(interval_text(c)),
                 Cell(str(c["status"]), tone=tone_of_verdict(c["status"]), bold=True),
                 Cell(plain(str(c.get("text", ""))))]
                for c in cps]
        how = (f"the run stopped here: {v['stopped']}" if v.get("stopped")
               else "every checkpoint was evaluated; with --fail-fast the first stop would end the run")
        blocks.append(Table("checkpoints", f"Fail-fast checkpoints, in order ({how}; one whose whole {lvl} "
                            "interval lies past its threshold says stop and diagnose)",
                            ["checkpoint", "criterion", "value", "threshold", "n", f"{lvl} interval", "status",
                             "in plain words"], rows))
    hyps = v.get("hypotheses") or []
    if hyps:
        lvl = level_text(v)
        rows = []
        for h in hyps:
            # one p per row: the text's, with its family (the evidence's raw fields stay in verdicts.json)
            hid = str(h.get("id", ""))  # the design's label (H1a, ...); the other rules have only their name
            rows.append([Cell(hid if hid[:1] == "H" else "—"), Cell(str(h.get("name", ""))),
                         Cell(str(h.get("criterion", ""))),
                         Cell(str(h["verdict"]), tone=tone_of_verdict(h["verdict"]), bold=True),
                         Cell(str(h.get("n") if h.get("n") is not None else "—"), num=True), Cell(interval_text(h)),
                         Cell(plain(str(h.get("text", ""))))])
        blocks.append(Table("hypotheses", "Hypothesis verdicts (design criteria; every figure behind them is in "
                            "verdicts.json)", ["id", "hypothesis", "criterion", "verdict", "n", f"{lvl} interval",
                                               "in plain words"], rows))
    ctl = v.get("controls") or []
    if ctl:
        rows = [[Cell(control_name(str(c["control"]))), Cell(rule_name(str(c["rule"]))), Cell(str(c["expected"])),
                 Cell(str(c["got"]), tone=tone_of_verdict(str(c["got"]))),
                 Cell("yes" if c["ok"] else "NO: shown beside the rule's row (not used to void it)",
                      tone="good" if c["ok"] else "bad", bold=not c["ok"])] for c in ctl]
        blocks.append(Table("protocol-controls", f"Protocol controls: {CONTROLS_CAPTION}",
                            ["control", "rule", "expected", "got", "ok"], rows))
    cost = ((ctx.inp.eval or {}).get("cost")) or {}
    if cost:  # counts only: a report holds no wall-clock time (docs/reliability.md; the console shows ms / query)
        cols = ("chunks_scored", "nodes_scored", "reranker_calls", "context_tokens", "depth")
        from hcrbench.retrieve import traits

        external = {n for n in cost if traits(ctx.system_type(n)).stage == "replay"}  # cost spent elsewhere
        rows = [[Cell(n + (" (run file: cost unknown)" if n in external else ""),
                      bold=n in (v.get("system"), v.get("kill_baseline")))]
                + [Cell("—" if c.get(k) is None or n in external else f"{c[k]:,.1f}", num=True) for k in cols]
                for n, c in cost.items()]
        blocks.append(Table("cost", "Cost per query beside quality (eval.json cost: counts, the same on every "
                            "machine; wall-clock ms per query are in the console and manifest.json)",
                            ["system", "chunks scored", "nodes scored", "reranker calls", "context tokens @ref",
                             "depth (docs returned)"], rows))
    for key in ("cost_line", "depth_note"):
        if v.get(key):
            blocks.append(Para(plain(str(v[key])) + ".", kind="note"))
    tun = v.get("tuning") or {}
    if tun.get("text"):
        blocks.append(Para(f"Tuning: {settings_words(tun['text'])}.", kind="note"))
    dev = v.get("dev_selection") or {}
    if dev.get("text"):
        blocks.append(Para(f"Dev selection: {settings_words(dev['text'])}.", kind="note"))
    return Section("verdicts", title, blocks)


def level_text(v: dict) -> str:
    """The level the rows' intervals are at: a sequential look's (``sequential.level``), the config's
    ``confidence``, else the design's 95%."""
    from hcrbench.protocol.rules import pct

    seq = v.get("sequential") or {}
    level = seq.get("level") if isinstance(seq.get("level"), (int, float)) else v.get("confidence")
    return pct(float(level)) if isinstance(level, (int, float)) else "95%"
