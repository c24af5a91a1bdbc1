"""Retrieval speed, side by side in one run: hcrbench BM25 vs rank_bm25 vs raw bm25s, and dense throughput.

    python benchmarks/bench_retrieval.py --dataset ../shared/datasets/scifact [--repeats 5] [--skip-dense] [--json PATH]

Prints, on the same data and the same tokens (bm25s tokenizer, English stopwords, Snowball stemming):
* BM25 queries/s of ``rank_bm25.BM25Okapi`` (get_scores + top-k) vs hcrbench's ``bm25`` (goal: >= 50x);
* hcrbench's wrapper overhead over raw ``bm25s`` (tokenize + retrieve, same parameters) (goal: <= 10%);
* dense: passages/s encoded by the torch and ONNX MiniLM backends, queries/s encoded, faiss flat search queries/s.
Timings are medians over ``--repeats``; on a shared machine compare the ratios, not the absolute figures.
``--json PATH`` writes them (:func:`markdown` renders them: docs/baselines.md's block).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rank-bm25-queries", type=int, default=100, help="rank_bm25 is slow: time this many")
    ap.add_argument("--dense-sample", type=int, default=256, help="passages encoded per backend")
    ap.add_argument("--skip-dense", action="store_true")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)

    import bm25s

    from hcrbench.data import read_corpus, read_queries
    from hcrbench.retrieve import make_retriever

    corpus = read_corpus(f"{args.dataset}/corpus.jsonl")
    queries = read_queries(f"{args.dataset}/queries.jsonl")
    texts = [corpus.full_text(i) for i in range(len(corpus))]
    qtexts = list(queries.texts)
    print(f"data: {len(corpus)} docs, {len(queries)} queries; repeats={args.repeats}")

    # ---- BM25 ------------------------------------------------------------------------------------------------
    ours = make_retriever("bm25", cache=False)
    ours.index(corpus)
    doc_tokens = ours.tokenize(texts)
    raw = bm25s.BM25(k1=ours.k1, b=ours.b, method=ours.method)
    raw.index(doc_tokens, show_progress=False)

    def run_raw():
        qt = bm25s.tokenize(qtexts, stopwords=ours.stopwords, stemmer=ours._stem, return_ids=False,
                            show_progress=False)
        raw.retrieve(qt, k=100, show_progress=False)

    def run_ours():
        ours.search(queries, 100)

    run_raw()
    run_ours()  # warm-up
    # interleave the two so machine load drifts hit both alike
    t_raw, t_ours = [], []
    for _ in range(args.repeats):
        t_raw.append(median_time(run_raw, 1))
        t_ours.append(median_time(run_ours, 1))
    raw_s, ours_s = statistics.median(t_raw), statistics.median(t_ours)

    qps_ours = len(qtexts) / ours_s
    qps_raw = len(qtexts) / raw_s
    sub = qtexts[: args.rank_bm25_queries]
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:  # not in every install: the table says so instead of a ratio
        qps_okapi = None
    else:
        okapi = BM25Okapi(doc_tokens, k1=ours.k1, b=ours.b)

        def run_okapi():
            for q in ours.tokenize(sub):
                s = okapi.get_scores(q)
                np.argpartition(-s, 100)[:100]

        qps_okapi = len(sub) / median_time(run_okapi, max(1, args.repeats // 2))
    print(f"\nBM25 (k=100, same tokens, k1={ours.k1:.2f} b={ours.b:.2f})")
    if qps_okapi is not None:
        print(f"  rank_bm25 BM25Okapi : {qps_okapi:10.1f} queries/s  ({len(sub)} queries)")
    print(f"  raw bm25s           : {qps_raw:10.1f} queries/s  ({len(qtexts)} queries)")
    print(f"  hcrbench bm25       : {qps_ours:10.1f} queries/s  ({len(qtexts)} queries)")
    if qps_okapi is not None:
        print(f"  speed-up over rank_bm25   : {qps_ours / qps_okapi:8.1f}x   (goal >= 50x)")
    else:
        print("  rank_bm25 is not installed: no speed-up over it measured")
    print(f"  wrapper overhead vs bm25s : {100 * (ours_s / raw_s - 1):+7.1f}%   (goal <= 10%)")
    doc: dict = {"dataset": Path(args.dataset).name, "documents": len(corpus), "queries": len(qtexts),
                 "repeats": args.repeats, "k1": ours.k1, "b": ours.b,
                 "bm25": {"rank_bm25_qps": qps_okapi, "rank_bm25_queries": len(sub), "raw_bm25s_qps": qps_raw,
                          "hcrbench_qps": qps_ours}, "dense": None}

    def save() -> None:
        if args.json is not None:
            from hcrbench.data import atomic_write_text

            atomic_write_text(args.json, json.dumps(doc, indent=1) + "\n")

    if args.skip_dense:
        save()
        return 0
    doc["dense"] = {"sample": args.dense_sample, "backends": {}}
    # ---- dense -----------------------------------------------------------------------------------------------
    from hcrbench.retrieve.encoders import make_encoder

    sample = texts[: args.dense_sample]
    print(f"\nDense encode ({len(sample)} passages, batch 32; queries: first {min(256, len(qtexts))})")
    for backend in ("torch", "onnx"):
        try:
            enc = make_encoder(None, backend)
        except Exception as e:  # an extra not installed: say so and go on
            print(f"  {backend:<5}: unavailable ({e})")
            doc["dense"]["backends"][backend] = None
            continue
        enc.encode(sample[:32])  # warm-up
        t = median_time(lambda enc=enc: enc.encode(sample), 1)
        tq = median_time(lambda enc=enc: enc.encode(qtexts[:256]), 1)
        print(f"  {backend:<5}: {len(sample) / t:8.1f} passages/s   {min(256, len(qtexts)) / tq:8.1f} queries/s")
        doc["dense"]["backends"][backend] = {"passages_per_s": len(sample) / t,
                                             "queries_per_s": min(256, len(qtexts)) / tq}

    import faiss

    rng = np.random.default_rng(0)
    emb = rng.standard_normal((len(corpus), 384)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    qv = rng.standard_normal((len(qtexts), 384)).astype(np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    index = faiss.IndexFlatIP(384)
    index.add(emb)
    t = median_time(lambda: index.search(qv, 100), args.repeats)
    print(f"  faiss IndexFlatIP search ({len(corpus)} x 384, k=100): {len(qtexts) / t:10.1f} queries/s")
    doc["dense"]["faiss_flat_qps"] = len(qtexts) / t
    save()
    return 0


def markdown(doc: dict) -> str:
    """The --json file as docs/baselines.md's table, with the goals."""
    b = doc["bm25"]
    over = 100 * (b["raw_bm25s_qps"] / b["hcrbench_qps"] - 1)
    okapi = b["rank_bm25_qps"]
    out = [f"{doc['dataset']}: {doc['queries']:,} queries, {doc['documents']:,} documents, k = 100; medians of "
           f"{doc['repeats']}:", "", "| | figure | goal |", "|---|---|---|",
           f"| rank_bm25 `BM25Okapi` ({b['rank_bm25_queries']} queries) | "
           + (f"{okapi:,.1f} queries/s" if okapi else "not installed where this ran: not measured") + " | |",
           f"| raw bm25s (tokenize + retrieve) | {b['raw_bm25s_qps']:,.0f} queries/s | |",
           f"| hcrbench `bm25` | {b['hcrbench_qps']:,.0f} queries/s | |",
           "| speed-up over rank_bm25 | " + (f"{b['hcrbench_qps'] / okapi:,.0f}x" if okapi else "—") + " | >= 50x |",
           f"| wrapper overhead over raw bm25s | {over:+.1f}% | <= 10% |"]
    d = doc.get("dense")
    if d:
        for key, words in (("torch", "torch fp32"), ("onnx", "ONNX int8")):
            r = d["backends"].get(key)
            out.append(f"| MiniLM encode, {words} ({d['sample']} passages) | "
                       + (f"{r['passages_per_s']:.1f} passages/s, {r['queries_per_s']:.0f} queries/s" if r
                          else "not installed") + " | |")
        out.append(f"| faiss `IndexFlatIP` search, {doc['documents']:,} x 384 | {d['faiss_flat_qps']:,.0f} queries/s | |")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
