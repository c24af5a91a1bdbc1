"""What a run's rows carry from their rules' operating characteristics (:mod:`operating`): the replay of the side
each decided row decided on, with its Monte-Carlo interval, and the n an undecided row needs. Reported beside the
row, never in place of its verdict."""

from __future__ import annotations

import re
from typing import Any

from hcrbench.protocol.rules import NOT_RUN, UNDECIDABLE, wilson

_AT_N = re.compile(r"not decidable at n = ([\d,]+)")
_NEEDS = re.compile(r"\(needs ~ [\d,]+((?: [a-z]+)*)\)")  # registry.text_undecidable's "(needs ~ M unit)"


def mc_interval(p: float, reps: int) -> list[float]:
    """The Monte-Carlo uncertainty of a replayed rate: its 95% Wilson interval over ``reps`` draws."""
    lo, hi = wilson(round(p * reps), reps, 0.95) or (0.0, 1.0)
    return [float(lo), float(hi)]


def side_check(row_verdict: str, op: dict[str, Any]) -> dict[str, Any] | None:
    """The replay's check of the side a row decided on: a positive verdict (go / pass) against the replayed
    P(positive) with the truth on its boundary, a negative one (no-go / kill / stop) against P(negative) on its
    boundary, each with its Monte-Carlo interval (None for a row that decided neither side)."""
    words = op.get("verdict_words") or {}
    if row_verdict == words.get("go"):
        side, key = "go", "false_go"
    elif row_verdict == words.get("nogo") or (words.get("nogo") and row_verdict.startswith(f"{words['nogo']}:")):
        side, key = "nogo", "false_nogo"
    else:
        return None
    rate = float(op[key])
    ci = op.get(f"{key}_ci") or mc_interval(rate, int(op["reps"]))
    return {"side": side, "verdict": row_verdict, "false_rate": rate, "ci": ci, "nominal": op["nominal"],
            "reps": int(op["reps"]), "null": op.get("null"), "above_nominal": bool(ci[0] > op["nominal"]),
            "used_to_void": False}


def gate_rows(rows: list[dict], ops: dict[str, dict[str, Any]]) -> list[dict]:
    """Every judged row with what the replay on this run's data found, beside it and never in place of it: a
    decided row keeps the verdict its interval decided (the interval's own coverage is what makes it stand) and
    carries the replay's false-decision rate on the side it decided (:func:`side_check`) with its Monte-Carlo
    interval; an undecided row says the n the replay needs. ``evidence["operating"]`` holds the summary (its
    decidability, power and false-decision rates)."""
    out = []
    for r in rows:
        op = ops.get(r["id"])
        key = "status" if "status" in r else "verdict"
        if op is None or r[key] == NOT_RUN:
            out.append(r)
            continue
        r = dict(r)
        sc = side_check(r[key], op)
        summary = {"decidable": op["decidable"], "power_go": op["power_go"], "power_nogo": op["power_nogo"],
                   "false_go": op["false_go"], "false_nogo": op["false_nogo"], "needs_n": op["needs_n"],
                   "side_check": sc, "used_to_void": False}
        r["evidence"] = {**(r.get("evidence") or {}), "operating": summary}
        at = _AT_N.search(r["text"])
        sized = (r.get("undecided") or {}).get("world_sd") is not None  # sized in worlds: the replay's n is not
        if r[key] == UNDECIDABLE and op["needs_n"] and not sized and not (at and int(op["needs_n"]) <= int(
                at.group(1).replace(",", ""))):  # the same n, from the run's own sd instead of the interval's
            need = int(op["needs_n"])
            r["text"], subs = _NEEDS.subn(lambda mt, k=need: f"(needs ~ {k:,}{mt.group(1) or ''})", r["text"],
                                          count=1)
            if subs and r.get("undecided"):  # the structured twin says what the text says
                r["undecided"] = {**r["undecided"], "needs_n": need}
        if sc is not None:
            lo, hi = sc["ci"]
            r["text"] += (f" (replayed on this run's data, reported only: false {sc['verdict'].split(':')[0]} "
                          f"{sc['false_rate']:.1%}, Monte-Carlo 95% {lo:.1%}-{hi:.1%}, nominal "
                          f"{sc['nominal']:.1%})")
        out.append(r)
    return out
