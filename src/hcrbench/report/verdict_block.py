"""The verdict block: what a console run ends with, at most 15 lines a person can act on.

It names the system under test, gives every rule's verdict in one vocabulary (:data:`WORDS`), the subject
against the best simple system of the field (interval and cost ratio), what would decide the undecided rules,
and the report's path. It reads ``verdicts.json`` (and the manifest for wall-clock time); the full tables are in
``OUT/console.txt``, the report, or on screen with ``--verbose``.
"""

from __future__ import annotations

import re
from typing import Any

from hcrbench.protocol.row import Row
from hcrbench.protocol.rules import pct
from hcrbench.protocol.verdict import Verdict
from hcrbench.protocol.words import plain, rule_name, signed_diff

#: The one vocabulary of the block, worst first: every checkpoint status and hypothesis verdict maps to one.
WORDS = ("kill", "stop", "no-go", "soft no-go", "go", "undecided", "not run")
MAX_LINES = 15
#: The length a rule's reason is shortened to (:func:`shorten`: whole sentences, never an ellipsis), and the
#: length of the bottom line with its reason.
REASON, LINE = 110, 140
#: the block's words that speak against the system (a decided verdict worse than go)
AGAINST = tuple(dict.fromkeys(v.console for v in Verdict if v.decided and v.severity > 0))
_STYLE = {w.console: w.style for w in Verdict}  # each console word's style, from the verdicts that say it


def word(status: str | None) -> str:
    """A checkpoint status, hypothesis verdict or overall verdict in the block's vocabulary (the overall
    ``invalidated`` is the kill criterion's kill; ``inconclusive`` and ``not decidable`` are undecided)."""
    return Verdict.parse(status or "not run").console


def _rules(v: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(short name, word, row)`` of every checkpoint and hypothesis, in the design's order."""
    out = []
    for c in v.get("checkpoints") or []:
        out.append((_name(c, v), word(Row.word_of(c)), c))
    for h in v.get("hypotheses") or []:
        out.append((_name(h, v), word(Row.word_of(h)), h))
    return out


def _name(row: dict[str, Any], v: dict[str, Any]) -> str:
    name = rule_name(str(row.get("id", "")), str(row.get("name", row.get("id", "?"))))
    if name.endswith("kill baseline") and v.get("kill_baseline"):  # the rule named after it names it
        return f"{name} ({v['kill_baseline']})"
    return name


def _plain(text: str) -> str:
    """Text without Markdown backticks, internal plural hedges and internal keys (:func:`words.plain`)."""
    return plain(text)


def clauses(text: str) -> list[str]:
    """A rule's text split at the ``;`` outside parentheses and brackets (plain words), the barrier note a kill
    row opens with left out (the field's line says it)."""
    out, depth, cur = [], 0, ""
    for ch in _plain(text):
        depth += 1 if ch in "([" else -1 if ch in ")]" and depth else 0
        if ch == ";" and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [c for c in out if c and not c.startswith("kill baseline weaker than")] or out


_VERDICT_PREFIX = re.compile(r"^(not decidable|not run|inconclusive)\b[:,]?\s*")


def _clause(text: str, limit: int = REASON) -> str:
    """The first clause of a rule's text (up to a ``;`` outside parentheses), without its verdict prefix, made to
    fit in ``limit`` characters without cutting a sentence (:func:`shorten`); the whole text is in the files."""
    parts = clauses(text)
    head = parts[0]
    if len(_VERDICT_PREFIX.sub("", head)) < 25 and len(parts) > 1:
        head += "; " + parts[1]  # "at n = 59" alone says nothing: with what it needs
    return shorten(_VERDICT_PREFIX.sub("", head), limit)


def _top_level(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside parentheses and brackets."""
    out, depth, cur, i = [], 0, "", 0
    while i < len(text):
        ch = text[i]
        depth += 1 if ch in "([" else -1 if ch in ")]" and depth else 0
        if depth == 0 and text.startswith(sep, i):
            out.append(cur)
            cur, i = "", i + len(sep)
            continue
        cur += ch
        i += 1
    return [*out, cur]


def _parentheticals(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every top-level ``( ... )`` of ``text``, a space before it included."""
    spans, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i - 1 if i and text[i - 1] == " " else i
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    return spans


def _distinct(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in (p.strip() for p in parts):
        if part and not any(part in q for q in out):
            out.append(part)
    return out


def shorten(text: str, limit: int = REASON) -> str:
    """``text`` in at most ``limit`` characters without cutting a sentence: a ``: ``-part that repeats an
    earlier one goes, then asides in parentheses (the last first; one that says what a rule needs is kept), then
    the elaborations after the last ``: `` that fits (at least 40 characters: "on this harness" alone says
    nothing), then the remaining asides; never an ellipsis, so a first part longer than ``limit`` on its own is
    kept whole (over the limit)."""
    text = _drop_asides(": ".join(_distinct(_top_level(" ".join(text.split()), ": "))), limit, keep_needs=True)
    if len(text) > limit:
        parts = _top_level(text, ": ")
        keep = parts[0]
        for part in parts[1:]:
            if len(keep) >= 40 and len(keep) + 2 + len(part) > limit:
                break
            keep += ": " + part
        text = keep
    return _drop_asides(text, limit, keep_needs=False).rstrip(" ,;:")


def _drop_asides(text: str, limit: int, *, keep_needs: bool) -> str:
    while len(text) > limit:
        spans = [(a, b) for a, b in _parentheticals(text) if not (keep_needs and "need" in text[a:b])]
        if not spans:
            break
        a, b = spans[-1]
        text = ": ".join(_distinct(_top_level((text[:a] + text[b:]).strip(), ": ")))
    return text


def _command(text: str, system: str) -> str | None:
    """The hcrbench command a rule's text says would decide it (with ``--system`` for a non-HCR subject)."""
    m = re.search(r"(hcrbench [a-z][^`);]*)", text)
    if not m:
        return None
    cmd = m.group(1).strip().rstrip(".,")
    if cmd.startswith("hcrbench quickstart") and system != "hcr" and "--system" not in cmd:
        cmd += f" --system {system}"
    return cmd


def _pm(x: float) -> str:
    return f"{x:+.3f}"


def best_line(v: dict[str, Any], manifest: dict[str, Any] | None) -> str | None:
    """The subject against the best simple system in one line: :func:`quality_line`, then ``; cost`` and the
    figures of :func:`cost_line` (what the README quotes; the block prints the two as two lines)."""
    q = quality_line(v)
    if q is None:
        return None
    c = cost_line(v, manifest)
    return q + (f"; cost {c.split(': ', 1)[1]}" if c else "")


def quality_line(v: dict[str, Any]) -> str | None:
    """The subject against the best simple system: means, difference with its interval (its level and kind: a
    fixed-n per-query interval, descriptive) and what that interval shows, then what the deciding rule says when
    the kill criterion judges the same pair (:func:`deciding_clause`): the line never reads as a decision the
    deciding rule did not make."""
    b = v.get("vs_best_simple")
    if not b or b.get("delta") is None:
        return None
    s = b["system"]
    ci = b.get("ci")
    lv = pct(float(b.get("level", 0.95)))
    iv = f" (fixed-n {lv} CI [{_pm(ci[0])}, {_pm(ci[1])}], n {b['n']})" if ci else f" (n {b['n']}: no interval)"
    sig = ""
    if ci:
        sig = "; better" if ci[0] > 0 else "; worse" if ci[1] < 0 else "; not distinguishable"
        sig += f" on this fixed-n {lv} CI"
    deciding = deciding_clause(v, b["best"])
    return (f"vs the best simple system, {b['best']}: {s} {b['subject_mean']:.3f} vs {b['best_mean']:.3f} "
            f"{b['metric']}, {signed_diff(b['delta'])}{iv}{sig}" + (f"; {deciding}" if deciding else ""))


def interval_label(v: dict[str, Any], level: float | None = None, ci: Any = None, kind: str | None = None) -> str:
    """The deciding interval with its level and kind as the block writes it: "99.6904% sequential interval
    [-0.070, +0.010], look 1 of 6" when the run looked at its test worlds in a sequential design, else "99%
    interval [...]" (``ci``: the interval; without it the words alone); ``kind``: the row's ``interval_kind``,
    whose topic/world clustering is named ("clustered 99.6904% ...")."""
    seq = v.get("sequential") or {}
    lv = pct(float(level if level is not None else v.get("confidence") or seq.get("level") or 0.95))
    lv = ("clustered " if kind and "cluster" in kind else "") + lv
    iv = f" [{_pm(ci[0])}, {_pm(ci[1])}]" if ci else ""
    if seq.get("max_looks", 1) > 1 and seq.get("look"):
        return f"{lv} sequential interval{iv}, look {seq['look']} of {seq['max_looks']}"
    return f"{lv} interval{iv}"


def deciding_clause(v: dict[str, Any], other: str) -> str | None:
    """What the kill criterion, the rule that decides on the subject against ``other``, says with its own interval
    (level and kind), when it judges that pair; None when it judges another pair or did not run."""
    from hcrbench.protocol.verdicts import architecture_row

    kill = architecture_row(v.get("hypotheses") or [])
    if kill is None or kill.get("interval") is None:
        return None
    ev = kill.get("evidence") or {}
    if (ev.get("judged_against") or v.get("kill_baseline")) != other:
        return None
    w = word(Row.word_of(kill))
    says = "is undecided" if w == "undecided" else f"says {w}"
    return f"the kill criterion ({interval_label(v, ci=kill['interval'], kind=kill.get('interval_kind'))}) {says}"


def cost_line(v: dict[str, Any], manifest: dict[str, Any] | None) -> str | None:
    """The subject's cost per query beside the best simple system's: counts (and their ratio), wall clock."""
    b = v.get("vs_best_simple")
    if not b or b.get("delta") is None:
        return None
    s = b["system"]
    head = f"cost, {s} vs {b['best']}: "
    if b.get("cost_note"):  # a run file: its cost (and its wall clock) were spent elsewhere
        return head + str(b["cost_note"])
    cost = []
    if b.get("cost_ratio") is not None:
        units = b.get("cost_units")  # documents for a retriever over whole documents, else chunks
        if units and units != ["chunks", "chunks"]:
            cost.append(f"{b['cost_subject']:,.0f} {units[0]} vs {b['cost_best']:,.0f} {units[1]} scored per "
                        f"query ({b['cost_ratio']:.2f}x)")
        else:
            cost.append(f"{b['cost_subject']:,.0f} vs {b['cost_best']:,.0f} {b['cost_item']} per query "
                        f"({b['cost_ratio']:.2f}x)")
    ms = _ms(manifest, b.get("seeds") or [s], b["best"])
    if ms is not None:
        cost.append(f"{ms[0]:,.1f} vs {ms[1]:,.1f} ms per query ({ms[0] / ms[1]:.2f}x, wall clock)")
    return head + ", ".join(cost) if cost else None


def _ms(manifest: dict[str, Any] | None, group: list[str], best: str) -> tuple[float, float] | None:
    systems = (manifest or {}).get("systems") or {}

    def one(n: str) -> float | None:
        e = systems.get(n) or {}
        return 1000.0 * e["seconds"] / e["n_queries"] if e.get("seconds") is not None and e.get("n_queries") \
            else None

    a = [one(n) for n in group]
    b = one(best)
    if b is None or not b or any(x is None for x in a):
        return None
    return sum(a) / len(a), b  # type: ignore[arg-type]


def block_lines(v: dict[str, Any], manifest: dict[str, Any] | None = None, *, report: str | None = None,
                tables: str | None = None, folder: str | None = None) -> list[tuple[str, str]]:
    """The block as ``(style, text)`` lines (plain text; the style is for the terminal), at most 15. ``folder``:
    the run's output folder as the commands name it (default: the report's folder)."""
    from hcrbench.report.look_stop import stop_lines

    system = v.get("system") or "?"
    rules = _rules(v)
    size = v.get("size")
    overall = word(v.get("overall"))
    lines: list[tuple[str, str]] = [
        ("bold", f"verdict for {system} (the system under test) vs the field on {v.get('metric', 'nDCG@10')}"
                 + (f", corpus size {size}" if size else ""))]
    worst = [n for n, w, _ in rules if w == overall and overall not in ("go", "undecided", "not run")]
    first = next((r for n, w, r in rules if w == overall), None)
    head = f"bottom line: {overall.upper()} for {system}"
    if worst and first:
        head += f": {', '.join(worst)} — "
        head += _clause(first.get("text", ""), max(60, LINE - len(head)))
    elif overall == "undecided" and rules:  # say why in counts: nothing against it, what is open
        n = {w: sum(1 for _, ww, _ in rules if ww == w) for w in ("go", "undecided")}
        against = [w for _, w, _ in rules if w in AGAINST]
        head += (": no rule is against it" if not against else "") + \
            f"{'; ' if not against else ': '}{n['undecided']} rule{'s' if n['undecided'] != 1 else ''} undecided, " \
            f"{n['go']} go"
    lines.append((_STYLE.get(overall, ""), head))
    if folder is None and report and report.endswith("/report.html"):
        folder = report[: -len("/report.html")]
    lines += [("yellow", t) for t in stop_lines(v, folder)]  # the looks stopped with rules open: what, and go on
    bl = quality_line(v)
    lines.append(("", bl if bl else "vs the best simple system: none of the field's simple systems was scored"))
    cl = cost_line(v, manifest)
    if cl:
        lines.append(("", cl))
    for w in WORDS:
        names = [n for n, ww, _ in rules if ww == w]
        if names:
            lines.append((_STYLE.get(w, ""), f"  {w:<10} {', '.join(names)}"))
    decide: dict[str, list[str]] = {}  # a command that decides them -> rules
    why: dict[str, list[str]] = {}  # undecided without a command: the reason the rule gives -> rules
    for n, w, r in rules:
        text = r.get("text") or ""
        cmd = _command(text, system) if w in ("undecided", "not run") else None
        if cmd:
            decide.setdefault(cmd, []).append(n)
        elif w == "undecided":
            why.setdefault(_clause(text, REASON), []).append(n)
    items = [f"to decide {', '.join(ns)}: run {c}" for c, ns in decide.items()]
    items += [f"{', '.join(ns)} undecided {reason}" if reason.startswith("on this harness: ")  # not "undecided:
              else f"{', '.join(ns)} undecided: {reason}" for reason, ns in why.items()]  # on this harness: ..."
    room = MAX_LINES - len(lines) - 1 - (1 if tables else 0)
    for i, text in enumerate(items):
        if i == room - 1 and len(items) > room:
            lines.append(("dim", f"{len(items) - i} more undecided: see the report"))
            break
        lines.append(("dim", text))
    if tables:
        lines.append(("dim", f"full tables: {tables} (or --verbose)"))
    lines.append(("", f"report: {report}" if report else "report: not written"))
    return lines[:MAX_LINES]


def print_block(console: Any, v: dict[str, Any], manifest: dict[str, Any] | None = None, *,
                report: str | None = None, tables: str | None = None) -> None:
    """Print :func:`block_lines` (each line whole: ``soft_wrap`` so a narrow terminal does not cut a path)."""
    from rich.markup import escape

    for style, text in block_lines(v, manifest, report=report, tables=tables):
        console.print(f"[{style}]{escape(text)}[/]" if style else escape(text), soft_wrap=True)
