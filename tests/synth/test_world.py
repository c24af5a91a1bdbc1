"""Meridian 2's world is plausible by construction; each constraint is checked here on the written files
(world.json, corpus.jsonl), on several seeds."""

from __future__ import annotations

import itertools
import json
import re
from datetime import date
from pathlib import Path

import pytest

from hcrbench.data import iter_jsonl
from hcrbench.synth import generate_meridian
from hcrbench.synth.corpus.text import MONTHS
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.lexicon_growth import GROWTH_POLICY_TOPICS, GROWTH_SYSTEM_OWNERS

ALLOWED = {"on track": {"on track", "at risk", "completed"}, "at risk": {"on track", "delayed", "at risk"},
           "delayed": {"at risk", "on hold", "delayed"}, "on hold": {"on hold", "delayed"}, "completed": {"completed"}}


@pytest.fixture(scope="module", params=[1, pytest.param(4, marks=pytest.mark.slow)])
def folder(request, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp(f"world-{request.param}") / "m"
    generate_meridian(out, 900, seed=request.param, grow=True)
    return out


@pytest.fixture(scope="module")
def world(folder) -> dict:
    return json.loads((folder / "world.json").read_text())


def _docs(folder: Path, doc_type: str) -> list[dict]:
    return [d for _, d in iter_jsonl(folder / "corpus.jsonl") if d["metadata"]["doc_type"] == doc_type]


def test_systems_are_owned_and_administered_by_fitting_teams(world):
    people = {p["id"]: p for p in world["people"]}
    heads = {"P0000"} | {t["lead"] for t in world["teams"]}
    assert len(world["systems"]) > len(lx.SYSTEMS)  # 900 documents: the world has grown systems
    for s in world["systems"]:
        assert s["owner_team"] == lx.SYSTEM_OWNERS.get(s["name"], GROWTH_SYSTEM_OWNERS.get(s["kind"]))
        assert people[s["admin"]]["team"] == s["owner_team"] and s["admin"] not in heads


def test_project_leads_and_sponsors_fit(world):
    teams = {t["id"]: t for t in world["teams"]}
    people = {p["id"]: p for p in world["people"]}
    for p in world["projects"]:
        lead = people[p["lead"]]
        assert teams[lead["team"]]["domain"] in ("engineering", "products", "projects", "it")
        dept = teams[lead["team"]]["department"]
        head = next(t["lead"] for t in world["teams"] if t["department"] == dept)
        assert p["sponsor"] == head and p["team"] == lead["team"]


def test_reporting_lines_form_a_tree_that_matches_team_pages(folder, world):
    people = {p["id"]: p for p in world["people"]}
    teams = {t["id"]: t for t in world["teams"]}
    for pid, p in people.items():
        seen, cur = set(), pid
        while people[cur]["manager"] is not None:  # reaches the CEO without a cycle
            assert cur not in seen
            seen.add(cur)
            cur = people[cur]["manager"]
        assert cur == "P0000"
        lead = teams[p["team"]]["lead"]
        if pid != "P0000" and lead != pid:  # the team lead, or a line manager of the team who reports to the lead
            mgr = people[p["manager"]]
            assert p["manager"] == lead or (mgr["team"] == p["team"] and mgr["manager"] == lead)
    names = {p["name"]: p for p in world["people"]}
    for doc in _docs(folder, "team_page"):
        team = next(t for t in world["teams"] if doc["text"].startswith(t["name"] + " team"))
        rows = re.findall(r"^\| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", doc["text"], flags=re.M)[1:]
        for name, role, loc in rows:
            p = names[name.strip()]
            assert p["team"] == team["id"] and p["role"] == role.strip() and p["location"] == loc.strip()
            assert p["id"] not in ("P0000", team["lead"])
        assert people[team["lead"]]["name"] in doc["text"]


def test_milestones_and_statuses_move_forward(world):
    for p in world["projects"]:
        steps = [lx.MILESTONES.index(p["milestone"][q]) for q in lx.QUARTERS]
        assert steps == sorted(steps)
        st = [p["status"][q] for q in lx.QUARTERS]
        assert all(b in ALLOWED[a] for a, b in itertools.pairwise(st))


def test_joiners_are_announced_once_and_joined_this_year(folder, world):
    people = {p["name"]: p for p in world["people"]}
    announced: list[str] = []
    for doc in _docs(folder, "team_news"):
        for name in re.findall(r"^(.+?) joined Meridian on", doc["text"], flags=re.M):
            announced.append(name)
            assert people[name]["joined"].startswith("2024-")
    assert announced and len(announced) == len(set(announced))


def test_numbers_grow_with_dates_and_digests_list_only_their_week(folder, world):
    for events, key in ((world["tickets"], "id"), (world["decisions"], "id")):
        ordered = sorted(events, key=lambda e: int(e[key].split("-")[1]))
        dates = [e["date"] for e in ordered]
        assert dates == sorted(dates) and dates[0] >= "2024-01-01" and dates[-1] <= "2024-09-30"
    for doc in _docs(folder, "ops_digest"):
        start, end = re.search(r"\((\d+ \w+ 2024) to (\d+ \w+ 2024)\)", doc["text"]).groups()
        a, b = (date.fromisoformat(_iso(x)) for x in (start, end))
        want = {t["id"] for t in world["tickets"] if a <= date.fromisoformat(t["date"]) <= b}
        assert set(re.findall(r"INC-\d+", doc["text"])) == want


def _iso(human: str) -> str:
    d, m, y = human.split()
    return f"{y}-{MONTHS.index(m) + 1:02d}-{int(d):02d}"


def test_policy_figures_stay_in_realistic_ranges(world):
    topics = {t[2]: t for t in lx.POLICY_TOPICS + GROWTH_POLICY_TOPICS}
    assert len(world["policies"]) > len(lx.POLICY_TOPICS)  # 900 documents: the world has grown policies
    for pol in world["policies"]:
        for prm, (_, unit, lo, hi) in zip(pol["params"], topics[pol["concept"]][4], strict=True):
            assert prm["unit"] == unit and all(lo <= v <= hi + 10 for v in prm["values"])
        assert pol["effective"] == sorted(pol["effective"])
