"""four_null_gate is a drop-in for falsify-eval 0.2.0: same keys, same pass/fail, same null distributions."""

from __future__ import annotations

import falsify_eval as fe
import falsify_eval.cli as fe_cli
import numpy as np
import pytest

from hcrbench.errors import InputError
from hcrbench.gate import four_null_gate


def _bench(kind: str, n: int = 300, n_pool: int = 500, seed: int = 0):
    rng = np.random.default_rng(seed)
    pool = [f"c{i}" for i in range(n_pool)]
    w = 1 / np.arange(1, n_pool + 1) ** 1.1
    gold = [pool[j] for j in rng.choice(n_pool, size=n, p=w / w.sum())]
    retrieved = []
    for g in gold:
        if kind == "constant":
            retrieved.append(pool[:5])
            continue
        r = [pool[j] for j in rng.choice(n_pool, size=6, replace=False) if pool[j] != g][:5]
        retrieved.append([g, *r[:4]] if rng.random() < (0.6 if kind == "good" else 0.0) else r)
    return retrieved, gold, [1] * n, pool


_FAST = [("good", "recall@5"), ("constant", "ndcg@5"), ("random", "mrr@5")]
_ALL = [(k, m) for k in ("good", "constant", "random") for m in ("recall@5", "ndcg@5", "mrr@5")]


@pytest.mark.parametrize("kind,metric,n", [(k, m, 120) for k, m in _FAST]
                         + [pytest.param(k, m, 1000, marks=pytest.mark.slow) for k, m in _ALL])
def test_parity_with_falsify_eval(kind, metric, n):
    retrieved, gold, rel, pool = _bench(kind, n=n)
    name, _, k = metric.partition("@")
    fn = lambda r, g, rl: fe_cli.METRICS[name](r, g, rl, int(k))  # noqa: E731
    kw = dict(item_pool=pool, k=5, n_trials=50, tau=0.05, seed=11)
    ref = fe.four_null_gate(retrieved, gold, rel, fn, **kw)
    ours = four_null_gate(retrieved, gold, rel, metric, **kw)
    ours_fn = four_null_gate(retrieved, gold, rel, fn, **kw)
    assert set(ref) <= set(ours)
    assert ours["real_mean"] == pytest.approx(ref["real_mean"], abs=1e-12)
    assert ours["passes"] == ref["passes"] and ours["gate_passes"] == ref["gate_passes"]
    assert ours_fn["passes"] == ref["passes"]
    # A, B and D draw from the same numpy streams as falsify-eval: identical null distributions
    for x, fe_null in (("A", fe.null_a_permuted), ("B", fe.null_b_uniform), ("D", fe.null_d_marginal_matched)):
        trials = fe_null(retrieved, gold, rel, fn, n_trials=50, seed=11 + "ABCD".index(x))
        np.testing.assert_allclose(ours["null_trials"][x], trials, atol=1e-12)
        np.testing.assert_allclose(ours_fn["null_trials"][x], trials, atol=1e-12)
    # C samples differently: equal within Monte-Carlo error (4 standard errors of the difference)
    c_ref = fe.null_c_random_retrieval(gold, rel, fn, k=5, item_pool=pool, n_trials=50, seed=13)
    c_ours = np.asarray(ours["null_trials"]["C"])
    se = np.sqrt(c_ref.var(ddof=1) / 50 + c_ours.var(ddof=1) / 50)
    assert abs(c_ref.mean() - c_ours.mean()) <= 4 * se + 1e-9
    assert ref["null_means"]["C"] == pytest.approx(c_ref.mean())


def test_extras_and_calibrated_pass():
    retrieved, gold, rel, pool = _bench("good")
    res = four_null_gate(retrieved, gold, rel, "recall@5", item_pool=pool, n_trials=100, seed=1)
    assert res["gate_passes"] and res["gate_passes_calibrated"]
    for x in "ABCD":
        assert res["p_values"][x] == pytest.approx(1 / 101)
        lo, hi = res["intervals"][x]
        assert lo <= res["null_means"][x] <= hi
    few = four_null_gate(retrieved, gold, rel, "recall@5", item_pool=pool, n_trials=50, seed=1)
    assert few["gate_passes"] and not few["gate_passes_calibrated"]
    assert any("too few" in w for w in few["warnings"])


def test_warnings_as_falsify_eval():
    retrieved, gold, rel, pool = _bench("good", n=100)
    kw = dict(item_pool=pool, n_trials=10, seed=0)
    ref = fe.four_null_gate(retrieved, gold, rel, lambda r, g, x: float(g in r[:5]), **kw)
    ours = four_null_gate(retrieved, gold, rel, "recall@5", **kw)
    assert ours["warnings"][: len(ref["warnings"])] == ref["warnings"]


@pytest.mark.parametrize("kwargs,match", [
    ({"item_pool": None}, "item_pool"), ({"k": 0}, "k"), ({"n_trials": 0}, "n_trials"), ({"tau": 2.0}, "tau"),
    ({"seed": -3}, "seed"), ({"item_pool": ["c1"]}, "k"), ({"metric_fn": "bleu@5"}, "metric_fn"),
])
def test_input_errors_are_value_errors(kwargs, match):
    retrieved, gold, rel, pool = _bench("good", n=20)
    args = {"item_pool": pool, "metric_fn": "recall@5", **kwargs}
    fn = args.pop("metric_fn")
    with pytest.raises(ValueError, match=match) as e:
        four_null_gate(retrieved, gold, rel, fn, **args)
    assert isinstance(e.value, InputError)


def test_non_string_labels_and_duplicates_use_the_generic_path():
    rng = np.random.default_rng(0)
    gold = [(int(x), "t") for x in rng.integers(0, 30, size=80)]
    pool = [(i, "t") for i in range(60)]
    retrieved = [[g, *[pool[j] for j in rng.choice(60, size=4)]] for g in gold]  # may repeat items
    fn = lambda r, g, rl: fe_cli.METRICS["recall"](r, g, rl, 5)  # noqa: E731
    kw = dict(item_pool=pool, k=5, n_trials=30, tau=0.05, seed=5)
    ref = fe.four_null_gate(retrieved, gold, [1] * 80, fn, **kw)
    ours = four_null_gate(retrieved, gold, [1] * 80, "recall@5", **kw)
    assert ours["passes"] == ref["passes"]
    for x in "ABD":
        assert ours["null_means"][x] == pytest.approx(ref["null_means"][x], abs=1e-12)
