"""Lists filtered by the split ledger (free_lists): the list kept up to date as the ledger grows is the list a
full scan gives, in the same order, whatever the order of growth, splits and asks."""

from __future__ import annotations

import random

import pytest

from hcrbench.synth.questions.catalog import Catalog
from hcrbench.synth.questions.dedup import QuestionSet
from hcrbench.synth.questions.entity import PERSON, PROJECT, SYSTEM, fact_line
from hcrbench.synth.questions.free_lists import KEEP_STATES, FreeLists
from hcrbench.synth.questions.generators import MAX_RELEVANT, _over_cap, aggregation, out_of_distribution
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import build_world
from hcrbench.synth.world_model.facts import Statement
from hcrbench.synth.world_model.schedule import iter_specs

SPLITS = ("tune", "dev", "test")


def _scan(items, needs, owner, split):
    return [x for x in items if all(owner.get(n, split) == split for n in needs(x))]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_kept_list_equals_a_full_scan_as_the_ledger_grows(seed):
    r = random.Random(seed)
    nodes = [("entity", f"E{i}") for i in range(40)] + [("fact", f"f{i}") for i in range(40)]
    items = [{"i": i, "n": r.sample(nodes, r.randint(0, 4))} for i in range(120)]
    other = [{"i": i, "n": r.sample(nodes, 2)} for i in range(30)]

    def needs(x):
        return x["n"]

    fl, owner = FreeLists(), {}
    for step in range(3 * KEEP_STATES):  # (past a prune of unused lists)
        if r.random() < 0.7:
            owner.setdefault(r.choice(nodes), r.choice(SPLITS))
        fl.tick()
        split = r.choice(SPLITS)
        assert fl.filtered("a", items, needs, owner, split) == _scan(items, needs, owner, split), step
        if step % 5 == 0:
            assert fl.filtered("b", other, needs, owner, split) == _scan(other, needs, owner, split)
    owner = dict(owner)  # a new ledger (a new plan): scanned afresh
    assert fl.filtered("a", items, needs, owner, "dev") == _scan(items, needs, owner, "dev")


def test_a_list_of_another_identity_under_a_key_is_filtered_afresh():
    fl = FreeLists()
    owner = {("entity", "A"): "test"}
    a = [{"n": [("entity", "A")]}, {"n": []}]
    b = [{"n": []}, {"n": [("entity", "A")]}, {"n": []}]
    assert fl.filtered("k", a, lambda x: x["n"], owner, "tune") == [a[1]]
    assert fl.filtered("k", b, lambda x: x["n"], owner, "tune") == [b[0], b[2]]
    assert fl.origin(b) is None and fl.origin(fl.filtered("k", b, lambda x: x["n"], owner, "tune"))[0] == "k"


@pytest.fixture(scope="module")
def cat():
    w = build_world(0, 2000)
    return Catalog(w, list(iter_specs(w)))


def test_pick_filters_a_list_free_made_like_a_scan(cat):
    """usable(free(list)) is kept as one filter of the source list; it equals filtering twice by scanning."""
    tickets = cat.core_tickets
    cat.split_owner, cat.split, cat.claimed = {}, "tune", set()
    r = random.Random(0)
    ents = sorted({e for t in tickets for e in (t["id"], t["system"], t.get("project")) if e})
    try:
        for _ in range(60):
            for _ in range(3):
                cat.split_owner.setdefault(("entity", r.choice(ents)), r.choice(SPLITS))
            cat.split = r.choice(SPLITS)
            ok = cat.free("t", tickets, lambda t: [("entity", t["id"])])
            assert ok == [t for t in tickets if cat.usable(t["id"])]
            both = [t for t in ok if all(cat.usable(e) for e in (t["id"], t["system"], t.get("project")) if e)]
            assert cat._usable_items(ok) == both
    finally:
        cat.split_owner, cat.split, cat.claimed = {}, "", set()


def test_entity_aspects_read_from_the_index_equal_a_scan_of_the_world(cat):
    w = cat.w
    for p in w.people[:60]:
        assert PERSON["meetings"][1](w, p.id) == [f"mtg:{m['id']}:attendee:{p.id}" for m in w.meetings
                                                   if p.id in m["attendees"]]
        assert PERSON["assigned"][1](w, p.id) == [f"tkt:{t['id']}:assignee" for t in w.tickets
                                                   if t["assignee"] == p.id]
        assert PERSON["reports"][1](w, p.id) == [f"per:{q.id}:manager" for q in w.people if q.manager == p.id]
    for x in w.projects:
        assert PROJECT["decisions"][1](w, x.id) == [f"dec:{d['id']}:option" for d in w.decisions
                                                    if d["project"] == x.id]
    for s in w.systems:
        assert SYSTEM["incidents"][1](w, s.id) == [f"tkt:{t['id']}:system" for t in w.tickets if t["system"] == s.id]
    m = w.meetings[3]
    assert m["id"] in fact_line(cat, f"mtg:{m['id']}:attendee:{m['attendees'][0]}")


def test_hard_out_of_distribution_questions_outnumber_the_absurd_topics_in_the_last_tries(cat):
    """The planner's last tries (``relaxed``) at a hard OOD slot ask about the absurd things in other words, so a
    suite with more hard OOD slots than :data:`lexicon.OOD_TOPICS` fills them; before, only the fixed topics."""
    cat.relaxed = False
    fixed = {out_of_distribution(cat, random.Random(i), "hard").text for i in range(200)}
    assert fixed <= set(lx.OOD_TOPICS)
    cat.relaxed = True
    try:
        more = [out_of_distribution(cat, random.Random(i), "hard") for i in range(400)]
    finally:
        cat.relaxed = False
    texts = {p.text for p in more}
    assert {p.intent for p in more} == {"ood_absurd"} and not texts & set(lx.OOD_TOPICS)
    kept = QuestionSet(lx.OOD_TOPICS)
    distinct = 0
    for t in sorted(texts):
        if kept.repeats(t) is None:
            kept.add(t)
            distinct += 1
    assert distinct >= 100  # none is a near-duplicate of another or of a fixed topic
    # each names one absurd thing (a word no document of the world uses: test_ood checks the corpus)
    assert all(sum(x in t for x in lx.OOD_THINGS) == 1 for t in texts)


def _stated_everywhere(cat, facts_of, docs: int = 1) -> Catalog:
    """A catalog of ``cat``'s world and documents whose every fact of ``facts_of(world)`` is stated in ``docs``
    documents of its own."""
    facts = facts_of(cat.w)
    return Catalog(cat.w, cat.specs, [Statement(i * docs + k, 0, 1, f, "x") for i, f in enumerate(facts)
                                      for k in range(docs)])


def test_an_aggregation_over_the_relevant_cap_is_turned_down_once(cat):
    c = _stated_everywhere(cat, lambda w: [f"tkt:{t['id']}:date" for t in w.tickets])
    facts = [f"tkt:{t['id']}:date" for t in c.w.tickets]
    assert len(facts) > MAX_RELEVANT
    assert _over_cap(c, ("all",), facts) and not _over_cap(c, ("few",), facts[:MAX_RELEVANT])
    assert _over_cap(c, ("all",), [])  # (counted once per world query)


def test_relaxed_aggregations_list_anyones_meetings_exactly(cat):
    """The planner's last tries at an aggregation slot take anyone's meetings, and the answer is every meeting
    of that person in world order (the same intent as the key people's: test_labels checks it on suites)."""
    w = cat.w
    c = _stated_everywhere(cat, lambda w: [f"mtg:{m['id']}:attendee:{a}" for m in w.meetings for a in m["attendees"]],
                           docs=4)  # (a person with 3+ meetings: over ten documents)
    key = {p for p in w.key_entities if p[1:].isdigit()}
    c.relaxed = True
    plans = [aggregation(c, random.Random(i), "easy") for i in range(300)]
    got = [p for p in plans if p is not None and p.intent == "meetings_attended_by" and p.params["person"] not in key]
    assert got
    for p in got:
        pid = p.params["person"]
        want = [m["id"] for m in w.meetings if pid in m["attendees"]]
        assert [a.rsplit("(", 1)[1].rstrip(")") for a in p.answer] == want and len(want) >= 2
