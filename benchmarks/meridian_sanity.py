"""Sanity, not tuning: BM25 nDCG@10 per Meridian query category on the medium corpus (all 285 judged queries).

A realistic corpus is neither trivial nor hopeless: identifier (detail) queries should score high, vocabulary-
mismatch and multi-hop queries low. Numbers are reported as measured; the generator is not tuned to them.

    python benchmarks/meridian_sanity.py [--seed 0] [--size medium] [--json PATH]

``--json PATH`` writes the rows (no timings: same generator, size and seed, same bytes), which
``scripts/doc_figures.py`` renders into docs/meridian.md with :func:`markdown`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from hcrbench.data import Qrels, iter_jsonl, read_corpus, read_queries
from hcrbench.data.atomic import atomic_write_text
from hcrbench.metrics import evaluate
from hcrbench.retrieve import make_retriever
from hcrbench.synth import generate_meridian


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", default="medium")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows to this file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "meridian"
        t0 = time.perf_counter()
        generate_meridian(out, args.size, args.seed, grow=True)
        t_gen = time.perf_counter() - t0
        corpus, queries = read_corpus(out / "corpus.jsonl"), read_queries(out / "queries.jsonl")
        metas = {m["query_id"]: m for _, m in iter_jsonl(out / "queries.meta.jsonl")}
    judged = {q: m["qrels"] for q, m in metas.items() if m["qrels"]}
    bm25 = make_retriever("bm25")
    t0 = time.perf_counter()
    bm25.index(corpus)
    run = bm25.search(queries.subset(list(judged)), k=100).run
    t_bm25 = time.perf_counter() - t0
    res = evaluate(Qrels.from_dict(judged), run, "nDCG@10,R@100")
    ev = next(iter(res))
    per = ev.per_query
    groups: dict[str, list[str]] = defaultdict(list)
    for q in judged:
        m = metas[q]
        groups[m["category"]].append(q)
        groups[f"  difficulty={m['difficulty']}"].append(q)
        if m["origin"].startswith("adversarial"):
            groups[f"  origin={m['origin']}"].append(q)
    rows = []
    for g in sorted(groups, key=lambda x: (x.startswith(" "), x)):
        qs = groups[g]
        rows.append({"group": g.strip(), "n": len(qs), "nDCG@10": sum(per["nDCG@10"][q] for q in qs) / len(qs),
                     "R@100": sum(per["R@100"][q] for q in qs) / len(qs)})
    rows.append({"group": "ALL", "n": len(judged), "nDCG@10": float(ev.means["nDCG@10"]),
                 "R@100": float(ev.means["R@100"])})
    from hcrbench.synth.generate import GENERATOR_VERSION

    doc = {"size": args.size, "seed": args.seed, "generator_version": GENERATOR_VERSION, "n_docs": len(corpus),
           "rows": rows}
    print(f"Meridian {args.size} seed {args.seed}: {len(corpus):,} docs, generated in {t_gen:.1f} s; "
          f"BM25 index+search {t_bm25:.1f} s; {len(judged)} judged queries (OOD has no qrels)")
    print(f"{'group':40s} {'n':>4s} {'nDCG@10':>8s} {'R@100':>7s}")
    for r in rows:
        print(f"{r['group']:40s} {r['n']:4d} {r['nDCG@10']:8.3f} {r['R@100']:7.3f}")
    if args.json is not None:
        atomic_write_text(args.json, json.dumps(doc, indent=1) + "\n")


def markdown(doc: dict[str, Any]) -> str:
    """The per-group table docs/meridian.md shows (categories, then difficulty and adversarial origin, then all)."""
    out = [f"BM25 on Meridian {doc['size']} (generator {doc['generator_version']}, seed {doc['seed']}, "
           f"{doc['n_docs']:,} documents), every judged query of tune, dev and test:", "",
           "| group | n | nDCG@10 | R@100 |", "|---|---:|---:|---:|"]
    for r in doc["rows"]:
        g = f"**{r['group']}**" if r["group"] == "ALL" else r["group"]
        out.append(f"| {g} | {r['n']} | {r['nDCG@10']:.3f} | {r['R@100']:.3f} |")
    return "\n".join(out)

if __name__ == "__main__":
    main()
