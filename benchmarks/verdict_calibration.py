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
        [--run-a bm25.trec --run-b bm25plain.trec] [--section all|coverage|verdicts] [--reps 400] [--min-delta 0.02]
        [--json PATH]

Without --run-a/--run-b the two default runs are made in-process (BM25 stemmed vs ``stemmer=none``, k = 100, the
same as ``hcrbench retrieve --system bm25 [--param stemmer=none]``). ``--json PATH`` writes the population and the
tables (:func:`markdown` renders them; docs/statistics.md's blocks are generated from it).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

METHODS = ("percentile", "bca", "t", "auto")
VERDICT_KEYS = ("HIT +", "HIT -", "MISS", "UNDER-NS")


def _default_runs(dataset: str, metric: str):
    """BM25 stemmed ("a") and unstemmed ("b") runs over the test split, k = 100."""
    from hcrbench.data import load_beir
    from hcrbench.retrieve import make_retriever

    ds = load_beir(dataset, "test")
    runs = {}
    for name, params in (("a", {}), ("b", {"stemmer": "none"})):
        r = make_retriever("bm25", **params)
        r.index(ds.corpus)
        runs[name] = r.search(ds.queries, 100).run.rename(name)
    return ds, runs


def population(dataset: str, run_a: str | None, run_b: str | None, metric: str) -> np.ndarray:
    from hcrbench.data import load_beir, read_run
    from hcrbench.errors import HcrbenchWarning
    from hcrbench.metrics import evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        if run_a is None or run_b is None:
            ds, runs = _default_runs(dataset, metric)
        else:
            ds = load_beir(dataset, "test")
            runs = {"a": read_run(run_a).rename("a"), "b": read_run(run_b).rename("b")}
        ev = evaluate(ds.qrels, runs, [metric])
    pa, pb = ev["a"].per_query[metric], ev["b"].per_query[metric]
    qids = sorted(pa)
    return np.array([pa[q] - pb[q] for q in qids])


def coverage(diff: np.ndarray, reps: int, seed: int) -> list[dict]:
    """Per n: the share of benches whose 95% CI (each method) holds the population mean; auto's method."""
    from hcrbench.stats import mean_ci

    mu = float(diff.mean())
    rows = []
    for n in (10, 20, 50, 100, 300):
        rng = np.random.default_rng([seed, n])
        hits = dict.fromkeys(METHODS, 0)
        picked = ""
        for r in range(reps):
            s = diff[rng.integers(0, diff.size, n)]
            for m in METHODS:
                ci = mean_ci(s, method=m, n_resamples=2000, seed=r)
                hits[m] += ci.low <= mu <= ci.high
                if m == "auto":
                    picked = ci.method
        rows.append({"n": n, **{m: hits[m] / reps for m in METHODS}, "auto_method": picked})
        print(f"coverage n={n}: " + ", ".join(f"{m} {hits[m] / reps:.3f}" for m in METHODS) + f" ({picked})",
              flush=True)
    return rows


def _comparison(s: np.ndarray, m: int, seed: int):
    from hcrbench.stats import Comparison, cohens_d_paired, paired_ci, permutation_test

    zeros = np.zeros_like(s)
    p = permutation_test(s, zeros, n_resamples=2000, seed=seed).pvalue
    ci = paired_ci(s, zeros, n_resamples=2000, seed=seed)
    ph = min(1.0, m * p)  # this comparison is the family's smallest p (the worst case for a false HIT)
    return Comparison("x", "base", "metric", s.size, float(s.mean()), ci.low, ci.high, p, ph,
                      cohens_d_paired(s, zeros), int((s > 0).sum()), int((s < 0).sum()), int((s == 0).sum()),
                      ci_method=ci.method, family_size=m)


def verdicts(diff: np.ndarray, reps: int, seed: int, min_delta: float) -> list[dict]:
    """Per (true delta, n, m): the share of benches given each verdict, and of wrong ones."""
    from hcrbench.gate import verdict

    centred = diff - diff.mean()
    rows = []
    for mult in (0.0, 1.0, 2.0):
        pop = centred + mult * min_delta
        for n in (30, 60, 300):
            for m in (1, 4):
                rng = np.random.default_rng([seed, n, m, int(mult * 10)])
                counts = dict.fromkeys(VERDICT_KEYS, 0)
                for r in range(reps):
                    s = pop[rng.integers(0, pop.size, n)]
                    v = verdict(_comparison(s, m, r), True, min_delta=min_delta, diffs=s, family_size=m)
                    counts[f"HIT {v.sign}" if v.label == "HIT" else v.label] += 1
                wrong = counts["HIT +"] + counts["HIT -"] if mult == 0 else counts["MISS"] + counts["HIT -"]
                rows.append({"delta_x": mult, "n": n, "m": m, **{k: counts[k] / reps for k in VERDICT_KEYS},
                             "wrong": wrong / reps})
                print(f"verdicts {mult:g} x min_delta n={n} m={m}: wrong {wrong / reps:.3f}", flush=True)
    return rows


def markdown(doc: dict, section: str) -> str:
    """One section's table ("coverage" or "verdicts") of a --json file, with its population line."""
    pop = doc["population"]
    if section == "coverage":
        out = [f"{pop['queries']} queries, {doc['metric']} difference mean {pop['mean']:+.4f}, sd {pop['sd']:.4f}, "
               f"{pop['share_differ']:.0%} of queries differ; {doc['reps']} benches per n, seed {doc['seed']}, "
               "2,000 resamples per interval:", "",
               "| n | percentile | BCa | t | auto (method) |", "|---|---|---|---|---|"]
        for r in doc["coverage"]:
            out.append(f"| {r['n']} | {r['percentile']:.3f} | {r['bca']:.3f} | {r['t']:.3f} | {r['auto']:.3f} "
                       f"({r['auto_method']}) |")
        return "\n".join(out)
    out = [f"{doc['reps']} benches per cell, seed {doc['seed']}; min_delta = {doc['min_delta']}; population sd "
           f"{pop['sd']:.4f} over {pop['queries']} queries; m = Holm family size, Bonferroni bound:", "",
           "| true delta | n | m | HIT + | HIT − | MISS | UNDER-NS | wrong |", "|---|---|---|---|---|---|---|---|"]
    for r in doc["verdicts"]:
        out.append(f"| {r['delta_x']:g} x min_delta | {r['n']} | {r['m']} | "
                   + " | ".join(f"{r[k]:.3f}" for k in VERDICT_KEYS) + f" | {r['wrong']:.3f} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--run-a", help="default: BM25 stemmed, made in-process")
    ap.add_argument("--run-b", help="default: BM25 stemmer=none, made in-process")
    ap.add_argument("--metric", default="nDCG@10")
    ap.add_argument("--section", choices=("all", "coverage", "verdicts"), default="all")
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--min-delta", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the population and the tables here")
    args = ap.parse_args()
    if (args.run_a is None) != (args.run_b is None):
        ap.error("give both --run-a and --run-b, or neither (BM25 stemmed vs unstemmed)")
    t0 = time.perf_counter()
    diff = population(args.dataset, args.run_a, args.run_b, args.metric)
    doc: dict = {"dataset": Path(args.dataset).name, "metric": args.metric, "reps": args.reps, "seed": args.seed,
                 "min_delta": args.min_delta,
                 "runs": ("bm25 stemmed vs bm25 stemmer=none" if args.run_a is None
                          else f"{Path(args.run_a).name} vs {Path(args.run_b).name}"),
                 "population": {"queries": int(diff.size), "mean": round(float(diff.mean()), 6),
                                "sd": round(float(diff.std(ddof=1)), 6),
                                "share_differ": round(float(np.mean(diff != 0)), 6)}}
    print(f"{args.dataset}: {diff.size} queries, {args.metric} difference mean {diff.mean():+.4f}, "
          f"sd {diff.std(ddof=1):.4f}, {np.mean(diff != 0):.0%} of queries differ")
    if args.section in ("all", "coverage"):
        doc["coverage"] = coverage(diff, args.reps, args.seed)
        print("\n" + markdown(doc, "coverage"))
    if args.section in ("all", "verdicts"):
        doc["verdicts"] = verdicts(diff, args.reps, args.seed, args.min_delta)
        print("\n" + markdown(doc, "verdicts"))
    if args.json is not None:
        from hcrbench.data import atomic_write_text

        atomic_write_text(args.json, json.dumps(doc, indent=1) + "\n")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
