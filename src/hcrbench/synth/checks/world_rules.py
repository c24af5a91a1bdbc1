"""The rules a believable Meridian world keeps, each named once and checked over the world and the corpus.

A rule is a function of the world (the ``world.json`` object, :meth:`World.to_json`) and the corpus rows
(``corpus.jsonl`` objects) that returns one message per violation. :data:`RULES` holds them by name;
:func:`check_rules` runs them all and :func:`violation_counts` gives the figure ``hcrbench describe`` prints
("world rules: 0 violations" per rule). The generator is built to keep every rule; the tests run the rules on
several seeds and every size, and a broken world (each rule has one) shows that the rule can fail.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hcrbench.synth.world_model import lexicon as lx

Check = Callable[[dict[str, Any], list[dict[str, Any]]], list[str]]


@dataclass(frozen=True)
class Rule:
    name: str
    text: str  # what the rule says, in words
    check: Check


RULES: dict[str, Rule] = {}


def rule(name: str, text: str) -> Callable[[Check], Check]:
    def add(fn: Check) -> Check:
        if name in RULES:
            raise ValueError(f"world rule {name!r} defined twice")
        RULES[name] = Rule(name, text, fn)
        return fn
    return add


def check_rules(world: dict[str, Any], docs: Iterable[dict[str, Any]],
                names: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Every violation of every rule (or of ``names``), by rule name, in :data:`RULES` order."""
    docs = list(docs)
    wanted = list(RULES) if names is None else list(names)
    return {n: RULES[n].check(world, docs) for n in wanted}


def violation_counts(world: dict[str, Any], docs: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many violations each rule has (0 everywhere for a world the generator wrote)."""
    return {n: len(v) for n, v in check_rules(world, docs).items()}


def _people(w: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in w["people"]}


def _teams(w: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in w["teams"]}


_PERSON = re.compile(r"P\d{4}")


# ---------------------------------------------------------------------------------------------------- people
@rule("role_fits_team", "every role title fits the person's team (finance roles in Finance Operations, ...)")
def _role_fits_team(w, docs):
    teams = _teams(w)
    out = []
    for p in w["people"]:
        t = teams[p["team"]]
        fits = set(lx.TEAM_ROLES.get(t["name"], ())) | {f"{t['name']} Lead", lx.HEAD_TITLES[t["department"]]}
        if p["id"] == "P0000":
            fits = {"Chief Executive Officer"}
        if p["role"] not in fits:
            out.append(f"{p['id']} {p['name']}: {p['role']} in {t['name']}")
    return out


def _appearances(w: dict[str, Any], docs: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(person, ISO date, where) for every dated appearance: meeting attendance, incident role, decision role,
    and every person a dated document (``metadata.date``) names."""
    out = []
    for m in w["meetings"]:
        out += [(a, m["date"], f"{m['id']} attendee") for a in m["attendees"]]
    for t in w["tickets"]:
        out += [(t[k], t["date"], f"{t['id']} {k}") for k in ("reporter", "assignee")]
    for d in w["decisions"]:
        out += [(d[k], d["date"], f"{d['id']} {k}") for k in ("approver", "owner")]
    for doc in docs:
        day = doc["metadata"].get("date")
        if day:
            out += [(e, day, f"{doc['_id']} ({doc['metadata']['doc_type']})") for e in doc["metadata"]["entities"]
                    if _PERSON.fullmatch(e)]
    return out


@rule("no_appearance_before_joining",
      "nobody attends a meeting, holds an incident or decision role, or is named in a dated document before joining")
def _no_appearance_before_joining(w, docs):
    people = _people(w)
    return [f"{where}: {pid} joined {people[pid]['joined']}, appears {day}"
            for pid, day, where in _appearances(w, docs) if people[pid]["joined"] > day]


# ---------------------------------------------------------------------------------------------------- decisions
@rule("one_decision_per_project_per_day", "at most one decision per project per day")
def _one_decision_per_project_per_day(w, docs):
    seen = Counter((d["project"], d["date"]) for d in w["decisions"])
    return [f"{p} has {n} decisions on {day}" for (p, day), n in sorted(seen.items()) if n > 1]


@rule("reversal_states_reason",
      "a decision that changes an earlier decision on the same project names it and says why")
def _reversal_states_reason(w, docs):
    text = {d["_id"]: d["text"] for d in docs}
    last: dict[str, dict[str, Any]] = {}
    out = []
    for d in sorted(w["decisions"], key=lambda d: (d["date"], int(d["id"].split("-")[1]))):
        prev = last.get(d["project"])
        if prev is not None and prev["option"] != d["option"]:
            body = text.get(f"MER-{d['doc']:06d}", "")
            if d.get("reverses") != prev["id"] or prev["id"] not in body or not d.get("reason"):
                out.append(f"{d['id']} changes {prev['id']} on {d['project']} without naming it and a reason")
            elif d["reason"] not in body:
                out.append(f"{d['id']}: the reason for reversing {prev['id']} is not in the text")
        last[d["project"]] = d
    return out


# ---------------------------------------------------------------------------------------------------- projects
@rule("project_goal_unique", "each project has its own goal")
def _project_goal_unique(w, docs):
    seen = Counter(p["goal"] for p in w["projects"])
    return [f"{n} projects share the goal {g!r}" for g, n in seen.items() if n > 1]


@rule("project_product_in_domain", "a project's goal is about the product it delivers into")
def _project_product_in_domain(w, docs):
    prods = {x["id"]: x for x in w["products"]}
    out = []
    for p in w["projects"]:
        words = lx.PRODUCT_AREA[prods[p["product"]]["name"]]
        if not any(re.search(rf"\b{re.escape(k)}", p["goal"], flags=re.I) for k in words):
            out.append(f"{p['id']}: goal {p['goal']!r} is not about {prods[p['product']]['name']}")
    return out


@rule("no_work_after_completion", "no meeting, decision or incident involves a project after it was completed")
def _no_work_after_completion(w, docs):
    projects = {p["id"]: p for p in w["projects"]}
    out = []
    for kind, events in (("meeting", w["meetings"]), ("decision", w["decisions"]), ("incident", w["tickets"])):
        for e in events:
            p = projects.get(e.get("project") or "")
            if p is not None and p["status"].get(_quarter(e["date"])) == "completed":
                out.append(f"{e['id']}: {kind} on {p['id']} on {e['date']}, completed in {_quarter(e['date'])}")
    return out


# ---------------------------------------------------------------------------------------------------- systems
@rule("system_users_within_staff", "no system has more users than the company has staff (leavers gone)")
def _system_users_within_staff(w, docs):
    staff = sum(not p.get("left") for p in w["people"])
    return [f"{s['id']} {s['name']}: {s['users']} users, {staff} staff" for s in w["systems"] if s["users"] > staff]


@rule("incident_assigned_in_owning_team",
      "an incident is assigned within the team that owns the system, unless its text says it was escalated")
def _incident_assigned_in_owning_team(w, docs):
    people, systems = _people(w), {s["id"]: s for s in w["systems"]}
    text = {d["_id"]: d["text"] for d in docs}
    out = []
    for t in w["tickets"]:
        if people[t["assignee"]]["team"] == systems[t["system"]]["owner_team"]:
            continue
        if "escalated" not in text.get(f"MER-{t['doc']:06d}", "").lower():
            out.append(f"{t['id']}: assignee {t['assignee']} is outside {systems[t['system']]['owner_team']}")
    return out


# ---------------------------------------------------------------------------------------------------- documents
@rule("document_titles_unique", "no two documents share a title (versions and dates are in the titles)")
def _document_titles_unique(w, docs):
    seen = Counter(d["title"] for d in docs)
    return [f"{n} documents titled {t!r}" for t, n in seen.items() if n > 1]


_STATUS = "|".join(lx.STATUSES)
_COMPLETED_AHEAD = re.compile(r"\bcompleted\b[^.\n]*\b(?:heading towards|working towards|aiming for|on the way to)\b")
_STILL_OPEN = re.compile(r"\bTop risk:|\bre-baseline\b|\bnext milestone\b")
_SCHEDULE_GOOD = re.compile(r"\b(?:on schedule|ahead of schedule|on time|on track)\b")


def _quarter(day: str) -> str:
    return f"{day[:4]}-Q{(int(day[5:7]) - 1) // 3 + 1}"


@rule("no_self_contradiction",
      "no sentence contradicts itself or its dated document (a completed project heading for a milestone, a "
      "project status other than the world's for the document's quarter, good schedule news in a late report, open "
      "risks in a completed project's report, "
      "meeting notes confirming a decision not yet taken)")
def _no_self_contradiction(w, docs):
    projects = {p["id"]: p for p in w["projects"]}
    decided = {d["id"]: d["date"] for d in w["decisions"]}
    out = [f"{m['id']} ({m['date']}) confirms {m['decision']}, taken {decided[m['decision']]}"
           for m in w["meetings"] if m.get("decision") and decided[m["decision"]] > m["date"]]
    for d in docs:
        text, meta = d["text"], d["metadata"]
        for m in _COMPLETED_AHEAD.finditer(text):
            out.append(f"{d['_id']}: {text[max(0, m.start() - 40):m.end()]!r}")
        day = meta.get("date") or (lx.QUARTER_START_ISO[meta["quarter"]] if meta.get("quarter") else None)
        if not day:
            continue
        for e in meta["entities"]:
            p = projects.get(e)
            if p is None or _quarter(day) not in p["status"]:
                continue
            want = p["status"][_quarter(day)]
            pat = rf"\b{re.escape(p['code_name'])}\b (?:is|was|closed|remains)\b[^.\n]*?\b({_STATUS})\b"
            for m in re.finditer(pat, text):
                if m.group(1) != want:
                    out.append(f"{d['_id']}: {p['code_name']} stated {m.group(1)!r}, world says {want!r} "
                               f"for {_quarter(day)}")
            if meta["doc_type"] == "project_status" and want == "completed":
                for m in _STILL_OPEN.finditer(text):
                    out.append(f"{d['_id']}: {p['code_name']} is completed but the text says {m.group(0)!r}")
            if meta["doc_type"] in ("project_status", "project_update") and want in ("at risk", "delayed", "on hold"):
                for m in _SCHEDULE_GOOD.finditer(text):
                    out.append(f"{d['_id']}: {p['code_name']} is {want} but the text says {m.group(0)!r}")
    return out


@rule("policy_version_changes_figure", "every new version of a policy changes at least one figure")
def _policy_version_changes_figure(w, docs):
    out = []
    for p in w["policies"]:
        for v in range(1, len(p["effective"])):
            if all(prm["values"][v] == prm["values"][v - 1] for prm in p["params"]):
                out.append(f"{p['id']} version {v + 1} changes no figure")
    return out


# The rules of a believable year and of how its events are distributed register themselves into RULES (after
# Meridian 3's, in this order).
from hcrbench.synth.checks import world_rules_events, world_rules_year  # noqa: E402,F401

__all__ = ["RULES", "Rule", "check_rules", "rule", "violation_counts"]
