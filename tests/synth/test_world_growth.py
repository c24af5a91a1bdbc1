"""Meridian 4's growing world (issue 35 items 1-2): after the core block the corpus adds IT systems and versioned
policies (``lexicon_growth``), each with its own documents, so a bigger corpus holds more independent topics; and
from medium up, a 300-query suite meets the topic targets in every split (>= 2/3 of the queries in distinct
clusters, no relevant-document or needed-fact set repeated within a split, no entity in two splits)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import pytest

from hcrbench.data import iter_jsonl
from hcrbench.synth import generate_meridian
from hcrbench.synth.checks.describe_topics import topic_props
from hcrbench.synth.questions.planner import JoinBudget
from hcrbench.synth.questions.topics import MIN_DISTINCT_SHARE
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import (
    CORE_DOCS,
    LEXICON_POLICIES,
    LEXICON_SYSTEMS,
    build_world,
    policies_at,
    systems_at,
)
from hcrbench.synth.world_model.lexicon_growth import (
    GROWTH_POLICY_TOPICS,
    GROWTH_SYSTEM_OWNERS,
    GROWTH_SYSTEMS,
)
from hcrbench.synth.world_model.schedule import iter_specs


@pytest.mark.parametrize("seed", [0, 7])
def test_systems_and_policies_grow_with_the_corpus_and_a_bigger_world_extends_a_smaller_one(seed):
    worlds = [build_world(seed, n) for n in (CORE_DOCS, 2000, 3500)]
    small, medium, full = worlds
    assert (len(small.systems), len(small.policies)) == (LEXICON_SYSTEMS, LEXICON_POLICIES)
    assert len(small.systems) < len(medium.systems) <= len(full.systems) <= LEXICON_SYSTEMS + len(GROWTH_SYSTEMS)
    assert len(small.policies) < len(medium.policies) <= len(full.policies)
    assert len(full.policies) <= LEXICON_POLICIES + len(GROWTH_POLICY_TOPICS)
    for a, b in ((small, medium), (medium, full)):  # the smaller world's entities, unchanged
        assert [asdict(x) for x in b.systems[:len(a.systems)]] == [asdict(x) for x in a.systems]
        assert [asdict(x) for x in b.policies[:len(a.policies)]] == [asdict(x) for x in a.policies]
        assert b.key_entities == a.key_entities


@pytest.mark.parametrize("seed", [0, 3])
def test_grown_entities_are_distinct_and_fit_their_owners(seed):
    w = build_world(seed, 3500)
    people = {p.id: p for p in w.people}
    leads = {"P0000"} | {t.lead for t in w.teams}
    for group, key in ((w.systems, "name"), (w.systems, "kind"), (w.systems, "id"), (w.policies, "id"),
                       (w.policies, "title"), (w.policies, "concept")):
        values = [getattr(x, key) for x in group]
        assert len(set(values)) == len(values), (key, Counter(values).most_common(2))
    for s in w.systems[LEXICON_SYSTEMS:]:
        assert s.owner_team == GROWTH_SYSTEM_OWNERS[s.kind] and people[s.admin].team == s.owner_team
        assert s.admin not in leads and not people[s.admin].left
    growth_admins = [s.admin for s in w.systems[LEXICON_SYSTEMS:]]
    assert len(set(growth_admins)) == len(growth_admins)  # each administers one grown system
    for p in w.policies[LEXICON_POLICIES:]:
        forms = lx.SYNONYMS[p.concept]
        assert p.term in forms and p.approver == w.teams[int(p.owner_team[1:])].lead
        # a vocabulary-mismatch question has another form of the concept to ask with
        assert [f for f in forms if f.lower() not in p.title.lower() and f.lower() != p.term.lower()]


def test_every_grown_entity_has_its_documents_and_events_only_use_what_exists():
    w = build_world(2, 2000)
    specs = list(iter_specs(w))
    overviews = Counter(s.ref["system"] for s in specs if s.doc_type == "system_overview")
    versions = Counter((s.ref["policy"], s.ref["version"]) for s in specs
                       if s.doc_type == "policy" and not s.ref.get("stale"))
    stale = Counter((s.ref["policy"], s.ref["version"]) for s in specs if s.ref.get("stale"))
    assert all(n == 1 and v < 2 for (_, v), n in stale.items())  # a superseded copy: at most one, never the current
    assert all(overviews[s.id] == 1 for s in w.systems)
    assert all(versions[(p.id, v)] == 1 for p in w.policies for v in range(3))
    order = {s.id: k for k, s in enumerate(w.systems)}
    porder = {p.id: k for k, p in enumerate(w.policies)}
    for s in specs:
        if s.doc_type == "incident":
            assert order[w.tickets[s.ref["ticket"]]["system"]] < systems_at(s.index + 1)
        if s.doc_type == "announcement" and s.ref.get("topic") == "policy":
            assert porder[s.ref["policy"]] < policies_at(s.index)
    assert any(order[t["system"]] >= LEXICON_SYSTEMS for t in w.tickets)  # grown systems do have incidents


def test_a_draw_that_opens_a_new_topic_always_fits_the_join_budget():
    slots = [("detail", "easy", k, "tune") for k in range(30)]
    budget = JoinBudget(slots)
    for _ in range(12):  # joins spent outside the budget (a fallback) exhaust it ...
        budget.add("tune", 1)
    assert not budget.fits("tune", 1)
    assert budget.fits("tune", 0)  # ... yet a new topic still fits: it never widens the deficit
    fresh = JoinBudget(slots)
    assert fresh.fits("tune", 1) and not fresh.fits("tune", 30)


def _topic_figures(out: Path) -> tuple[dict, dict]:
    metas = [o for _, o in iter_jsonl(out / "queries.meta.jsonl")]
    props, table = topic_props(metas, json.loads((out / "world.json").read_text()))
    return {p["property"]: p["measured"] for p in props}, table


@pytest.mark.slow
@pytest.mark.parametrize("size, seed", [("medium", 0), ("medium", 1), ("medium", 2), ("medium", 3), ("medium", 4),
                                        ("medium", 8128), ("full", 0), ("full", 4), (2700, 613)])
def test_a_grown_world_meets_the_topic_targets_in_every_split(tmp_path, size, seed):
    out = tmp_path / "m"
    generate_meridian(out, size, seed=seed, grow=True)
    props, table = _topic_figures(out)
    assert all(t["clusters"] >= MIN_DISTINCT_SHARE * t["queries"] - 1e-9 for t in table.values()), table
    assert props["relevant-document sets repeated within a split"] == 0
    assert props["fact sets repeated within a split"] == 0
    assert props["entities (expected or named in the text) in two or more splits"] == 0
    assert props["queries naming an entity missing from expected_entities"] == 0
