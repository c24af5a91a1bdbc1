"""The perfect-retriever control on Meridian folders: through ``hcrbench run``, and its bounds (docs/context.md).

    python benchmarks/perfect_control.py DATA [DATA ...] --out DIR [--bounds-only]

For each Meridian folder (test split): writes a perfect runfile (every relevant document by grade, then id) and a
degraded one (half of the relevant documents dropped, 20 random documents after), runs ``hcrbench run`` (the console
script) with BM25 over its own chunks, BM25 over documents, both runfiles and the built-in controls at B = 200-1200,
and prints each system's failure rate on the feasible queries at 400 with its failure anatomy. Then the bounds of a
document ranking (the fast form, no retrieval): the perfect ranking delivered round robin with the TF-IDF passage
scorer, with an oracle passage order (each document's fact-stating chunks first), and with the minimal evidence's
documents first among equal grades as well.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np

CONFIG = """name = "perfect-control"
output_dir = "{out}"
seed = 0
metrics = ["nDCG@10"]
baseline = "bm25"
k = 100
n_resamples = 500
budgets = [200, 400, 600, 800, 1200]
[dataset]
path = "{data}"
split = "test"
[[systems]]
name = "bm25"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
chunking = {{ max_tokens = 128, overlap = 32, structure_aware = true }}
[[systems]]
name = "bm25-doc"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
[[systems]]
name = "perfect-runfile"
type = "runfile"
params = {{ path = "{perfect}" }}
[[systems]]
name = "degraded-runfile"
type = "runfile"
params = {{ path = "{degraded}" }}
"""


def runfiles(data: Path, out: Path) -> tuple[Path, Path]:
    from hcrbench.data.beir import read_corpus
    from hcrbench.data.trec import read_qrels

    qrels = read_qrels(data / "qrels" / "test.tsv")
    ids = read_corpus(data / "corpus.jsonl").doc_ids
    rng = random.Random(3)
    perfect, degraded = out / "perfect.trec", out / "degraded.trec"
    with open(perfect, "w") as p, open(degraded, "w") as g:
        for q in qrels.query_ids:
            rel = sorted((d for d, gr in qrels[q].items() if gr >= 1), key=lambda d: (-qrels[q][d], d))
            for r, d in enumerate(rel):
                p.write(f"{q} Q0 {d} {r + 1} {1000 - r} perfect\n")
            for r, d in enumerate(dict.fromkeys(rel[len(rel) // 2:] + rng.sample(ids, 20))):
                g.write(f"{q} Q0 {d} {r + 1} {1000 - r} degraded\n")
    return perfect, degraded


def through_run(data: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    perfect, degraded = runfiles(data, out)
    cfg = out / "perfect-control.toml"
    cfg.write_text(CONFIG.format(out=out / "out", data=data.resolve(), perfect=perfect, degraded=degraded))
    r = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True,
                       env={**os.environ, "HCRBENCH_PROGRESS": "0"})
    if r.returncode != 0:
        sys.exit(r.stderr)
    s = json.loads((out / "out" / "eval.json").read_text())["sufficiency"]
    print(f"{data.name}: hcrbench run, failure on feasible queries at 400 (retrieval / selection / delivery misses)")
    for name, e in s["systems"].items():
        f, fl = e.get("failure_on_feasible"), e.get("failures")
        if f and fl:
            print(f"  {name:18s} {100 * f['rate']:5.1f}% of {f['n']:3d}  ret {fl['retrieval']:2d}  "
                  f"sel {fl['selection']:2d}  del {fl['delivery']:2d}")


def bounds(data: Path, budget: int = 400) -> None:
    from hcrbench.context import ChunkIndex, TfidfSimilarity, select
    from hcrbench.context.delivery import round_robin
    from hcrbench.data.beir import read_corpus, read_queries
    from hcrbench.data.chunking import chunk_corpus
    from hcrbench.data.evidence import read_evidence
    from hcrbench.data.tokens import get_counter
    from hcrbench.data.trec import read_qrels
    from hcrbench.experiment.context_deliver import UnitSet, unit_feasibility
    from hcrbench.metrics.sufficiency import covered_facts, judge

    corpus, queries = read_corpus(data / "corpus.jsonl"), read_queries(data / "queries.jsonl")
    qrels, ev = read_qrels(data / "qrels" / "test.tsv"), read_evidence(data / "evidence.jsonl")
    counter = get_counter(None)
    cc = chunk_corpus(corpus, max_tokens=128, overlap=0, counter=counter)
    index = ChunkIndex(cc)
    sim = TfidfSimilarity(cc.corpus.doc_ids, cc.corpus.texts)
    texts = dict(zip(corpus.doc_ids, corpus.texts))
    qids = [q for q in qrels.query_ids if q in ev and ev[q].facts]
    cov = unit_feasibility(UnitSet("chunks-128", index, {}), ev, qids, texts)
    feas = [q for q in qids if cov[q]["cover_tokens"] is not None and cov[q]["cover_tokens"] <= budget]
    qv = dict(zip(qids, sim.query_vectors([queries[q] for q in qids])))
    out = {}
    for mode in ("tfidf", "oracle passages", "oracle passages + minimal documents first"):
        fails = 0
        for q in feas:
            rel = {d: g for d, g in qrels[q].items() if g >= 1}
            mind = {sp.doc_id for sp in ev[q].minimal}
            docs = sorted(rel, key=lambda d: (-rel[d], -(d in mind) if "minimal" in mode else 0, d))
            pos = np.array([p for d in docs for p in index.by_doc[d]], dtype=np.int64)
            ps = sim.passage_scores(pos, qv[q])
            if mode != "tfidf":
                ps = ps + np.array([len(covered_facts([index.candidate(int(p), 0, 0)], ev[q], texts)) for p in pos])
            order = round_robin(pos, index.doc_of, ps)[:100]
            cands = [index.candidate(int(pos[i]), 1.0, r) for r, i in enumerate(order)]
            s = select(q, cands, budget, "greedy", token_counter=counter.name)
            fails += not judge(s.chunks, s.text(), ev[q], None, texts).evidence_coverage
        out[mode] = fails
    print(f"{data.name}: perfect ranking (ties by id) round robin at {budget}, {len(feas)} feasible: "
          + ", ".join(f"{m} {k} ({100 * k / max(len(feas), 1):.1f}%)" for m, k in out.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=Path("perfect-control"))
    ap.add_argument("--bounds-only", action="store_true")
    a = ap.parse_args()
    for d in a.data:
        if not a.bounds_only:
            through_run(d, a.out / d.name)
        bounds(d)


if __name__ == "__main__":
    main()
