"""RAPTOR against the flat baselines on one BEIR folder: effectiveness, build cost, tree shape, side by side.

    python benchmarks/bench_raptor.py --dataset ../shared/datasets/scifact [--split test] [--backend onnx]

Runs BM25 (stemmed), dense (MiniLM, same backend as RAPTOR's encoder) and RAPTOR in three query settings over one
tree (built once, then read from the cache): collapsed with the code's defaults (top_k 10, 3,500 tokens), collapsed
with the paper's (no top_k, 2,000 tokens) and tree traversal (top-5 per layer). Prints nDCG@10 and R@100 per
system, RAPTOR's ratio to dense and BM25, the tree's shape, the share of context nodes that are summaries, and
the index time and peak resident memory (ru_maxrss) after each step. Set HCRBENCH_CACHE to a private folder.
"""

from __future__ import annotations

import argparse
import json
import resource
import time


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def flat_chunks(raptor, queries, name: str):
    """Cosine of every leaf (chunk) of RAPTOR's tree, mapped to documents by their best chunk (MaxP)."""
    import numpy as np

    from hcrbench.data import Costs
    from hcrbench.data.chunking import doc_run_from_chunk_run
    from hcrbench.retrieve.util import run_from_topk

    tree = raptor.tree
    q = raptor._embed(list(queries.texts), Costs(), "queries")
    scores = q @ tree.embeddings[: tree.n_leaves].T
    kk = min(400, tree.n_leaves)
    idx = np.argsort(-scores, axis=1, kind="stable")[:, :kk]
    top = np.take_along_axis(scores, idx, axis=1)
    run = run_from_topk(queries.query_ids, idx, top, tree.leaf_ids, name=name)
    return doc_run_from_chunk_run(run, dict(zip(tree.leaf_ids, tree.leaf_docs))).top_k(100)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--split", default="test")
    ap.add_argument("--backend", default="onnx", choices=["onnx", "torch"])
    ap.add_argument("--seed", type=int, default=224)
    ap.add_argument("--max-clusters", type=int, default=50, help="BIC range (the original: 50)")
    ap.add_argument("--skip-doc-dense", action="store_true",
                    help="skip whole-document dense (slow to encode); dense over RAPTOR's chunks always runs")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)

    from hcrbench.data import load_beir
    from hcrbench.metrics.evaluate import evaluate
    from hcrbench.retrieve import make_retriever

    ds = load_beir(args.dataset, args.split)
    print(f"data: {args.dataset} ({args.split}): {len(ds.corpus)} docs, {len(ds.queries)} judged queries; "
          f"encoder MiniLM ({args.backend}); seed {args.seed}", flush=True)
    tree_kw = {"backend": args.backend, "seed": args.seed, "max_clusters": args.max_clusters}
    systems = [
        ("bm25", "bm25", {}),
        ("raptor-collapsed-code", "raptor", {**tree_kw, "mode": "collapsed", "top_k": 10, "max_tokens": 3500}),
        ("raptor-collapsed-paper", "raptor", {**tree_kw, "mode": "collapsed", "top_k": 0, "max_tokens": 2000}),
        ("raptor-traversal", "raptor", {**tree_kw, "mode": "traversal", "traversal_top_k": 5}),
        ("raptor-collapsed-nofill", "raptor", {**tree_kw, "mode": "collapsed", "fill": False}),
        ("dense-chunks", "chunks", {}),
    ]
    if not args.skip_doc_dense:
        systems.append(("dense", "dense", {"backend": args.backend}))
    rows = []
    tree_info = None
    raptor = None
    for name, kind, params in systems:
        t0 = time.perf_counter()
        if kind == "chunks":  # flat dense over the same leaves (same chunks, same vectors), best chunk per doc
            t1 = time.perf_counter()
            run = flat_chunks(raptor, ds.queries, name)
        else:
            r = make_retriever(kind, name=name, **params)
            r.index(ds.corpus)
            t1 = time.perf_counter()
            run = r.search(ds.queries, 100).run
        t2 = time.perf_counter()
        if kind == "raptor":
            raptor = r
        m = evaluate(ds.qrels, run, "nDCG@10,R@100").means[name]
        row = {"system": name, "nDCG@10": m["nDCG@10"], "R@100": m["R@100"], "index_s": round(t1 - t0, 1),
               "search_s": round(t2 - t1, 2), "peak_rss_mib": round(peak_mib()), "params": params}
        if kind == "raptor":
            log = r.query_log
            ctx = [n for row_ in log for n in row_["nodes"]]
            row["summary_share"] = round(sum(n["layer"] > 0 for n in ctx) / max(1, len(ctx)), 3)
            row["context_tokens_mean"] = round(sum(x["context_tokens"] for x in log) / max(1, len(log)), 1)
            row["context_docs_mean"] = round(sum(x["context_docs"] for x in log) / max(1, len(log)), 1)
            row["cache_hit"] = bool(r.index_costs.counters.get("index_cache_hits"))
            tree_info = tree_info or dict(r.tree.info)
        rows.append(row)
        extra = "" if kind != "raptor" else (f"  summaries {row['summary_share']:.0%} of context nodes, "
                                             f"context {row['context_tokens_mean']:.0f} tokens / "
                                             f"{row['context_docs_mean']:.1f} docs")
        print(f"{name:26s} nDCG@10 {row['nDCG@10']:.4f}  R@100 {row['R@100']:.4f}  index {row['index_s']:7.1f}s "
              f"search {row['search_s']:6.2f}s  peak RSS {row['peak_rss_mib']:6.0f} MiB{extra}", flush=True)
    if tree_info:
        print("tree:", json.dumps({k: tree_info[k] for k in ("n_leaves", "n_nodes", "layers", "stopped",
                                                             "cluster_stats", "build_seconds")}))
    by = {r["system"]: r for r in rows}
    refs = [n for n in ("dense-chunks", "dense", "bm25") if n in by]
    for name in (n for n, k, _ in systems if k == "raptor"):
        print(f"{name}: nDCG@10 ratio " + ", ".join(
            f"to {ref} {by[name]['nDCG@10'] / max(by[ref]['nDCG@10'], 1e-12):.3f}" for ref in refs))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"dataset": args.dataset, "split": args.split, "rows": rows, "tree": tree_info}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
