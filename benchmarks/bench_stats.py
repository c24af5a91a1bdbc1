"""Time hcrbench.stats against scipy.stats on the same data: 10,000 resamples of 1,000 paired queries.

Run: python benchmarks/bench_stats.py [--n 1000] [--resamples 10000] [--repeat 3]
Prints best-of-``repeat`` wall time of each and the ratio scipy / hcrbench, plus both p-values / CIs so the
agreement is visible in the same run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from hcrbench.stats import paired_bootstrap_ci, permutation_test


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="queries")
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    b = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], args.n)  # metric-like values with ties
    a = np.clip(b + rng.normal(0.01, 0.2, args.n), 0.0, 1.0)
    B = args.resamples

    def mean_diff(x, y, axis=-1):
        return np.mean(x - y, axis=axis)

    t_ours, ours = best_of(lambda: permutation_test(a, b, n_resamples=B, seed=0), args.repeat)
    t_ref, ref = best_of(
        lambda: stats.permutation_test((a, b), mean_diff, permutation_type="samples", vectorized=True,
                                       n_resamples=B, rng=np.random.default_rng(0)),
        args.repeat,
    )  # fmt: skip
    print(f"permutation test  n={args.n} B={B}")
    print(f"  hcrbench  {t_ours * 1e3:8.1f} ms   p = {ours.pvalue:.4f}")
    print(f"  scipy     {t_ref * 1e3:8.1f} ms   p = {float(ref.pvalue):.4f}")
    print(f"  ratio scipy/hcrbench = {t_ref / t_ours:.1f}x")

    t_ours, ci = best_of(lambda: paired_bootstrap_ci(a, b, n_resamples=B, seed=0), args.repeat)
    t_ref, rci = best_of(
        lambda: stats.bootstrap((a, b), mean_diff, paired=True, vectorized=True, method="percentile",
                                n_resamples=B, rng=np.random.default_rng(0)).confidence_interval,
        args.repeat,
    )  # fmt: skip
    print(f"percentile bootstrap CI of the paired mean difference  n={args.n} B={B}")
    print(f"  hcrbench  {t_ours * 1e3:8.1f} ms   [{ci.low:+.5f}, {ci.high:+.5f}]")
    print(f"  scipy     {t_ref * 1e3:8.1f} ms   [{float(rci.low):+.5f}, {float(rci.high):+.5f}]")
    print(f"  ratio scipy/hcrbench = {t_ref / t_ours:.1f}x")


if __name__ == "__main__":
    main()
