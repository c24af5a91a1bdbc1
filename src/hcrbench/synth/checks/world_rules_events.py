"""World rules on how a year's events are distributed: dated events spread over the months, follow-up decisions
that change course now and then, incidents on systems by their load and severities in a realistic mix.

A reader of a year of Meridian 4 saw 80% of a medium world's decisions dated July, 87-91% of follow-up decisions
repeat the option before, three systems carry 62-64% of the incidents and 15% of incidents rated severity 1. Each
bound below is one such a reader would accept. The rules register in :data:`hcrbench.synth.checks.world_rules.RULES`
like the others (each takes ``world.json`` and the corpus rows and returns one message per violation), and
:func:`event_figures` gives the figures ``hcrbench describe`` reports beside them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hcrbench.synth.checks.world_rules import rule
from hcrbench.synth.checks.world_rules_year import MONTHS, _decisions_in_order
from hcrbench.synth.world_model.entities import systems_at

# bounds (the rule texts below say them in words)
MAX_MONTH_FACTOR, MIN_MONTH_FACTOR = 2.0, 1 / 3  # a month's events against its share (n / 9)
MIN_EVENTS_FOR_SPREAD = 3 * len(MONTHS)  # fewer events than this are too few to spread
MIN_CHANGE_SHARE = 0.1  # of follow-up decisions that change course (the upper bound is decision_reversals_rare's)
MIN_FOLLOW_UPS = 10  # fewer follow-ups than this are too few for a share
MAX_PROJECT_MONTH_DECISIONS = 3
LOAD_FACTOR, LOAD_SLACK = 2.0, 5  # a system's incidents <= 2x its load's expectation + 5
TOP_SYSTEMS, TOP_SLACK = 3, 0.15  # the top 3 systems' share <= their expected share + 15 points
SEV1_SHARE = (0.01, 0.08)  # severity 1: a few percent (at least one incident from MIN_TICKETS_FOR_MIX on)
SEV2_SHARE = (0.1, 0.4)
MIN_TICKETS_FOR_MIX = 50


def _month_spread(kind: str, events: list[dict[str, Any]]) -> list[str]:
    n = len(events)
    if n < MIN_EVENTS_FOR_SPREAD:
        return []
    per = Counter(e["date"][:7] for e in events)
    share = n / len(MONTHS)
    out = [f"{m}: {per[m]} of {n} {kind} (share {share:.1f}, bounds {MIN_MONTH_FACTOR * share:.1f}-"
           f"{MAX_MONTH_FACTOR * share:.1f})" for m in MONTHS
           if not MIN_MONTH_FACTOR * share <= per[m] <= MAX_MONTH_FACTOR * share]
    out += [f"{e['id']} dated {e['date']}, outside the year" for e in events if e["date"][:7] not in MONTHS]
    return out


@rule("decisions_meetings_spread_over_year",
      f"decisions and meetings happen all year: every month of January-September 2024 holds between "
      f"{MIN_MONTH_FACTOR:.2g}x and {MAX_MONTH_FACTOR:g}x its share of the decisions, and of the meetings "
      f"(from {MIN_EVENTS_FOR_SPREAD} of them)")
def _decisions_meetings_spread_over_year(w, docs):
    return _month_spread("decisions", w["decisions"]) + _month_spread("meetings", w["meetings"])


def _follow_ups(w: dict[str, Any]) -> tuple[int, int]:
    """(follow-up decisions, those that change the option of the decision before on their project)."""
    last: dict[str, dict[str, Any]] = {}
    follow = changed = 0
    for d in _decisions_in_order(w):
        prev = last.get(d["project"])
        last[d["project"]] = d
        if prev is not None:
            follow += 1
            changed += prev["option"] != d["option"]
    return follow, changed


@rule("decisions_change_course_plausibly",
      f"projects do change course: at least {MIN_CHANGE_SHARE:.0%} of follow-up decisions change the option of "
      f"the one before (from {MIN_FOLLOW_UPS} follow-ups), and no project takes more than "
      f"{MAX_PROJECT_MONTH_DECISIONS} decisions in a month")
def _decisions_change_course_plausibly(w, docs):
    follow, changed = _follow_ups(w)
    out = []
    if follow >= MIN_FOLLOW_UPS and changed / follow < MIN_CHANGE_SHARE:
        out.append(f"{changed} of {follow} follow-up decisions change course "
                   f"({changed / follow:.0%} < {MIN_CHANGE_SHARE:.0%})")
    per = Counter((d["project"], d["date"][:7]) for d in w["decisions"])
    out += [f"{p} takes {n} decisions in {m}" for (p, m), n in sorted(per.items())
            if n > MAX_PROJECT_MONTH_DECISIONS]
    return out


def expected_incidents(w: dict[str, Any]) -> dict[str, float]:
    """Each system's expected incidents if every incident hit one of the systems that existed when its document
    was written, in proportion to their users (a system's load)."""
    systems = w["systems"]
    exp = {s["id"]: 0.0 for s in systems}
    for t in w["tickets"]:
        alive = systems[:systems_at(t["doc"] + 1)]
        total = sum(s["users"] for s in alive)
        for s in alive:
            exp[s["id"]] += s["users"] / total
    return exp


@rule("incidents_follow_system_load",
      f"incidents fall on systems by their load: no system holds more than {LOAD_FACTOR:g}x the incidents its "
      f"users lead one to expect (+{LOAD_SLACK}), and the {TOP_SYSTEMS} systems with the most incidents hold at most "
      f"{TOP_SLACK:.0%} more of them than their users' share")
def _incidents_follow_system_load(w, docs):
    n = len(w["tickets"])
    if not n:
        return []
    exp = expected_incidents(w)
    got = Counter(t["system"] for t in w["tickets"])
    out = [f"{sid}: {got[sid]} incidents, {e:.1f} expected from its users" for sid, e in exp.items()
           if got[sid] > LOAD_FACTOR * e + LOAD_SLACK]
    top = [sid for sid, _ in got.most_common(TOP_SYSTEMS)]
    share, want = sum(got[s] for s in top) / n, sum(exp[s] for s in top) / n
    if share > want + TOP_SLACK:
        out.append(f"the top {TOP_SYSTEMS} systems ({', '.join(top)}) hold {share:.0%} of the incidents, "
                   f"{want:.0%} expected from their users")
    return out


@rule("severity_mix_realistic",
      f"severities follow a realistic mix: severity 1 (critical) is {SEV1_SHARE[0]:.0%}-{SEV1_SHARE[1]:.0%} of "
      f"incidents, severity 2 {SEV2_SHARE[0]:.0%}-{SEV2_SHARE[1]:.0%} and severity 3 the most common (from "
      f"{MIN_TICKETS_FOR_MIX} incidents; fewer hold at most {SEV1_SHARE[1]:.0%} or 3 critical ones)")
def _severity_mix_realistic(w, docs):
    n = len(w["tickets"])
    if not n:
        return []
    sev = Counter(t["severity"] for t in w["tickets"])
    out = []
    if sev[1] > max(3, SEV1_SHARE[1] * n):
        out.append(f"{sev[1]} of {n} incidents are severity 1 ({sev[1] / n:.0%} > {SEV1_SHARE[1]:.0%})")
    if n >= MIN_TICKETS_FOR_MIX:
        if sev[1] < max(1, SEV1_SHARE[0] * n):
            out.append(f"{sev[1]} of {n} incidents are severity 1 (< {SEV1_SHARE[0]:.0%})")
        if not SEV2_SHARE[0] <= sev[2] / n <= SEV2_SHARE[1]:
            out.append(f"{sev[2]} of {n} incidents are severity 2 (outside {SEV2_SHARE[0]:.0%}-{SEV2_SHARE[1]:.0%})")
        if sev[3] < max(sev[1], sev[2]):
            out.append(f"severity 3 is not the most common ({dict(sorted(sev.items()))})")
    return out


def event_figures(w: dict[str, Any]) -> dict[str, float]:
    """The figures these rules bound, as ``describe`` reports them: the busiest month's share of decisions, the
    share of follow-up decisions that change course, the top three systems' share of incidents (and what their
    users lead one to expect) and the share of severity 1 incidents."""
    out: dict[str, float] = {}
    if w["decisions"]:
        per = Counter(d["date"][:7] for d in w["decisions"])
        out["busiest month's share of decisions"] = max(per.values()) / len(w["decisions"])
    follow, changed = _follow_ups(w)
    if follow:
        out["share of follow-up decisions that change course"] = changed / follow
    n = len(w["tickets"])
    if n:
        got = Counter(t["system"] for t in w["tickets"])
        exp = expected_incidents(w)
        top = [sid for sid, _ in got.most_common(TOP_SYSTEMS)]
        out["top 3 systems' share of incidents"] = sum(got[s] for s in top) / n
        out["top 3 systems' share of users (expected)"] = sum(exp[s] for s in top) / n
        out["share of severity 1 incidents"] = sum(t["severity"] == 1 for t in w["tickets"]) / n
    return out


__all__ = ["event_figures", "expected_incidents"]
