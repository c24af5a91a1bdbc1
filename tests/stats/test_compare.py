"""compare() and evaluation_json() on an object with the EvaluationResult interface."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest

import hcrbench
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.stats import (
    Comparison,
    cohens_d_paired,
    compare,
    evaluation_json,
    holm,
    paired_ci,
    paired_ttest,
    permutation_test,
)
from hcrbench.stats._arrays import derive_seed
from hcrbench.stats.compare import JSON_KEYS


@dataclass
class FakeRunEvaluation:
    name: str
    query_ids: list[str]
    values: dict[str, np.ndarray]

    @property
    def means(self) -> dict[str, float]:
        return {m: float(v.mean()) for m, v in self.values.items()}

    @property
    def per_query(self) -> dict[str, dict[str, float]]:
        return {m: dict(zip(self.query_ids, v.tolist())) for m, v in self.values.items()}


@dataclass
class FakeEvaluation:
    metrics: list[str]
    runs: dict[str, FakeRunEvaluation] = field(default_factory=dict)

    def __getitem__(self, name: str) -> FakeRunEvaluation:
        return self.runs[name]

    def metric_name(self, name: str) -> str:  # as EvaluationResult: stats itself does not parse measure names
        from hcrbench.metrics.evaluate import EvaluationResult

        return EvaluationResult.metric_name(self, name)

    def to_dict(self) -> dict:
        return {"runs": {n: {"means": r.means, "per_query": r.per_query, "ledger": {"n_queries": len(r.query_ids)}}
                         for n, r in self.runs.items()}}  # fmt: skip


def make_eval(n=60, seed=0, names=("bm25", "dense", "hybrid"), metrics=("nDCG@10", "R@100")) -> FakeEvaluation:
    rng = np.random.default_rng(seed)
    qids = [f"q{i}" for i in range(n)]
    base = {m: rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], n) for m in metrics}
    ev = FakeEvaluation(list(metrics))
    for k, name in enumerate(names):
        vals = {m: np.clip(v + (rng.normal(0.05 * k, 0.2, n) if k else 0.0), 0, 1) for m, v in base.items()}
        ev.runs[name] = FakeRunEvaluation(name, qids, vals)
    return ev


def test_compare_matches_the_primitives():
    ev = make_eval()
    comps = compare(ev, n_resamples=2000, seed=7)
    assert [(c.run, c.metric) for c in comps] == [
        ("dense", "nDCG@10"), ("dense", "R@100"), ("hybrid", "nDCG@10"), ("hybrid", "R@100")
    ]  # fmt: skip
    assert all(c.baseline == "bm25" for c in comps)
    for c in comps:
        a, b = ev.runs[c.run].values[c.metric], ev.runs["bm25"].values[c.metric]
        d = a - b
        assert c.n == 60
        assert c.delta == pytest.approx(a.mean() - b.mean(), abs=1e-15)
        assert (c.mean_run, c.mean_baseline) == (pytest.approx(a.mean()), pytest.approx(b.mean()))
        perm = permutation_test(a, b, n_resamples=2000, seed=derive_seed(7, "perm", c.run, "bm25", c.metric))
        assert c.p == perm.pvalue
        ci = paired_ci(a, b, n_resamples=2000, seed=derive_seed(7, "boot", c.run, "bm25", c.metric))
        assert (c.ci_low, c.ci_high) == (ci.low, ci.high) and c.ci_method == ci.method == "t"  # n = 60 < 300
        assert c.ci_low <= c.delta <= c.ci_high
        assert c.cohens_d == pytest.approx(cohens_d_paired(a, b))
        assert c.t_p == pytest.approx(paired_ttest(a, b).pvalue)
        assert c.helped == int((d > 1e-12).sum()) and c.hurt == int((d < -1e-12).sum())
        assert c.helped + c.hurt + c.tied == 60 and c.tied > 0
    # the declared family: (baseline, metric set) per run, so 2 tests each, not the 4 of the call
    for run in ("dense", "hybrid"):
        mine = [c for c in comps if c.run == run]
        np.testing.assert_array_equal([c.p_holm for c in mine], holm([c.p for c in mine]))
        assert all(c.family == "run" and c.family_size == 2 for c in mine)
    pooled = compare(ev, n_resamples=2000, seed=7, family="all")
    np.testing.assert_array_equal([c.p_holm for c in pooled], holm([c.p for c in pooled]))
    assert all(c.family_size == 4 for c in pooled)


def test_baseline_metrics_and_family():
    ev = make_eval()
    comps = compare(ev, baseline="hybrid", metrics="R@100", n_resamples=500)
    assert [(c.run, c.baseline, c.metric) for c in comps] == [("bm25", "hybrid", "R@100"), ("dense", "hybrid", "R@100")]
    # one metric declared: each run's family is that one test (Holm p = p); pooled on request
    assert [c.p_holm for c in comps] == [c.p for c in comps] and all(c.family_size == 1 for c in comps)
    pooled = compare(ev, baseline="hybrid", metrics="R@100", n_resamples=500, family="all")
    np.testing.assert_array_equal([c.p_holm for c in pooled], holm([c.p for c in pooled]))
    assert compare(make_eval(names=("only",)), n_resamples=10) == []


def test_a_comparison_does_not_depend_on_the_other_runs():
    full = compare(make_eval(), n_resamples=1000, seed=3)
    alone = compare(make_eval(names=("bm25", "dense", "hybrid")), metrics=["nDCG@10"], n_resamples=1000, seed=3)
    pick = {(c.run, c.metric): c for c in full}
    for c in alone:
        ref = pick[(c.run, c.metric)]
        assert (c.p, c.ci_low, c.ci_high, c.delta) == (ref.p, ref.ci_low, ref.ci_high, ref.delta)
    assert compare(make_eval(), n_resamples=1000, seed=3) == full  # deterministic
    assert compare(make_eval(), n_resamples=1000, seed=4) != full


def test_different_query_lists_are_paired_on_the_intersection():
    ev = make_eval(names=("a", "b"))
    rb = ev.runs["b"]
    keep = list(range(0, 60, 2))
    ev.runs["b"] = FakeRunEvaluation("b", [rb.query_ids[i] for i in keep][::-1],
                                     {m: v[keep][::-1] for m, v in rb.values.items()})  # fmt: skip
    with pytest.warns(HcrbenchWarning, match="different queries"):
        comps = compare(ev, n_resamples=200)
    a = ev.runs["a"].values["nDCG@10"][keep]
    b = rb.values["nDCG@10"][keep]
    assert comps[0].n == 30
    assert comps[0].delta == pytest.approx(b.mean() - a.mean())


def test_bad_arguments_raise_input_error():
    ev = make_eval()
    with pytest.raises(InputError) as ei:
        compare(ev, baseline="nope")
    assert ei.value.field == "baseline" and "bm25" in str(ei.value)
    with pytest.raises(InputError) as ei:
        compare(ev, metrics=["nDCG@10", "MAP"])
    assert ei.value.field == "metrics" and "MAP" in str(ei.value)
    with pytest.raises(InputError):
        compare(ev, n_resamples=0)
    with pytest.raises(InputError):
        compare(FakeEvaluation(["nDCG@10"]))
    ev2 = make_eval(names=("a", "b"))
    ev2.runs["b"].query_ids = [f"x{i}" for i in range(60)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        with pytest.raises(InputError, match="share no query"):
            compare(ev2)


def test_evaluation_json_schema_and_strictness():
    ev = make_eval(names=("base", "same", "shifted"), metrics=("nDCG@10",))
    v = ev.runs["base"].values["nDCG@10"]
    ev.runs["same"].values["nDCG@10"] = v.copy()  # d = 0
    ev.runs["shifted"].values["nDCG@10"] = v + 0.125  # zero spread: Cohen's d = +inf
    ev.runs["base"].values["nDCG@10"] = v.astype(np.float32).astype(np.float64)
    comps = compare(ev, n_resamples=300)
    doc = evaluation_json(ev, comps)
    assert set(doc) == {"runs", "comparisons"}
    assert set(doc["runs"]) == {"base", "same", "shifted"}
    assert set(doc["runs"]["base"]) == {"means", "per_query", "ledger"}
    for c in doc["comparisons"]:
        assert set(JSON_KEYS) <= set(c) <= set(JSON_KEYS) | {"n", "t_p", "mean_run", "mean_baseline",
                                                          "ci_method", "family", "family_size"}
    same, shifted = doc["comparisons"]
    assert same["p"] == 1.0 and same["cohens_d"] == 0.0 and same["tied"] == 60
    assert shifted["cohens_d"] is None  # inf is not JSON: written as null
    assert shifted["helped"] == 60 and shifted["p"] == pytest.approx(1 / 301)
    text = json.dumps(doc, allow_nan=False)  # strict JSON, plain Python numbers
    assert json.loads(text) == doc
    assert isinstance(doc["runs"]["base"]["means"]["nDCG@10"], float)


def test_comparison_to_dict_keys_and_top_level_forwarder():
    ev = make_eval(names=("x", "y"), metrics=("RR",))
    comps = hcrbench.compare(ev, n_resamples=100)
    assert isinstance(comps[0], Comparison)
    assert comps == compare(ev, n_resamples=100)
    d = comps[0].to_dict()
    assert list(d)[:12] == list(JSON_KEYS)
    assert comps[0].significant(1.0) is True and comps[0].significant(0.0) is False


def test_holm_p_does_not_depend_on_which_other_runs_are_compared():
    """Finding 4: the family is (baseline, metric set) per run, so adding a run changes no Holm p or verdict."""
    full = compare(make_eval(), n_resamples=1000, seed=3)
    fewer = compare(make_eval(names=("bm25", "dense")), n_resamples=1000, seed=3)
    pick = {(c.run, c.metric): c for c in full}
    for c in fewer:
        assert c.p_holm == pick[(c.run, c.metric)].p_holm and c.family_size == 2
    with pytest.raises(InputError, match="family"):
        compare(make_eval(), family="everything")


def test_comparison_json_names_the_interval_method_and_family():
    c = compare(make_eval(n=12), n_resamples=500)[0]
    d = c.to_dict()
    assert d["ci_method"] == "t" and d["family"] == "run" and d["family_size"] == 2  # n = 12: t interval
    assert compare(make_eval(n=300), n_resamples=500)[0].ci_method == "bca"
    for key in ("run", "baseline", "metric", "delta", "ci_low", "ci_high", "p", "p_holm", "cohens_d", "helped",
                "hurt", "tied", "n", "t_p", "mean_run", "mean_baseline"):
        assert key in d  # every old key kept
