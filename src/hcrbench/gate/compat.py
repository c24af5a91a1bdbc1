"""Drop-in replacement for ``falsify_eval.four_null_gate`` (falsify-eval 0.2.0), vectorised and calibrated.

Same arguments, defaults and return keys as falsify-eval (one gold label per query; ``passes`` is its rule
``delta >= tau``), plus hcrbench's extras: per-null empirical p-values, Holm-adjusted p-values, 95% intervals
of the null distribution, the trial means, and ``passes_calibrated`` / ``gate_passes_calibrated`` (delta >= tau
AND Holm p < alpha).

A metric *name* (``"recall@5"``, ``"ndcg@5"``, ``"mrr@5"``: falsify-eval's CLI metrics) runs on integer codes:
one dict pass maps labels to codes (falsify-eval's label order), the metric of a query is a weight at the gold's
first rank, and the trials of each null are scored a block at a time as ``(trials, queries)`` arrays. Nulls A, B
and D make falsify-eval's numpy calls with its seeds, so their trials are falsify-eval's; null C draws each
gold's position in a random k-subset of the pool (the same law, see :func:`single_gold_null_c_positions`). A
gold retrieved twice counts at its first rank (falsify-eval's ``ndcg_at_k`` counts every repeat), and a query
whose ``rel`` is not positive scores 0 on ndcg. A callable ``metric_fn(retrieved, gold, rel)`` is called per
query like falsify-eval does, with calls for nulls A, B and D cached per (query, label): it must be pure.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain, repeat
from typing import Any

import numpy as np

from hcrbench.errors import InputError
from hcrbench.gate._kernels import single_gold_values, single_gold_weights
from hcrbench.gate.core import empirical_p, holm
from hcrbench.gate.nulls import (
    NULLS,
    InverseCdf,
    Relevance,
    null_c_ranked,
    single_gold_null_a,
    single_gold_null_b,
    single_gold_null_c_positions,
    single_gold_null_d,
)

_NAMES = {"recall": "R", "ndcg": "nDCG", "mrr": "RR"}


def _label_key(x: Any) -> tuple[str, str]:
    return (type(x).__name__, repr(x))


def _validate(retrieved_lists, gold_list, rel_list, item_pool, k, n_trials, tau, seed) -> list[Any]:
    """falsify-eval's input checks, raised as :class:`InputError` (a ``ValueError``, as falsify-eval raises).

    Returns the item pool's distinct items in first-seen order (null C draws distinct items).
    """
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
    pool = item_pool if isinstance(item_pool, (list, tuple)) else list(item_pool)
    if not pool:
        raise InputError("item_pool is empty", field="item_pool")
    if k > len(pool):
        raise InputError(f"k={k} > len(item_pool)={len(pool)}; null C samples k items without replacement",
                         field="k")
    distinct = dict.fromkeys(pool)  # insertion-ordered set
    if k > len(distinct):
        raise InputError(f"k={k} > {len(distinct)} distinct items in item_pool; null C samples k distinct items",
                         field="k")
    missing = sorted({g for g in gold_list if g not in distinct}, key=_label_key)
    if missing:
        raise InputError(f"{len(missing)} gold label(s) not present in item_pool: {missing[:5]}",
                         field="item_pool")
    return list(distinct)


def _falsify_warnings(n_queries: int, n_labels: int, n_pool: int) -> list[str]:
    out = []
    if n_labels == 1:
        out.append("single-class benchmark: Null A and Null D collapse to the same distribution; "
                   "treat ΔA and ΔD as one test, not two")
    if n_queries < 2 * n_pool:
        out.append(f"sparse marginal: N={n_queries} queries over {n_pool} pool items; Null D's marginal "
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
    t0 = time.perf_counter()
    pool = _validate(retrieved_lists, gold_list, rel_list, item_pool, k, n_trials, tau, seed)
    stages: dict[str, float] = {}
    enc = None
    if isinstance(metric_fn, str):
        name, _, kk = metric_fn.lower().partition("@")
        if name not in _NAMES or not kk.isdigit() or int(kk) < 1:
            raise InputError(f"unknown metric {metric_fn!r}; use recall@K, ndcg@K, mrr@K or a callable",
                             field="metric_fn")
        try:
            enc = _encode(retrieved_lists, gold_list, int(kk))
        except TypeError:  # unhashable retrieved items: score them per query, as falsify-eval does
            metric_fn = _named_callable(name, int(kk))
        stages["setup"] = time.perf_counter() - t0
    if enc is not None:
        trials, real = _single_gold(enc, rel_list, _NAMES[name], int(kk), len(pool), k, n_trials, seed, stages)
        n_labels = len(enc[0])
    else:
        trials, real = _generic(retrieved_lists, gold_list, rel_list, metric_fn, pool, k, n_trials, seed)
        n_labels = len(set(gold_list))
    null_means = {x: float(trials[x].mean()) for x in NULLS}
    deltas = {x: real - null_means[x] for x in NULLS}
    passes = {x: bool(deltas[x] >= tau) for x in NULLS}
    ps = {x: empirical_p(real, trials[x]) for x in NULLS}
    ph = dict(zip(NULLS, (float(v) for v in holm([ps[x] for x in NULLS]))))
    cal = {x: bool(passes[x] and ph[x] < alpha) for x in NULLS}
    warns = _falsify_warnings(len(gold_list), n_labels, len(pool))
    if len(NULLS) / (n_trials + 1) >= alpha:
        warns.append(f"hcrbench: n_trials={n_trials} is too few for Holm-adjusted p < alpha={alpha}; "
                     f"passes_calibrated is False for every null (use n_trials >= {int(len(NULLS) / alpha)})")
    out: dict[str, Any] = {
        "real_mean": real, "null_means": null_means, "deltas": deltas, "passes": passes,
        "gate_passes": all(passes.values()), "tau": tau, "n_trials": n_trials, "warnings": warns,
        "p_values": ps, "p_holm": ph,
        "intervals": {x: _interval(trials[x]) for x in NULLS},
        "null_trials": {x: trials[x].tolist() for x in NULLS},
        "passes_calibrated": cal, "gate_passes_calibrated": all(cal.values()), "alpha": alpha,
    }
    if progress:
        secs = time.perf_counter() - t0
        out["stage_seconds"] = {**stages, "total": secs}
        print(f"[hcrbench] four_null_gate: done in {secs:.3f}s", file=sys.stderr, flush=True)
    return out


def _interval(trials: np.ndarray) -> list[float]:
    """2.5% and 97.5% points of the trial means: ``np.quantile``'s default (linear) method, same floats.

    Written out because ``np.quantile``'s first call in a process imports ``numpy.ma`` (~10 ms).
    """
    a = np.sort(trials)
    out = []
    for q in (0.025, 0.975):
        h = q * (a.size - 1)
        lo = int(np.floor(h))
        hi = min(lo + 1, a.size - 1)
        t, diff = h - lo, a[hi] - a[lo]
        out.append(float(a[hi] - diff * (1 - t) if t >= 0.5 else a[lo] + diff * t))
    return out


def _falsify_seeds(seed: int) -> dict[str, int]:
    """falsify-eval seeds null A with ``seed``, B with ``seed + 1``, C with ``+ 2`` and D with ``+ 3``."""
    return {x: seed + i for i, x in enumerate(NULLS)}


def _named_callable(name: str, k: int) -> Callable[[list, Any, Any], float]:
    """falsify-eval's CLI metrics (ndcg, recall, mrr @k) as per-query functions (a repeat counts once)."""
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


# Trials are scored in blocks of at most this many (trial, query, rank) cells, to bound memory at large N.
_BLOCK_CELLS = 1 << 22


def _encode(retrieved_lists, gold_list, depth: int) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """Labels in falsify-eval's order, each query's gold code and its top-``depth`` codes ((N, width), -1 = none;
    width = the longest list, at most ``depth``).

    One dict lookup per retrieved item; items that are no gold label get -1 (no null A/B/D draw can match them).
    Raises ``TypeError`` for an unhashable retrieved item.
    """
    labels = sorted(set(gold_list), key=_label_key)
    index = dict(zip(labels, range(len(labels))))
    n = len(gold_list)
    dt = np.int32 if len(labels) < 2**31 else np.int64
    codes = np.fromiter(map(index.__getitem__, gold_list), dtype=dt, count=n)
    lens = np.fromiter(map(len, retrieved_lists), dtype=np.int64, count=n)
    tops = retrieved_lists
    if lens.max() > depth:
        tops = [r[:depth] for r in retrieved_lists]
        lens = np.minimum(lens, depth)
    depth = int(lens.max())  # ranks no list reaches can hold no gold
    flat = np.fromiter(map(index.get, chain.from_iterable(tops), repeat(-1)), dtype=dt, count=int(lens.sum()))
    if lens.min() == depth:
        return labels, codes, flat.reshape(n, depth)
    ranked = np.full((n, depth), -1, dtype=dt)
    rows = np.repeat(np.arange(n), lens)
    ranked[rows, np.arange(flat.size) - (np.cumsum(lens) - lens)[rows]] = flat
    return labels, codes, ranked


def _single_gold(enc, rel_list, family: str, depth: int, n_pool: int, k: int, n_trials: int, seed: int,
                 stages: dict[str, float]) -> tuple[dict[str, np.ndarray], float]:
    """The gate for a metric name, on integer codes: every trial of every null is a few numpy passes.

    A, B and D redraw the gold codes with falsify-eval's numpy calls and seeds (identical trials); C draws each
    gold's position in a random retrieval of k distinct pool items (same law as falsify-eval's null C).
    """
    labels, codes, ranked = enc
    n, n_labels = codes.size, len(labels)
    t = time.perf_counter()
    w = single_gold_weights(family, depth)
    gain = None
    if family == "nDCG":  # falsify-eval's ndcg is 0 for a query whose rel is not positive
        positive = np.fromiter((float(x) > 0 for x in rel_list), dtype=bool, count=n)
        gain = None if positive.all() else positive.astype(np.float64)

    def mean(vals: np.ndarray) -> np.ndarray:
        return (vals if gain is None else vals * gain).mean(axis=-1)

    real = float(mean(single_gold_values(ranked, codes, w)))
    stages["real"] = time.perf_counter() - t
    m = min(k, depth)  # null C retrieves k items; the metric looks at the first `depth`
    w_c = np.zeros(m + 1)
    w_c[:m] = w[:m]
    inv = InverseCdf(np.bincount(codes, minlength=n_labels) / n)
    gens = {x: np.random.default_rng(s) for x, s in _falsify_seeds(seed).items()}
    trials = {x: np.empty(n_trials) for x in NULLS}
    for x in NULLS:
        stages[f"null_{x.lower()}"] = 0.0
    block = max(1, _BLOCK_CELLS // (n * max(ranked.shape[1], 1)))
    for b0 in range(0, n_trials, block):
        c = min(block, n_trials - b0)
        sl = slice(b0, b0 + c)
        for x in ("A", "B", "D"):
            t = time.perf_counter()
            if x == "A":
                gold = single_gold_null_a(gens["A"], codes, n_labels, c)
            elif x == "B":
                gold = single_gold_null_b(gens["B"], n, n_labels, c)
            else:
                gold = single_gold_null_d(gens["D"], inv, n, c)
            trials[x][sl] = mean(single_gold_values(ranked, gold, w))
            stages[f"null_{x.lower()}"] += time.perf_counter() - t
        t = time.perf_counter()
        pos = single_gold_null_c_positions(gens["C"], n, n_pool, c)
        trials["C"][sl] = mean(w_c[np.minimum(pos, m, out=pos)])
        stages["null_c"] += time.perf_counter() - t
    return trials, real


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
