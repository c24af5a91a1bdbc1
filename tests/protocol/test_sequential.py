"""The group-sequential stopping rule: its boundaries spend the error it claims, the union over looks stays at
alpha under optional stopping, and its "needs ~ M more" figure is the registry's power computation."""

import itertools
import math

import numpy as np
import pytest

from hcrbench.protocol import sequential as sq
from hcrbench.protocol.registry import n_for_power


def _crossing(max_looks: int, reps: int = 200_000, seed: int = 3) -> np.ndarray:
    """Monte-Carlo share of null Brownian paths (equal increments) that crossed by each look."""
    rng = np.random.default_rng(seed)
    s = (rng.standard_normal((reps, max_looks)) * math.sqrt(1 / max_looks)).cumsum(axis=1)
    z = s / np.sqrt(np.arange(1, max_looks + 1) / max_looks)
    c = np.array([sq.boundary(k + 1, max_looks) for k in range(max_looks)])
    return (np.cumsum(np.abs(z) > c, axis=1) > 0).mean(axis=0)


def test_one_look_is_the_fixed_design():
    assert sq.level(1, 1) == 0.95
    assert sq.level(1, 1, alpha=0.01) == pytest.approx(0.99)


@pytest.mark.parametrize("max_looks", [2, 3, 5])
def test_cumulative_error_is_what_the_spending_function_spent(max_looks):
    got = _crossing(max_looks)
    want = [sq.spent((k + 1) / max_looks) for k in range(max_looks)]
    mc = 3 * math.sqrt(0.05 * 0.95 / 200_000)
    assert np.all(np.abs(got - want) < mc + 1e-4), (got, want)
    assert got[-1] <= 0.05 + mc  # the union over all looks: optional stopping spends no more


def test_levels_widen_early_and_reach_near_nominal_last():
    for spending in (None, "obf", "hsd:-4", "hsd:-2"):
        lv = sq.levels(5, spending=spending)
        assert all(a > b for a, b in itertools.pairwise(lv))
        assert 0.95 < lv[-1] < 0.97
    assert sq.levels(5, spending="obf")[0] > 0.9999
    assert sq.boundary(1, 5, spending="obf") == pytest.approx(1.959963984540054 / math.sqrt(0.2), rel=1e-9)


@pytest.mark.parametrize("spending", ["obf", "pocock", "hsd:-4", "hsd:-2", "hsd:0", "hsd:1"])
def test_every_spending_function_spends_alpha_in_all_and_what_it_says_by_each_look(spending):
    k = 4
    rng = np.random.default_rng(5)
    reps = 100_000
    s = (rng.standard_normal((reps, k)) * math.sqrt(1 / k)).cumsum(axis=1)
    z = s / np.sqrt(np.arange(1, k + 1) / k)
    c = np.array([sq.boundary(j + 1, k, spending=spending) for j in range(k)])
    got = (np.cumsum(np.abs(z) > c, axis=1) > 0).mean(axis=0)
    want = [sq.spent((j + 1) / k, spending=spending) for j in range(k)]
    mc = 3 * math.sqrt(0.05 * 0.95 / reps)
    assert np.all(np.abs(got - want) < mc + 1e-4), (got, want)
    assert sq.spent(1.0, spending=spending) == pytest.approx(0.05)


def test_the_default_spends_at_the_first_look_where_o_brien_fleming_does_not():
    assert sq.SPENDING == "hsd:-2"
    assert sq.level(1, 6) < 0.998 < 0.9999 < sq.level(1, 6, spending="obf")
    assert sq.spent(0.5) == pytest.approx(0.05 * (1 - math.exp(1.0)) / (1 - math.exp(2.0)))
    for bad in ("hsd", "hsd:x", "wald", "hsd:99"):
        with pytest.raises(ValueError):
            sq.spent(0.5, spending=bad)


def test_unequal_fractions_and_bad_arguments():
    assert sq.level(1, 3, fractions=(0.3, 0.5, 1.0)) > sq.level(1, 3)  # less information at look 1: wider
    for bad in [dict(look=0, max_looks=3), dict(look=4, max_looks=3), dict(look=1, max_looks=0)]:
        with pytest.raises(ValueError):
            sq.level(**bad)
    with pytest.raises(ValueError):
        sq.level(1, 2, fractions=(0.6, 0.5))


def test_projection_uses_the_registry_power_computation_at_the_deciding_look():
    p = sq.project(0.05, 0.0, 0.25, look=1, max_looks=5, worlds_per_batch=2, queries_per_world=60)
    assert p.within_budget
    m = 1 + p.batches_more
    need = n_for_power(0.25, 0.05, alpha=1 - sq.level(m, 5))
    assert need <= m * 120
    earlier = n_for_power(0.25, 0.05, alpha=1 - sq.level(m - 1, 5))
    assert m - 1 == 1 or earlier > (m - 1) * 120
    assert p.worlds_more == 2 * p.batches_more and "more batch" in p.text()
    far = sq.project(0.005, 0.0, 0.25, look=1, max_looks=3, worlds_per_batch=1, queries_per_world=60)
    assert not far.within_budget and far.queries_needed > 180 and "not within the budget" in far.text()
    assert sq.decided_text(2, 4, 240) == "decided after 2 batches (4 worlds, 240 queries)"


def test_the_documented_levels_are_the_code_s():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and ln.split("|")[1].strip() in {"1", "3", "5"}
            and "%" in ln]
    assert len(rows) == 3
    for ln in rows:
        k = int(ln.split("|")[1])
        want = ", ".join(f"{round(v * 100, 3 if v > 0.9999 else 2):g}%" for v in sq.levels(k))
        assert ln.split("|")[2].strip() == want


def test_annotate_says_when_a_row_was_decided_and_what_an_undecided_one_needs():
    v = {"checkpoints": [{"id": "tree_sanity", "status": "pass", "text": "ok", "interval": [0.2, 0.3], "n": 40}],
         "hypotheses": [{"id": "kill", "verdict": "not decidable", "text": "open", "interval": [-0.01, 0.03],
                         "n": 120, "evidence": {}},
                        {"id": "H1c", "verdict": "not run", "text": "not run"}]}
    sq.annotate(v, look=1, max_looks=5, worlds=2, queries=120, worlds_per_batch=2, queries_per_world=60)
    assert v["sequential"]["level"] == sq.level(1, 5)
    assert v["checkpoints"][0]["evidence"]["sequential"]["text"] == sq.decided_text(1, 2, 120)
    k = v["hypotheses"][0]["evidence"]["sequential"]
    assert k["within_budget"] and k["batches_more"] >= 1 and "more batch" in v["hypotheses"][0]["text"]
    assert "sequential" not in v["hypotheses"][1].get("evidence", {})


def test_annotate_reads_the_standard_error_of_a_t_interval_on_few_df():
    def doc(df):
        ev = {"clusters": {"df": df}} if df else {}
        return {"hypotheses": [{"id": "kill", "verdict": "not decidable", "text": "open", "interval": [-0.01, 0.05],
                                "n": 240, "evidence": ev}]}

    z, t = doc(None), doc(3.0)
    for v in (z, t):
        sq.annotate(v, look=2, max_looks=8, worlds=4, queries=240, worlds_per_batch=1, queries_per_world=60)
    more_z = z["hypotheses"][0]["evidence"]["sequential"]
    more_t = t["hypotheses"][0]["evidence"]["sequential"]
    # the same interval on 3 df holds a smaller se (t > z): it needs fewer queries, not the z reading's
    assert more_t["within_budget"] and (not more_z["within_budget"] or more_t["batches_more"] < more_z["batches_more"])


def test_a_look_sets_the_level_the_verdict_step_judges_at():
    from types import SimpleNamespace

    from hcrbench.protocol.verdicts import protocol_level

    cfg = SimpleNamespace(protocol=SimpleNamespace(confidence=0.95))
    assert protocol_level(cfg) == 0.95 and sq.current_look() is None
    with sq.at_look(2, 4):
        assert sq.current_look() == (2, 4)
        assert protocol_level(cfg) == sq.level(2, 4, 1 - 0.95) > 0.99
        assert protocol_level(SimpleNamespace(protocol=SimpleNamespace(confidence=0.99))) > sq.level(2, 4)
    assert protocol_level(cfg) == 0.95 and sq.current_look() is None
    with pytest.raises(ValueError), sq.at_look(5, 4):
        pass
