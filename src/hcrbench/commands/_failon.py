"""``--fail-on`` for ``quickstart`` and ``run``: exit 1 when the protocol's overall verdict is at or past a level,
so a CI job can fail on a kill (or on any no-go) instead of reading the bottom line."""

from __future__ import annotations

from typing import Any

from hcrbench.errors import InputError
from hcrbench.protocol.verdict import Verdict

#: Overall verdicts from best to worst (protocol.verdicts.overall) with their severity (the Verdict enum's);
#: ``kill`` is the design's word for invalidated.
SEVERITY = {v.value: v.severity for v in (Verdict.GO, Verdict.INCONCLUSIVE, Verdict.SOFT, Verdict.NOGO,
                                          Verdict.DIAGNOSE, Verdict.INVALIDATED)}
LEVELS = {"kill": "invalidated", "invalidated": "invalidated", "diagnose": "stop and diagnose",
          "stop": "stop and diagnose", "no-go": "no-go", "soft-no-go": "soft no-go", "undecided": "inconclusive",
          "inconclusive": "inconclusive"}
HELP = ("Exit 1 when the overall verdict is at or past this level (the verdict block's words): kill, stop (stop "
        "and diagnose or worse; also diagnose), no-go (no-go or worse), soft-no-go, undecided (anything but go; "
        "also inconclusive). Default: exit 0 on any verdict.")


def check_level(level: str | None) -> str | None:
    if level is None:
        return None
    if level not in LEVELS:
        raise InputError(f"must be one of {', '.join(LEVELS)}, got {level!r}", field="--fail-on")
    return LEVELS[level]


def fails(verdicts: dict[str, Any] | None, level: str | None) -> str | None:
    """The line to print when ``verdicts``' overall verdict is at or past ``level`` (a checked level), else None."""
    if level is None or not verdicts:
        return None
    got = str(verdicts.get("overall", ""))
    if SEVERITY.get(got, -1) >= SEVERITY[level]:
        from hcrbench.report.verdict_block import word

        return (f"--fail-on: the overall verdict is {word(got)} (verdicts.json: {got!r}), at or past "
                f"{word(level)}; exit 1")
    return None
