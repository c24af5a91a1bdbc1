"""Where the gate's line is: real runs, a diluted run and a positive-control ladder, with the relative tau.

For a BEIR dataset, gates (graded nDCG@10 and strict R@5, 200 trials, tau 0.01, tau_rel 0.1 by default):
the given run files; the first run "diluted" (its ranking kept on a seeded ``--keep`` share of the queries,
random pool docs elsewhere: the "3%-BM25" system); and a ladder of controls — the oracle ranking on a
seeded share f of the queries and random docs on the rest, f = 0 (random), 0.03, 0.1, 0.25, 0.5, 1 (oracle),
plus the anti-oracle. Prints the real mean, the smallest share of a null-to-oracle gap closed over the four
nulls (``gap_share``; the gate needs >= tau_rel) and PASS/FAIL.

    python benchmarks/gate_ladder.py --dataset ../shared/datasets/scifact bm25.trec dense.trec [--tau-rel 0.1]
    python benchmarks/gate_ladder.py --dataset ../shared/datasets/scifact --bm25 [--json PATH]

``--bm25`` makes the two runs itself (``make_retriever("bm25")`` and ``stemmer="none"``, top 100, named "bm25" and
"bm25 unstemmed") instead of reading files. ``--json PATH`` writes the rows (no timings: same inputs, same bytes),
which ``scripts/doc_figures.py`` renders into docs/gate.md with :func:`markdown`.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data.atomic import atomic_write_text


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
    ap.add_argument("--bm25", action="store_true", help="make the BM25 runs (stemmed, unstemmed) instead of files")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows to this file")
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
    if args.bm25:
        from hcrbench.retrieve import make_retriever

        for name, params in (("bm25", {}), ("bm25 unstemmed", {"stemmer": "none"})):
            ret = make_retriever("bm25", cache=False, **params)
            ret.index(ds.corpus)
            r = ret.search(ds.queries.subset(qids), k=100).run
            runs[name] = Run.from_dict(r.to_dict(), name=name)
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
    rows = []
    for name, p in pairs.items():
        row: dict[str, Any] = {"name": name}
        for key, r in (("graded", p.graded), ("strict", p.strict)):
            row[key] = {"real": float(r.real_mean), "min_gap_share": float(min(n.gap_share for n in r.nulls.values())),
                        "pass": bool(r.gate_pass)}
        rows.append(row)
    doc = {"dataset": Path(args.dataset).resolve().name, "n_queries": len(qids), "tau": 0.01, "tau_rel": args.tau_rel,
           "n_trials": args.n_trials, "seed": args.seed, "rows": rows,
           "oracle_means": {"graded": float(p.graded.oracle_mean), "strict": float(p.strict.oracle_mean)}}
    print(markdown(doc))
    print(f"({time.perf_counter() - t0:.0f} s)")
    if args.json is not None:
        atomic_write_text(args.json, json.dumps(doc, indent=1) + "\n")


def markdown(doc: dict[str, Any]) -> str:
    """The ladder's table (the first column names the dataset and its queries)."""
    names = {"scifact": "SciFact", "nfcorpus-processed": "NFCorpus", "nfcorpus": "NFCorpus"}
    out = [f"| {names.get(doc['dataset'], doc['dataset'])} ({doc['n_queries']} q) | nDCG@10 | min gap share | gate | "
           "strict R@5 | min gap share | gate |", "|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        cells = []
        for key in ("graded", "strict"):
            x = r[key]
            cells += [f"{x['real']:.4f}", f"{x['min_gap_share']:.3f}", "PASS" if x["pass"] else "FAIL"]
        name = r["name"] + (" (random)" if r["name"] == "oracle on 0%" else "")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out += ["", f"tau {doc['tau']}, tau_rel {doc['tau_rel']}, {doc['n_trials']} trials, seed {doc['seed']}; oracle "
                f"means nDCG@10 {doc['oracle_means']['graded']:.4f}, strict R@5 {doc['oracle_means']['strict']:.4f}."]
    return "\n".join(out)

if __name__ == "__main__":
    main()
