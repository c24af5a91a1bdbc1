"""HCR cost, side by side in one run: chunks scored and latency per query, HCR vs flat dense vs A1 (flat cascade).

    python benchmarks/bench_hcr.py --dataset data/meridian-medium [--encoder onnx|hash]
    python benchmarks/bench_hcr.py --chunks 100000 --encoder hash      # generates Meridian big enough

One index (same chunks, same embeddings) serves every variant:
* flat dense: faiss exact inner product over every chunk embedding (scores N chunks per query);
* HCR beam (routing only: no reranker, no links) and HCR as configured by default (dual path, MaxSim, links);
* A1: the same cascade over every chunk, no tree.
The quality price of the tree is "HCR beam (no rerank, no links)" against "A1 flat cascade (no rerank)": the same
hybrid cascade (BM25 + dense RRF) with and without routing. Prints index time and peak memory (tree build included), chunks scored per query and the ratio to flat, latency per
query and the ratio, and nDCG@10 / R@100 of each variant against the qrels with the cost vs A1. Goal: beam scores
<= 5% of the chunks flat scoring does at 100k. On a shared machine compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import resource
import sys
import time
from pathlib import Path


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", help="BEIR folder (Meridian or any)")
    ap.add_argument("--chunks", type=int, help="generate Meridian with about this many 128-token chunks")
    ap.add_argument("--split", default="test")
    ap.add_argument("--encoder", default="hash", choices=["hash", "onnx", "torch"])
    ap.add_argument("--beam-width", type=int, default=None, help="default: the retriever's")
    ap.add_argument("--target-pool", type=int, default=None, help="adaptive beam pool (default: the retriever's)")
    ap.add_argument("--tree-kind", default=None, choices=["chunks", "docs"])
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-default", action="store_true", help="skip the full default HCR (MaxSim is slow)")
    args = ap.parse_args(argv)
    os.environ.setdefault("HCRBENCH_PROGRESS", "0")

    import faiss

    from hcrbench.data import load_beir
    from hcrbench.data.types import Costs
    from hcrbench.metrics import evaluate
    from hcrbench.retrieve import make_retriever

    if args.chunks:
        from hcrbench.synth import generate_meridian

        n_docs = max(500, math.ceil(args.chunks / 6.6))  # Meridian: ~6.6 chunks of 128 tokens per doc (92,224 / 13,889)
        root = Path(os.environ.get("HCRBENCH_CACHE", ".")) / f"meridian-{n_docs}"
        if not (root / "corpus.jsonl").is_file():
            t0 = time.perf_counter()
            generate_meridian(root, size=n_docs, seed=0, grow=True)
            print(f"generated Meridian with {n_docs} documents in {time.perf_counter() - t0:.1f}s")
        dataset = root
    elif args.dataset:
        dataset = Path(args.dataset)
    else:
        ap.error("give --dataset or --chunks")
    ds = load_beir(dataset, args.split)
    qids = [q for q in ds.queries.query_ids if q in ds.qrels]
    queries = ds.queries.subset(qids)
    rss0 = peak_rss_mib()
    extra = {k: v for k, v in (("beam_width", args.beam_width), ("target_pool", args.target_pool),
                               ("tree_kind", args.tree_kind)) if v is not None}
    r = make_retriever("hcr", backend=args.encoder, depth=args.depth, seed=args.seed, **extra)
    t0 = time.perf_counter()
    r.index(ds.corpus)
    t_index = time.perf_counter() - t0
    n = len(r._chunk_vecs)
    st = r.index_costs.stage_seconds
    print(f"data: {dataset} ({len(ds.corpus)} docs -> {n} chunks), {len(queries)} judged queries ({args.split}), "
          f"encoder {r.encoder.model_id}")
    print(f"index {t_index:.1f}s (encode {st.get('encode_chunks', 0):.1f}s, tree {st.get('tree', 0):.1f}s, "
          f"lexical {st.get('lexical', 0):.1f}s, entities {st.get('entities', 0):.1f}s); tree "
          f"{len(r.tree.nodes)} nodes, branching {r.tree.params['branching']}, depth {r.tree.depth}; "
          f"peak RSS {peak_rss_mib():.0f} MiB (was {rss0:.0f} before indexing)")

    rows = []
    # flat dense: exact faiss over every chunk
    qv = r._embed(list(queries.texts), Costs(), "encoding queries")
    index = faiss.IndexFlatIP(r._chunk_vecs.shape[1])
    index.add(r._chunk_vecs)
    t0 = time.perf_counter()
    _, idx = index.search(qv, 400)
    t_flat = (time.perf_counter() - t0) / len(queries)
    from hcrbench.data.chunking import doc_run_from_chunk_run
    from hcrbench.data.types import Run

    ids = r._chunks.doc_ids
    flat_run = Run.from_ranked({q: [(ids[j], float(400 - k)) for k, j in enumerate(idx[i])]
                                for i, q in enumerate(queries.query_ids)}, name="flat")
    flat_run = doc_run_from_chunk_run(flat_run, r._c2d).top_k(100)
    rows.append(("flat dense (faiss exact)", n, 0, t_flat, flat_run))

    base_cfg, base_rerank = r.cfg, r.rerank
    variants = [("HCR beam (no rerank, no links)", dict(mode="beam", links=False), "none"),
                ("HCR beam + MaxSim + links", dict(mode="beam"), "maxsim"),
                ("A1 flat cascade (no rerank)", dict(flat=True), "none")]
    if not args.skip_default:
        variants += [("HCR default (dual, MaxSim, links)", {}, "maxsim"),
                     ("A1 flat cascade + MaxSim", dict(flat=True), "maxsim")]
    for label, cfg, rerank in variants:
        r.cfg = dataclasses.replace(base_cfg, **cfg)
        r.rerank = rerank
        t0 = time.perf_counter()
        res = r.search(queries, 100)
        dt = (time.perf_counter() - t0) / len(queries)
        c = res.costs.counters
        rows.append((label, c["chunks_scored"] / len(queries), c["nodes_scored"] / len(queries), dt, res.run))
    r.cfg, r.rerank = base_cfg, base_rerank

    ev = evaluate(ds.qrels.subset(qids), {lab: run for lab, *_, run in rows}, "nDCG@10,R@100")
    a1 = ev.means["A1 flat cascade (no rerank)"]["nDCG@10"]
    print(f"\n{'system':<36} {'chunks/q':>9} {'% flat':>7} {'nodes/q':>8} {'ms/q':>8} {'x flat':>7} "
          f"{'nDCG@10':>8} {'R@100':>6} {'vs A1':>7}")
    for label, chunks, nodes, dt, _ in rows:
        m = ev.means[label]
        print(f"{label:<36} {chunks:>9.0f} {chunks / n:>7.1%} {nodes:>8.0f} {dt * 1000:>8.1f} {dt / t_flat:>7.1f} "
              f"{m['nDCG@10']:>8.4f} {m['R@100']:>6.3f} {m['nDCG@10'] - a1:>+7.4f}")
    beam = rows[1]
    goal = "met" if beam[1] / n <= 0.05 else "NOT met"
    print(f"\nbottom line: HCR beam scores {beam[1] / n:.2%} of the chunks flat scoring does at {n} chunks "
          f"(goal <= 5%: {goal}), at {ev.means[beam[0]]['nDCG@10'] - a1:+.4f} nDCG@10 against A1 "
          f"(same chunks, same scoring, no tree).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
