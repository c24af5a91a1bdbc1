"""A query suite that scales (issue 35 build 2): the variants a suite larger than 300 draws over incidents,
decisions and people (``questions.scale``), the planner's memo of split-filtered lists (``Catalog.memo``) and the
indexed wording check (``QuestionSet``), and, slow, the topic target on larger suites."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from hcrbench.data import iter_jsonl
from hcrbench.synth import generate_meridian
from hcrbench.synth.checks.describe import describe
from hcrbench.synth.checks.describe_tiers import TIER_TOL
from hcrbench.synth.checks.describe_topics import topic_props
from hcrbench.synth.corpus.render import render
from hcrbench.synth.generate import doc_statements
from hcrbench.synth.questions.catalog import Catalog
from hcrbench.synth.questions.dedup import NEAR_DUP, QuestionSet, content_terms, differ_in_a_name, shingles
from hcrbench.synth.questions.fit import FitLedger, plan_evidence, plan_tier
from hcrbench.synth.questions.generators import CATEGORIES, thematic
from hcrbench.synth.questions.properties import violations
from hcrbench.synth.questions.scale import MAX_SHARE, SCALE, SCALE_FORMS, form_for, scale_share, scaled
from hcrbench.synth.questions.topics import MIN_DISTINCT_SHARE
from hcrbench.synth.world_model.entities import build_world
from hcrbench.synth.world_model.facts import fact_value
from hcrbench.synth.world_model.schedule import iter_specs
from hcrbench.synth.world_model.seeds import rng


@pytest.fixture(scope="module")
def cat() -> Catalog:
    w = build_world(3, 500)
    specs = list(iter_specs(w))
    sts, titles = [], []
    for s in specs:
        d = render(w, s)
        titles.append(d.title)
        sts += doc_statements(w, s, d)
    return Catalog(w, specs, sts, None, titles, lambda i: render(w, specs[i]).text)


def test_scale_share_is_zero_up_to_the_design_suite_then_grows_to_its_cap():
    assert scale_share(10) == scale_share(300) == 0.0
    shares = [scale_share(n) for n in (301, 450, 900, 3000, 20_000)]
    assert shares == sorted(shares) and shares[0] > 0 and shares[-1] == MAX_SHARE
    assert scale_share(450) == pytest.approx(1 / 3) and scale_share(900) == pytest.approx(2 / 3)


def test_a_300_query_suite_draws_exactly_as_without_the_variants(cat):
    cat.scale_share = 0.0
    for cname in SCALE:
        gen = CATEGORIES[cname][1]
        for i in range(20):
            a, b = gen(cat, rng(5, cname, i), "easy"), scaled(cname, gen)(cat, rng(5, cname, i), "easy")
            assert (a is None) == (b is None) and (a is None or (a.text, a.facts) == (b.text, b.facts))


#: every variant a larger suite draws: each category's default and its targeted forms
VARIANTS = sorted({(cname, g.__name__): g for cname, g in [*SCALE.items(), *(
    (cname, g) for cname, forms in SCALE_FORMS.items() for g in forms.values())]}.items())


@pytest.mark.parametrize("cname, gen", [(c, g) for (c, _), g in VARIANTS], ids=[f"{c}-{n}" for (c, n), _ in VARIANTS])
def test_each_variant_is_an_intent_whose_answer_the_world_gives(cat, cname, gen):
    w = cat.w
    made = 0
    for i in range(200):
        plan = gen(cat, random.Random(i), random.Random(i).choice(["easy", "medium", "hard"]))
        if plan is None:
            continue
        made += 1
        assert plan.category == cname and plan.intent and plan.entities and plan.facts
        assert all(cat.stated(f) for f in plan.facts)
        assert all(e in plan.text or w.index.get(e) is not None for e in plan.entities)

        def stated(f):
            return ((st.doc, cat.specs[st.doc].doc_type, st.text) for st in cat.stated(f))
        final = fact_value(w, plan.facts[-1]) if plan.chain else None
        assert not violations(cname, plan.origin, plan.text, plan.answer, plan.facts, stated, title=cat.title,
                              text_of=cat.text, final_value=final), plan.text
        if plan.intent == "longer_incident":
            a, b = ({t["id"]: t for t in w.tickets}[x] for x in plan.params["tickets"])
            assert plan.answer.startswith(max(a, b, key=lambda t: t["duration_min"])["id"])
        elif plan.intent == "costlier_decision":
            a, b = ({d["id"]: d for d in w.decisions}[x] for x in plan.params["decisions"])
            assert plan.answer.startswith(max(a, b, key=lambda d: d["cost_k"])["id"])
        elif plan.intent == "earlier_incident":
            a, b = ({t["id"]: t for t in w.tickets}[x] for x in plan.params["tickets"])
            assert plan.answer.startswith(min(a, b, key=lambda t: t["date"])["id"])
    assert made >= 5


def test_a_slot_takes_the_form_of_the_variant_aimed_at_its_target():
    assert form_for("thematic", ("easy", True)) is SCALE["thematic"]  # (one chunk: the person's profile)
    assert form_for("thematic", None) is SCALE["thematic"] and form_for("detail", None) is SCALE["detail"]
    for cname, forms in SCALE_FORMS.items():
        for target, gen in forms.items():
            assert form_for(cname, target) is gen


@pytest.mark.parametrize("cname, target", [(c, t) for c, forms in SCALE_FORMS.items() for t in forms])
def test_each_targeted_form_has_the_tier_of_its_target_in_chunks(cat, cname, target):
    gen = SCALE_FORMS[cname][target]
    got = []
    for i in range(150):
        plan = gen(cat, random.Random(i), "medium")
        if plan is not None:
            ce = plan_evidence(plan, cat)
            got.append((plan_tier(plan, cat, ce), ce.feasible))
    assert len(got) >= 5
    assert {t for t, _ in got} == {target[0]}, got  # measured in the catalog's 128-token chunks, not assumed
    assert target in got


def _vocabulary_draw(cat):
    for i in range(200):
        plan = thematic(cat, random.Random(i), "hard")
        if plan is not None and plan.origin == "adversarial:vocabulary":
            ce = plan_evidence(plan, cat)
            return plan, (plan_tier(plan, cat, ce), ce.feasible)
    raise AssertionError("no vocabulary-mismatch draw")


def test_a_vocabulary_draw_needs_its_slots_tier_only_in_a_suite_above_300(cat):
    plan, (tier, feasible) = _vocabulary_draw(cat)
    other = next(t for t in ("easy", "medium", "hard") if t != tier)
    target = (other, feasible)  # the draw has the target's feasibility, not its tier
    ledger = FitLedger({("thematic", "hard", 0): target})
    cat.split = "tune"
    try:
        cat.scale_share = 0.0  # the design's suite: the vocabulary-mismatch draw keeps its slot
        assert not ledger.rejects(plan, cat, "thematic", target, 0)
        cat.scale_share = scale_share(900)  # a larger one: its tier first, then its feasibility only
        assert ledger.rejects(plan, cat, "thematic", target, 0)
        assert not ledger.rejects(plan, cat, "thematic", target, ledger.tries("thematic", target, "tune") // 2)
    finally:
        cat.scale_share, cat.split = 0.0, ""


def test_the_memo_is_recomputed_when_the_split_state_changes(cat):
    cat.split_owner, cat.split, cat.claimed = {}, "tune", set()
    calls = []
    assert cat.memo("k", lambda: calls.append(1) or len(calls)) == 1
    assert cat.memo("k", lambda: calls.append(1) or len(calls)) == 1  # same state: kept
    cat.split_owner[("entity", "P0001")] = "test"
    assert cat.memo("k", lambda: calls.append(1) or len(calls)) == 2  # a new owner: recomputed
    cat.split = "dev"
    assert cat.memo("k", lambda: calls.append(1) or len(calls)) == 3
    cat.claimed.add("P0002")
    assert cat.memo("k", lambda: calls.append(1) or len(calls)) == 4
    items = list(cat.w.people[:40])
    assert "P0001" in {p.id for p in items} and "P0001" not in {p.id for p in cat._usable_items(items)}
    cat.split_owner, cat.split, cat.claimed = {}, "", set()


def _brute(kept: list[str], text: str) -> str | None:
    terms, sh = frozenset(content_terms(text)), shingles(text)
    for other in kept:
        o_terms, o_sh = frozenset(content_terms(other)), shingles(other)
        same = bool(terms) and terms == o_terms
        if not same and sh and o_sh:
            inter = len(sh & o_sh)
            same = inter / (len(sh) + len(o_sh) - inter) >= NEAR_DUP
        if same and not differ_in_a_name(text, other):
            return other
    return None


def test_the_indexed_wording_check_finds_what_comparing_every_pair_finds():
    r = random.Random(11)
    words = ["what", "is", "the", "budget", "of", "project", "otter", "who", "leads", "it", "and", "when", "did",
             "version", "take", "effect", "which", "team", "owns", "system", "incident", "lasted", "longer"]
    texts = [" ".join(r.choice(words) for _ in range(r.randint(3, 9))) for _ in range(150)]
    texts += [t + " today" for t in texts[:30]] + [t.replace("the", "a") for t in texts[30:60]]
    r.shuffle(texts)
    qs, kept = QuestionSet(), []
    for t in texts:
        assert qs.repeats(t) == _brute(kept, t), t
        qs.add(t)
        kept.append(t)


def _topics(out: Path) -> tuple[dict, dict]:
    metas = [o for _, o in iter_jsonl(out / "queries.meta.jsonl")]
    props, table = topic_props(metas, json.loads((out / "world.json").read_text()))
    return {p["property"]: p["measured"] for p in props}, table


@pytest.mark.slow
@pytest.mark.parametrize("size, seed, n", [("medium", 0, 450), ("full", 0, 450)])
def test_a_larger_suite_meets_the_topic_target(tmp_path, size, seed, n):
    out = tmp_path / "m"
    generate_meridian(out, size, seed=seed, n_queries=n, grow=True)
    props, table = _topics(out)
    assert all(t["clusters"] >= MIN_DISTINCT_SHARE * t["queries"] - 1e-9 for t in table.values()), table
    assert props["relevant-document sets repeated within a split"] == 0
    assert props["fact sets repeated within a split"] == 0
    assert props["entities (expected or named in the text) in two or more splits"] == 0


def _rows(out: Path) -> dict:
    return {p["property"]: p for p in describe(out, write=False)["properties"]}


#: Categories whose tier mix a larger suite does not hold: none. (Two-hop was one at 900 queries, 33-35 medium of the
#: 53 the design's shares asked for on medium seeds 0, 1 and 7: its wrong-branch pattern's questions are a decision
#: record and a people profile, two branches, so hard by construction; the targets count them as fixed hard now,
#: tiers.tier_targets, and 33 of 34 is met.)
TIER_GAPS: frozenset[str] = frozenset()


@pytest.mark.slow
@pytest.mark.parametrize("size, seed, n", [("medium", 1, 900)])
def test_a_larger_suite_keeps_the_design_feasible_shares_and_tier_mix(tmp_path, size, seed, n):
    out = tmp_path / "m"
    generate_meridian(out, size, seed=seed, n_queries=n, grow=True)
    rows = _rows(out)
    assert rows["budget-feasible share per category (128-token chunks, 400 tokens)"]["met"], \
        rows["budget-feasible share per category (128-token chunks, 400 tokens)"]["measured"]
    mix = rows["difficulty easy/medium/hard per category (target)"]["measured"]
    for cname, shown in mix.items():
        got, want = ([int(x) for x in part.strip(" ()").split("/")] for part in shown.split(" ("))
        k = sum(got)
        if cname not in TIER_GAPS:
            assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= max(TIER_TOL, 1 / k) * k, (cname, shown)
    assert rows["independent topics per split (clusters / queries, effective topics)"]["met"]
    assert min(rows["difficulty agreeing with the design's tier of the chunked evidence, per split"]["measured"]
               .values()) >= 0.9


@pytest.mark.slow
def test_a_3000_query_full_suite_is_generated_leak_free_in_minutes(tmp_path):
    out = tmp_path / "m"
    t0 = time.perf_counter()
    generate_meridian(out, "full", seed=0, n_queries=3000, grow=True)
    assert time.perf_counter() - t0 < 900
    props, table = _topics(out)
    assert sum(t["queries"] for t in table.values()) == 3000
    assert props["fact sets repeated within a split"] == 0
    assert props["entities (expected or named in the text) in two or more splits"] == 0
    # the world grows until the topic target holds (generator 4.3.0; seed 0 grows once, 24,000 -> 30,000 documents)
    assert props["relevant-document sets repeated within a split"] == 0
    assert all(t["clusters"] >= 2 / 3 * t["queries"] for t in table.values()), table
    assert json.loads((out / "manifest.json").read_text())["n_docs"] >= 24_000
    # and every other property of issue 35's Done-when, world rules included (tests/synth/test_suite_growth.py)
    from test_suite_growth import DONE_WHEN

    res = describe(out, write=False)
    props = {p["property"]: p["met"] for p in res["properties"]}
    assert all(props[p] for p in DONE_WHEN), [p for p in DONE_WHEN if not props[p]]
    assert not [p for p in res["missed"] if p.startswith("world rule")], res["missed"]
