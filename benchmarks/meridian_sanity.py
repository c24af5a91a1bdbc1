"""Sanity, not tuning: BM25 nDCG@10 per Meridian query category on the medium corpus (all 285 judged queries).

A realistic corpus is neither trivial nor hopeless: identifier (detail) queries should score high, vocabulary-
mismatch and multi-hop queries low. Numbers are reported as measured; the generator is not tuned to them.

    python benchmarks/meridian_sanity.py [--seed 0] [--size medium]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from hcrbench.data import Qrels, iter_jsonl, read_corpus, read_queries
from hcrbench.metrics import evaluate
from hcrbench.retrieve import make_retriever
from hcrbench.synth import generate_meridian


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", default="medium")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "meridian"
        t0 = time.perf_counter()
        generate_meridian(out, args.size, args.seed)
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
    print(f"Meridian {args.size} seed {args.seed}: {len(corpus):,} docs, generated in {t_gen:.1f} s; "
          f"BM25 index+search {t_bm25:.1f} s; {len(judged)} judged queries (OOD has no qrels)")
    print(f"{'group':40s} {'n':>4s} {'nDCG@10':>8s} {'R@100':>7s}")
    for g in sorted(groups, key=lambda x: (x.startswith(" "), x)):
        qs = groups[g]
        nd = sum(per["nDCG@10"][q] for q in qs) / len(qs)
        rc = sum(per["R@100"][q] for q in qs) / len(qs)
        print(f"{g:40s} {len(qs):4d} {nd:8.3f} {rc:7.3f}")
    print(f"{'ALL':40s} {len(judged):4d} {ev.means['nDCG@10']:8.3f} {ev.means['R@100']:7.3f}")


if __name__ == "__main__":
    main()
