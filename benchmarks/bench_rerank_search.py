"""The rerank baseline's and HCR's per-query search CPU, old path against new, side by side in one process.

    python benchmarks/bench_rerank_search.py --dataset DIR [--encoder onnx|hash] [--top-n 100] [--repeat 2]

Two rows, each the CPU ms per query of the old and the new path, the ratio, and whether they wrote the same bytes:

* ``rerank`` (hybrid bm25+dense first stage, MaxSim rerank of the top ``--top-n``): old = MaxSim one document at
  a time (:func:`~hcrbench.retrieve.rerank.maxsim_scores`, each float16 block cast per query) and every cache
  shard verified again by each search; new = as shipped (:func:`~hcrbench.retrieve.maxsim.maxsim_exact`,
  blocks cast once per search, shards verified once per process).
* ``hcr`` (the first variant, seed 0): old = every cache shard verified again by each search; new = as shipped.
  HCR's MaxSim scores are not carried between its searches here (each search scores afresh), so the row shows
  the cache check alone.

Every search runs after a warm-up search (encodings cached, shard files settled), ``--repeat`` times per path in
alternating order; the least CPU of each is printed. On a shared machine compare the CPU columns and the ratio.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True, help="BEIR folder (e.g. hcrbench generate meridian --size small)")
    ap.add_argument("--split", default="test")
    ap.add_argument("--encoder", default="onnx", choices=["hash", "onnx", "torch"])
    ap.add_argument("--top-n", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    os.environ.setdefault("HCRBENCH_PROGRESS", "0")

    import numpy as np

    import hcrbench.data.cache as cache_mod
    import hcrbench.retrieve.hcr.retriever as hr
    import hcrbench.retrieve.rerank as rr
    from hcrbench.data import load_beir
    from hcrbench.retrieve import make_retriever

    ds = load_beir(Path(args.dataset), args.split)
    queries = ds.queries.subset([q for q in ds.queries.query_ids if q in ds.qrels])
    n = len(queries)

    def plain_maxsim(q, blocks):
        return rr.maxsim_scores(q, [np.asarray(b) for b in blocks])

    def search(r, old: bool, old_maxsim: bool):
        saved = (cache_mod._VERIFIED, cache_mod._SETTLE_S, rr.maxsim_exact, hr._maxsim_memo, rr.FLOAT32_BLOCK_BYTES)
        hr._maxsim_memo = lambda ident, query: {}  # no HCR scores carried between searches, either path
        if old:  # nothing remembered: every instance verifies every shard it reads
            cache_mod._VERIFIED, cache_mod._SETTLE_S = {}, math.inf
            if old_maxsim:
                rr.maxsim_exact, rr.FLOAT32_BLOCK_BYTES = plain_maxsim, 0
        try:
            c0 = time.process_time()
            res = r.search(queries, k=100)
            cpu = time.process_time() - c0
        finally:
            (cache_mod._VERIFIED, cache_mod._SETTLE_S, rr.maxsim_exact, hr._maxsim_memo,
             rr.FLOAT32_BLOCK_BYTES) = saved
        return cpu, json.dumps({q: [(d, repr(s)) for d, s in res.run.ranked(q)] for q in res.run.query_ids})

    systems = {
        "rerank": (make_retriever("rerank", method="maxsim", first_stage="hybrid", backend=args.encoder,
                                  first_stage_params={"systems": "bm25,dense", "method": "rrf",
                                                      "dense_backend": args.encoder},
                                  top_n=args.top_n), True),
        "hcr": (make_retriever("hcr", backend=args.encoder, seed=0), False),
    }
    print(f"{args.dataset}: {len(ds.corpus)} documents, {n} judged queries ({args.split}), encoder {args.encoder}")
    print(f"{'system':<10}{'old ms/q':>10}{'new ms/q':>10}{'ratio':>8}  bytes")
    for name, (r, old_maxsim) in systems.items():
        r.index(ds.corpus)
        search(r, old=False, old_maxsim=old_maxsim)  # warm-up: every encoding cached
        time.sleep(max(0.0, cache_mod._SETTLE_S + 0.1))  # shard files settled, as in any later search
        cpu = {True: [], False: []}
        out = {}
        for _ in range(args.repeat):
            for old in (True, False):
                c, out[old] = search(r, old, old_maxsim)
                cpu[old].append(c)
        o, f = min(cpu[True]), min(cpu[False])
        print(f"{name:<10}{1000 * o / n:>10.1f}{1000 * f / n:>10.1f}{o / max(f, 1e-9):>7.2f}x  "
              f"{'same' if out[True] == out[False] else 'DIFFER'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
