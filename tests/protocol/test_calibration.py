"""benchmarks/calibrate_rules.py: its known-truth constructions have the truths they claim, its error bookkeeping
reads the rules' claims, and the rules' false decisions on the exact null (per-query swap of two real rankings)
stay within nominal plus the Monte-Carlo error, at a fixed n and under the sequential stopping rule."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from hcrbench.protocol import registry as reg

BENCH = Path(__file__).parents[2] / "benchmarks" / "calibrate_rules.py"


@pytest.fixture(scope="module")
def cal():
    spec = importlib.util.spec_from_file_location("calibrate_rules", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["calibrate_rules"] = mod
    spec.loader.exec_module(mod)
    return mod


def _pop(n_worlds: int = 4, n: int = 120, seed: int = 0) -> list[dict]:
    """Worlds shaped like Meridian's per-query nDCG@10: bounded, many ties, topic clusters of ~3 queries."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_worlds):
        b = np.clip(rng.beta(2, 1.2, n), 0, 1)
        a = np.clip(b + np.where(rng.random(n) < 0.3, rng.normal(0, 0.2, n), 0.0), 0, 1)
        h = np.clip(b - rng.beta(2, 3, n), 0, 1)
        out.append({"seed": 0, "qids": n, "A": a, "B": b, "H": h, "cluster": np.arange(n) // 3})
    return out


def test_constructions_have_their_truths(cal):
    pop = _pop()
    rng = np.random.default_rng(1)
    x = cal.draws(pop, 400, 2, 120, rng)
    mu = cal.means(pop)
    for kind in cal.KINDS:
        for truth in (-0.06, 0.0, 0.03):
            d = cal.construct(kind, truth, x, mu)
            se = d.mean(axis=1).std() / math.sqrt(d.shape[0])
            assert abs(d.mean() - truth) < 4 * se + 0.01, (kind, truth)
    exact = cal.construct("dense", 0.0, x, mu)
    assert np.allclose(np.abs(exact), np.abs(x["A"] - x["B"]))  # a per-query swap: only signs change


def test_a_decision_is_wrong_when_one_of_its_claims_is_false(cal):
    kill, h1b = reg.get("kill"), reg.H1B_CLAUSES["single"]
    codes = np.array([reg.POS, reg.NEG, reg.UND, reg.MID])
    assert cal.wrong(kill, codes[:3], 0.0).tolist() == [True, True, False]
    assert cal.wrong(h1b, codes, 0.0).tolist() == [True, False, False, True]   # at go: "above 0" is false
    assert cal.wrong(h1b, codes, 0.03).tolist() == [False, True, False, True]  # at no-go: "below 0.03" is false
    assert cal.nominal(kill, 0.0) == 0.05 and cal.nominal(h1b, 0.0) == 0.025 and cal.nominal(kill, 0.03) == 0.0


def _within(rate: float, nominal: float, reps: int) -> bool:
    return rate <= nominal + 3 * math.sqrt(nominal * (1 - nominal) / reps)


def test_the_exact_null_is_decided_wrongly_no_more_than_nominal(cal):
    reps = 400
    got = cal.simulate(_pop(), reps=reps, looks=3, per=1, q=60, seed=2, spendings=("obf", "hsd:-2"),
                       need_sample=0)
    null = [r for r in got["rows"] if r["construction"] == "dense" and r["nominal"] > 0]
    assert {r["rule"] for r in null} == {"kill", "kill, topic clusters only", "vs_kill_baseline", "corpus_size",
                                         "H1b:single", "H1b:single, no skew correction"}
    for r in null:
        for design in ("fixed1", "fixedK", "seq"):
            assert _within(r[design]["wrong"], r["nominal"], reps), (r["rule"], r["truth"], design, r[design])
    strong = [r for r in got["rows"] if r["construction"] == "dense" and r["rule"] == "kill" and abs(r["offset"]) > 0.05]
    assert all(r["seq"]["right"] > 0.5 for r in strong)  # and the rule decides a clear effect
    sp = {r["spending"]: r for r in got["spending"]}
    assert set(sp) == {"obf", "hsd:-2"} and sp["hsd:-2"]["default"] and not sp["obf"]["default"]
    assert all(_within(r["null"], 0.05, reps) for r in sp.values())


def test_a_difference_that_moves_from_world_to_world_is_held_by_the_world_aware_interval(cal):
    pop = _pop(n_worlds=200, seed=5)  # many worlds: the world effects' distribution is the normal drawn, not 12 atoms
    shifts = np.random.default_rng(6).normal(0, 0.03, len(pop))
    for w, sh in zip(pop, shifts):
        w["A"] = w["A"] + sh  # the between-world component the topic clusters do not hold
    reps = 1500
    x = cal.draws(pop, reps, 8, 30, np.random.default_rng(7))
    d = cal.construct("skewed", 0.0, x, cal.means(pop))
    kill = reg.get("kill")
    rng = np.random.default_rng(8)
    nested = cal.run_cell(kill, "nested", d, 0.0, x, 4, 2, rng)
    topic = cal.run_cell(kill, "topic", d, 0.0, x, 4, 2, rng)
    for design in ("fixed1", "fixedK", "seq"):
        assert _within(nested[design]["wrong"], 0.05, reps), (design, nested[design])
    assert not _within(topic["fixedK"]["wrong"], 0.05, reps), topic["fixedK"]  # the defect is there to fix


def test_the_printed_worlds_are_checked_by_judging_the_draw_at_that_many_worlds(cal):
    pop = _pop(n_worlds=6, seed=9)
    rng = np.random.default_rng(10)
    x = cal.draws(pop, 300, 12, 40, rng)
    kill = reg.get("kill")
    assert cal.at_margin(kill, 0.03) and cal.at_margin(kill, -0.03) and not cal.at_margin(kill, 0.0)
    d = cal.construct("dense", 0.03, x, cal.means(pop))
    got = cal.needs_worlds_check(kill, "nested", d, 0.03, x, 2, 40, rng)
    assert got["slots"] == 12 and got["fits"] <= got["priced"] <= got["undecided"] <= 300
    assert got["fits"] > 20 and got["wrong"] == 0.0
    # the figure is sized for power 0.8 in worlds (a t on worlds - 1 df, the world sd floored by the queries'
    # sampling): at the printed worlds the draws decide at least that often, within Monte-Carlo error
    assert 0.8 - 3 * math.sqrt(0.16 / got["fits"]) <= got["decided"] <= 1.0, got
    _, sd, wsd = cal.sd_rows(kill, "nested", d, x, 80, 40, 12, rng)
    var = cal._clustered("nested", d, x, 80, 40, 12)[0]
    assert np.allclose(sd ** 2 / 80, var)  # the row's se x sqrt(n)
    topic, _ = cal.cr2_rows(d[:, :80], x["C"][:, :80], x["G"])
    assert np.allclose(wsd ** 2, 2 * np.maximum(var, topic))  # one world's sd, floored by the queries' sampling
    assert cal.sd_rows(kill, "topic", d, x, 80, 40, 12, rng)[2] is None  # the topic interval: sized in queries


def test_the_worst_of_many_null_cells_is_held_to_the_band_of_a_maximum(cal):
    rows = [{"rule": "r", "construction": f"c{i}", "truth": 0.0, "offset": 0.0, "nominal": 0.025,
             **{k: {"wrong": 0.025 + (0.009 if i == 0 else 0.0), "right": 0.0, "undecided": 0.0}
                for k in ("fixed1", "fixedK", "seq")}} for i in range(8)]
    doc = {"config": {"reps": 1000}, "rows": rows}
    s = cal.summary(doc)[0]
    one_cell = 1.96 * math.sqrt(0.025 * 0.975 / 1000)
    assert s["cells"] == 8 and s["band"] > one_cell and s["within"]  # 3.4% is the chance maximum of 8 at 1,000
    assert s["pooled_excess"] == pytest.approx(0.009 / 8) and s["pooled_mc"] < one_cell
    rows[0]["seq"]["wrong"] = 0.025 + 2 * s["band"]
    assert not cal.summary(doc)[2]["within"]


def test_a_cached_world_is_reused_only_from_the_generator_in_force(cal, tmp_path, monkeypatch):
    from hcrbench.synth import generate

    class Generated(Exception):
        pass

    def fake(folder, **kw):
        raise Generated(kw)

    monkeypatch.setattr(generate, "generate_meridian", fake)
    arrays = {k: np.zeros(3) for k in ("A", "B", "H", "cluster")}
    np.savez(tmp_path / "scores00-s7.npz", **arrays)  # the unversioned name of earlier runs
    np.savez(tmp_path / "scores00-s7-g0.0.1.npz", **arrays)
    (tmp_path / "world00").mkdir()
    (tmp_path / "world00" / "manifest.json").write_text('{"generator_version": "0.0.1"}', encoding="utf-8")
    with pytest.raises(Generated):  # another generator's scores and world folder: generated afresh
        cal._world(0, 7, tmp_path)
    np.savez(tmp_path / f"scores00-s7-g{generate.GENERATOR_VERSION}.npz", **arrays)
    assert cal._world(0, 7, tmp_path)["qids"] == 3  # this generator's: reused


@pytest.mark.slow
def test_quick_mode_on_fresh_worlds(cal, tmp_path):
    out = tmp_path / "cal.json"
    assert cal.main(["--quick", "--workdir", str(tmp_path / "w"), "--json", str(out)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    reps = doc["config"]["reps"]
    null = [r for r in doc["rows"] if r["construction"] == "dense" and r["nominal"] > 0]
    assert null
    for r in null:
        for design in ("fixed1", "fixedK", "seq"):
            assert _within(r[design]["wrong"], r["nominal"], reps), (r["rule"], design, r[design])
    assert "| kill | sequential, up to K |" in cal.markdown(doc)
    from hcrbench.synth.generate import GENERATOR_VERSION

    assert doc["config"]["generator"] == GENERATOR_VERSION
    assert f"Meridian worlds (generator {GENERATOR_VERSION})" in cal.markdown(doc)
