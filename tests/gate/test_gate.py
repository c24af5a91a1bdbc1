"""The gate: calibrated p-values, Holm, pass rules, warnings, determinism, invariances, CLI errors."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from gate_bench import constant_run, good_run, make_bench
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hcrbench.data import Qrels, Run
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.gate import empirical_p, gate, gate_runs, holm


def test_holm_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.random(4) ** 3
        np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1], atol=1e-15)


def test_empirical_p_counts_ties_against_the_system():
    trials = np.array([0.1, 0.2, 0.3, 0.5])
    assert empirical_p(0.3, trials) == pytest.approx(3 / 5)
    assert empirical_p(0.9, trials) == pytest.approx(1 / 5)
    assert empirical_p(0.0, trials) == 1.0


def test_good_system_passes_constant_fails_only_where_d_catches_it(bench):
    Q, qrels, pool = bench
    res = gate_runs(Q, [good_run(qrels, pool), constant_run(qrels)], item_pool=pool, n_trials=200, seed=0)
    good, const = res["good"], res["constant"]
    assert good.gate_pass and good.failed_nulls == []
    for r in good.nulls.values():
        assert r.p == pytest.approx(1 / 201) and r.ci_low <= r.mean <= r.ci_high
        assert r.delta == pytest.approx(good.real_mean - r.mean)
    assert not const.gate_pass and "D" in const.failed_nulls
    # constant matches D's mean within D's own spread: a popularity predictor cannot beat null D
    d = const.nulls["D"]
    assert d.ci_low <= const.real_mean <= d.ci_high
    assert const.nulls["C"].passed  # ... yet it beats random retrieval: why null C alone is not enough


def test_pass_requires_both_tau_and_holm(bench):
    Q, qrels, pool = bench
    run = good_run(qrels, pool)
    few = gate(Q, run, item_pool=pool, n_trials=50, seed=0)
    # 4 / 51 > 0.05: Holm can never reach alpha with 50 trials, whatever the delta
    assert not few.gate_pass and all(r.delta > 0.1 for r in few.nulls.values())
    assert any("too few" in w for w in few.warnings)
    big_tau = gate(Q, run, item_pool=pool, n_trials=100, seed=0, tau=1.0)
    assert not big_tau.gate_pass and all(r.p_holm < 0.05 for r in big_tau.nulls.values())


def test_single_class_warning():
    qrels = {f"q{i}": {"gold": 1} for i in range(30)}
    run = Run.from_dict({f"q{i}": {"gold": 2.0, f"x{i}": 1.0} for i in range(30)}, name="r")
    with pytest.warns(HcrbenchWarning, match="single-class"):
        res = gate(qrels, run, item_pool=["gold"] + [f"x{i}" for i in range(30)], metric="R@5", n_trials=100)
    # null A is the identity on a single-class bench: an oracle cannot beat it
    assert res.nulls["A"].mean == res.real_mean and not res.nulls["A"].passed


def test_determinism_same_seed_same_bytes_other_seed_differs(bench):
    Q, qrels, pool = bench
    run = good_run(qrels, pool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        a = json.dumps(gate(Q, run, item_pool=pool, n_trials=60, seed=3).to_dict(), sort_keys=True)
        b = json.dumps(gate(Q, run, item_pool=pool, n_trials=60, seed=3).to_dict(), sort_keys=True)
        c = json.dumps(gate(Q, run, item_pool=pool, n_trials=60, seed=4).to_dict(), sort_keys=True)
    assert a == b and a != c


@pytest.mark.parametrize("kwargs,field", [
    ({"item_pool": None}, "item_pool"), ({"metric": "bleu"}, "--metric"), ({"n_trials": 0}, "n_trials"),
    ({"alpha": 1.5}, "alpha"), ({"k": 10_000}, "k"), ({"seed": -1}, "seed"),
])
def test_bad_arguments_raise_input_error(bench, kwargs, field):
    Q, qrels, pool = bench
    args = {"item_pool": pool, "n_trials": 10, **kwargs}
    with pytest.raises(InputError, match=field):
        gate(Q, constant_run(qrels), **args)


# ------------------------------------------------------------------------------------------ properties

_SMALL = make_bench(n_queries=40, n_docs=120, seed=11)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), shift=st.integers(1, 50))
def test_invariant_under_order_preserving_relabeling(seed, shift):
    qrels, pool = _SMALL
    run = good_run(qrels, pool, seed=seed % 7, hit=0.5)

    def relabel(d):  # d0042 -> zz0092: same order, new names
        return f"zz{int(d[1:]) * 2 + shift:05d}"

    q2 = {q: {relabel(d): g for d, g in docs.items()} for q, docs in qrels.items()}
    r2 = Run.from_dict({q: {relabel(d): s for d, s in docs.items()} for q, docs in run.items()}, name="good")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        a = gate(qrels, run, item_pool=pool, n_trials=20, seed=seed).to_dict()
        b = gate(q2, r2, item_pool=[relabel(d) for d in pool], n_trials=20, seed=seed).to_dict()
    assert a == b


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_deterministic_under_a_seed(seed):
    qrels, pool = _SMALL
    run = constant_run(qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        a = gate(qrels, run, item_pool=pool, n_trials=15, seed=seed)
        b = gate(qrels, run, item_pool=pool, n_trials=15, seed=seed)
    assert a.to_dict() == b.to_dict()
    for x in "ABCD":
        np.testing.assert_array_equal(a.nulls[x].trials, b.nulls[x].trials)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 1000), taus=st.lists(st.floats(-0.5, 1.0), min_size=2, max_size=3))
def test_monotone_in_tau(seed, taus):
    qrels, pool = _SMALL
    run = good_run(qrels, pool, seed=seed % 5, hit=0.3)
    taus = sorted(taus)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        res = [gate(qrels, run, item_pool=pool, n_trials=81, seed=seed, tau=t) for t in taus]
    for x in "ABCD":
        passed = [r.nulls[x].passed for r in res]
        assert passed == sorted(passed, reverse=True)  # once failed at some tau, fails at every larger tau
    gates = [r.gate_pass for r in res]
    assert gates == sorted(gates, reverse=True)


def test_queries_without_relevant_docs_are_left_out():
    qrels = {"q1": {"a": 1}, "q2": {"b": 0}, "q3": {"c": 2}}
    run = Run.from_dict({"q1": {"a": 1.0}, "q2": {"b": 1.0}}, name="r")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        res = gate(Qrels.from_dict(qrels), run, item_pool=list("abcdefghijklmnop"), n_trials=5, metric="R@5", k=5)
    assert res.query_ids == ["q1", "q3"] and res.real_mean == 0.5
