"""World rules on worlds the query suite grows (issue 35: a 3,000-query suite is written on ~24,000+ documents).

Decision k is planned for a golden-ratio day of the year (schedule_year.YearSpecs._decision_day), on a project with
room that day; a day holds decisions on at most a quarter of the projects (schedule_year.DAY_SHARE), and a project
at most three a month, so the decisions of a very large world spread over the year and its projects."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from datetime import timedelta

import pytest

from hcrbench.synth.checks.world_rules import check_rules
from hcrbench.synth.corpus.render import render
from hcrbench.synth.world_model.entities import build_world
from hcrbench.synth.world_model.schedule import iter_specs
from hcrbench.synth.world_model.schedule_year import DAY_SHARE, DECISIONS_PER_DAY, FIRST_DAY

# the rules a world's events alone decide (no document text needed)
EVENT_RULES = ["one_decision_per_project_per_day", "no_work_after_completion", "no_appearance_before_joining",
               "no_appearance_after_leaving", "decision_reversals_rare", "decisions_meetings_spread_over_year",
               "decisions_change_course_plausibly", "incidents_follow_system_load", "severity_mix_realistic"]


@functools.cache  # (the worlds are read, never changed: two tests share the 12,000-document one)
def _scheduled(seed: int, n: int):
    w = build_world(seed, n)
    for _ in iter_specs(w):
        pass
    return w


@pytest.mark.parametrize("seed", [0, 3])
def test_decision_numbers_grow_with_their_days_up_to_6000_documents(seed):
    w = _scheduled(seed, 6000)
    for d in w.decisions:  # DEC-(1000 + 20 x day + n): the number says the day
        day = (int(d["id"][4:]) - 1000) // DECISIONS_PER_DAY
        assert d["date"] == (FIRST_DAY + timedelta(days=day)).isoformat(), d
    months = Counter(d["date"][:7] for d in w.decisions)
    assert len(months) == 9 and max(months.values()) <= 2 * len(w.decisions) / 9


@pytest.mark.parametrize("seed", [0, 5])
def test_decisions_keep_the_event_rules_in_a_very_large_world(seed):
    w = _scheduled(seed, 12000)
    res = check_rules(w.to_json(), [], EVENT_RULES)
    assert not any(res.values()), {k: v[:3] for k, v in res.items() if v}
    per_day = Counter(d["date"] for d in w.decisions)
    assert max(per_day.values()) <= DAY_SHARE * len(w.projects)
    per_month = Counter((d["project"], d["date"][:7]) for d in w.decisions)
    assert max(per_month.values()) <= 3


def test_a_decision_between_earlier_ones_keeps_the_course_in_effect():
    w = _scheduled(5, 12000)
    by_project: dict[str, list[dict]] = {}
    for d in sorted(w.decisions, key=lambda d: d["date"]):
        by_project.setdefault(d["project"], []).append(d)
    inserted = 0
    for ds in by_project.values():
        for a, b in itertools.pairwise(ds):
            if b["doc"] < a["doc"]:  # ``a`` was planned later but dated before ``b``
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
