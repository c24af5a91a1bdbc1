"""Meridian 4's rules of a believable year (synth/checks/world_rules_year.py): each holds on every size over several
seeds (seeds 0-4 and seeds no doc names), and each catches a world broken its own way."""

from __future__ import annotations

import copy
import re
from collections import Counter

import pytest

from hcrbench.synth.checks.world_rules import RULES, check_rules
from hcrbench.synth.checks.world_rules_year import goal_base, role_rank, root_cause_text
from hcrbench.synth.corpus.render import render
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import build_world
from hcrbench.synth.world_model.schedule import iter_specs

YEAR = [n for n, r in RULES.items() if r.check.__module__.endswith(".world_rules_year")]


def _world_and_docs(seed: int, n: int) -> tuple[dict, list[dict]]:
    w = build_world(seed, n)
    docs = [render(w, s).row() for s in iter_specs(w)]
    return w.to_json(), docs


def _assert_clean(seed: int, n: int) -> None:
    res = check_rules(*_world_and_docs(seed, n), YEAR)
    assert not any(res.values()), {k: v[:3] for k, v in res.items() if v}


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 57])
def test_every_year_rule_holds_on_small(seed):
    _assert_clean(seed, 500)


@pytest.mark.slow
@pytest.mark.parametrize("size", [2000, 3500])
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 91])
def test_every_year_rule_holds_on_medium_and_full(seed, size):
    _assert_clean(seed, size)


@pytest.fixture(scope="module")
def good() -> tuple[dict, list[dict]]:
    return _world_and_docs(5, 1400)  # a seed and a size no other test uses (growth documents included)


def test_the_year_rules_hold_on_the_control_world_and_it_has_what_they_test(good):
    w, docs = good
    res = check_rules(w, docs, YEAR)
    assert len(YEAR) == 12 and not any(res.values()), {k: v[:3] for k, v in res.items() if v}
    assert any(p.get("left") for p in w["people"]) and any(p.get("promoted") for p in w["people"])
    assert any(d["reverses"] for d in w["decisions"])
    assert any(d["metadata"]["doc_type"] == "ops_digest" and "INC-" in d["text"] for d in docs)


# ------------------------------------------------------------------------------------------- breaks (controls)
def _break_reversals(w, docs):
    ds = [d for d in w["decisions"] if d["project"] == Counter(x["project"] for x in w["decisions"]).most_common(1)[0][0]]
    for k, d in enumerate(ds):  # the busiest project changes course at every decision
        d["option"] = k % 4
        d["reason"] = "a reason"


def _break_spread(w, docs):
    for t in w["tickets"][: len(w["tickets"]) // 2]:
        t["date"] = "2024-08-15"


def _break_digest(w, docs):
    doc = next(d for d in docs if d["metadata"]["doc_type"] == "ops_digest" and "INC-" in d["text"])
    iid = re.search(r"INC-\d+", doc["text"]).group(0)
    doc["text"] = doc["text"].replace(iid, "INC-99999")


def _break_root_cause(w, docs):
    w["tickets"][1]["cause"] = w["tickets"][0]["cause"]


def _break_spend(w, docs):
    doc = next(d for d in docs if d["metadata"]["doc_type"] == "project_status" and d["metadata"]["quarter"] == "2024-Q3")
    doc["text"] = re.sub(r"Spend to date is \d+%", "Spend to date is 1%", doc["text"])


def _break_completed(w, docs):
    doc = next(d for d in docs if d["metadata"]["doc_type"] == "announcement"
               and any(e.startswith("PRJ") for e in d["metadata"]["entities"]))
    p = next(p for p in w["projects"] if p["id"] in doc["metadata"]["entities"])
    p["status"] = {q: "completed" for q in p["status"]}
    doc["text"] += "\nPriya Raman joined the core team this month to help with testing."


def _break_goals(w, docs):
    w["projects"][1]["goal"] = goal_base(w["projects"][0]["goal"]) + " in Latin America"


def _break_reminder(w, docs):
    doc = next(d for d in docs if d["metadata"]["doc_type"] == "announcement"
               and any(e[:3] in ("HR-", "IT-", "ENG", "CMP") for e in d["metadata"]["entities"]))
    pol = next(p for p in w["policies"] if p["id"] in doc["metadata"]["entities"])
    other = next(p["id"] for p in w["people"] if p["team"] != pol["owner_team"])
    doc["metadata"]["entities"].append(other)


def _break_promotion(w, docs):
    p = next(p for p in w["people"] if p.get("promoted"))
    p["promoted"]["from"] = p["role"]


def _break_leaving(w, docs):
    m = w["meetings"][-1]
    p = next(p for p in w["people"] if p["id"] == m["attendees"][-1])
    p["left"] = "2024-01-01"


def _break_post(w, docs):
    s = w["systems"][0]
    next(p for p in w["people"] if p["id"] == s["admin"])["left"] = "2024-09-01"


def _break_line_managers(w, docs):
    teams = {t["id"]: t for t in w["teams"]}
    for p in w["people"]:
        if p["manager"] and p["id"] != teams[p["team"]]["lead"] and p["role"] not in lx.LINE_MANAGER_ROLE.values():
            p["manager"] = teams[p["team"]]["lead"]


YEAR_BREAKS = {
    "decision_reversals_rare": _break_reversals, "incidents_spread_over_year": _break_spread,
    "digest_lists_its_week": _break_digest, "root_cause_identifies_incident": _break_root_cause,
    "spend_never_falls": _break_spend, "completed_projects_stop": _break_completed,
    "project_goals_distinct": _break_goals, "policy_reminder_signed_by_owner": _break_reminder,
    "promotions_move_up": _break_promotion, "no_appearance_after_leaving": _break_leaving,
    "leavers_hold_no_post": _break_post, "line_managers_not_all_team_leads": _break_line_managers,
}


def test_every_year_rule_has_a_control():
    assert set(YEAR_BREAKS) == set(YEAR)


@pytest.mark.parametrize("name, brk", YEAR_BREAKS.items())
def test_each_year_rule_catches_a_world_broken_its_way(good, name, brk):
    w, docs = copy.deepcopy(good)
    assert not check_rules(w, docs, [name])[name]
    brk(w, docs)
    assert check_rules(w, docs, [name])[name], f"{name} did not notice"


def test_nobody_leaving_is_a_violation(good):
    w, docs = copy.deepcopy(good)
    for p in w["people"]:
        p["left"] = None
    assert check_rules(w, docs, ["no_appearance_after_leaving"])["no_appearance_after_leaving"]


def test_ladders_rank_each_promotion_above_the_role_it_leaves():
    for team, below in lx.PROMOTIONS.items():
        for role, prev in below.items():
            assert role in lx.TEAM_ROLES[team] and prev in lx.TEAM_ROLES[team]
            assert role_rank(team, role) == role_rank(team, prev) + 1


def test_goal_pools_have_distinct_bases_about_their_product():
    bases = [g for gs in lx.PRODUCT_GOALS.values() for g in gs]
    assert len(bases) == len(set(bases)) and all(goal_base(g) == g for g in bases)
    assert all(len(gs) >= 15 for gs in lx.PRODUCT_GOALS.values())


def test_root_causes_name_their_system_and_never_repeat(good):
    w, _ = good
    systems = {s["id"]: s["name"] for s in w["systems"]}
    causes = [root_cause_text(t) for t in w["tickets"]]
    assert len(causes) == len(set(causes)) > 100
    assert all(systems[t["system"]] in root_cause_text(t) for t in w["tickets"])
