"""Reproduce the published BEIR baselines on a BEIR folder and print them beside hcrbench's own runs.

    python benchmarks/beir_table.py --dataset ../shared/datasets/scifact [--split test] [--backend torch]
        [--skip-rerank] [--json PATH]

Runs BM25 (bm25s, Lucene variant, k1=0.9 b=0.4, stemmed, stopwords), dense MiniLM (exact cosine), hybrid RRF
(k=60 over both top-100) and rerank (zero-shot MaxSim over MiniLM token vectors of the BM25 or hybrid top-100,
alone and RRF-fused with that first stage; not a trained cross-encoder), then prints nDCG@10 and R@100 with the
published figures (SciFact only) and the deltas.
Encodings are cached (``$HCRBENCH_CACHE``), so a second run takes seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

# Published nDCG@10 on the test split (../shared/datasets/README.md).
PUBLISHED = {
    "scifact": {
        "bm25": (0.6789, "Pyserini 2CR bm25-flat (BEIR paper's Elasticsearch multifield: 0.665)"),
        "dense": (0.6451, "MTEB all-MiniLM-L6-v2 ndcg_at_10"),
    }
}


def _pytrec(qrels, run) -> tuple[float, float]:
    import pytrec_eval

    ev = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), {"ndcg_cut.10", "recall.100"})
    r = ev.evaluate(run.to_dict())
    nd = [r.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels.query_ids]
    rc = [r.get(q, {}).get("recall_100", 0.0) for q in qrels.query_ids]
    return float(np.mean(nd)), float(np.mean(rc))


def evaluate(qrels, run) -> tuple[float, float, str]:
    """Mean nDCG@10 and R@100 over the qrels' queries (trec_eval -c: absent queries score 0).

    Uses ``hcrbench.metrics.evaluate`` when it is there, checked against pytrec_eval; pytrec_eval otherwise.
    """
    ref = _pytrec(qrels, run)
    try:
        from hcrbench.metrics import evaluate as hc_evaluate

        if not callable(hc_evaluate):
            raise ImportError("hcrbench.metrics.evaluate not available yet")
        res = hc_evaluate(qrels, run, ["nDCG@10", "R@100"])
        means = next(iter(res.means.values()))
        ours = (float(means["nDCG@10"]), float(means["R@100"]))
    except Exception:
        return ref[0], ref[1], "pytrec_eval"
    same = all(abs(a - b) < 1e-9 for a, b in zip(ours, ref))
    return ours[0], ours[1], "hcrbench.metrics" + (" (= pytrec_eval)" if same else " (DIFFERS from pytrec_eval)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--split", default="test")
    ap.add_argument("--backend", default="torch", choices=["torch", "onnx"])
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--skip-rerank", action="store_true")
    ap.add_argument("--runs-dir", help="also write each run as TREC here")
    ap.add_argument("--json", help="write the table as JSON here")
    args = ap.parse_args(argv)

    from hcrbench.data import load_beir, write_run
    from hcrbench.retrieve import make_retriever

    ds = load_beir(args.dataset, args.split)
    name = Path(args.dataset).resolve().name
    print(f"{name}/{args.split}: {len(ds.corpus)} docs, {len(ds.queries)} queries", flush=True)
    bm25 = make_retriever("bm25")
    dense = make_retriever("dense", backend=args.backend)
    hybrid = make_retriever("hybrid", retrievers=[bm25, dense], name="hybrid-rrf")
    systems = [("bm25", bm25), ("dense", dense), ("hybrid-rrf", hybrid)]
    if not args.skip_rerank:
        systems.append(("rerank-maxsim", make_retriever("rerank", first=bm25, backend=args.backend,
                                                        name="rerank-maxsim")))
        systems.append(("rerank-maxsim+rrf", make_retriever("rerank", first=bm25, backend=args.backend,
                                                            fuse=True, name="rerank-maxsim-rrf")))
        systems.append(("hybrid>maxsim", make_retriever("rerank", first=hybrid, backend=args.backend,
                                                        name="hybrid-maxsim")))
        systems.append(("hybrid>maxsim+rrf", make_retriever("rerank", first=hybrid, backend=args.backend,
                                                            fuse=True, name="hybrid-maxsim-rrf")))
    rows = []
    for label, r in systems:
        t0 = time.perf_counter()
        r.index(ds.corpus)
        t1 = time.perf_counter()
        res = r.search(ds.queries, args.k)
        t2 = time.perf_counter()
        nd, rc, scorer = evaluate(ds.qrels, res.run)
        pub = PUBLISHED.get(name, {}).get(label)
        rows.append({"system": label, "ndcg@10": round(nd, 4), "r@100": round(rc, 4),
                     "published": pub[0] if pub else None, "delta": round(nd - pub[0], 4) if pub else None,
                     "published_source": pub[1] if pub else None, "index_s": round(t1 - t0, 2),
                     "search_s": round(t2 - t1, 2), "scorer": scorer, "params": r.params,
                     "counters": res.costs.counters})
        print(f"  {label:<18} nDCG@10 {nd:.4f}  R@100 {rc:.4f}  index {t1 - t0:7.1f}s  search {t2 - t1:7.1f}s"
              f"  [{scorer}]",
              flush=True)
        if args.runs_dir:
            write_run(res.run, Path(args.runs_dir) / f"{label}.trec")

    doc = {"dataset": name, "split": args.split, "backend": args.backend, "k": args.k, "queries": len(ds.queries),
           "documents": len(ds.corpus), "rows": rows}
    print()
    print(markdown(doc))
    for row in rows:
        if row["published"] is not None:
            ok = abs(row["delta"]) <= 0.015
            print(f"{row['system']}: {'within' if ok else 'OUTSIDE'} +-0.015 of {row['published_source']}")
    if args.json:
        from hcrbench.data import atomic_write_text

        atomic_write_text(Path(args.json), json.dumps(doc, indent=2, default=str) + "\n")
    return 0


LABELS = {
    "bm25": "bm25 (Lucene BM25, k1=0.9 b=0.4, stemmed)",
    "dense": "dense (all-MiniLM-L6-v2, exact cosine{backend})",
    "hybrid-rrf": "hybrid RRF k=60 (bm25 + dense, top-100 each)",
    "rerank-maxsim": "rerank maxsim over bm25 top-100",
    "rerank-maxsim+rrf": "rerank maxsim over bm25 top-100, RRF with bm25",
    "hybrid>maxsim": "rerank maxsim over hybrid top-100",
    "hybrid>maxsim+rrf": "rerank maxsim over hybrid top-100, RRF with hybrid",
}


def markdown(doc: dict) -> str:
    """A --json file as docs/baselines.md's table (nDCG@10 and R@100 with the published figures; wall seconds)."""
    be = "; int8 ONNX" if doc["backend"] == "onnx" else "; torch fp32"
    out = [f"{doc['dataset']} {doc['split']} ({doc['queries']} queries, {doc['documents']:,} documents), k = "
           f"{doc['k']}, MiniLM backend `{doc['backend']}`; scored by "
           f"{', '.join(sorted({r['scorer'] for r in doc['rows']}))}:", "",
           "| system | nDCG@10 | R@100 | published nDCG@10 | delta | index s | search s |",
           "|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        pub = (f"{r['published']:.4f} ({r['published_source'].split(' (')[0]})" if r["published"] is not None
               else "-")
        delta = f"{r['delta']:+.4f}" if r["delta"] is not None else "-"
        label = LABELS.get(r["system"], r["system"]).format(backend=be)
        out.append(f"| {label} | {r['ndcg@10']:.4f} | {r['r@100']:.4f} | {pub} | {delta} | {r['index_s']:.1f} | "
                   f"{r['search_s']:.1f} |")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
