"""Streamed evaluation of big TREC run files against the in-memory path and pytrec_eval: time and peak memory.

Writes, into a temporary folder (``--tmp``, default the system's), a qrels file and one run per ``--sizes`` entry
(queries x ``--depth`` lines each; doc ids from a 1M-id space, scores rounded to 2 decimals so ties occur, 30
judged docs per query, half of them retrieved, grades 0-3; the same generator as ``bench_metrics.py``'s shape,
written a chunk of queries at a time so the benchmark itself never holds a run). Each tool then reads and scores
each file in a fresh process, nothing else loaded:

- ``stream``: ``evaluate_stream(qrels_path, run_path, 5 measures)`` (hcrbench.metrics.stream);
- ``memory``: ``evaluate(read_qrels(...), read_run(...), 5 measures)`` (what ``hcrbench evaluate`` did so far);
- ``pytrec_eval``: ``parse_qrel`` + ``parse_run`` + ``RelevanceEvaluator.evaluate``.

``--memory-max`` / ``--pte-max`` (lines) skip the in-memory tools on files larger than that (a run larger than
memory is the point of streaming). ``--scattered`` also writes the largest file with its lines shuffled in blocks
of 10,000 (queries scattered over the file, as concatenated shard runs are) and streams it (spill path).
Per tool: wall seconds, peak RSS (VmHWM of the child), the 5 means (max |difference| against the stream's is
printed) and ratios. The files are deleted at the end.

Usage: python benchmarks/bench_stream.py [--sizes 50000,100000] [--depth 1000] [--memory-max 50000000]
       [--pte-max 50000000] [--scattered] [--tmp /tmp]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

OURS = ["nDCG@10", "P@5", "R@100", "RR", "AP"]
PTE = {"ndcg_cut_10": "nDCG@10", "P_5": "P@5", "recall_100": "R@100", "recip_rank": "RR", "map": "AP"}
N_DOCS = 1_000_000
JUDGED = 30
CHUNK = 1000  # queries generated and written at a time

_PEAK = """
def _peak_mb():
    try:  # VmHWM: this process's own peak (ru_maxrss keeps the parent's RSS at fork across exec)
        with open("/proc/self/status") as fh:
            return next(int(ln.split()[1]) for ln in fh if ln.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""

_CHILDREN = {
    "stream": _PEAK + """
import json, sys, time, warnings
warnings.simplefilter("ignore")
t = time.perf_counter()
from hcrbench.metrics.stream import evaluate_stream
res = evaluate_stream(sys.argv[2], sys.argv[1], json.loads(sys.argv[3]))
means = next(iter(res.runs.values())).means
print(json.dumps({"seconds": time.perf_counter() - t, "peak_mb": _peak_mb(), "means": means}))
""",
    "memory": _PEAK + """
import json, sys, time, warnings
warnings.simplefilter("ignore")
t = time.perf_counter()
from hcrbench.data import read_qrels, read_run
from hcrbench.metrics import evaluate
res = evaluate(read_qrels(sys.argv[2]), read_run(sys.argv[1]), json.loads(sys.argv[3]))
means = next(iter(res.runs.values())).means
print(json.dumps({"seconds": time.perf_counter() - t, "peak_mb": _peak_mb(), "means": means}))
""",
    "pytrec_eval": _PEAK + """
import json, sys, time
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
names = json.loads(sys.argv[4])
qids = sorted(qrels)
means = {o: float(np.mean([out.get(q, {}).get(m, 0.0) for q in qids])) for m, o in names.items()}  # trec_eval -c
print(json.dumps({"seconds": secs, "peak_mb": _peak_mb(), "means": means}))
""",
}


def write_files(folder: str, n_queries: int, depth: int, seed: int) -> tuple[str, str]:
    """The qrels (all ``n_queries``) and a run of ``n_queries`` x ``depth`` lines, grouped by query."""
    rng = np.random.default_rng(seed)
    run_path, qrels_path = os.path.join(folder, f"run_{n_queries}x{depth}.trec"), os.path.join(folder, "qrels.txt")
    with open(run_path, "w") as run_fh, open(qrels_path, "w") as qrels_fh:
        for start in range(0, n_queries, CHUNK):
            nq = min(CHUNK, n_queries - start)
            docs = np.stack([rng.choice(N_DOCS, depth, replace=False) for _ in range(nq)])
            scores = np.round(rng.random((nq, depth)) * 100, 2)
            half = JUDGED // 2
            judged = np.concatenate([docs[:, :half], rng.integers(0, N_DOCS, (nq, JUDGED - half))], axis=1)
            grades = rng.integers(0, 4, (nq, JUDGED))
            lines = []
            for i in range(nq):
                q = f"q{start + i}"
                lines.extend(f"{q} Q0 D{d:07d} {r} {s:.2f} bench\n"
                             for r, (d, s) in enumerate(zip(docs[i].tolist(), scores[i].tolist()), 1))
                seen = set()
                for d, g in zip(judged[i].tolist(), grades[i].tolist()):
                    if d not in seen:
                        seen.add(d)
                        qrels_fh.write(f"{q} 0 D{d:07d} {g}\n")
            run_fh.write("".join(lines))
    return run_path, qrels_path


def scatter(path: str, out: str, seed: int, block: int = 10_000) -> None:
    """``path``'s lines in blocks of ``block`` lines, the blocks shuffled (a query's 1,000 lines end up in one or
    two blocks, each somewhere else in the file): written a block at a time through a shuffled index."""
    with open(path, "rb") as fh:
        offsets = [0]
        for n, _ in enumerate(fh, start=1):
            if n % block == 0:
                offsets.append(fh.tell())
        end = fh.tell()
    if offsets[-1] != end:
        offsets.append(end)
    order = np.random.default_rng(seed).permutation(len(offsets) - 1)
    with open(path, "rb") as src, open(out, "wb") as dst:
        for b in order.tolist():
            src.seek(offsets[b])
            dst.write(src.read(offsets[b + 1] - offsets[b]))


def run_tool(tool: str, run_path: str, qrels_path: str) -> dict:
    cmd = [sys.executable, "-c", _CHILDREN[tool], run_path, qrels_path, json.dumps(OURS), json.dumps(PTE)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="50000,100000", help="queries per run file, comma-separated")
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--memory-max", type=int, default=50_000_000, help="largest file (lines) read whole")
    ap.add_argument("--pte-max", type=int, default=50_000_000, help="largest file (lines) given to pytrec_eval")
    ap.add_argument("--scattered", action="store_true", help="also stream the largest run with scattered queries")
    ap.add_argument("--tmp", default=None, help="where the files are written (deleted at the end)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-stream-", dir=args.tmp) as tmp:
        t = time.perf_counter()
        files = []
        for nq in sizes:  # each file's qrels: the largest size's qrels hold every query of the smaller ones
            folder = os.path.join(tmp, str(nq))
            os.mkdir(folder)
            files.append((nq, *write_files(folder, nq, args.depth, args.seed)))
        print(f"wrote {', '.join(f'{nq * args.depth:,} lines ({os.path.getsize(r) / 1e9:.2f} GB)' for nq, r, _ in files)}"
              f" in {time.perf_counter() - t:.0f} s; each tool reads + scores in a fresh process")
        if args.scattered:
            nq, run_path, qrels_path = files[-1]
            shuffled = run_path.replace(".trec", "_scattered.trec")
            scatter(run_path, shuffled, args.seed)
            files.append((nq, shuffled, qrels_path))
        print(f"{'run lines':>12s} {'tool':12s} {'seconds':>9s} {'peak MB':>9s} {'max |mean diff|':>16s}")
        for nq, run_path, qrels_path in files:
            lines = nq * args.depth
            label = f"{lines / 1e6:.0f}M" + (" scattered" if "scattered" in run_path else "")
            tools = ["stream"]
            if "scattered" not in run_path:
                tools += ["memory"] if lines <= args.memory_max else []
                tools += ["pytrec_eval"] if lines <= args.pte_max else []
            got = {tool: run_tool(tool, run_path, qrels_path) for tool in tools}
            ref = got["stream"].get("means")
            for tool, r in got.items():
                if "error" in r:
                    print(f"{label:>12s} {tool:12s} failed: {r['error']}")
                    continue
                diff = max(abs(r["means"][m] - ref[m]) for m in OURS) if ref else float("nan")
                print(f"{label:>12s} {tool:12s} {r['seconds']:9.1f} {r['peak_mb']:9.0f} {diff:16.2e}")
            s = got["stream"]
            for tool in ("memory", "pytrec_eval"):
                if tool in got and "error" not in got[tool] and "error" not in s:
                    o = got[tool]
                    print(f"{'':>12s} stream / {tool}: time {s['seconds'] / o['seconds']:.2f}, "
                          f"memory {s['peak_mb'] / o['peak_mb']:.2f}")
            os.remove(run_path)


if __name__ == "__main__":
    main()
