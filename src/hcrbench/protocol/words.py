"""One human vocabulary for the protocol's rules, wherever a person reads them (the bottom line, the console's
verdict block, the report): a rule's short name by its id, and :func:`plain` to turn a rule's text into prose
without Markdown backticks, plural hedges or internal keys (``failure_rate`` -> "failure rate")."""

from __future__ import annotations

import re

#: Short human names of the rules, by the registry's id (hcrbench.protocol.registry).
RULE_NAMES = {"tree_sanity": "tree sanity", "easy_routing": "routing on easy queries",
              "vs_kill_baseline": "vs the kill baseline", "token_efficiency": "token efficiency",
              "H1a": "sufficiency at 400 tokens (H1a)", "H1b": "dual path (H1b)",
              "H1c": "routing explains quality (H1c)", "failure_rate": "failure rate", "corpus_size": "corpus size",
              "kill": "kill criterion"}
#: Internal keys that may appear in a rule's text, and what a person reads instead.
KEYS = {**{k: v for k, v in RULE_NAMES.items() if "_" in k}, "kill_baseline": "kill baseline",
        "beam_only": "beam-only path", "collapsed_only": "collapsed-only path", "no_links": "no-links ablation",
        "before_operating": "before its operating characteristics", "needs_n": "n needed"}
_KEY = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in sorted(KEYS, key=len, reverse=True)) +
                  r")(?![\w])")


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
    """The rule's short name (its own ``fallback`` name, lower-cased, for a rule not listed)."""
    return RULE_NAMES.get(rule_id) or str(fallback or rule_id).lower()


def plain(text: str) -> str:
    """``text`` without Markdown backticks, ``need(s)`` hedges and internal keys."""
    text = text.replace("`", "").replace("need(s)", "needs").replace(" (failures.retrieval)", "")
    return _KEY.sub(lambda m: KEYS[m.group(1)], text)
