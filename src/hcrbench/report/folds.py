"""Which blocks of the HTML report open folded, and the one line each shows while folded.

The page answers its question on the first screen (the verdict and the lines under it) and stays short: long
tables, per-system lists and secondary tables open on a click (``<details>``), each under a one-line summary that
says what it holds and, where it can, what it shows (how many comparisons are significant, how many controls
behave). The verdict's checkpoint and hypothesis tables, the main means, the plots, the ablations and the biggest
wins and losses stay open. Only the HTML folds: Markdown and LaTeX show every block as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from hcrbench.report.model import Figure, Para, Section, Table

#: Table keys that stay open whatever their length (the answer and the main evidence).
OPEN = {"checkpoints", "hypotheses", "systems", "seeds", "queries", "ablations", "calibration", "growth"}


def _tones(t: Table, col: int) -> Counter:
    return Counter(row[col].tone for row in t.rows if col < len(row))


def _rows(t: Table) -> str:
    return f"{len(t.rows)} row{'s' if len(t.rows) != 1 else ''}"


def _controls(t: Table, ctx: Any) -> str:
    ok = sum(1 for r in t.rows if r and (r[-1].text in ("yes", "✓") or r[-1].tone == "good"))
    if "rule" in t.columns:  # the protocol's: its rules judged on an oracle, a clone and a degraded baseline
        return (f"Protocol controls: {ok} of {len(t.rows)} behave as expected (the rules judged on an oracle, a "
                "clone and a degraded kill baseline)")
    return f"Positive and negative controls of the gate: {ok} of {len(t.rows)} classified as expected"


def _cost(t: Table, ctx: Any) -> str:
    return f"Cost per query of {len(t.rows)} systems, in counts: " + ", ".join(t.columns[1:])


def _comparisons(t: Table, ctx: Any) -> str:
    tones = _tones(t, 2)
    sig = tones["good"] + tones["bad"]
    return (f"All {len(t.rows)} paired comparisons against {ctx.baseline}: {sig} significant ({tones['good']} "
            f"better, {tones['bad']} worse); one p per row, {t.columns[4]}")


def _gate_verdicts(t: Table, ctx: Any) -> str:
    labels = Counter(r[-1].text for r in t.rows if r)
    return (f"Gate verdicts, {len(t.rows)} comparisons: "
            + ", ".join(f"{n} {label}" for label, n in sorted(labels.items(), key=lambda kv: (-kv[1], kv[0]))))


def _gate(t: Table, ctx: Any) -> str:
    passed = sum(1 for r in t.rows if r and r[-1].text == "pass")
    return f"Four-null gate per system and metric: {passed} of {len(t.rows)} pass (each null's mean inside)"


def _legend(t: Table, ctx: Any) -> str:
    return (f"Every mark and word of this page, explained ({len(t.rows)}: verdict words, intervals, p values, "
            "superscript letters, ✓ / ✗, HIT / UNDER-NS / MISS / NULL-FAIL, m=, B= and the plots' markers)")


def _categories(t: Table, ctx: Any) -> str:
    return f"{t.caption}: {len(t.rows)} categories × {len(t.columns) - 2} systems"


def _ledger(t: Table, ctx: Any) -> str:
    zero = sum(1 for r in t.rows if len(r) > 4 and r[4].text not in ("0", "—"))
    return (f"{t.caption}: {len(t.rows)} systems, "
            + (f"{zero} with zero-filled queries" if zero else "no query zero-filled"))


SUMMARY: dict[str, Callable[[Table, Any], str]] = {
    "controls": _controls, "protocol-controls": _controls, "cost": _cost, "comparisons": _comparisons, "gate-verdicts": _gate_verdicts, "gate": _gate,
    "legend": _legend, "categories": _categories, "ledger": _ledger,
}


def _bullets(p: Para, section: Section, ctx: Any) -> str:
    if section.key == "systems":
        verbs = Counter("better" if " beats " in i else "worse" if " loses to " in i else "not significant"
                        for i in p.items)
        return (f"{p.text.rstrip(':')}: {verbs['better']} of {len(p.items)} systems significantly better, "
                f"{verbs['worse']} worse, {verbs['not significant']} not significantly different")
    main = next((i for i in p.items if ctx.main and i.startswith(f"{ctx.main}:")), None)
    return main or f"{len(p.items)} lines, one per system"


def fold_sections(sections: list[Section], ctx: Any) -> None:
    """Set ``fold`` (the summary shown while folded) on the blocks the HTML opens folded, in place."""
    for s in sections:
        for b in s.blocks:
            if isinstance(b, Table) and b.key not in OPEN and b.rows:
                b.fold = (SUMMARY[b.key](b, ctx) if b.key in SUMMARY else f"{b.caption} ({_rows(b)})")
            elif isinstance(b, Para) and b.kind == "bullets" and len(b.items) > 6 and s.key in ("systems",
                                                                                                "routing"):
                b.fold = _bullets(b, s, ctx)
            elif isinstance(b, Figure) and s.key == "categories":
                b.fold = f"Plot: {b.caption}"
