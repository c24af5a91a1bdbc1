"""World rules on worlds the query suite grows (issue 35: a 3,000-query suite is written on ~24,000+ documents).

The decision calendar (schedule_base._event_date) crowds late September as the corpus grows; once a day holds
decisions on a quarter of the projects, decisions go to days of the year with room (schedule_year.DAY_SHARE).
Worlds up to 6,000 documents never fill a day, so they are the worlds the suite growth was calibrated on."""

from __future__ import annotations

import functools
import itertools
from collections import Counter

import pytest

from hcrbench.synth.render import render
from hcrbench.synth.schedule import iter_specs
from hcrbench.synth.schedule_base import CORE_DECISIONS, _event_date
from hcrbench.synth.schedule_year import DAY_SHARE
from hcrbench.synth.world import build_world
from hcrbench.synth.world_rules import check_rules

# the rules a world's events alone decide (no document text needed)
EVENT_RULES = ["one_decision_per_project_per_day", "no_work_after_completion", "no_appearance_before_joining",
               "no_appearance_after_leaving", "decision_reversals_rare"]


@functools.cache  # (the worlds are read, never changed: two tests share the 12,000-document one)
def _scheduled(seed: int, n: int):
    w = build_world(seed, n)
    for _ in iter_specs(w):
        pass
    return w


@pytest.mark.parametrize("seed", [0, 3])
def test_no_decision_leaves_its_calendar_day_up_to_6000_documents(seed):
    w = _scheduled(seed, 6000)
    assert [d["date"] for d in w.decisions] == [_event_date(k, CORE_DECISIONS) for k in range(len(w.decisions))]


@pytest.mark.parametrize("seed", [0, 5])
def test_decisions_keep_the_event_rules_once_the_calendar_fills(seed):
    w = _scheduled(seed, 12000)
    moved = [d for k, d in enumerate(w.decisions) if d["date"] != _event_date(k, CORE_DECISIONS)]
    assert len(moved) > 100  # the calendar did fill: the decisions with room are what is tested
    assert len({d["date"][:7] for d in moved}) == 9  # spread over January to September, not piled at its end
    res = check_rules(w.to_json(), [], EVENT_RULES)
    assert not any(res.values()), {k: v[:3] for k, v in res.items() if v}
    per_day = Counter(d["date"] for d in w.decisions)
    assert max(per_day.values()) <= DAY_SHARE * len(w.projects)


def test_a_decision_between_earlier_ones_keeps_the_course_in_effect():
    w = _scheduled(5, 12000)
    by_project: dict[str, list[dict]] = {}
    for d in sorted(w.decisions, key=lambda d: d["date"]):
        by_project.setdefault(d["project"], []).append(d)
    inserted = 0
    for ds in by_project.values():
        for a, b in itertools.pairwise(ds):
            if int(b["id"][4:]) < int(a["id"][4:]):  # ``a`` was decided later but dated before ``b``
                inserted += 1
            assert (b["option"] != a["option"]) == (b["reverses"] == a["id"]), (a, b)
    assert inserted > 0


@pytest.mark.slow
@pytest.mark.parametrize("seed, n", [(1, 24000), (7, 30000)])
def test_every_world_rule_holds_on_a_world_grown_for_thousands_of_queries(seed, n):
    w = build_world(seed, n)
    docs = [render(w, s).row() for s in iter_specs(w)]
    res = check_rules(w.to_json(), docs)
    assert not any(res.values()), {k: v[:3] for k, v in res.items() if v}
