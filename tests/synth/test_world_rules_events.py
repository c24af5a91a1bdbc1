"""How a year's events are distributed (synth/checks/world_rules_events.py): decisions and meetings over the months,
follow-up decisions that change course, incidents on systems by their load, severities in a realistic mix. Each
rule holds on several seeds and sizes (seeds no doc names among them), each catches a world broken its own way,
and the figures describe reports stay inside the rules' bounds."""

from __future__ import annotations

import copy
import functools
from collections import Counter

import pytest

from hcrbench.synth.checks.world_rules import RULES, check_rules
from hcrbench.synth.checks.world_rules_events import MIN_CHANGE_SHARE, SEV1_SHARE, event_figures
from hcrbench.synth.checks.world_rules_year import MAX_REVERSAL_SHARE
from hcrbench.synth.corpus.render import render
from hcrbench.synth.world_model.entities import build_world
from hcrbench.synth.world_model.schedule import iter_specs

EVENTS = [n for n, r in RULES.items() if r.check.__module__.endswith(".world_rules_events")]


@functools.cache
def _world_and_docs(seed: int, n: int) -> tuple[dict, list[dict]]:
    w = build_world(seed, n)
    docs = [render(w, s).row() for s in iter_specs(w)]
    return w.to_json(), docs


@pytest.mark.parametrize("seed, n", [(0, 500), (1, 500), (57, 500), (2718, 500), (613, 2000)])
def test_every_event_rule_holds_and_the_figures_sit_inside_their_bounds(seed, n):
    w, docs = _world_and_docs(seed, n)
    res = check_rules(w, docs, EVENTS)
    assert not any(res.values()), {k: v[:3] for k, v in res.items() if v}
    fig = event_figures(w)
    assert fig["busiest month's share of decisions"] <= 2 / 9  # no July pile (Meridian 4: 77-80%)
    assert MIN_CHANGE_SHARE <= fig["share of follow-up decisions that change course"] <= MAX_REVERSAL_SHARE
    assert fig["top 3 systems' share of incidents"] <= fig["top 3 systems' share of users (expected)"] + 0.15
    assert SEV1_SHARE[0] <= fig["share of severity 1 incidents"] <= SEV1_SHARE[1]
    months = Counter(d["date"][:7] for d in w["decisions"])
    assert len(months) == 9  # every month of January-September 2024 has decisions


@pytest.mark.slow
@pytest.mark.parametrize("seed, n", [(1618, 3500), (91, 6000)])
def test_every_event_rule_holds_on_full_and_larger(seed, n):
    res = check_rules(*_world_and_docs(seed, n), EVENTS)
    assert not any(res.values()), {k: v[:3] for k, v in res.items() if v}


# ------------------------------------------------------------------------------------------- breaks (controls)
def _break_decision_months(w, docs):
    for d in w["decisions"][: len(w["decisions"]) * 3 // 4]:  # Meridian 4's July pile
        d["date"] = "2024-07" + d["date"][7:]


def _break_meeting_months(w, docs):
    for m in w["meetings"]:
        if m["date"][:7] == "2024-04":
            m["date"] = "2024-05" + m["date"][7:]


def _break_repeats(w, docs):
    for d in w["decisions"]:  # every project keeps its first option all year
        d["option"] = int(d["project"][4:]) % 4


def _break_project_month(w, docs):
    p = w["decisions"][0]["project"]
    for k, d in enumerate(w["decisions"][:5]):
        d["project"], d["date"] = p, f"2024-03-{k + 1:02d}"


def _break_load(w, docs):
    small = min(w["systems"][:14], key=lambda s: s["users"])["id"]
    for t in w["tickets"][: len(w["tickets"]) // 3]:  # a little-used system carries a third of the incidents
        t["system"] = small


def _break_severity(w, docs):
    for k, t in enumerate(w["tickets"]):  # Meridian 4's one in six critical
        t["severity"] = [1, 2, 2, 3, 3, 3][k % 6]


EVENT_BREAKS = [
    ("decisions_meetings_spread_over_year", _break_decision_months),
    ("decisions_meetings_spread_over_year", _break_meeting_months),
    ("decisions_change_course_plausibly", _break_repeats),
    ("decisions_change_course_plausibly", _break_project_month),
    ("incidents_follow_system_load", _break_load),
    ("severity_mix_realistic", _break_severity),
]


def test_every_event_rule_has_a_control():
    assert {name for name, _ in EVENT_BREAKS} == set(EVENTS) and len(EVENTS) == 4


@pytest.mark.parametrize("name, brk", EVENT_BREAKS)
def test_each_event_rule_catches_a_world_broken_its_way(name, brk):
    w, docs = copy.deepcopy(_world_and_docs(0, 500))
    assert not check_rules(w, docs, [name])[name]
    brk(w, docs)
    assert check_rules(w, docs, [name])[name], f"{name} did not notice"


def test_meridian_4s_year_breaks_every_event_rule():
    """The year a reader saw in Meridian 4 (most decisions in July, follow-ups that never change course, three
    systems carrying the incidents, one in six critical) fails each rule."""
    w, docs = copy.deepcopy(_world_and_docs(613, 2000))
    _break_decision_months(w, docs)
    _break_repeats(w, docs)
    _break_severity(w, docs)
    top = sorted(w["systems"][:14], key=lambda s: s["users"])[:3]
    for k, t in enumerate(w["tickets"]):
        if k % 3:
            t["system"] = top[k % 3]["id"]
    res = check_rules(w, docs, EVENTS)
    assert all(res[n] for n in ("decisions_meetings_spread_over_year", "decisions_change_course_plausibly",
                                "incidents_follow_system_load", "severity_mix_realistic")), res
