"""hcrbench.metrics vs pytrec_eval (and ranx, if installed) on the same in-memory data, side by side.

Synthetic run: Q queries x D docs each (from a 1M-doc id space, scores rounded to 2 decimals so ties occur),
qrels: 30 judged docs per query (half retrieved), grades 0-3. Five measures: nDCG@10, P@5, R@100, RR, AP.

Timed (wall clock, best of --repeat):
- pytrec_eval: ``RelevanceEvaluator.evaluate(run_dict)`` alone (the evaluator's qrels set-up and the dict build
  are excluded and printed separately);
- hcrbench on its own types: ``evaluate(Qrels, Run, ...)`` (the whole call: encode, rank, 5 measures, ledger);
- hcrbench on the same dicts pytrec_eval gets: ``evaluate(qrels_dict, run_dict, ...)`` (includes conversion);
- ranx (if importable): its Qrels/Run build from the dicts, then ``evaluate`` first call (numba JIT, or its
  on-disk cache) and a warm call.
Means are compared with pytrec_eval's (max |difference| printed).

With ``--from-files`` the same data is written as TREC files and each tool reads and scores them in a fresh
process (pytrec_eval's without hcrbench imported) (what ``hcrbench evaluate QRELS RUN`` does, against ``pytrec_eval.parse_qrel`` / ``parse_run`` +
``RelevanceEvaluator.evaluate``): wall time and peak RSS of each, and the ratios.

Usage: python benchmarks/bench_metrics.py [--queries 10000] [--depth 1000] [--repeat 3] [--seed 0] [--from-files]
       [--json PATH]   (with --from-files: the figures as JSON; docs/metrics.md shows bench_trec_read.py)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from hcrbench.data import Qrels, Run
from hcrbench.metrics import evaluate

OURS = ["nDCG@10", "P@5", "R@100", "RR", "AP"]
PTE = {"ndcg_cut_10": "nDCG@10", "P_5": "P@5", "recall_100": "R@100", "recip_rank": "RR", "map": "AP"}


def make_data(nq: int, depth: int, seed: int, n_docs: int = 1_000_000, judged: int = 30):
    rng = np.random.default_rng(seed)
    vocab = [f"D{i:07d}" for i in range(n_docs)]
    run_docs = np.stack([rng.choice(n_docs, depth, replace=False) for _ in range(nq)])
    scores = np.round(rng.random((nq, depth)) * 100, 2)
    half = judged // 2
    qrel_docs = np.concatenate([run_docs[:, :half], rng.integers(0, n_docs, (nq, judged - half))], axis=1)
    grades = rng.integers(0, 4, (nq, judged))
    qids = [f"q{i}" for i in range(nq)]
    # hcrbench objects straight from arrays (what read_run / a retriever produce), dicts for pytrec_eval.
    run = Run(qids, np.arange(nq + 1) * depth, run_docs.ravel(), scores.ravel(), vocab, name="bench")
    qrels_dict: dict[str, dict[str, int]] = {}
    for i, q in enumerate(qids):
        qrels_dict[q] = {vocab[d]: int(g) for d, g in zip(qrel_docs[i].tolist(), grades[i].tolist())}
    qrels = Qrels.from_dict(qrels_dict)
    run_dict = {q: dict(zip([vocab[d] for d in run_docs[i].tolist()], scores[i].tolist()))
                for i, q in enumerate(qids)}
    return qrels, run, qrels_dict, run_dict


def best_of(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


_PTE_CHILD = """
import json, resource, sys, time
import numpy as np
t = time.perf_counter()
import pytrec_eval
with open(sys.argv[2]) as fh:
    qrels = pytrec_eval.parse_qrel(fh)
with open(sys.argv[1]) as fh:
    run = pytrec_eval.parse_run(fh)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "P.5", "recall.100", "recip_rank", "map"})
out = ev.evaluate(run)
secs = time.perf_counter() - t
names = json.loads(sys.argv[3])
means = {o: float(np.mean([out[q][m] for q in out])) for m, o in names.items()}
try:  # VmHWM: this process's own peak (ru_maxrss keeps the parent's RSS at fork across exec)
    peak = next(int(ln.split()[1]) for ln in open("/proc/self/status") if ln.startswith("VmHWM")) / 1024
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": secs, "peak_mb": peak, "means": means}))
"""


def _child(run_path: str, qrels_path: str) -> None:
    """hcrbench's side: read both files and score them; print {"seconds", "peak_mb", "means"} as JSON."""
    import resource

    from hcrbench.data import read_qrels, read_run

    t = time.perf_counter()
    res = evaluate(read_qrels(qrels_path), read_run(run_path), OURS)
    means = next(iter(res.runs.values())).means
    secs = time.perf_counter() - t
    try:  # VmHWM: this process's own peak (ru_maxrss keeps the parent's RSS at fork across exec)
        with open("/proc/self/status") as fh:
            peak = next(int(ln.split()[1]) for ln in fh if ln.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"seconds": secs, "peak_mb": peak, "means": means}))


def from_files(args) -> None:
    from hcrbench.data import write_qrels, write_run

    qrels, run, _, _ = make_data(args.queries, args.depth, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        rp, qp = os.path.join(tmp, "run.trec"), os.path.join(tmp, "qrels.txt")
        write_run(run, rp)
        write_qrels(qrels, qp)
        del qrels, run
        size_mb = os.path.getsize(rp) / 1e6
        print(f"files: {args.queries} queries x {args.depth} docs = {args.queries * args.depth:,} run lines "
              f"({os.path.getsize(rp) / 1e6:.0f} MB); each tool reads + scores them in a fresh process, "
              f"best of {args.repeat}")
        best: dict[str, dict] = {}
        for _ in range(args.repeat):
            for tool in ("hcrbench", "pytrec_eval"):
                cmd = ([sys.executable, __file__, "--child", rp, qp] if tool == "hcrbench" else
                       [sys.executable, "-c", _PTE_CHILD, rp, qp, json.dumps(PTE)])  # pytrec_eval alone
                r = subprocess.run(cmd, capture_output=True, text=True, check=True)
                got = json.loads(r.stdout.strip().splitlines()[-1])
                if tool not in best or got["seconds"] < best[tool]["seconds"]:
                    best[tool] = {**got, "peak_mb": max(got["peak_mb"], best.get(tool, {}).get("peak_mb", 0))}
    ours, pte = best["hcrbench"], best["pytrec_eval"]
    diff = max(abs(ours["means"][o] - pte["means"][o]) for o in OURS)
    print(f"{'tool':32s} {'seconds':>9s} {'peak MB':>9s}")
    print(f"{'hcrbench read_run + evaluate':32s} {ours['seconds']:9.2f} {ours['peak_mb']:9.0f}")
    print(f"{'pytrec_eval parse + evaluate':32s} {pte['seconds']:9.2f} {pte['peak_mb']:9.0f}")
    print(f"max |mean difference|: {diff:.2e}")
    print(f"ratio hcrbench / pytrec_eval: time {ours['seconds'] / pte['seconds']:.2f}, "
          f"memory {ours['peak_mb'] / pte['peak_mb']:.2f}")
    if args.json is not None:
        from hcrbench.data import atomic_write_text

        doc = {"queries": args.queries, "depth": args.depth, "repeat": args.repeat, "seed": args.seed,
               "run_lines": args.queries * args.depth, "run_mb": round(size_mb, 1),
               "hcrbench": {"seconds": ours["seconds"], "peak_mb": ours["peak_mb"]},
               "pytrec_eval": {"seconds": pte["seconds"], "peak_mb": pte["peak_mb"]}, "max_mean_diff": diff}
        atomic_write_text(args.json, json.dumps(doc, indent=1) + "\n")


def markdown(doc: dict) -> str:
    """A --from-files --json file as docs/metrics.md's table."""
    h, p = doc["hcrbench"], doc["pytrec_eval"]
    return "\n".join([
        f"{doc['run_lines'] / 1e6:g}M run lines ({doc['queries']:,} queries x {doc['depth']:,} documents, "
        f"{doc['run_mb']:.0f} MB), best of {doc['repeat']}; max |difference| of the means "
        f"{doc['max_mean_diff']:.1e}:", "",
        "| run | hcrbench s | pytrec_eval s | time ratio | hcrbench MB | pytrec_eval MB | memory ratio |",
        "|---|---|---|---|---|---|---|",
        f"| read + score, each tool in a fresh process | {h['seconds']:.2f} | {p['seconds']:.2f} | "
        f"{h['seconds'] / p['seconds']:.2f} | {h['peak_mb']:.0f} | {p['peak_mb']:.0f} | "
        f"{h['peak_mb'] / p['peak_mb']:.2f} |"])


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(*sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--from-files", action="store_true",
                    help="Time reading TREC files + scoring, each tool in a fresh process (time and peak memory).")
    ap.add_argument("--json", type=Path, default=None, help="with --from-files: also write the figures here")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.from_files:
        from_files(args)
        return

    t = time.perf_counter()
    qrels, run, qrels_dict, run_dict = make_data(args.queries, args.depth, args.seed)
    print(f"data: {args.queries} queries x {args.depth} docs = {run.n_entries:,} run entries, "
          f"{qrels.n_entries:,} judgments (built in {time.perf_counter() - t:.1f}s)")
    print(f"measures: {', '.join(OURS)}; best of {args.repeat}")

    t_ours, res = best_of(lambda: evaluate(qrels, run, OURS), args.repeat)
    t_ours_dict, res_d = best_of(lambda: evaluate(qrels_dict, run_dict, OURS), args.repeat)
    ours = res["bench"].means
    assert res_d["run"].means == ours, "dict and object inputs disagree"

    rows = [("hcrbench evaluate(Qrels, Run)", t_ours), ("hcrbench evaluate(dict, dict)", t_ours_dict)]
    t_pte = None
    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval not installed: skipped")
    else:
        t = time.perf_counter()
        ev = pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut.10", "P.5", "recall.100", "recip_rank", "map"})
        t_init = time.perf_counter() - t
        t_pte, pte = best_of(lambda: ev.evaluate(run_dict), args.repeat)
        diff = max(abs(np.mean([pte[q][m] for q in pte]) - ours[o]) for m, o in PTE.items())
        rows.append(("pytrec_eval evaluate(run_dict) alone", t_pte))
        print(f"pytrec_eval RelevanceEvaluator(qrels) set-up (excluded): {t_init:.2f}s; "
              f"max |mean difference| vs hcrbench: {diff:.2e}")
    try:
        import ranx
    except ImportError:
        print("ranx not installed: skipped")
    else:
        ranx_metrics = ["ndcg@10", "precision@5", "recall@100", "mrr", "map"]
        t = time.perf_counter()
        rq, rr = ranx.Qrels(qrels_dict), ranx.Run(run_dict)
        t_build = time.perf_counter() - t
        t = time.perf_counter()
        ranx.evaluate(rq, rr, ranx_metrics)
        t_first = time.perf_counter() - t
        rr = ranx.Run(run_dict)  # ranx caches results on a Run: a fresh one (built untimed) for the warm call
        t_warm, _ = best_of(lambda: ranx.evaluate(rq, rr, ranx_metrics), 1)
        rows.append(("ranx Qrels+Run build from the dicts", t_build))
        rows.append(("ranx evaluate, first call (numba JIT or cache)", t_first))
        rows.append(("ranx evaluate, warm", t_warm))

    print()
    print(f"{'system':48s} {'seconds':>9s} {'x hcrbench(Qrels, Run)':>24s}")
    for name, secs in rows:
        print(f"{name:48s} {secs:9.3f} {secs / t_ours:24.2f}")
    if t_pte is not None:
        print(f"\nspeed-up over pytrec_eval: {t_pte / t_ours:.2f}x on hcrbench types, "
              f"{t_pte / t_ours_dict:.2f}x from the same dicts")


if __name__ == "__main__":
    main()
