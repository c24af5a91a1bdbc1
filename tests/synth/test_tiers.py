"""Difficulty tiers with the design's meaning and budget feasibility in 128-token chunks (issue 35 build 3-4):
the tier rule, the per-category targets, the chunks and covers against the context step's own, the labels of
generated suites against the evidence re-derived from the files, and controls that show the checks can fail."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data.chunking import chunk_corpus
from hcrbench.data.tokens import default_counter
from hcrbench.data.types import Corpus
from hcrbench.synth.checks.describe_tiers import (
    TIER_TOL,
    fixed_tiers,
    measured_tiers,
    pattern_tiers,
    tier_props,
)
from hcrbench.synth.generate import generate_meridian
from hcrbench.synth.questions.suite import category_counts
from hcrbench.synth.questions.tiers import (
    FEASIBLE_BAND,
    FEASIBLE_DESIGN,
    TIER_ALLOWED,
    TIERS,
    chunk_units,
    evidence_tier,
    feasible_target,
    slot_targets,
    tier_targets,
)

CASES = [(0, "small"), (3, "small")]


@pytest.fixture(scope="module", params=CASES, ids=[f"{s}-{n}" for s, n in CASES])
def folder(request, tmp_path_factory, meridian_copy) -> Path:
    seed, size = request.param
    out = tmp_path_factory.mktemp(f"tiers-{seed}") / str(size)
    meridian_copy(out, size, seed=seed, grow=True)
    return out


def _meta(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "queries.meta.jsonl").read_text().splitlines()]


def test_evidence_tier_has_the_design_meaning():
    assert evidence_tier(1, 1, 1) == "easy"  # the answer in one chunk
    assert evidence_tier(2, 1, 1) == evidence_tier(3, 1, 2) == "medium"  # 2-3 chunks of one branch
    assert evidence_tier(4, 1, 1) == "hard"  # more chunks
    assert evidence_tier(2, 2, 1) == "hard"  # across branches (document domains)
    assert evidence_tier(3, 1, 3) == "hard"  # several levels
    assert evidence_tier(1, 1, 2) == "medium"  # a chain is never one lookup


@pytest.mark.parametrize("n", [10, 15, 50, 55, 300])
def test_tier_targets_sum_hold_the_infeasible_share_and_keep_to_allowed_tiers(n):
    for cat, share in FEASIBLE_DESIGN.items():
        t = tier_targets(cat, n)
        assert sum(t.values()) == n
        if "hard" in TIER_ALLOWED.get(cat, TIERS):  # an infeasible query is hard (rounding aside)
            assert t["hard"] >= n - feasible_target(cat, n) - 1
        assert all(t[x] == 0 for x in TIERS if x not in TIER_ALLOWED.get(cat, TIERS))
        targets = slot_targets(cat, n)
        assert len(targets) == n and all(tier == "hard" for tier, ok in targets if not ok)
        assert abs(sum(ok for _, ok in targets) / n - share) <= max(FEASIBLE_BAND, 1 / n) or cat == "detail"
    assert tier_targets("thematic", 300) == {"easy": 120, "medium": 105, "hard": 75}  # 40/35/25 where allowed


def test_chunk_units_are_the_context_steps_chunks():
    text = " ".join(f"Sentence number {i} states that the daily allowance is USD {i}." for i in range(60))
    counter = default_counter()
    cc = chunk_corpus(Corpus(["D1"], [text], ["t"]), max_tokens=128, overlap=0, counter=counter)
    got = [(u.start, u.end, u.n_tokens) for u in chunk_units("D1", text, counter)]
    want = [(m["char_start"], m["char_end"], m["n_tokens"]) for m in cc.corpus.metadata]
    assert got == want and len(got) > 3 and max(c for *_, c in got) <= 128


def test_chunk_feasibility_agrees_with_the_experiments_deliverable_count(folder):
    from hcrbench.experiment.context_feasibility import deliverable_feasibility

    metas = _meta(folder)
    got = measured_tiers(folder, metas)
    feas = deliverable_feasibility(folder, unit_sets={"chunks-128": {"max_tokens": 128, "overlap": 0}})
    for cat, row in feas["by_category"].items():
        mine = [got[m["query_id"]][0].feasible for m in metas if m["category"] == cat and m["query_id"] in got]
        assert round(sum(mine) / len(mine), 3) == row["chunks-128"], cat
    # the labels the generator wrote are the same counts
    for m in metas:
        if m["query_id"] in got:
            ce = got[m["query_id"]][0]
            assert (m["n_chunks"], m["chunk_tokens"], m["budget_feasible_chunks"]) == (ce.n_chunks, ce.tokens,
                                                                                      ce.feasible)
            assert m["chunk_domains"] == list(ce.domains)


def test_difficulty_labels_are_the_tier_of_the_chunked_evidence(folder):
    metas = _meta(folder)
    got = measured_tiers(folder, metas)
    for m in metas:
        if m["category"] == "out_of_distribution":
            assert m["query_id"] not in got and m["difficulty"] == m["design_difficulty"]
            continue
        ce, tier = got[m["query_id"]]
        assert m["difficulty"] == tier, m["query_id"]
        if m["difficulty"] == "easy":
            assert ce.n_chunks == 1
        if not ce.feasible:
            assert m["difficulty"] == "hard"
    rows = {p["property"]: p for p in tier_props(folder, metas)}
    agree = rows["difficulty agreeing with the design's tier of the chunked evidence, per split"]
    assert agree["met"] and set(agree["measured"]) == {"tune", "dev", "test"}


def test_tier_mix_reaches_the_targets_the_small_world_allows(folder):
    metas = _meta(folder)
    fixed = fixed_tiers(metas, measured_tiers(folder, metas))
    for cat, n in category_counts(len(metas)).items():
        if cat not in FEASIBLE_DESIGN or cat in SMALL_TIER_GAPS:  # (those: see below)
            continue
        want = tier_targets(cat, n, fixed.get(cat))
        got = {t: sum(m["category"] == cat and m["difficulty"] == t for m in metas) for t in TIERS}
        assert all(abs(got[t] - want[t]) / n <= TIER_TOL + 1e-9 for t in TIERS), (cat, got, want)


def test_a_pattern_with_a_tier_by_construction_moves_the_targets_it_fills():
    assert pattern_tiers() == {"outdated_version": "easy", "wrong_branch_location": "hard",
                               "negation_owner": "hard"}
    # two-hop: half infeasible (hard) and 18 wrong-branch questions (feasible, two branches: hard) of 105
    assert tier_targets("two_hop", 105) == {"easy": 0, "medium": 53, "hard": 52}
    assert tier_targets("two_hop", 105, {"hard": 18}) == {"easy": 0, "medium": 34, "hard": 71}
    # temporal: an outdated-version question is one chunk; more of them than the easy target raise it
    assert tier_targets("temporal", 20, {"easy": 12}) == {"easy": 12, "medium": 2, "hard": 6}
    assert tier_targets("temporal", 20, {"easy": 3}) == tier_targets("temporal", 20)


@settings(max_examples=300, deadline=None)
@given(cat=st.sampled_from(sorted(FEASIBLE_DESIGN)), n=st.integers(1, 400), data=st.data())
def test_fixed_tiers_keep_the_targets_whole_allowed_and_at_least_what_is_fixed(cat, n, data):
    allowed = TIER_ALLOWED.get(cat, TIERS)
    tier = data.draw(st.sampled_from(allowed))
    k = data.draw(st.integers(0, n))
    t = tier_targets(cat, n, {tier: k})
    assert sum(t.values()) == n
    assert all(t[x] == 0 for x in TIERS if x not in allowed)
    assert t[tier] >= k - 1  # what the category holds by construction (largest-remainder rounding aside)
    base = tier_targets(cat, n)
    if tier == "hard":  # fixed hard questions are feasible: they add to the infeasible (hard) share
        assert t["hard"] >= min(n, max(base["hard"], n - feasible_target(cat, n) + k)) - 2  # (rounding twice)
    if k == 0:
        assert t == base


#: Categories whose tier mix a small world does not hold within 10 points on every seed: easy thematic questions
#: (one chunk about a system or a project) take slots that feasible hard ones (a policy's history with its
#: approver's record: two branches) cannot fill, 4-8 hard of 12 on small seeds 1 and 2 (worst deviation 0.14-0.16;
#: seeds 0, 3 and 4 hold it). ``describe`` reports the mix as missed there (docs/meridian.md's meridian-tiers
#: block, column "tier mix off"). Temporal since generator 5.1.0: on small seed 0 its suite drew 9 easy / 4 medium /
#: 7 hard against 7 / 7 / 6 (medium 0.15 off): dated questions now name their records by date, and fewer of them
#: span two branches; ``describe`` reports it as missed.
SMALL_TIER_GAPS = {"thematic", "temporal"}


def _share_misses(folder: Path) -> dict[str, float]:
    metas = _meta(folder)
    got = measured_tiers(folder, metas)
    out = {}
    for cat, design in FEASIBLE_DESIGN.items():
        rows = [got[m["query_id"]][0].feasible for m in metas if m["category"] == cat]
        share = sum(rows) / len(rows)
        if abs(share - design) > FEASIBLE_BAND + 1e-9:
            out[cat] = round(share, 3)
    return out


def test_feasible_shares_per_category_within_the_band_on_small(folder):
    assert _share_misses(folder) == {}


def test_controls_wrong_labels_and_a_wrong_split_are_caught(folder, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(folder, out)
    metas = _meta(out)
    for m in metas:  # every label "easy": the agreement and the mix rows must fail
        m["difficulty"] = "easy"
    rows = {p["property"]: p for p in tier_props(out, metas)}
    assert not rows["difficulty agreeing with the design's tier of the chunked evidence, per split"]["met"]
    assert not rows["difficulty easy/medium/hard per category (target)"]["met"]
    # evidence that no longer fits (the needed facts of every thematic query doubled with aggregation's): the
    # feasible share row must fail
    ev = [json.loads(x) for x in (out / "evidence.jsonl").read_text().splitlines()]
    by_cat = {m["query_id"]: m["category"] for m in _meta(folder)}
    wide = next(e for e in ev if by_cat[e["query_id"]] == "aggregation" and len(e["facts"]) > 10)
    for e in ev:
        if by_cat[e["query_id"]] == "thematic":
            e["facts"] = e["facts"] + wide["facts"]
            e["evidence"] = e["evidence"] + wide["evidence"]
    (out / "evidence.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ev))
    rows = {p["property"]: p for p in tier_props(out, _meta(folder))}
    feas = rows["budget-feasible share per category (128-token chunks, 400 tokens)"]
    assert not feas["met"] and feas["measured"]["thematic"] < FEASIBLE_DESIGN["thematic"] - FEASIBLE_BAND


def _meets_every_share(out: Path, seed: int, size: str) -> None:
    generate_meridian(out, size, seed=seed, grow=True)
    metas = _meta(out)
    rows = {p["property"]: p for p in tier_props(out, metas)}
    assert rows["budget-feasible share per category (128-token chunks, 400 tokens)"]["met"], rows
    assert rows["difficulty agreeing with the design's tier of the chunked evidence, per split"]["met"]


def test_medium_meets_every_feasible_share_and_tier_agreement(tmp_path):
    _meets_every_share(tmp_path / "m", 0, "medium")


@pytest.mark.slow
@pytest.mark.parametrize("seed, size", [(1, "medium"), (2, "medium"), (11, "medium"), (53, "medium"), (0, "full"),
                                        (1, "full"), (29, "full"), (1, "small"), (2, "small"), (4, "small"),
                                        (88, "small")])
def test_every_size_meets_every_feasible_share_and_tier_agreement_over_seeds(tmp_path, seed, size):
    _meets_every_share(tmp_path / "m", seed, size)
