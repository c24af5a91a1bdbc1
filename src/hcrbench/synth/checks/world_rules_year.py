"""World rules of a believable year (Meridian 4): what an employee reading a year of Meridian's
documents would notice, each with a bound such a reader would accept.

Registered in :data:`hcrbench.synth.checks.world_rules.RULES` beside Meridian 3's rules (``world_rules`` imports this
module), so ``hcrbench describe`` prints one row per rule and the tests run every rule on every size. Like those
rules, each takes ``world.json`` and the ``corpus.jsonl`` rows and returns one message per violation.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from datetime import date
from typing import Any

from hcrbench.synth.checks.world_rules import _appearances, _people, _quarter, _teams, rule
from hcrbench.synth.world_model import lexicon as lx

# bounds (the rule texts below say them in words)
MAX_REVERSALS_PER_PROJECT = 2
MIN_DAYS_BETWEEN_REVERSALS = 30
MAX_REVERSAL_SHARE = 0.4  # of the decisions that follow an earlier one on their project
MONTHS = tuple(f"2024-{m:02d}" for m in range(1, 10))  # the year so far: January to September 2024
MAX_MONTH_FACTOR = 2.0
MIN_LINE_MANAGED_SHARE = 0.2
STAFF_PER_LEAVER = 60  # at least one leaver per this many staff


def _decisions_in_order(w: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(w["decisions"], key=lambda d: (d["date"], int(d["id"].split("-")[1])))


# ---------------------------------------------------------------------------------------------------- decisions
@rule("decision_reversals_rare",
      f"a project changes course rarely and for a reason: at most {MAX_REVERSALS_PER_PROJECT} reversals per "
      f"project, {MIN_DAYS_BETWEEN_REVERSALS}+ days apart, each with a reason, and at most "
      f"{MAX_REVERSAL_SHARE:.0%} of follow-up decisions reverse the one before")
def _decision_reversals_rare(w, docs):
    last: dict[str, dict[str, Any]] = {}
    reversals: dict[str, list[dict[str, Any]]] = defaultdict(list)
    follow_ups = 0
    out = []
    for d in _decisions_in_order(w):
        prev = last.get(d["project"])
        last[d["project"]] = d
        if prev is None:
            continue
        follow_ups += 1
        if prev["option"] == d["option"]:
            continue
        mine = reversals[d["project"]]
        if not d.get("reason"):
            out.append(f"{d['id']} reverses {prev['id']} on {d['project']} without a reason")
        if mine and (date.fromisoformat(d["date"]) - date.fromisoformat(mine[-1]["date"])).days \
                < MIN_DAYS_BETWEEN_REVERSALS:
            out.append(f"{d['id']} reverses course on {d['project']} {d['date']}, "
                       f"{mine[-1]['id']} did on {mine[-1]['date']}")
        mine.append(d)
        if len(mine) > MAX_REVERSALS_PER_PROJECT:
            out.append(f"{d['id']} is reversal number {len(mine)} on {d['project']}")
    n_rev = sum(len(v) for v in reversals.values())
    if follow_ups and n_rev / follow_ups > MAX_REVERSAL_SHARE:
        out.append(f"{n_rev} of {follow_ups} follow-up decisions reverse the one before "
                   f"({n_rev / follow_ups:.0%} > {MAX_REVERSAL_SHARE:.0%})")
    return out


# ---------------------------------------------------------------------------------------------------- incidents
@rule("incidents_spread_over_year",
      f"incidents happen all year: no month of January-September 2024 holds more than {MAX_MONTH_FACTOR:g}x its "
      "share of the incidents")
def _incidents_spread_over_year(w, docs):
    n = len(w["tickets"])
    if not n:
        return []
    per = Counter(t["date"][:7] for t in w["tickets"])
    share = n / len(MONTHS)
    out = [f"{m}: {per[m]} of {n} incidents (share {share:.1f}, bound {MAX_MONTH_FACTOR * share:.1f})"
           for m in MONTHS if per[m] > MAX_MONTH_FACTOR * share]
    out += [f"{t['id']} dated {t['date']}, outside the year" for t in w["tickets"] if t["date"][:7] not in MONTHS]
    return out


_MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December"]
_WEEK = re.compile(r"\((\d+) (\w+) (\d{4}) to (\d+) (\w+) (\d{4})\)")


def _iso(d: str, month: str, y: str) -> date:
    return date(int(y), _MONTH_NAMES.index(month) + 1, int(d))


@rule("digest_lists_its_week", "a weekly operations digest lists every incident of its week and no other")
def _digest_lists_its_week(w, docs):
    out = []
    for doc in docs:
        if doc["metadata"]["doc_type"] != "ops_digest":
            continue
        m = _WEEK.search(doc["text"])
        if m is None:
            out.append(f"{doc['_id']}: no week in the digest")
            continue
        a, b = _iso(*m.groups()[:3]), _iso(*m.groups()[3:])
        want = {t["id"] for t in w["tickets"] if a <= date.fromisoformat(t["date"]) <= b}
        listed = set(re.findall(r"INC-\d+", doc["text"]))
        if listed != want:
            out.append(f"{doc['_id']} ({a} to {b}): misses {sorted(want - listed)[:3]}, "
                       f"lists others {sorted(listed - want)[:3]}")
    return out


def root_cause_text(t: dict[str, Any]) -> str:
    """A ticket's root cause as documents write it (``cause``; generator 3 worlds: the shared pool's entry)."""
    return t.get("cause") or lx.ROOT_CAUSES[t["root_cause"]]


@rule("root_cause_identifies_incident",
      "a root cause is specific to its incident: no two incidents share a root-cause text, and it names the "
      "affected system, so the answer string identifies its fact")
def _root_cause_identifies_incident(w, docs):
    systems = {s["id"]: s for s in w["systems"]}
    seen: Counter[str] = Counter()
    out = []
    for t in w["tickets"]:
        cause = root_cause_text(t)
        seen[cause] += 1
        if systems[t["system"]]["name"] not in cause:
            out.append(f"{t['id']}: root cause {cause!r} does not name {systems[t['system']]['name']}")
    out += [f"{n} incidents share the root cause {c!r}" for c, n in seen.items() if n > 1]
    return out


# ---------------------------------------------------------------------------------------------------- projects
_SPEND = re.compile(r"Spend to date is (\d+)% of the approved budget")


@rule("spend_never_falls", "a project's spend to date never falls from one quarterly report to the next")
def _spend_never_falls(w, docs):
    spend: dict[str, dict[str, int]] = defaultdict(dict)
    for doc in docs:
        meta = doc["metadata"]
        if meta["doc_type"] != "project_status":
            continue
        m = _SPEND.search(doc["text"])
        if m:
            spend[meta["entities"][0]][meta["quarter"]] = int(m.group(1))
    out = []
    for pid, by_q in sorted(spend.items()):
        qs = [q for q in lx.QUARTERS if q in by_q]
        for a, b in itertools.pairwise(qs):
            if by_q[b] < by_q[a]:
                out.append(f"{pid}: spend to date {by_q[a]}% in {a}, {by_q[b]}% in {b}")
    return out


# staffing or planning news: someone joins the work, a review of the plan, a demo to come, work to take up
_PLANS = re.compile(
    r"\b(?:joined|came into|was added to) the (?:working group|project team|core team)\b"
    r"|\bwill (?:review|revisit|confirm) the (?:plan|timeline|scope)\b"
    r"|\b(?:follows|will be shared|goes out) (?:next month|after the next sprint|at quarter end)\b"
    r"|\bNo (?:budget change|extra headcount|scope change|new funding) is (?:requested|needed|expected)\b"
    r"|\bhas (?:a new demo ready|a working prototype to show|its first internal users|a fresh build in the sandbox)\b"
    r"|\b(?:supporting|helping|commitment is|time goes to) project\b")


@rule("completed_projects_stop",
      "after a project is completed, no document dated in a quarter it is completed adds staff or plans work for "
      "it (no one joins, no plan review, no demo to come)")
def _completed_projects_stop(w, docs):
    projects = {p["id"]: p for p in w["projects"]}
    out = []
    for doc in docs:
        meta = doc["metadata"]
        day = meta.get("date")
        if not day or meta["doc_type"] not in ("project_update", "announcement", "team_news"):
            continue
        for e in meta["entities"]:
            p = projects.get(e)
            if p is None or p["status"].get(_quarter(day)) != "completed":
                continue
            for m in _PLANS.finditer(doc["text"]):
                out.append(f"{doc['_id']} ({day}): {p['code_name']} is completed but {m.group(0)!r}")
    return out


_SCOPES = sorted((s for s in lx.GOAL_SCOPES if s), key=len, reverse=True)
_PHASE = re.compile(r" \(phase \d+\)$")


def goal_base(goal: str) -> str:
    """A goal without its scope suffix (" for enterprise customers", " in the EMEA region" ...) or phase number."""
    goal = _PHASE.sub("", goal)
    for s in _SCOPES:
        if goal.endswith(s):
            return goal[: -len(s)]
    return goal


@rule("project_goals_distinct",
      "no two projects pursue the same goal with only a different scope or phase suffix")
def _project_goals_distinct(w, docs):
    by_base: dict[str, list[str]] = defaultdict(list)
    for p in w["projects"]:
        by_base[goal_base(p["goal"])].append(p["id"])
    return [f"{len(ids)} projects ({', '.join(ids[:4])}) share the goal {base!r} but for a suffix"
            for base, ids in by_base.items() if len(ids) > 1]


# ---------------------------------------------------------------------------------------------------- policies
@rule("policy_reminder_signed_by_owner", "a policy reminder is signed by a member of the team that owns the policy")
def _policy_reminder_signed_by_owner(w, docs):
    people = _people(w)
    policies = {p["id"]: p for p in w["policies"]}
    out = []
    for doc in docs:
        meta = doc["metadata"]
        if meta["doc_type"] != "announcement":
            continue
        pols = [policies[e] for e in meta["entities"] if e in policies]
        for pol in pols:
            for e in meta["entities"]:
                if e in people and people[e]["team"] != pol["owner_team"]:
                    out.append(f"{doc['_id']}: reminder of {pol['id']} (owned by {pol['owner_team']}) signed by "
                               f"{e} of {people[e]['team']}")
    return out


# ---------------------------------------------------------------------------------------------------- people
_PROMOTED = re.compile(r"promoted from (?P<a>[A-Z][^.!,;]*?) to (?P<b>[A-Z][^.!,;]*?)(?: in the |[.!,;])"
                       r"|(?:new role of|a move into the role of|stepping up as) (?P<c>[A-Z][^.!,;]*?)[.!]")


def role_rank(team: str, role: str) -> int:
    """A role's step on its team's ladder (:data:`lexicon.PROMOTIONS`): 0 for an entry role, 1 above it ..."""
    below = lx.PROMOTIONS.get(team, {})
    k = 0
    while role in below and k < 10:
        role, k = below[role], k + 1
    return k


@rule("promotions_move_up",
      "a promotion moves a person up their team's ladder (to a higher role than the one they held), at most once a "
      "year, and no one is announced into the same role twice")
def _promotions_move_up(w, docs):
    people, teams = _people(w), _teams(w)
    out = []
    for p in w["people"]:
        pr = p.get("promoted")
        if not pr:
            continue
        tname = teams[p["team"]]["name"]
        if role_rank(tname, pr["from"]) >= role_rank(tname, p["role"]) or pr["from"] == p["role"]:
            out.append(f"{p['id']}: promoted from {pr['from']} to {p['role']}, not a higher role")
        if not p["joined"] < pr["date"] <= (p.get("left") or "9999"):
            out.append(f"{p['id']}: promoted on {pr['date']}, joined {p['joined']}, left {p.get('left')}")
    announced: Counter[tuple[str, str]] = Counter()
    for doc in docs:
        if doc["metadata"]["doc_type"] != "announcement":
            continue
        who = [e for e in doc["metadata"]["entities"] if e in people]
        for m in _PROMOTED.finditer(doc["text"]):
            new = m.group("b") or m.group("c")
            pid = next((e for e in who if people[e]["name"] in doc["text"][:m.start()]), None)
            if pid is None:
                continue
            announced[(pid, new)] += 1
            tname = teams[people[pid]["team"]]["name"]
            if m.group("a") and role_rank(tname, m.group("a")) >= role_rank(tname, new):
                out.append(f"{doc['_id']}: {pid} promoted from {m.group('a')} to {new}, not a higher role")
    out += [f"{pid} announced into {role} {n} times" for (pid, role), n in announced.items() if n > 1]
    roles = Counter(pid for pid, _ in announced)
    out += [f"{pid} promoted into {n} different roles in the year" for pid, n in roles.items() if n > 1]
    return out


@rule("no_appearance_after_leaving",
      f"people leave as well as join (at least one leaver per {STAFF_PER_LEAVER} staff who were there when the "
      "year began), and no one attends a meeting, holds an incident or decision role, or is named in a dated "
      "document after their last day")
def _no_appearance_after_leaving(w, docs):
    people = _people(w)
    leavers = [p for p in w["people"] if p.get("left")]
    staff = sum(p["joined"] < "2024" for p in w["people"])
    out = []
    if len(leavers) < staff // STAFF_PER_LEAVER:
        out.append(f"{len(leavers)} leavers among {staff} staff at the start of the year")
    out += [f"{where}: {pid} left {people[pid]['left']}, appears {day}"
            for pid, day, where in _appearances(w, docs) if people[pid].get("left") and day > people[pid]["left"]]
    return out


@rule("leavers_hold_no_post",
      "a leaver holds no post (team lead, line manager, system administrator, product manager, project lead or "
      "sponsor, policy approver) and no undated page (profile, team page, charter ...) shows them as current staff")
def _leavers_hold_no_post(w, docs):
    leavers = {p["id"] for p in w["people"] if p.get("left")}
    if not leavers:
        return []
    posts: list[tuple[str, str]] = [(t["lead"], f"lead of {t['id']}") for t in w["teams"]]
    posts += [(p["manager"], f"manager of {p['id']}") for p in w["people"] if p["manager"]]
    posts += [(s["admin"], f"administrator of {s['id']}") for s in w["systems"]]
    posts += [(x["manager"], f"product manager of {x['id']}") for x in w["products"]]
    posts += [(p[k], f"{k} of {p['id']}") for p in w["projects"] for k in ("lead", "sponsor")]
    posts += [(p["approver"], f"approver of {p['id']}") for p in w["policies"]]
    out = [f"{pid} left but is {what}" for pid, what in posts if pid in leavers]
    for doc in docs:
        meta = doc["metadata"]
        if meta.get("date") or meta.get("quarter"):
            continue
        out += [f"{doc['_id']} ({meta['doc_type']}, undated) names leaver {e}" for e in meta["entities"]
                if e in leavers]
    return out


@rule("line_managers_not_all_team_leads",
      f"reporting lines are not all the team page's: at least {MIN_LINE_MANAGED_SHARE:.0%} of the staff who lead "
      "nothing report to a line manager in their team who is not its lead, so a team page does not answer who "
      "someone's manager is")
def _line_managers_not_all_team_leads(w, docs):
    people, teams = _people(w), _teams(w)
    leads = {t["lead"] for t in w["teams"]} | {"P0000"}
    managers = {p["manager"] for p in w["people"] if p["manager"]}
    staff = [p for p in w["people"] if p["id"] not in leads and p["id"] not in managers]
    out = []
    other = 0
    for p in staff:
        lead = teams[p["team"]]["lead"]
        if p["manager"] != lead:
            other += 1
            mgr = people.get(p["manager"] or "")
            if mgr is None or mgr["team"] != p["team"] or mgr["manager"] != lead:
                out.append(f"{p['id']} reports to {p['manager']}, not a line manager of {p['team']} under its lead")
    if staff and other / len(staff) < MIN_LINE_MANAGED_SHARE:
        out.append(f"{other} of {len(staff)} staff report to someone other than their team lead "
                   f"({other / len(staff):.0%} < {MIN_LINE_MANAGED_SHARE:.0%})")
    return out


__all__ = ["goal_base", "role_rank", "root_cause_text"]
