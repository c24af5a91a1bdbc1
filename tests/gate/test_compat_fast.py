"""The drop-in's integer fast path: exact real metric, falsify-eval's streams, exact samplers, block invariance."""

from __future__ import annotations

import falsify_eval as fe
import falsify_eval.cli as fe_cli
import numpy as np
import pytest

from hcrbench.data import Qrels, Run
from hcrbench.gate import compat, four_null_gate
from hcrbench.gate._kernels import single_gold_values, single_gold_weights
from hcrbench.gate.nulls import InverseCdf, null_c_ranked
from hcrbench.metrics import evaluate

_FAMILY = {"recall": "R", "ndcg": "nDCG", "mrr": "RR"}


def _ragged_bench(n=200, n_pool=60, seed=0, dup=False, tuples=False):
    """Lists of 0-12 items (shorter and longer than the cutoffs), gold at a random rank or absent."""
    rng = np.random.default_rng(seed)
    pool = [(i, "t") for i in range(n_pool)] if tuples else [f"c{i:03d}" for i in range(n_pool)]
    w = 1 / np.arange(1, n_pool + 1) ** 1.2
    gold = [pool[j] for j in rng.choice(n_pool, size=n, p=w / w.sum())]
    retrieved = []
    for g in gold:
        m = int(rng.integers(0, 13))
        idx = rng.choice(n_pool, size=m, replace=dup)
        r = [pool[j] for j in idx]
        if m and rng.random() < 0.5 and (dup or g not in r):
            r[int(rng.integers(0, m))] = g
        retrieved.append(r)
    return retrieved, gold, pool


def _fe_metric(name, kk):
    return lambda r, g, rl: fe_cli.METRICS[name](r, g, rl, kk)


def _values(retrieved, gold, rel, name, kk):
    _, codes, ranked = compat._encode(retrieved, gold, kk)
    vals = single_gold_values(ranked, codes, single_gold_weights(_FAMILY[name], kk))
    if name == "ndcg":
        vals = vals * np.array([float(x) > 0 for x in rel])
    return vals


@pytest.mark.filterwarnings("ignore:run 'r'")  # queries with an empty list are absent from the Run: scored 0
@pytest.mark.parametrize("name", ["recall", "ndcg", "mrr"])
@pytest.mark.parametrize("kk", [1, 3, 5, 10])
def test_real_values_equal_metrics_evaluate_and_falsify_eval(name, kk):
    retrieved, gold, pool = _ragged_bench(seed=kk)
    rel = [int(x) for x in np.random.default_rng(1).integers(1, 4, size=len(gold))]  # graded gold
    ours = _values(retrieved, gold, rel, name, kk)
    ref_fe = np.array([_fe_metric(name, kk)(r, g, rl) for r, g, rl in zip(retrieved, gold, rel)])
    np.testing.assert_allclose(ours, ref_fe, rtol=0, atol=1e-12)
    qids = [f"q{i:03d}" for i in range(len(gold))]
    qrels = Qrels.from_dict({q: {g: rl} for q, g, rl in zip(qids, gold, rel)})
    run = Run.from_dict({q: {d: float(len(r) - j) for j, d in enumerate(r)} for q, r in zip(qids, retrieved) if r},
                        name="r")
    metric = f"{_FAMILY[name]}@{kk}"
    res = evaluate(qrels, {"r": run}, [metric], missing="zero")["r"].per_query[metric]
    np.testing.assert_allclose(ours, [res.get(q, 0.0) for q in qids], rtol=0, atol=1e-12)
    assert ours.mean() == pytest.approx(
        four_null_gate(retrieved, gold, rel, f"{name}@{kk}", item_pool=pool, n_trials=2)["real_mean"],
        abs=1e-12)


@pytest.mark.parametrize("name", ["recall", "mrr", "ndcg"])
def test_repeats_and_non_positive_rel_score_as_the_per_query_callable(name):
    retrieved, gold, _ = _ragged_bench(seed=3, dup=True)
    assert any(len(set(r)) < len(r) for r in retrieved)
    rel = [int(x) for x in np.random.default_rng(2).integers(-1, 3, size=len(gold))]
    ours = _values(retrieved, gold, rel, name, 5)
    per_query = compat._named_callable(name, 5)
    np.testing.assert_allclose(ours, [per_query(r, g, rl) for r, g, rl in zip(retrieved, gold, rel)],
                               rtol=0, atol=1e-12)
    if name != "ndcg":  # falsify-eval's ndcg counts a repeated gold at every rank; recall and mrr do not
        fn = _fe_metric(name, 5)
        np.testing.assert_allclose(ours, [fn(r, g, rl) for r, g, rl in zip(retrieved, gold, rel)], atol=1e-12)


@pytest.mark.parametrize("metric,tuples,dup", [("mrr@3", False, False), ("ndcg@10", True, False),
                                               ("recall@5", True, True), ("mrr@7", False, True)])
def test_ragged_lists_keep_falsify_eval_trials(metric, tuples, dup):
    retrieved, gold, pool = _ragged_bench(n=150, seed=7, dup=dup, tuples=tuples)
    rel = [1] * len(gold)
    name, _, kk = metric.partition("@")
    fn = _fe_metric(name, int(kk))
    ours = four_null_gate(retrieved, gold, rel, metric, item_pool=pool, k=5, n_trials=20, seed=3)
    assert ours["real_mean"] == pytest.approx(fe.gate._grade(retrieved, gold, rel, fn), abs=1e-12)
    for x, fe_null in (("A", fe.null_a_permuted), ("B", fe.null_b_uniform), ("D", fe.null_d_marginal_matched)):
        ref = fe_null(retrieved, gold, rel, fn, n_trials=20, seed=3 + "ABCD".index(x))
        np.testing.assert_allclose(ours["null_trials"][x], ref, rtol=0, atol=1e-12)


def test_unhashable_retrieved_items_fall_back_to_per_query_scoring():
    retrieved, gold, pool = _ragged_bench(n=60, seed=4)
    retrieved = [[*r, ["not", "hashable"]] for r in retrieved]
    fn = _fe_metric("recall", 5)
    ours = four_null_gate(retrieved, gold, [1] * 60, "recall@5", item_pool=pool, n_trials=10, seed=1)
    ref = fe.four_null_gate(retrieved, gold, [1] * 60, fn, item_pool=pool, n_trials=10, seed=1)
    for x in "ABD":
        assert ours["null_means"][x] == pytest.approx(ref["null_means"][x], abs=1e-12)
    assert ours["real_mean"] == pytest.approx(ref["real_mean"], abs=1e-12)


@pytest.mark.parametrize("p", [
    1 / np.arange(1, 3001) ** 1.05,                     # Zipf
    np.r_[1e6, np.ones(999)],                           # one huge mass, crowded tail buckets
    np.r_[0.0, 3.0, 0.0, 0.0, 1.0, 2.0, 0.0],           # zero-probability labels are never drawn
    np.array([1.0]),
    np.random.default_rng(9).integers(1, 50, 257).astype(float),
])
def test_inverse_cdf_is_numpy_choice(p):
    p = p / p.sum()
    inv = InverseCdf(p)
    for seed in (0, 1):
        for size in (1, 997, (7, 1000)):
            ref = np.random.default_rng(seed).choice(p.size, size=size, p=p)
            np.testing.assert_array_equal(inv.sample(np.random.default_rng(seed), size), ref)


def test_interval_is_np_quantile():
    rng = np.random.default_rng(0)
    for n in [1, 2, 3, 7, 50, 200, 1001]:
        for scale in (1e-4, 1.0):
            x = np.round(rng.random(n) * scale, 3)
            assert compat._interval(x) == [float(v) for v in np.quantile(x, [0.025, 0.975])]


def test_trial_blocks_do_not_change_the_result(monkeypatch):
    retrieved, gold, pool = _ragged_bench(n=300, seed=5)
    kw = dict(item_pool=pool, k=5, n_trials=30, seed=8)
    whole = four_null_gate(retrieved, gold, [1] * 300, "ndcg@5", **kw)
    assert whole == four_null_gate(retrieved, gold, [1] * 300, "ndcg@5", **kw)  # deterministic under seed
    monkeypatch.setattr(compat, "_BLOCK_CELLS", 300 * 5 * 4)  # blocks of 4 trials
    blocked = four_null_gate(retrieved, gold, [1] * 300, "ndcg@5", **kw)
    for x in "ABD":  # one numpy call per trial (A, B) or the same doubles (D): identical whatever the block
        assert blocked["null_trials"][x] == whole["null_trials"][x]
    other = four_null_gate(retrieved, gold, [1] * 300, "ndcg@5", **{**kw, "seed": 9})
    assert all(other["null_trials"][x] != whole["null_trials"][x] for x in "ABCD")


@pytest.mark.parametrize("metric", ["mrr@3", "ndcg@8", "recall@5"])
def test_null_c_has_the_law_of_random_retrieval(metric):
    """A small pool makes random hits common: the drop-in's C trials against the exact expectation, against
    explicit random retrieval (k distinct pool items per query) and against falsify-eval's null C."""
    rng = np.random.default_rng(0)
    pool = [f"c{i}" for i in range(12)] + ["c3", "c5"]  # repeats in the pool count once
    n, k, trials = 200, 5, 300
    gold = [pool[j] for j in rng.integers(0, 12, size=n)]
    rel = [int(x) for x in rng.integers(0, 3, size=n)]  # rel 0: ndcg scores 0
    name, _, kk = metric.partition("@")
    kk = int(kk)
    ours = np.asarray(four_null_gate([[]] * n, gold, rel, metric, item_pool=pool, k=k, n_trials=trials,
                                     seed=4)["null_trials"]["C"])
    w = single_gold_weights(_FAMILY[name], kk)[: min(k, kk)]
    share = np.mean([float(x) > 0 for x in rel]) if name == "ndcg" else 1.0
    expected = w.sum() / 12 * share
    assert abs(ours.mean() - expected) <= 4 * ours.std(ddof=1) / np.sqrt(trials)
    # explicit: k distinct items of the 12 per query, scored with the per-query metric
    fn = compat._named_callable(name, kk)
    distinct = list(dict.fromkeys(pool))
    gen = np.random.default_rng(1)
    explicit = np.array([np.mean([fn([distinct[j] for j in row], g, rl) for row, g, rl in
                                  zip(null_c_ranked(gen, n, k, np.arange(12)), gold, rel)]) for _ in range(trials)])
    se = np.sqrt(ours.var(ddof=1) / trials + explicit.var(ddof=1) / trials)
    assert abs(ours.mean() - explicit.mean()) <= 4 * se
    assert 0.7 < ours.var(ddof=1) / explicit.var(ddof=1) < 1.4  # F(299, 299): two-sided p < 1e-4 outside
    ref = fe.null_c_random_retrieval(gold, rel, _fe_metric(name, kk), k=k, item_pool=distinct, n_trials=trials,
                                     seed=6)
    if name == "ndcg":  # falsify-eval's ndcg of rel 0 is 0 too (ideal DCG 0), so the laws are the same
        assert all(_fe_metric(name, kk)([g], g, 0) == 0.0 for g in gold[:3])
    se = np.sqrt(ours.var(ddof=1) / trials + ref.var(ddof=1) / trials)
    assert abs(ours.mean() - ref.mean()) <= 4 * se
