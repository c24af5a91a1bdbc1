"""Markdown tables from ``hcrbench policy-compare --json`` files (what docs/policy.md shows).

    python benchmarks/policy_tables.py out/bm25-mer-small.json out/dense-mer-small.json [--strata]

One table of means and costs per (benchmark, chunker, embedding, policy), one of the multi-hop deltas with their
95% bootstrap CI and Holm-adjusted p, optionally R@10 per stratum, and the chunker comparison when present. ``--json PATH`` writes the parts of the
files the tables read (docs/figures/ keeps them; ``scripts/doc_figures.py`` renders them with :func:`markdown`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text


def _f(x, nd: int = 4) -> str:
    return "—" if x is None else f"{x:.{nd}f}"


def _p(p) -> str:
    return "—" if p is None else (f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}")


def trim(doc: dict[str, Any]) -> dict[str, Any]:
    """The parts of a ``policy-compare --json`` document the tables read (its config and aggregate tables, without
    the per-query data): what docs/figures/ saves."""
    agg = doc["aggregate"]
    return {"config": doc["config"], "aggregate": {k: agg[k] for k in ("rows", "deltas", "strata", "chunkers")
                                                   if k in agg}}


def markdown(docs: list[dict[str, Any]], strata: bool = False) -> str:
    """The tables: means and costs; the multi-hop deltas; R@10 per stratum (``strata``); the chunker comparison."""
    out = ["| benchmark | split (queries) | system | chunker | policy | R@10 | File-R@10 | nDCG@10 | MRR | "
           "embed calls | passes | examined | hops |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for d in docs:
        c = d["config"]
        for r in d["aggregate"]["rows"]:
            out.append(f"| {c['benchmark']} | {c['split']} ({c['n_queries']}) | {c['system']} | {r['chunker']} | "
                       f"{r['policy']} | {_f(r['recall_at_10'])} | {_f(r.get('file_recall_at_10'))} | "
                       f"{_f(r['ndcg_at_10'])} | {_f(r['mrr'])} | {_f(r['embedding_calls'], 2)} | "
                       f"{_f(r['retrieval_passes'], 2)} | {_f(r['chunks_examined'], 2)} | {_f(r['hops_used'], 2)} |")
    out += ["", "| benchmark | system | chunker | comparison | metric | delta | 95% CI | p (Holm) | helped/hurt/tied |",
            "|---|---|---|---|---|---|---|---|---|"]
    for d in docs:
        c = d["config"]
        for x in d["aggregate"]["deltas"]:
            if x["metric"] not in ("R@10", "nDCG@10", "File-R@10", "SnippetJ@10"):
                continue
            out.append(f"| {c['benchmark']} | {c['system']} | {x['chunker']} | {x['run']} vs {x['baseline']} | "
                       f"{x['metric']} | {x['delta']:+.4f} | [{x['ci_low']:+.4f}, {x['ci_high']:+.4f}] | "
                       f"{_p(x['p_holm'])} | {x['helped']}/{x['hurt']}/{x['tied']} |")
    if strata:
        out += ["", "| benchmark | system | chunker | stratum | n | 1-hop R@10 | multi-hop R@10 | delta | 95% CI | "
                    "p (Holm) |", "|---|---|---|---|---|---|---|---|---|---|"]
        for d in docs:
            c = d["config"]
            for s in d["aggregate"]["strata"]:
                out.append(f"| {c['benchmark']} | {c['system']} | {s['chunker']} | {s['stratum']} | {s['n']} | "
                           f"{_f(s['single'])} | {_f(s['multi'])} | {s['delta']:+.4f} | "
                           f"[{s['ci_low']:+.4f}, {s['ci_high']:+.4f}] | {_p(s['p_holm'])} |")
    chunk = [(d, x) for d in docs for x in d["aggregate"].get("chunkers", [])]
    if chunk:
        out += ["", "| benchmark | system | chunkings (single-hop) | metric | delta | 95% CI | p (Holm) |",
                "|---|---|---|---|---|---|---|"]
        for d, x in chunk:
            out.append(f"| {d['config']['benchmark']} | {d['config']['system']} | {x['run']} vs {x['baseline']} | "
                       f"{x['metric']} | {x['delta']:+.4f} | [{x['ci_low']:+.4f}, {x['ci_high']:+.4f}] | "
                       f"{_p(x['p_holm'])} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--strata", action="store_true", help="Also print R@10 per stratum.")
    ap.add_argument("--json", type=Path, default=None,
                    help="also write the trimmed documents (what the tables read) to this file")
    args = ap.parse_args()
    docs = [trim(json.loads(p.read_text())) for p in args.files]
    print(markdown(docs, args.strata))
    if args.json is not None:
        atomic_write_text(args.json, json.dumps({"docs": docs, "strata": args.strata}, indent=1) + "\n")

if __name__ == "__main__":
    main()
