"""An undecided row says how many more test worlds and minutes its "needs ~ n" comes to (batches.price_undecided),
in its ``undecided`` field, its text and the look's console line; the typed row keeps the fields; and the kill
row's "needs ~ n" reads the interval's standard error, not its half-width over z (a t on 1 df at two worlds)."""

from __future__ import annotations

import math

import numpy as np

from hcrbench.protocol import batches
from hcrbench.protocol import registry as reg
from hcrbench.protocol.row import Row, Undecided


def _doc() -> dict:
    und = {"id": "kill", "name": "Single kill criterion", "verdict": "not decidable",
           "text": "not decidable at n = 570 (needs ~ 1,200)", "undecided": reg.undecided(570, 1200)}
    near = {"id": "H1b", "name": "Dual path", "verdict": "not decidable",
            "text": "not decidable at n = 570 (power 0.8 at the margin is reached at n ~ 400: near)",
            "undecided": reg.undecided(570, 400)}
    rooms = {"id": "easy", "name": "Easy routing", "status": "not decidable",
             "text": "not decidable at n = 5 conditions (needs ~ 81 conditions)",
             "undecided": reg.undecided(5, 81, "conditions")}
    return {"overall": "undecided", "checkpoints": [rooms], "hypotheses": [und, near]}


def test_needs_n_is_priced_in_worlds_and_minutes():
    v = _doc()
    priced = batches.price_undecided(v, test_worlds=2, queries_per_world=285.0, seconds_per_world=150.0)
    assert [r["id"] for r in priced] == ["kill"]
    u = v["hypotheses"][0]["undecided"]
    assert u["at_n"] == 570 and u["needs_n"] == 1200 and u["unit"] is None  # the existing fields kept
    assert u["needs_worlds"] == math.ceil(1200 / 285) == 5 and u["more_worlds"] == 3 and u["at_worlds"] == 2
    assert u["needs_minutes"] == 3 * 150.0 / 60
    assert "~3 more test worlds (5 in all) for power 0.8 at the margin, ~7.5 min" in v["hypotheses"][0]["text"]
    assert "needs_worlds" not in v["hypotheses"][1]["undecided"]  # power reached: no n promised, not priced
    assert "needs_worlds" not in v["checkpoints"][0]["undecided"]  # conditions: worlds add none
    line = batches.look_line(2, 2, 570, 300.0, v)
    assert "Single kill criterion (~3 more test worlds (5 in all) for power 0.8 at the margin, ~7.5 min" in line
    # pricing twice does not say it twice
    batches.price_undecided(v, test_worlds=2, queries_per_world=285.0, seconds_per_world=150.0)
    assert v["hypotheses"][0]["text"].count("more test worlds") == 1


def test_a_row_with_no_cost_measured_says_the_worlds_alone():
    v = _doc()
    batches.price_undecided(v, test_worlds=1, queries_per_world=300.0, seconds_per_world=None)
    u = v["hypotheses"][0]["undecided"]
    assert (u["needs_worlds"], u["more_worlds"], u["needs_minutes"]) == (4, 3, None)
    assert batches.more_words(u) == "~3 more test worlds (4 in all) for power 0.8 at the margin"


def test_the_typed_row_keeps_the_world_fields_and_an_unpriced_row_its_bytes():
    v = _doc()
    batches.price_undecided(v, test_worlds=2, queries_per_world=285.0, seconds_per_world=60.0)
    d = v["hypotheses"][0]
    row = Row.of(d)
    assert row.undecided == Undecided(570, 1200, None, 2, 5, 3, 3.0)
    assert row.as_dict(d, undecided=row.undecided)["undecided"] == d["undecided"]
    plain = reg.undecided(59, 940)
    assert Undecided.of(plain).as_dict() == plain  # a row judged alone: its three fields, as before


def test_cost_per_world_is_the_systems_cold_seconds_plus_generation():
    man = {"systems": {"bm25": {"worlds": {"w02": {"seconds": 10.0}, "w03": {"seconds": 30.0, "reused": False}}},
                       "hcr": {"worlds": {"w02": {"seconds": 50.0}, "w03": {"seconds": 70.0}}}}}
    assert batches.cost_per_world(man, generate_s=5.0) == (60.0 + 100.0) / 2 + 5.0
    assert batches.cost_per_world({"systems": {}}) is None


def test_the_kill_row_s_needs_n_reads_the_standard_error_not_a_t_half_width():
    from hcrbench.protocol.ruleset.kill import single_kill

    se, n = 0.02, 120
    t1 = 12.706  # two worlds as clusters: 1 df
    lo, hi = 0.005 - t1 * se, 0.005 + t1 * se
    row = single_kill(0.005, 0.7, lo, hi, 0.05, n=n, full_size=True, sd=se * math.sqrt(n))
    need = row["undecided"]["needs_n"]
    from hcrbench.protocol.needs_given import n_given_queries

    assert need == n_given_queries(reg.get("kill"), 0.005, n, se * math.sqrt(n), n - 1)  # given its queries
    over = single_kill(0.005, 0.7, lo, hi, 0.05, n=n, full_size=True)["undecided"]["needs_n"]
    assert over is None or over > 20 * need  # the half-width over z: (12.7 / 1.96)^2 ~ 42 times the n
    assert np.isfinite(need) and need > n


def test_a_rule_on_a_subset_of_the_queries_is_priced_by_its_own_share_of_each_world():
    """Routing on easy queries judges 115 of 570 test queries: a new world adds ~57 of its queries, not 285, so
    "needs ~ 521" is 10 worlds (8 more), never "~0 more test worlds" for a row still undecided for want of them."""
    easy = {"id": "easy_routing", "name": "Routing on easy single-branch queries", "status": "not decidable",
            "text": "not decidable at n = 115 (needs ~ 521)", "undecided": reg.undecided(115, 521)}
    v = {"overall": "undecided", "checkpoints": [easy], "hypotheses": []}
    batches.price_undecided(v, test_worlds=2, queries_per_world=285.0, seconds_per_world=60.0)
    u = v["checkpoints"][0]["undecided"]
    assert u["needs_worlds"] == math.ceil(521 / (115 / 2)) == 10 and u["more_worlds"] == 8
    assert "~8 more test worlds (10 in all)" in v["checkpoints"][0]["text"]
    for n, need, worlds in [(40, 41, 1), (115, 521, 2), (570, 571, 2), (300, 900, 3)]:
        row = {"id": "r", "name": "r", "status": "not decidable", "text": f"not decidable at n = {n}",
               "undecided": reg.undecided(n, need)}
        doc = {"overall": "undecided", "checkpoints": [row], "hypotheses": []}
        batches.price_undecided(doc, test_worlds=worlds, queries_per_world=285.0, seconds_per_world=None)
        assert row["undecided"]["more_worlds"] >= 1  # needs > n: at least one more world
