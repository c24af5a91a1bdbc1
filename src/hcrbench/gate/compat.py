"""Drop-in replacement for ``falsify_eval.four_null_gate`` (falsify-eval 0.2.0), vectorised and calibrated.

Same arguments, defaults and return keys as falsify-eval (one gold label per query; ``passes`` is its rule
``delta >= tau``), plus hcrbench's extras: per-null empirical p-values, Holm-adjusted p-values, 95% intervals
of the null distribution, the trial means, and ``passes_calibrated`` / ``gate_passes_calibrated`` (delta >= tau
AND Holm p < alpha). A metric *name* (``"recall@5"``, ``"ndcg@5"``, ``"mrr@5"``: falsify-eval's CLI metrics)
runs on the numpy kernels; a callable ``metric_fn(retrieved, gold, rel)`` is called per query like falsify-eval
does, with calls for nulls A, B and D cached per (query, label) — so it must be a pure function.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hcrbench.data import Qrels, Run
from hcrbench.errors import InputError
from hcrbench.gate.core import empirical_p, gate_runs, holm
from hcrbench.gate.nulls import NULLS, Relevance, null_c_ranked

_NAMES = {"recall": "R", "ndcg": "nDCG", "mrr": "RR"}


def _label_key(x: Any) -> tuple[str, str]:
    return (type(x).__name__, repr(x))


def _validate(retrieved_lists, gold_list, rel_list, item_pool, k, n_trials, tau, seed) -> None:
    """falsify-eval's input checks, raised as :class:`InputError` (a ``ValueError``, as falsify-eval raises)."""
    n_r, n_g, n_rel = len(retrieved_lists), len(gold_list), len(rel_list)
    if not n_r == n_g == n_rel:
        raise InputError(f"length mismatch: retrieved_lists={n_r}, gold_list={n_g}, rel_list={n_rel}; "
                         "all three must have one entry per query", field="retrieved_lists")
    if n_g == 0:
        raise InputError("gold_list is empty: need at least one query", field="gold_list")
    for name, v in (("k", k), ("n_trials", n_trials)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"must be a positive integer, got {v!r}", field=name)
    if not 0.0 <= tau <= 1.0:
        raise InputError(f"must be in [0, 1], got {tau}", field="tau")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"must be a non-negative integer, got {seed!r}", field="seed")
    if item_pool is None:
        raise InputError("null C requires item_pool (your real chunk/document pool); defaulting to the gold "
                         "labels would make null C far weaker than honest random retrieval", field="item_pool")
    pool = list(item_pool)
    if not pool:
        raise InputError("item_pool is empty", field="item_pool")
    if k > len(pool):
        raise InputError(f"k={k} > len(item_pool)={len(pool)}; null C samples k items without replacement",
                         field="k")
    pool_set = set(pool)
    missing = sorted({g for g in gold_list if g not in pool_set}, key=_label_key)
    if missing:
        raise InputError(f"{len(missing)} gold label(s) not present in item_pool: {missing[:5]}",
                         field="item_pool")


def _falsify_warnings(gold_list, item_pool) -> list[str]:
    out = []
    if len(set(gold_list)) == 1:
        out.append("single-class benchmark: Null A and Null D collapse to the same distribution; "
                   "treat ΔA and ΔD as one test, not two")
    n_pool = len(set(item_pool))
    if len(gold_list) < 2 * n_pool:
        out.append(f"sparse marginal: N={len(gold_list)} queries over {n_pool} pool items; Null D's marginal "
                   "estimator is noisy when N < 2·|pool| — Δ_D may behave like Δ_B")
    return out


def four_null_gate(
    retrieved_lists: Sequence[Sequence[Any]],
    gold_list: Sequence[Any],
    rel_list: Sequence[Any],
    metric_fn: str | Callable[[list, Any, Any], float],
    *,
    item_pool: Sequence[Any] | None = None,
    k: int = 5,
    n_trials: int = 50,
    tau: float = 0.05,
    seed: int = 2026,
    progress: bool = False,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """falsify-eval's four-null gate: same arguments and keys, plus p-values, Holm p and 95% intervals."""
    _validate(retrieved_lists, gold_list, rel_list, item_pool, k, n_trials, tau, seed)
    t0 = time.perf_counter()
    fast = isinstance(metric_fn, str)
    if fast:
        name, _, kk = metric_fn.lower().partition("@")
        if name not in _NAMES or not kk.isdigit() or int(kk) < 1:
            raise InputError(f"unknown metric {metric_fn!r}; use recall@K, ndcg@K, mrr@K or a callable",
                             field="metric_fn")
        dup = any(len(set(r)) != len(r) for r in retrieved_lists)
        if dup and name != "ndcg":
            # recall / mrr only look at the first occurrence: later repeats become never-relevant fillers
            retrieved_lists, dup = [_mask_repeats(i, r) for i, r in enumerate(retrieved_lists)], False
        nonpos = name == "ndcg" and any(not (float(x) > 0) for x in rel_list)
        if dup or nonpos:  # outside what a TREC run / positive grade can express: score it per query
            metric_fn = _named_callable(name, int(kk))
            fast = False
    if fast:
        trials, real = _fast(retrieved_lists, gold_list, item_pool, f"{_NAMES[name]}@{kk}", k, n_trials, seed)
    else:
        trials, real = _generic(retrieved_lists, gold_list, rel_list, metric_fn, item_pool, k, n_trials, seed)
    null_means = {x: float(trials[x].mean()) for x in NULLS}
    deltas = {x: real - null_means[x] for x in NULLS}
    passes = {x: bool(deltas[x] >= tau) for x in NULLS}
    ps = {x: empirical_p(real, trials[x]) for x in NULLS}
    ph = dict(zip(NULLS, (float(v) for v in holm([ps[x] for x in NULLS]))))
    cal = {x: bool(passes[x] and ph[x] < alpha) for x in NULLS}
    warns = _falsify_warnings(gold_list, item_pool)
    if len(NULLS) / (n_trials + 1) >= alpha:
        warns.append(f"hcrbench: n_trials={n_trials} is too few for Holm-adjusted p < alpha={alpha}; "
                     f"passes_calibrated is False for every null (use n_trials >= {int(len(NULLS) / alpha)})")
    out: dict[str, Any] = {
        "real_mean": real, "null_means": null_means, "deltas": deltas, "passes": passes,
        "gate_passes": all(passes.values()), "tau": tau, "n_trials": n_trials, "warnings": warns,
        "p_values": ps, "p_holm": ph,
        "intervals": {x: [float(v) for v in np.quantile(trials[x], [0.025, 0.975])] for x in NULLS},
        "null_trials": {x: trials[x].tolist() for x in NULLS},
        "passes_calibrated": cal, "gate_passes_calibrated": all(cal.values()), "alpha": alpha,
    }
    if progress:
        secs = time.perf_counter() - t0
        out["stage_seconds"] = {"total": secs}
        print(f"[hcrbench] four_null_gate: done in {secs:.2f}s", file=sys.stderr, flush=True)
    return out


class _Filler:
    """A placeholder for a repeated retrieved item: equal to nothing but itself, so never a gold label."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[int, int]) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"<repeat {self.key[0]}:{self.key[1]}>"


def _mask_repeats(i: int, retrieved: Sequence[Any]) -> list[Any]:
    seen: set = set()
    out = []
    for j, x in enumerate(retrieved):
        out.append(_Filler((i, j)) if x in seen else x)
        seen.add(x)
    return out


def _falsify_seeds(seed: int) -> dict[str, int]:
    """falsify-eval seeds null A with ``seed``, B with ``seed + 1``, C with ``+ 2`` and D with ``+ 3``."""
    return {x: seed + i for i, x in enumerate(NULLS)}


def _named_callable(name: str, k: int) -> Callable[[list, Any, Any], float]:
    """falsify-eval's CLI metrics (ndcg, recall, mrr @k) as per-query functions."""
    def fn(retrieved, gold, rel):
        top = list(retrieved)[:k]
        if name == "recall":
            return 1.0 if gold in top else 0.0
        for i, r in enumerate(top):
            if r == gold:
                if name == "mrr":
                    return 1.0 / (i + 1)
                return 1.0 / np.log2(i + 2) if float(rel) > 0 else 0.0
        return 0.0
    return fn


def _fast(retrieved_lists, gold_list, item_pool, metric: str, k: int, n_trials: int, seed: int):
    """Map labels to order-preserving string ids and run the vectorised gate."""
    universe = {x for r in retrieved_lists for x in r} | set(gold_list) | set(item_pool)
    ordered = sorted(universe, key=_label_key)
    width = len(str(len(ordered)))
    sid = {x: f"{i:0{width}d}" for i, x in enumerate(ordered)}
    qids = [f"q{i}" for i in range(len(gold_list))]
    qrels = Qrels.from_dict({q: {sid[g]: 1} for q, g in zip(qids, gold_list)})
    run = Run.from_dict({q: {sid[d]: float(len(r) - j) for j, d in enumerate(r)}
                         for q, r in zip(qids, retrieved_lists)}, name="system")
    res = gate_runs(qrels, {"system": run}, metric=metric, item_pool=[sid[x] for x in item_pool],
                    n_trials=n_trials, tau=0.0, alpha=0.5, k=k, seed=seed, emit_warnings=False,
                    null_seeds=_falsify_seeds(seed), iid_null_d=True)["system"]
    return {x: res.nulls[x].trials for x in NULLS}, res.real_mean


def _generic(retrieved_lists, gold_list, rel_list, metric_fn, item_pool, k, n_trials, seed):
    """Vectorised null draws, user metric called per query (cached per query and label for A, B, D)."""
    n = len(gold_list)
    labels = sorted(Counter(gold_list), key=_label_key)
    lab_index = {x: i for i, x in enumerate(labels)}
    codes = np.array([lab_index[g] for g in gold_list], dtype=np.int64)
    rel = Relevance.build(np.arange(n), codes, np.ones(n, dtype=np.int64), n)
    # Relevance sorts entries by (row, doc): with one entry per row the row order is kept.
    cache: dict[tuple[int, int], float] = {}

    def score(i: int, lab: int) -> float:
        key = (i, lab)
        v = cache.get(key)
        if v is None:
            v = cache[key] = float(metric_fn(retrieved_lists[i], labels[lab], rel_list[i]))
        return v

    real = float(np.mean([score(i, int(c)) for i, c in enumerate(codes)]))
    pool = list(item_pool)
    trials = {x: np.empty(n_trials) for x in NULLS}
    gens = {x: np.random.default_rng(s) for x, s in _falsify_seeds(seed).items()}
    draw = {"A": rel.null_a, "B": rel.null_b, "D": rel.null_d_iid}
    for t in range(n_trials):
        for x in ("A", "B", "D"):
            _, docs, _ = draw[x](gens[x])
            trials[x][t] = np.mean([score(i, int(d)) for i, d in enumerate(docs)])
        rand = null_c_ranked(gens["C"], n, k, np.arange(len(pool)))
        trials["C"][t] = np.mean([float(metric_fn([pool[j] for j in rand[i]], gold_list[i], rel_list[i]))
                                  for i in range(n)])
    return trials, real
