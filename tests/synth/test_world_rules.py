"""Meridian's world rules (synth/checks/world_rules.py): every rule holds on every size over five seeds, and each rule
catches a world broken in its own way (a rule that cannot fail checks nothing)."""

from __future__ import annotations

import copy
import subprocess

import pytest

from hcrbench.synth.checks.world_rules import RULES, check_rules, violation_counts
from hcrbench.synth.corpus.render import render
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import build_world
from hcrbench.synth.world_model.schedule import iter_specs

SEEDS = [0, 1, 2, 3, 4]


def _world_and_docs(seed: int, n: int) -> tuple[dict, list[dict]]:
    w = build_world(seed, n)
    docs = [render(w, s).row() for s in iter_specs(w)]
    return w.to_json(), docs


def _assert_clean(seed: int, n: int) -> None:
    res = check_rules(*_world_and_docs(seed, n))
    assert not any(res.values()), {k: v[:3] for k, v in res.items() if v}


@pytest.mark.parametrize("seed", SEEDS)
def test_every_world_rule_holds_on_small(seed):
    _assert_clean(seed, 500)


@pytest.mark.slow
@pytest.mark.parametrize("size", [2000, 3500])
@pytest.mark.parametrize("seed", SEEDS)
def test_every_world_rule_holds_on_medium_and_full(seed, size):
    _assert_clean(seed, size)


@pytest.fixture(scope="module")
def good() -> tuple[dict, list[dict]]:
    return _world_and_docs(7, 620)  # a seed and a size no other test uses


def test_the_registry_names_each_rule_once_with_its_words(good):
    assert len(RULES) >= 11 and all(r.text and r.name == k for k, r in RULES.items())
    assert list(violation_counts(*good)) == list(RULES)
    assert set(violation_counts(*good).values()) == {0}


def _person_in(w: dict, team_name: str) -> dict:
    team = next(t for t in w["teams"] if t["name"] == team_name)
    return next(p for p in w["people"] if p["team"] == team["id"] and p["id"] != team["lead"])


def _doc(docs: list[dict], doc_index: int) -> dict:
    return docs[doc_index]


def _break_role(w, docs):
    _person_in(w, "Finance Operations")["role"] = "Communications Manager"


def _break_joining(w, docs):
    m = w["meetings"][0]
    next(p for p in w["people"] if p["id"] == m["attendees"][-1])["joined"] = "2024-12-01"


def _break_decision_day(w, docs):
    a, b = w["decisions"][0], w["decisions"][1]
    b["project"], b["date"] = a["project"], a["date"]


def _break_reversal(w, docs):
    d = next(d for d in w["decisions"] if d["reverses"])
    doc = _doc(docs, d["doc"])
    doc["text"] = doc["text"].replace(d["reverses"], "an earlier record")


def _break_goal_unique(w, docs):
    w["projects"][1]["goal"] = w["projects"][0]["goal"]
    w["projects"][1]["product"] = w["projects"][0]["product"]


def _break_goal_domain(w, docs):
    w["projects"][0]["goal"] = "redesign the employee intranet"


def _break_completed(w, docs):
    m = w["meetings"][0]
    next(p for p in w["projects"] if p["id"] == m["project"])["status"]["2024-Q" + str((int(m["date"][5:7]) + 2) // 3)] \
        = "completed"


def _break_users(w, docs):
    w["systems"][0]["users"] = len(w["people"]) + 1


def _break_assignee(w, docs):
    t = next(t for t in w["tickets"] if not t["escalated_to"])
    owner = next(s for s in w["systems"] if s["id"] == t["system"])["owner_team"]
    t["assignee"] = next(p["id"] for p in w["people"] if p["team"] != owner and p["joined"] < "2024")


def _break_titles(w, docs):
    docs[1]["title"] = docs[0]["title"]


def _break_contradiction(w, docs):
    p = w["projects"][0]
    docs[3]["text"] += f"\n{p['code_name']} is as of this note completed, on the way to pilot with three customers."


def _break_dated_status(w, docs):
    doc = next(d for d in docs if d["metadata"]["doc_type"] == "project_status")
    p = next(p for p in w["projects"] if p["id"] == doc["metadata"]["entities"][0])
    wrong = next(s for s in lx.STATUSES if s != p["status"][doc["metadata"]["quarter"]])
    doc["text"] += f"\n{p['code_name']} was reported as {wrong}."


def _break_policy(w, docs):
    for prm in w["policies"][0]["params"]:
        prm["values"][1] = prm["values"][0]


BREAKS = {
    "role_fits_team": _break_role, "no_appearance_before_joining": _break_joining,
    "one_decision_per_project_per_day": _break_decision_day, "reversal_states_reason": _break_reversal,
    "project_goal_unique": _break_goal_unique, "project_product_in_domain": _break_goal_domain,
    "no_work_after_completion": _break_completed, "system_users_within_staff": _break_users, "incident_assigned_in_owning_team": _break_assignee,
    "document_titles_unique": _break_titles, "no_self_contradiction": _break_contradiction,
    "policy_version_changes_figure": _break_policy,
}


def _break_completed_report(w, docs):
    doc = next(d for d in docs if d["metadata"]["doc_type"] == "project_status"
               and next(p for p in w["projects"] if p["id"] == d["metadata"]["entities"][0])["status"][
                   d["metadata"]["quarter"]] == "completed")
    doc["text"] += "\n- Top risk: vendor delivery dates keep slipping."


def _break_meeting_before_decision(w, docs):
    m = next(m for m in w["meetings"] if m["decision"])
    m["date"] = "2024-01-01"


@pytest.mark.parametrize("name, brk", [*BREAKS.items(), ("no_self_contradiction", _break_dated_status),
                                       ("no_self_contradiction", _break_meeting_before_decision),
                                       ("no_self_contradiction", _break_completed_report)])
def test_each_rule_catches_a_world_broken_its_way(good, name, brk):
    w, docs = copy.deepcopy(good)
    brk(w, docs)
    assert check_rules(w, docs, [name])[name], f"{name} did not notice"


def test_every_rule_has_a_control():  # the year's rules have theirs in test_world_rules_year.py
    assert set(BREAKS) == {n for n, r in RULES.items() if r.check.__module__.endswith(".world_rules")}


def test_role_table_keeps_finance_and_communications_apart():
    finance = ("Financ", "Controller", "Accountant", "Payroll")
    comms = ("Communications", "Content", "Editor")
    for team, roles in lx.TEAM_ROLES.items():
        for role in roles:
            assert team == "Finance Operations" or not any(w in role for w in finance), (team, role)
            assert team == "Internal Communications" or not any(w in role for w in comms), (team, role)
    assert {name for name, _, _ in lx.TEAMS} == set(lx.TEAM_ROLES)


def test_describe_prints_every_world_rule_with_zero_violations(tmp_path, meridian_copy):
    out = tmp_path / "m"
    meridian_copy(out, "small", seed=3, grow=True)
    res = subprocess.run(["hcrbench", "describe", str(out)], capture_output=True, text=True)
    text = " ".join(res.stdout.split())
    for name in RULES:
        assert f"world rule: {name} │ 0 │" in text, name
    assert "share of text stating world facts" in text
    assert "documents using another subject's vocabulary │ 0 │" in text
    assert "share of severity 1 incidents" in text and "busiest month's share of decisions" in text
