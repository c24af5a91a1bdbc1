"""Verdict error rates and CI coverage, simulated on real per-query differences (SciFact, NFCorpus).

Population: the per-query nDCG@10 differences of two real runs (default: BM25 stemmed vs BM25 unstemmed, made
with ``hcrbench retrieve``; give your own with --run-a/--run-b) over all test queries of the dataset. Benches of
n queries are drawn from it with replacement (``--reps`` per cell, seeded), so the truth is known.

- ``coverage``: how often the 95% CI of the mean difference (percentile, BCa, paired t, and ``auto``, which
  picks t below 100 queries and BCa above) contains the population mean, at n = 10, 20, 50, 100, 300.
- ``verdicts``: the population is centred and shifted to a true delta of 0, min_delta and 2 x min_delta (every
  query moved by the same amount); each bench gets the verdict ``hcrbench.gate.verdict`` gives it (permutation
  p, Holm over a family of m = 1 or m = 4, auto CI, TOST for MISS), at n = 30, 60, 300. A wrong verdict is a
  HIT at delta 0, a MISS at min_delta or 2 x min_delta, a HIT - at a positive delta.

    python benchmarks/verdict_calibration.py --dataset ../shared/datasets/scifact \\
        --run-a bm25.trec --run-b bm25plain.trec [--section all|coverage|verdicts] [--reps 400] [--min-delta 0.02]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def population(dataset: str, run_a: str, run_b: str, metric: str) -> np.ndarray:
    from hcrbench.data import load_beir, read_run
    from hcrbench.errors import HcrbenchWarning
    from hcrbench.metrics import evaluate

    ds = load_beir(dataset, "test")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        a, b = read_run(run_a).rename("a"), read_run(run_b).rename("b")
        ev = evaluate(ds.qrels, {"a": a, "b": b}, [metric])
    pa, pb = ev["a"].per_query[metric], ev["b"].per_query[metric]
    qids = sorted(pa)
    return np.array([pa[q] - pb[q] for q in qids])


def coverage(diff: np.ndarray, reps: int, seed: int) -> None:
    from hcrbench.stats import mean_ci

    mu = float(diff.mean())
    methods = ("percentile", "bca", "t", "auto")
    print(f"\n95% CI coverage of the mean difference ({reps} benches per n; target 0.95)")
    print("| n | " + " | ".join(methods) + " | auto picks |")
    print("|---|" + "---|" * (len(methods) + 1))
    for n in (10, 20, 50, 100, 300):
        rng = np.random.default_rng([seed, n])
        hits = dict.fromkeys(methods, 0)
        picked = ""
        for r in range(reps):
            s = diff[rng.integers(0, diff.size, n)]
            for m in methods:
                ci = mean_ci(s, method=m, n_resamples=2000, seed=r)
                hits[m] += ci.low <= mu <= ci.high
                if m == "auto":
                    picked = ci.method
        print(f"| {n} | " + " | ".join(f"{hits[m] / reps:.3f}" for m in methods) + f" | {picked} |", flush=True)


def _comparison(s: np.ndarray, m: int, seed: int):
    from hcrbench.stats import Comparison, cohens_d_paired, paired_ci, permutation_test

    zeros = np.zeros_like(s)
    p = permutation_test(s, zeros, n_resamples=2000, seed=seed).pvalue
    ci = paired_ci(s, zeros, n_resamples=2000, seed=seed)
    ph = min(1.0, m * p)  # this comparison is the family's smallest p (the worst case for a false HIT)
    return Comparison("x", "base", "metric", s.size, float(s.mean()), ci.low, ci.high, p, ph,
                      cohens_d_paired(s, zeros), int((s > 0).sum()), int((s < 0).sum()), int((s == 0).sum()),
                      ci_method=ci.method, family_size=m)


def verdicts(diff: np.ndarray, reps: int, seed: int, min_delta: float) -> None:
    from hcrbench.gate import verdict

    centred = diff - diff.mean()
    print(f"\nVerdict rates ({reps} benches per cell; min_delta = {min_delta}; population sd {diff.std(ddof=1):.4f};"
          " m = Holm family size, Bonferroni bound)")
    print("| true delta | n | m | HIT + | HIT - | MISS | UNDER-NS | wrong |")
    print("|---|---|---|---|---|---|---|---|")
    for mult in (0.0, 1.0, 2.0):
        pop = centred + mult * min_delta
        for n in (30, 60, 300):
            for m in (1, 4):
                rng = np.random.default_rng([seed, n, m, int(mult * 10)])
                counts = {"HIT +": 0, "HIT -": 0, "MISS": 0, "UNDER-NS": 0}
                for r in range(reps):
                    s = pop[rng.integers(0, pop.size, n)]
                    v = verdict(_comparison(s, m, r), True, min_delta=min_delta, diffs=s, family_size=m)
                    counts[f"HIT {v.sign}" if v.label == "HIT" else v.label] += 1
                wrong = counts["HIT +"] + counts["HIT -"] if mult == 0 else counts["MISS"] + counts["HIT -"]
                rates = " | ".join(f"{counts[k] / reps:.3f}" for k in counts)
                print(f"| {mult:g} x min_delta | {n} | {m} | {rates} | {wrong / reps:.3f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--run-a", required=True)
    ap.add_argument("--run-b", required=True)
    ap.add_argument("--metric", default="nDCG@10")
    ap.add_argument("--section", choices=("all", "coverage", "verdicts"), default="all")
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--min-delta", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0 = time.perf_counter()
    diff = population(args.dataset, args.run_a, args.run_b, args.metric)
    print(f"{args.dataset}: {diff.size} queries, {args.metric} difference mean {diff.mean():+.4f}, "
          f"sd {diff.std(ddof=1):.4f}, {np.mean(diff != 0):.0%} of queries differ")
    if args.section in ("all", "coverage"):
        coverage(diff, args.reps, args.seed)
    if args.section in ("all", "verdicts"):
        verdicts(diff, args.reps, args.seed, args.min_delta)
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
