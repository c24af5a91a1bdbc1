"""Markdown tables from ``hcrbench policy-compare --json`` files (what docs/policy.md shows).

    python benchmarks/policy_tables.py out/bm25-mer-small.json out/dense-mer-small.json [--strata]

One table of means and costs per (benchmark, chunker, embedding, policy), one of the multi-hop deltas with their
95% bootstrap CI and Holm-adjusted p, optionally R@10 per stratum, and the chunker comparison when present.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _f(x, nd: int = 4) -> str:
    return "—" if x is None else f"{x:.{nd}f}"


def _p(p) -> str:
    return "—" if p is None else (f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--strata", action="store_true", help="Also print R@10 per stratum.")
    args = ap.parse_args()
    docs = [json.loads(p.read_text()) for p in args.files]
    print("| benchmark | split (queries) | system | chunker | policy | R@10 | File-R@10 | nDCG@10 | MRR | "
          "embed calls | passes | examined | hops |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for d in docs:
        c = d["config"]
        for r in d["aggregate"]["rows"]:
            print(f"| {c['benchmark']} | {c['split']} ({c['n_queries']}) | {c['system']} | {r['chunker']} | "
                  f"{r['policy']} | {_f(r['recall_at_10'])} | {_f(r.get('file_recall_at_10'))} | "
                  f"{_f(r['ndcg_at_10'])} | {_f(r['mrr'])} | {_f(r['embedding_calls'], 2)} | "
                  f"{_f(r['retrieval_passes'], 2)} | {_f(r['chunks_examined'], 2)} | {_f(r['hops_used'], 2)} |")
    print()
    print("| benchmark | system | chunker | comparison | metric | delta | 95% CI | p (Holm) | helped/hurt/tied |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in docs:
        c = d["config"]
        for x in d["aggregate"]["deltas"]:
            if x["metric"] not in ("R@10", "nDCG@10", "File-R@10", "SnippetJ@10"):
                continue
            print(f"| {c['benchmark']} | {c['system']} | {x['chunker']} | {x['run']} vs {x['baseline']} | "
                  f"{x['metric']} | {x['delta']:+.4f} | [{x['ci_low']:+.4f}, {x['ci_high']:+.4f}] | "
                  f"{_p(x['p_holm'])} | {x['helped']}/{x['hurt']}/{x['tied']} |")
    if args.strata:
        print()
        print("| benchmark | system | chunker | stratum | n | 1-hop R@10 | multi-hop R@10 | delta | 95% CI | "
              "p (Holm) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for d in docs:
            c = d["config"]
            for s in d["aggregate"]["strata"]:
                print(f"| {c['benchmark']} | {c['system']} | {s['chunker']} | {s['stratum']} | {s['n']} | "
                      f"{_f(s['single'])} | {_f(s['multi'])} | {s['delta']:+.4f} | "
                      f"[{s['ci_low']:+.4f}, {s['ci_high']:+.4f}] | {_p(s['p_holm'])} |")
    chunk = [(d, x) for d in docs for x in d["aggregate"].get("chunkers", [])]
    if chunk:
        print()
        print("| benchmark | system | chunkings (single-hop) | metric | delta | 95% CI | p (Holm) |")
        print("|---|---|---|---|---|---|---|")
        for d, x in chunk:
            print(f"| {d['config']['benchmark']} | {d['config']['system']} | {x['run']} vs {x['baseline']} | "
                  f"{x['metric']} | {x['delta']:+.4f} | [{x['ci_low']:+.4f}, {x['ci_high']:+.4f}] | "
                  f"{_p(x['p_holm'])} |")


if __name__ == "__main__":
    main()
