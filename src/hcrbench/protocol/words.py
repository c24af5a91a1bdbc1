"""One human vocabulary for the protocol's rules, wherever a person reads them (the bottom line, the console's
verdict block, the report): a rule's short name by its id, and :func:`plain` to turn a rule's text into prose
without Markdown backticks, plural hedges or internal keys (``failure_rate`` -> "failure rate")."""

from __future__ import annotations

import re
from typing import Any

#: Internal keys that may appear in a rule's text (besides the rules' own ids), and what a person reads instead.
OTHER_KEYS = {"kill_baseline": "kill baseline", "beam_only": "beam-only path", "collapsed_only": "collapsed-only path",
              "no_links": "no-links ablation", "before_operating": "before its operating characteristics",
              "needs_n": "n needed"}
_compiled: dict[tuple[str, ...], re.Pattern[str]] = {}


def rule_names() -> dict[str, str]:
    """Short human names of the rules, by id: each rule's own (``Rule.short``, hcrbench.protocol.ruleset)."""
    from hcrbench.protocol import registry as reg

    return {r.id: r.display for r in reg.rules()}


def keys() -> dict[str, str]:
    """Internal keys a rule's text may contain and what a person reads instead."""
    return {**{k: v for k, v in rule_names().items() if "_" in k}, **OTHER_KEYS}


def _key_pattern(ks: dict[str, str]) -> re.Pattern[str]:
    sig = tuple(sorted(ks))
    if sig not in _compiled:
        _compiled[sig] = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in sorted(ks, key=len, reverse=True))
                                    + r")(?![\w])")
    return _compiled[sig]


def __getattr__(name: str) -> Any:
    if name == "RULE_NAMES":
        return rule_names()
    if name == "KEYS":
        return keys()
    raise AttributeError(name)


#: The protocol controls as a reader sees them (hcrbench.protocol.controls.CONTROLS): no internal keys.
CONTROL_NAMES = {"plus_margin": "twin + margin", "minus_margin": "twin - margin"}
#: What the controls are, in one sentence (the report's and the console's controls table caption).
CONTROLS_CAPTION = ("the rules judged on an oracle (must pass / go), a clone of the kill baseline (never go or "
                    "kill), a degraded kill baseline (must stop / kill), a twin (the kill baseline plus the "
                    "system's own per-query noise, truth 0: never go or kill) and the twin at + / - the kill "
                    "rule's margin (never kill / never go)")


def control_name(control: str) -> str:
    """A protocol control's name as printed (``plus_margin`` -> "twin + margin")."""
    return CONTROL_NAMES.get(control, control)


def rule_name(rule_id: str, fallback: str | None = None) -> str:
    """The rule's short name (its own ``fallback`` name, lower-cased, for a rule not registered)."""
    return rule_names().get(rule_id) or str(fallback or rule_id).lower()


def plain(text: str) -> str:
    """``text`` without Markdown backticks, ``need(s)`` hedges and internal keys."""
    text = text.replace("`", "").replace("need(s)", "needs").replace(" (failures.retrieval)", "")
    ks = keys()
    return _key_pattern(ks).sub(lambda m: ks[m.group(1)], text)


def diff_digits(d: float, digits: int = 3, most: int = 6) -> int:
    """The decimals that show a difference ``d`` as not zero: ``digits``, or more while it rounds to 0 (at most
    ``most``), so a difference of 0.0003 is never printed as 0.000."""
    while digits < most and d != 0 and round(abs(d), digits) == 0:
        digits += 1
    return digits


def signed_diff(d: float, digits: int = 3) -> str:
    """``d`` signed with the decimals of :func:`diff_digits` (+0.0003, never +0.000 for a difference that is not
    0; an exact 0 is "0")."""
    return "0" if d == 0 else f"{d:+.{diff_digits(d, digits)}f}"


def leads_words(system: str, baseline: str, d: float, metric: str, digits: int = 3) -> str:
    """``system`` against ``baseline`` in words: "X trails Y by 0.030 nDCG@10", "X leads Y by 0.0003 nDCG@10"
    (decimals enough to show a non-zero difference, :func:`diff_digits`), "X ties with Y on nDCG@10" for an exact
    0: never "leads by 0.000"."""
    if d == 0:
        return f"{system} ties with {baseline} on {metric} (difference 0)"
    return f"{system} {'trails' if d < 0 else 'leads'} {baseline} by {abs(d):.{diff_digits(d, digits)}f} {metric}"
