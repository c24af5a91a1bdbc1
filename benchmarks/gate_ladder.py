"""Where the gate's line is: real runs, a diluted run and a positive-control ladder, with the relative tau.

For a BEIR dataset, gates (graded nDCG@10 and strict R@5, 200 trials, tau 0.01, tau_rel 0.1 by default):
the given run files; the first run "diluted" (its ranking kept on a seeded ``--keep`` share of the queries,
random pool docs elsewhere: the "3%-BM25" system); and a ladder of controls — the oracle ranking on a
seeded share f of the queries and random docs on the rest, f = 0 (random), 0.03, 0.1, 0.25, 0.5, 1 (oracle),
plus the anti-oracle. Prints the real mean, the smallest share of a null-to-oracle gap closed over the four
nulls (``gap_share``; the gate needs >= tau_rel) and PASS/FAIL.

    python benchmarks/gate_ladder.py --dataset ../shared/datasets/scifact bm25.trec dense.trec [--tau-rel 0.1]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def _mix(base: dict, other: dict, qids: list[str], share: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    keep = set(np.array(qids)[rng.random(len(qids)) < share].tolist())
    return {q: (base.get(q, {}) if q in keep else other[q]) for q in qids}


def main() -> None:
    from hcrbench.data import Run, load_beir, read_run
    from hcrbench.errors import HcrbenchWarning
    from hcrbench.gate import build_controls, gate_pairs

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--keep", type=float, default=0.03)
    ap.add_argument("--tau-rel", type=float, default=0.1)
    ap.add_argument("--n-trials", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0 = time.perf_counter()
    ds = load_beir(args.dataset, "test")
    pool = list(ds.corpus.doc_ids)
    qids = sorted(ds.qrels.query_ids)
    ctl = build_controls(ds.qrels, pool, k=10, seed=args.seed)
    rnd, orc = ctl["random"].to_dict(), ctl["oracle"].to_dict()
    runs: dict[str, Run] = {}
    for p in args.runs:
        r = read_run(p)
        runs[r.name] = r
    if runs:
        first = next(iter(runs.values()))
        name = f"{first.name} on {args.keep:.0%} of queries"
        runs[name] = Run.from_dict(_mix(first.to_dict(), rnd, qids, args.keep, args.seed + 1), name=name)
    runs["anti_oracle"] = ctl["anti_oracle"]
    for f in (0.0, 0.03, 0.1, 0.25, 0.5, 1.0):
        name = f"oracle on {f:.0%}"
        runs[name] = Run.from_dict(_mix(orc, rnd, qids, f, args.seed + 2), name=name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        pairs = gate_pairs(ds.qrels, runs, item_pool=pool, n_trials=args.n_trials, tau=0.01, tau_rel=args.tau_rel,
                           seed=args.seed)
    print(f"{args.dataset}: {len(qids)} queries, tau 0.01, tau_rel {args.tau_rel}, {args.n_trials} trials")
    print("| system | nDCG@10 | min gap share | gate | strict R@5 | min gap share | gate |")
    print("|---|---|---|---|---|---|---|")
    for name, p in pairs.items():
        cells = []
        for r in (p.graded, p.strict):
            share = min(n.gap_share for n in r.nulls.values())
            cells += [f"{r.real_mean:.4f}", f"{share:.3f}", "PASS" if r.gate_pass else "FAIL"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"oracle means: nDCG@10 {p.graded.oracle_mean:.4f}, strict R@5 {p.strict.oracle_mean:.4f} "
          f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
