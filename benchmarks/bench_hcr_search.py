"""HCR per-query search time, the fast path against the plain one, side by side in one process (same load).

    python benchmarks/bench_hcr_search.py --dataset DIR [--encoder onnx|hash] [--variants hcr,hcr-beam,...]

Each variant is indexed once, then searched twice over the judged queries of ``--split``: the plain path
(queries one at a time, MaxSim one document at a time by :func:`~hcrbench.retrieve.rerank.maxsim_scores`, every
request scored afresh, BM25 rows scored per call) and the fast path as shipped, in the order of an experiment
(so the fast path's MaxSim scores carry from one variant to the next, as they do in one process of an
experiment; the plain path never reuses).
Prints CPU ms per query of each, the ratio, and whether the two wrote the same bytes (runs with exact scores,
routing logs). On a shared machine compare the CPU columns and the ratio, not wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

VARIANTS = {
    "hcr": {}, "hcr-seed1": {"seed": 1}, "hcr-beam": {"mode": "beam"}, "hcr-collapsed": {"mode": "collapsed"},
    "hcr-flat": {"flat": True}, "hcr-centroid": {"node_repr": "centroid"}, "hcr-no-links": {"links": False},
    "hcr-depth2": {"depth": 2}, "hcr-no-mmr": {"mmr_lambda": 1.0}, "hcr-beam8": {"beam_width": 8},
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True, help="BEIR folder (e.g. hcrbench generate meridian --size small)")
    ap.add_argument("--split", default="test")
    ap.add_argument("--encoder", default="onnx", choices=["hash", "onnx", "torch"])
    ap.add_argument("--variants", default=",".join(VARIANTS), help=f"comma list of {', '.join(VARIANTS)}")
    args = ap.parse_args(argv)
    os.environ.setdefault("HCRBENCH_PROGRESS", "0")

    import numpy as np

    import hcrbench.retrieve.hcr.retriever as hr
    from hcrbench.data import load_beir
    from hcrbench.retrieve import make_retriever
    from hcrbench.retrieve.hcr.route import Router
    from hcrbench.retrieve.rerank import maxsim_scores

    names = [v for v in args.variants.split(",") if v]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        print(f"unknown variant(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    ds = load_beir(Path(args.dataset), args.split)
    queries = ds.queries.subset([q for q in ds.queries.query_ids if q in ds.qrels])
    n = len(queries)

    def plain_lexical(self, kind, lex, ids, qlex):
        return lex.score(qlex[kind], ids)

    def plain_maxsim(q, blocks):
        return maxsim_scores(q, [np.asarray(b) for b in blocks])

    def search(r, plain: bool):
        saved = (Router._lexical, hr.maxsim_exact, hr._maxsim_memo, hr.LOCKSTEP)
        if plain:  # one query at a time, each MaxSim request scored afresh, BM25 rows per call
            Router._lexical, hr.maxsim_exact, hr.LOCKSTEP = plain_lexical, plain_maxsim, 1
            hr._maxsim_memo = lambda ident, query: {}
        try:
            c0, t0 = time.process_time(), time.perf_counter()
            res = r.search(queries, k=100)
            cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        finally:
            Router._lexical, hr.maxsim_exact, hr._maxsim_memo, hr.LOCKSTEP = saved
        out = [{q: [(d, repr(s)) for d, s in res.run.ranked(q)] for q in res.run.query_ids},
               [json.dumps(rec.__dict__, sort_keys=True, default=lambda o: o.__dict__) for rec in r.routing_log]]
        return cpu, wall, json.dumps(out)

    print(f"{args.dataset}: {len(ds.corpus)} documents, {n} judged queries ({args.split}), encoder {args.encoder}")
    print(f"{'variant':<15}{'plain ms/q':>12}{'fast ms/q':>11}{'ratio':>8}{'plain wall':>12}{'fast wall':>11}"
          "  bytes")
    tot = [0.0, 0.0]
    for name in names:
        kw = dict(VARIANTS[name])
        r = make_retriever("hcr", backend=args.encoder, name=name, **{"seed": 0, **kw})
        r.index(ds.corpus)
        pc, pw, pb = search(r, plain=True)
        fc, fw, fb = search(r, plain=False)
        tot[0] += pc
        tot[1] += fc
        print(f"{name:<15}{1000 * pc / n:>12.1f}{1000 * fc / n:>11.1f}{pc / max(fc, 1e-9):>7.1f}x"
              f"{1000 * pw / n:>12.1f}{1000 * fw / n:>11.1f}  {'same' if pb == fb else 'DIFFER'}", flush=True)
    print(f"{'all':<15}{tot[0]:>11.1f}s{tot[1]:>10.1f}s{tot[0] / max(tot[1], 1e-9):>7.1f}x  (CPU seconds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
