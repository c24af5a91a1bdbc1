"""Four-null gate speed: hcrbench (vectorised) vs falsify-eval 0.2.0, side by side on the same bench.

Single-gold bench (falsify-eval's input format): N queries, Zipf-distributed gold labels over a pool of items,
a retriever that puts the gold in its top 5 for 60% of queries. Both libraries run the gate with the same
arguments (recall@5, k=5, n_trials=50, tau=0.05, seed) in this one process; the script checks they agree and
prints the times and the ratio.

What each time covers: hcrbench = one whole public call ``hcrbench.gate.four_null_gate(..., "recall@5")`` from
the Python lists (input validation, label encoding, real metric, 4 x n_trials null trials, p-values, Holm,
intervals, the result dict); the first call is timed alone, then ``--repeats`` more calls, and the ratio uses
their median (the first call is printed too). falsify-eval = one call of ``falsify_eval.four_null_gate`` with its
own CLI recall@5 metric (``falsify_eval.cli.METRICS``; it takes only a callable). Not timed: building the bench
and importing the libraries. hcrbench with the same Python callable is timed once too. falsify-eval runs on the
full N unless --fe-subsample is given (then its time is extrapolated linearly, which the output says).

    python benchmarks/bench_gate.py [--n 10000] [--trials 50] [--pool 20000] [--repeats 7] [--fe-subsample 0]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import time
import warnings

import numpy as np


def make_bench(n: int, n_pool: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    pool = [f"c{i}" for i in range(n_pool)]
    w = 1 / np.arange(1, n_pool + 1) ** 1.05
    gold_idx = rng.choice(n_pool, size=n, p=w / w.sum())
    rand = rng.integers(0, n_pool, size=(n, 6))
    hit = rng.random(n) < 0.6
    retrieved, gold = [], []
    for i in range(n):
        g = pool[gold_idx[i]]
        others = [pool[j] for j in dict.fromkeys(rand[i].tolist()) if pool[j] != g][:4]
        retrieved.append([g, *others] if hit[i] else [pool[j] for j in rand[i][:5]])
        gold.append(g)
    return retrieved, gold, [1] * n, pool


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--pool", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=7, help="timed hcrbench calls after the first one")
    ap.add_argument("--fe-subsample", type=int, default=0, help="run falsify-eval on this many queries only")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()

    import falsify_eval
    from falsify_eval.cli import METRICS

    from hcrbench.gate import four_null_gate

    retrieved, gold, rel, pool = make_bench(args.n, args.pool)
    kw = dict(item_pool=pool, k=5, n_trials=args.trials, tau=0.05, seed=args.seed)
    recall5 = lambda r, g, rl: METRICS["recall"](r, g, rl, 5)  # noqa: E731
    print(f"bench: N={args.n} single-gold queries, pool={args.pool}, n_trials={args.trials}, metric recall@5")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        ours = four_null_gate(retrieved, gold, rel, "recall@5", **kw)
        t_first = time.perf_counter() - t0
        times, stages = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            with contextlib.redirect_stderr(io.StringIO()):  # progress=True prints one line per call
                again = four_null_gate(retrieved, gold, rel, "recall@5", progress=True, **kw)
            times.append(time.perf_counter() - t0)
            stages.append(again.pop("stage_seconds"))
            assert again == ours, "four_null_gate is not deterministic under its seed"
        t_ours = statistics.median(times) if times else t_first
        t0 = time.perf_counter()
        ours_fn = four_null_gate(retrieved, gold, rel, recall5, **kw)
        t_ours_fn = time.perf_counter() - t0

    n_fe = args.fe_subsample or args.n
    t0 = time.perf_counter()
    ref = falsify_eval.four_null_gate(retrieved[:n_fe], gold[:n_fe], rel[:n_fe], recall5, **kw)
    t_fe = time.perf_counter() - t0
    scale = args.n / n_fe
    t_fe_full = t_fe * scale
    note = "" if n_fe == args.n else f" (measured on {n_fe} queries: {t_fe:.2f}s, extrapolated linearly x{scale:g})"

    print(f"{'':34}{'real':>8}{'A':>8}{'B':>8}{'C':>8}{'D':>8}  gate")
    for label, res in (("hcrbench (metric name, numpy)", ours), ("hcrbench (callable metric_fn)", ours_fn),
                       (f"falsify-eval 0.2.0{'' if n_fe == args.n else ' (subsample)'}", ref)):
        nm = res["null_means"]
        print(f"{label:34}{res['real_mean']:8.4f}" + "".join(f"{nm[x]:8.4f}" for x in "ABCD")
              + f"  {'PASS' if res['gate_passes'] else 'FAIL'}")
    if n_fe == args.n:
        same = abs(ours["real_mean"] - ref["real_mean"]) <= 1e-12 and all(
            abs(ours["null_means"][x] - ref["null_means"][x]) <= 1e-12 for x in "ABD")
        print(f"same pass/fail per null: {ours['passes'] == ref['passes']}; "
              f"real mean and null A, B, D means equal to 1e-12: {same} (C: same law, other random stream)")
    med = {k: statistics.median(s[k] for s in stages) for k in stages[0]} if stages else {}
    if med:
        print("hcrbench stages (median ms): " + ", ".join(f"{k} {v * 1e3:.1f}" for k, v in med.items()))
    print(f"time hcrbench (numpy kernels):     {t_ours:9.3f} s  (median of {len(times)} calls; "
          f"first call {t_first:.3f} s)")
    print(f"time hcrbench (callable metric):   {t_ours_fn:9.3f} s")
    print(f"time falsify-eval 0.2.0:           {t_fe_full:9.3f} s{note}")
    print(f"speed-up, numpy kernels:    {t_fe_full / t_ours:8.1f}x  (first call: {t_fe_full / t_first:.1f}x)")
    print(f"speed-up, callable metric:  {t_fe_full / t_ours_fn:8.1f}x")


if __name__ == "__main__":
    main()
