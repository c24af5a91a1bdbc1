"""What the verdict block says when the looks at test worlds stopped with rules still undecided: what stopped them
(the ``--budget`` or ``--max-worlds``), the next look's forecast, and the command that goes on.

It reads ``verdicts.json["sequential"]`` (:func:`hcrbench.protocol.look_loop.sequential_doc`): ``stopped``,
``undecided``, ``next_look`` (the look the budget left out: its worlds, queries, forecast, the seconds spent and the
budget) and ``loop_args``. A larger ``--budget`` with the same other arguments goes on from ``OUT/looks.json``
(:func:`hcrbench.protocol.look_resume.resume_point`); a larger ``--max-worlds`` is another sequential design (its
looks' levels depend on it), so going on past the most worlds is a new run on fresh worlds.
"""

from __future__ import annotations

import math
import re
from typing import Any

from hcrbench.protocol.words import rule_name


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def _flags(args: dict[str, Any], *, seed_default: int) -> list[str]:
    from hcrbench.protocol.looks import DEFAULT_SIZE, DEFAULT_WORLDS

    out = []  # the loop's arguments a command must repeat: those that differ from the quickstart's defaults
    if args.get("size") and args["size"] != DEFAULT_SIZE:
        out.append(f"--size {args['size']}")
    if args.get("seed") is not None and int(args["seed"]) != seed_default:
        out.append(f"--seed {args['seed']}")
    if args.get("worlds") is not None and int(args["worlds"]) != DEFAULT_WORLDS:
        out.append(f"--worlds {args['worlds']}")
    return out


def budget_to_go_on(next_look: dict[str, Any]) -> int:
    """Minutes of ``--budget`` that fit the recorded looks and the next one with a tenth to spare, rounded up to 5."""
    need = (float(next_look.get("spent_s") or 0.0) + float(next_look.get("forecast_s") or 0.0)) * 1.1 / 60
    return int(5 * math.ceil(max(need, float(next_look.get("budget_s") or 0.0) / 60 + 1) / 5))


def _next_from_text(stopped: str, looks: list[dict[str, Any]]) -> dict[str, Any]:
    """The next look of a record written before ``next_look`` was: its forecast and the budget from the stop's
    words ("budget: the next batch would take ~20.8 min and 6.3 min of the 30.0 min are left"), the seconds spent
    from the looks; {} when the words do not say."""
    m = re.search(r"take ~([\d.]+) min .* of the ([\d.]+) min", stopped)
    if not m or not looks:
        return {}
    last = looks[-1]
    return {"look": int(last.get("look", len(looks))) + 1, "worlds": int(last.get("worlds", 0)) + 1,
            "test_worlds": int(last.get("test_worlds", 0)) + 1,
            "queries": int(last.get("n_test", 0)) + round(last.get("n_test", 0) / max(1, last.get("test_worlds", 1))),
            "forecast_s": float(m.group(1)) * 60, "spent_s": sum(float(e.get("seconds") or 0.0) for e in looks),
            "budget_s": float(m.group(2)) * 60}


def stop_lines(v: dict[str, Any], folder: str | None = None) -> list[str]:
    """Two lines when the looks stopped for the budget or the most worlds with rules undecided (else none): what
    stopped them and which rules are open, then the next look's forecast and the command that goes on."""
    from hcrbench.protocol.looks import DEFAULT_MAX_WORLDS, VERDICT_SEED

    seq = v.get("sequential") or {}
    stopped, und = str(seq.get("stopped") or ""), list(seq.get("undecided") or [])
    budget, most = stopped.startswith("budget"), stopped.startswith("max worlds")
    if not und or not (budget or most):
        return []
    looks = seq.get("looks") or []
    n = len(und)
    rows = {r.get("id"): r for r in [*(v.get("checkpoints") or []), *(v.get("hypotheses") or [])]}
    names = ", ".join(rule_name(str(u), (rows.get(u) or {}).get("name")) for u in und)
    last = looks[-1] if looks else {}
    what = "the time budget (--budget)" if budget else "the most worlds (--max-worlds)"
    head = (f"looks stopped by {what} after look {last.get('look', len(looks))} ({last.get('test_worlds', '?')} test "
            f"world{'s' if last.get('test_worlds') != 1 else ''}, {last.get('n_test', '?')} queries) with {n} rule"
            f"{'s' if n != 1 else ''} undecided ({names}): {stopped.split(': ', 1)[-1]}")
    args = dict(seq.get("loop_args") or {})
    out = folder or "OUT"
    system = v.get("system")
    extra = " (and the run's other options as before)" if system and system != "hcr" else ""
    flags = _flags(args, seed_default=VERDICT_SEED)
    if args.get("max_worlds") is not None and int(args["max_worlds"]) != DEFAULT_MAX_WORLDS:
        flags.append(f"--max-worlds {args['max_worlds']}")
    nxt = seq.get("next_look") or (_next_from_text(stopped, looks) if budget else {})
    if budget and nxt:
        cmd = " ".join(["hcrbench quickstart", f"--out {out}", *flags, f"--budget {budget_to_go_on(nxt)}"])
        tail = (f"next: look {nxt.get('look')} ({nxt.get('test_worlds')} test worlds, ~{nxt.get('queries'):,} "
                f"queries) forecast ~{_minutes(float(nxt.get('forecast_s') or 0.0))} after "
                f"{_minutes(float(nxt.get('spent_s') or 0.0))} spent; to go on: run {cmd}{extra} (it resumes from "
                f"{out}/looks.json)")
    elif budget:
        cmd = " ".join(["hcrbench quickstart", f"--out {out}", *flags, "--budget MINUTES"])
        tail = f"to go on: run {cmd}{extra} with more minutes than before (it resumes from {out}/looks.json)"
    else:
        more = seq.get("more_worlds_to_decide")
        want = int(args.get("max_worlds") or seq.get("max_worlds") or 0) + int(more or 1)
        base = [f for f in flags if not f.startswith(("--max-worlds", "--seed"))]
        seed = args.get("seed", VERDICT_SEED)
        cmd = " ".join(["hcrbench quickstart", f"--out {out}-s{int(seed) + 1}", *base, f"--seed {int(seed) + 1}",
                        f"--max-worlds {want}"])
        tail = (f"next: ~{more} more test world{'s' if more != 1 else ''} would decide them at the observed effects"
                if more else "next: no forecast of the worlds that would decide them")
        tail += (f"; --max-worlds sets this design's levels, so going on is a new design on fresh worlds (another "
                 f"--seed, another folder): run {cmd}{extra}")
    return [head, tail]
