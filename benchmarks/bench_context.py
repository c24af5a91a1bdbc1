"""Context selection cost per query next to BM25's retrieval cost per query, with ratios (goal: < 5%).

    python benchmarks/bench_context.py [--dataset ../shared/datasets/scifact] [--candidates 100] [--budget 400]
        [--repeats 3] [--json PATH]

BM25 (bm25s, the ``bm25`` retriever) searches every test query for its top 100 documents; that time per query is
the reference. Context selection per query = expanding the run into ``--candidates`` chunks (128-token,
sentence-respecting, no overlap) + choosing under ``--budget`` tokens; for MMR and submodular it includes the
TF-IDF similarity matrices (100 x 100; query vectors in one batch). "greedy, per-query arrays": positions and
token counts as arrays from each query's ranked list, Candidate records only for the kept chunks; "greedy,
whole-run" is what the runner does: the whole run expanded by one vectorised pass (ChunkIndex.run_positions,
trec_eval order included), then the same greedy choice per query. One-off costs (chunking the corpus, fitting TF-IDF) are printed apart,
next to BM25's indexing time. Each timing is the best of ``--repeats`` passes over all queries. ``--json PATH``
writes the timings (:func:`markdown` renders them: docs/context.md's block).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from hcrbench.context import ChunkIndex, TfidfSimilarity, greedy_positions, select
from hcrbench.data.beir import load_beir
from hcrbench.data.chunking import chunk_corpus
from hcrbench.retrieve import make_retriever

REPO = Path(__file__).resolve().parents[1]


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default=str(REPO / ".." / "shared" / "datasets" / "scifact"))
    ap.add_argument("--split", default="test")
    ap.add_argument("--candidates", type=int, default=100)
    ap.add_argument("--budget", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", type=Path, help="also write the timings here")
    args = ap.parse_args()
    ds = load_beir(args.dataset, args.split)
    nq = len(ds.queries)
    print(f"dataset: {args.dataset} ({len(ds.corpus)} documents, {nq} {args.split} queries)")

    bm25 = make_retriever("bm25")
    t0 = time.perf_counter()
    bm25.index(ds.corpus)
    t_index = time.perf_counter() - t0
    holder = {}

    def search():
        holder["run"] = bm25.search(ds.queries, k=100).run

    t_search = _best(search, args.repeats) / nq
    run = holder["run"]
    t0 = time.perf_counter()
    chunked = chunk_corpus(ds.corpus, max_tokens=128, overlap=0)
    index = ChunkIndex(chunked)
    t_chunk = time.perf_counter() - t0
    t0 = time.perf_counter()
    sim = TfidfSimilarity(chunked.corpus.doc_ids, chunked.corpus.texts)
    t_tfidf = time.perf_counter() - t0
    ranked = {q: run.ranked(q) for q in run.query_ids}
    texts = dict(ds.queries.items())
    cands = {q: index.expand(r, args.candidates) for q, r in ranked.items()}
    n_cand = sum(len(c) for c in cands.values()) / max(len(cands), 1)

    def expand():
        for r in ranked.values():
            index.expand(r, args.candidates)

    def method(name):
        def go():
            qv = dict(zip(cands, sim.query_vectors([texts[q] for q in cands]))) if name != "greedy" else {}
            for q, c in cands.items():
                sims = sim.matrices(texts[q], [x.chunk_id for x in c], qv[q]) if name != "greedy" else None
                select(q, c, args.budget, name, token_counter=index.counter, sims=sims)
        return go

    def greedy_fast():
        for r in ranked.values():
            pos, _ = index.positions(r, args.candidates)
            keep = greedy_positions(index.tokens[pos], args.budget)
            [index.candidate(int(pos[i]), 0.0, i) for i in keep]

    def greedy_run():
        allpos = index.run_positions(run, args.candidates)
        for q in ranked:
            pos, _ = allpos[q]
            keep = greedy_positions(index.tokens[pos], args.budget)
            [index.candidate(int(pos[i]), 0.0, i) for i in keep]

    t_expand = _best(expand, args.repeats) / len(ranked)
    t_run = _best(greedy_run, args.repeats) / len(ranked)
    t_fast = _best(greedy_fast, args.repeats) / len(ranked)
    doc = {"dataset": Path(args.dataset).name, "split": args.split, "documents": len(ds.corpus), "queries": nq,
           "candidates": args.candidates, "mean_candidates": round(n_cand, 1), "budget": args.budget,
           "repeats": args.repeats, "chunks": len(chunked.corpus),
           "one_off_s": {"bm25_index": t_index, "chunking": t_chunk, "tfidf_fit": t_tfidf},
           "ms_per_query": {"bm25_search": 1e3 * t_search, "expand": 1e3 * t_expand, "greedy_arrays": 1e3 * t_fast,
                            "greedy_run": 1e3 * t_run}}
    for name in ("greedy", "mmr", "submodular"):
        doc["ms_per_query"][name] = 1e3 * _best(method(name), args.repeats) / len(cands)
    print(markdown(doc))
    if args.json is not None:
        from hcrbench.data import atomic_write_text

        atomic_write_text(args.json, json.dumps(doc, indent=1) + "\n")


ROWS = [
    ("greedy", "greedy selection itself ({c} candidates in hand)", False),
    ("expand", "expand the document run to {c} chunk candidates (Candidate records)", None),
    ("greedy_arrays", "greedy, per-query arrays (positions + token counts from each query's ranked list; records for "
                      "kept chunks only; expansion included)", None),
    ("greedy_run", "greedy, whole run at once (what the runner does: `ChunkIndex.run_positions`, one vectorised pass "
                   "including the trec_eval ordering)", None),
    ("mmr", "mmr, incl. {c} x {c} TF-IDF similarities + expansion", True),
    ("submodular", "submodular, incl. similarities + expansion", True),
]


def markdown(doc: dict) -> str:
    """The --json file as docs/context.md's table: ms per query and % of a BM25 query per step."""
    ms = doc["ms_per_query"]
    bm = ms["bm25_search"]
    one = doc["one_off_s"]
    out = [f"{doc['dataset']} {doc['split']} ({doc['documents']:,} documents, {doc['queries']} queries): BM25 (bm25s, "
           f"batched over all queries) searches the top 100 in **{bm:.3f} ms per query**. Selecting under "
           f"B={doc['budget']} from {doc['candidates']} candidate chunks, best of {doc['repeats']} passes:", "",
           "| step | ms / query | % of BM25 |", "|---|---|---|"]
    for key, words, plus_expand in ROWS:
        t = ms[key] + (ms["expand"] if plus_expand else 0.0)
        out.append(f"| {words.format(c=doc['candidates'])} | {t:.3f} | {100 * t / bm:.1f}% |")
    out += ["", f"One-off, per corpus: chunking {doc['chunks']:,} chunks {one['chunking']:.1f} s, TF-IDF fit "
                f"{one['tfidf_fit']:.1f} s (BM25 indexing: {one['bm25_index']:.1f} s)."]
    return "\n".join(out)


if __name__ == "__main__":
    main()
