"""Reading TREC run files: hcrbench against pytrec_eval (its parse in Python included) and ``merge`` against
``LC_ALL=C sort`` + awk, side by side in one run, on the file shapes real runs have.

Writes into a temporary folder (``--tmp``, default the system's; deleted at the end) a qrels file and runs of
``--queries`` x ``--depth`` lines as Pyserini writes them: ``QID Q0 DOCID RANK SCORE TAG``, query ids of 7 digits
(MS MARCO's style), doc ids of 27 bytes (``msmarco_doc_07_1234567890_3``: drawn from ``--pool`` distinct ids, by
default so many that nearly every line has its own id), BM25-like scores descending within a query. The shapes:

- ``fixed6``: scores written ``%.6f`` (Pyserini's own format);
- ``repr``: scores written as Python's ``repr`` of a float (17 significant digits, what ``str(score)`` writes);
- ``fixed6.gz``: the ``fixed6`` file gzipped (level 1).

Each tool reads and scores each file in a fresh process, timed from outside (wall time, CPU time = user + system,
and peak RSS through ``os.wait4``; interpreter start-up and imports included for every tool):

- ``pytrec_eval``: the usual dict-building loop (``run.setdefault(q, {})[d] = float(s)``; the same for the qrels),
  then ``RelevanceEvaluator(qrels, 5 measures).evaluate(run)``;
- ``hcrbench``: ``read_run`` + ``read_qrels`` + ``evaluate`` (in memory);
- ``hcrbench --stream``: ``hcrbench evaluate QRELS RUN --stream`` through the console script (its start-up
  included), reading the run a batch of queries at a time.

The means of the 5 measures (nDCG@10, P@5, R@100, RR, AP) must agree (max |difference| printed). Then
``--shards`` shard runs (the ``fixed6`` run's lines split by doc, as a sharded index returns them: every shard
holds every query) are
merged by ``hcrbench merge`` and by ``LC_ALL=C sort -k1,1 -k5,5gr -k3,3r`` piped into an awk that renumbers ranks
(the usual shell recipe), each timed as a subprocess with its peak RSS (the child's ``ru_maxrss`` through
``os.wait4``; for sort + awk the larger of the shell's children).

The machine may be shared: read the ratios, not the absolute seconds. Each repeat runs the tools one after
another and takes its ratios between those runs; the median and range over ``--repeat`` repeats are printed, both
for wall time and for CPU time (less moved by other jobs than wall time); the load average at the start and end
too. The merged file is compared with the unsharded run (byte for byte).

Usage: python benchmarks/bench_trec_read.py [--small] [--queries 5000] [--depth 1000] [--repeat 3]
       [--shapes fixed6,repr,fixed6.gz] [--shards 4] [--tmp DIR] [--json PATH]
       (--small: 500 queries x 1000, one repeat: about a minute)
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

OURS = ["nDCG@10", "P@5", "R@100", "RR", "AP"]
PTE = {"ndcg_cut_10": "nDCG@10", "P_5": "P@5", "recall_100": "R@100", "recip_rank": "RR", "map": "AP"}
JUDGED = 30
CHUNK = 250  # queries generated and written at a time
SHAPES = ("fixed6", "repr", "fixed6.gz")

_CHILDREN = {
    "pytrec_eval": """
import gzip, json, sys
import pytrec_eval
def _open(p):
    return gzip.open(p, "rt") if p.endswith(".gz") else open(p)
qrels = {}
with _open(sys.argv[2]) as fh:
    for line in fh:
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
run = {}
with _open(sys.argv[1]) as fh:
    for line in fh:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "P.5", "recall.100", "recip_rank", "map"})
out = ev.evaluate(run)
names = json.loads(sys.argv[5])
qids = sorted(qrels)
means = {o: sum(out.get(q, {}).get(m, 0.0) for q in qids) / len(qids) for m, o in names.items()}  # trec_eval -c
with open(sys.argv[3], "w") as fh:
    json.dump({"means": means}, fh)
""",
    "hcrbench": """
import json, sys, warnings
warnings.simplefilter("ignore")
from hcrbench.data import read_qrels, read_run
from hcrbench.metrics import evaluate
res = evaluate(read_qrels(sys.argv[2]), read_run(sys.argv[1]), json.loads(sys.argv[4]))
with open(sys.argv[3], "w") as fh:
    json.dump({"means": next(iter(res.runs.values())).means}, fh)
""",
}


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), platform.machine())
    except OSError:
        model = platform.machine()
    return f"{os.cpu_count()}-core {model}"


def write_files(folder: str, n_queries: int, depth: int, pool: int, seed: int, shapes) -> dict[str, str]:
    """The qrels and one run per shape (the same entries; only the score spelling and compression differ)."""
    rng = np.random.default_rng(seed)
    paths = {s: os.path.join(folder, f"run_{s.replace('.gz', '')}.trec" + (".gz" if s.endswith(".gz") else ""))
             for s in shapes}
    qrels_path = os.path.join(folder, "qrels.txt")
    spellings = {"fixed6": "%.6f", "repr": None}
    texts = {sp: open(os.path.join(folder, f"run_{sp}.trec"), "w")  # noqa: SIM115 (closed below)
             for sp in {s.replace(".gz", "") for s in shapes}}
    qids = rng.choice(9_000_000, n_queries, replace=False) + 1_000_000
    with open(qrels_path, "w") as qrels_fh:
        for start in range(0, n_queries, CHUNK):
            nq = min(CHUNK, n_queries - start)
            docs = rng.integers(0, pool, (nq, depth))
            scores = np.sort(rng.gamma(4.0, 3.0, (nq, depth)), axis=1)[:, ::-1] + 5.0
            names = [f"msmarco_doc_{d % 60:02d}_{d // 60 % 10_000_000_000:010d}_{d % 7}" for d in docs.ravel().tolist()]
            half = JUDGED // 2
            for i in range(nq):
                q = str(qids[start + i])
                row = names[i * depth:(i + 1) * depth]
                seen: set[str] = set()
                keep = []
                for k, d in enumerate(row):  # a run never holds a doc twice for a query
                    if d not in seen:
                        seen.add(d)
                        keep.append(k)
                sc = scores[i].tolist()
                for sp, fh in texts.items():
                    fmt = spellings[sp]
                    if fmt is None:
                        fh.write("".join(f"{q} Q0 {row[k]} {r} {sc[k]!r} pyserini\n" for r, k in enumerate(keep, 1)))
                    else:
                        fh.write("".join(f"{q} Q0 {row[k]} {r} {sc[k]:.6f} pyserini\n" for r, k in enumerate(keep, 1)))
                judged = [row[k] for k in keep[:half]] + [
                    f"msmarco_doc_{d % 60:02d}_{d // 60 % 10_000_000_000:010d}_{d % 7}"
                    for d in rng.integers(0, pool, JUDGED - half).tolist()]
                grades = rng.integers(0, 4, JUDGED).tolist()
                jseen: set[str] = set()
                for d, g in zip(judged, grades):
                    if d not in jseen:
                        jseen.add(d)
                        qrels_fh.write(f"{q} 0 {d} {g}\n")
    for fh in texts.values():
        fh.close()
    for s in shapes:
        if s.endswith(".gz"):
            src = os.path.join(folder, f"run_{s.replace('.gz', '')}.trec")
            with open(src, "rb") as a, gzip.open(paths[s], "wb", compresslevel=1) as b:
                shutil.copyfileobj(a, b, 1 << 22)
    return {"qrels": qrels_path, **paths}


def write_shards(run_path: str, folder: str, n: int) -> list[str]:
    """``run_path`` split as a sharded index splits it: each doc's lines go to shard ``crc32(doc) % n``, so every
    shard holds every query (its docs of that shard), in the run's order."""
    import zlib

    outs = [open(os.path.join(folder, f"shard{i}.trec"), "wb") for i in range(n)]  # noqa: SIM115
    with open(run_path, "rb") as fh:
        for line in fh:
            doc = line.split(b" ", 3)[2]
            outs[zlib.crc32(doc) % n].write(line)
    for o in outs:
        o.close()
    return [o.name for o in outs]


def run_child(tool: str, run_path: str, qrels_path: str) -> dict:
    """One tool reading and scoring ``run_path`` in a fresh process: its wall time, CPU time (user + system) and
    peak RSS, from the outside (interpreter start-up and imports included for every tool), and the means."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tf:
        out = tf.name
    try:
        if tool == "hcrbench --stream":
            exe = shutil.which("hcrbench") or os.path.join(os.path.dirname(sys.executable), "hcrbench")
            argv = [exe, "evaluate", qrels_path, run_path, "--stream", "--metrics", ",".join(OURS), "--json", out]
        else:
            argv = [sys.executable, "-c", _CHILDREN[tool], run_path, qrels_path, out, json.dumps(OURS),
                    json.dumps(PTE)]
        m = _measure_cmd(argv, quiet=True)
        if m["rc"] != 0:
            return {"error": f"exit {m['rc']}: {m.get('stderr', '')[-300:]}"}
        with open(out) as fh:
            doc = json.load(fh)
        return {"seconds": m["seconds"], "cpu": m["cpu"], "peak_mb": m["peak_mb"], "means": _means_of(doc)}
    finally:
        os.remove(out)


_CLI_PEAK = """
import os, resource, sys, time, json
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
secs = time.perf_counter() - t
print(json.dumps({"seconds": secs, "cpu": ru.ru_utime + ru.ru_stime, "peak_mb": ru.ru_maxrss / 1024,
                  "rc": os.waitstatus_to_exitcode(status)}))
"""


def _measure_cmd(argv: list[str], stdout_path: str | None = None, quiet: bool = False) -> dict:
    """``argv`` timed in a fresh process: wall and CPU time and its own peak RSS from wait4 (not the parent's;
    for a shell pipeline, its children's: CPU summed, peak the largest)."""
    cmd = [sys.executable, "-c", _CLI_PEAK, *argv]
    if stdout_path is not None:  # a shell pipeline's stdout goes to a file
        cmd = [sys.executable, "-c", _CLI_PEAK, "sh", "-c", " ".join(argv) + f" > {stdout_path}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["stderr"] = r.stderr
    return out


def _means_of(doc: dict) -> dict:
    """The means of the children's files (``{"means": {measure: value}}``) or of ``hcrbench evaluate --json``."""
    if "runs" not in doc and all(isinstance(v, float) for v in doc.get("means", {}).values()):
        return doc["means"]
    runs = doc.get("runs") or doc.get("means")
    first = next(iter(runs.values()))
    return first.get("means", first)


def _spread(values: list[float]) -> dict:
    v = sorted(values)
    return {"median": float(np.median(v)), "min": v[0], "max": v[-1], "all": v}


def _fmt(sp: dict) -> str:
    return f"{sp['median']:.2f}x ({sp['min']:.2f}-{sp['max']:.2f})"


def bench_read(files: dict[str, str], shapes, repeat: int) -> list[dict]:
    """Per shape and repeat, the three tools one after another; each repeat's ratios are taken between runs made
    side by side, and the median and range over the repeats reported."""
    rows = []
    tools = ("pytrec_eval", "hcrbench", "hcrbench --stream")
    for shape in shapes:
        path = files[shape]
        got: dict[str, list[dict]] = {t: [] for t in tools}
        for _ in range(repeat):
            for tool in tools:
                g = run_child(tool, path, files["qrels"])
                if "error" in g:
                    raise SystemExit(f"{tool} on {shape}: {g['error']}")
                got[tool].append(g)
        ref = got["pytrec_eval"]
        for tool in tools[1:]:
            o = got[tool]
            diff = max(abs(o[0]["means"][m] - ref[0]["means"][m]) for m in OURS)
            wall = _spread([a["seconds"] / b["seconds"] for a, b in zip(ref, o)])
            cpu = _spread([a["cpu"] / b["cpu"] for a, b in zip(ref, o)])
            peak, pte_peak = max(x["peak_mb"] for x in o), max(x["peak_mb"] for x in ref)
            row = {"shape": shape, "tool": tool,
                   "seconds": float(np.median([x["seconds"] for x in o])),
                   "cpu": float(np.median([x["cpu"] for x in o])), "peak_mb": peak,
                   "pte_seconds": float(np.median([x["seconds"] for x in ref])),
                   "pte_cpu": float(np.median([x["cpu"] for x in ref])), "pte_peak_mb": pte_peak,
                   "speedup": wall["median"], "wall_speedup": wall, "cpu_speedup": cpu,
                   "memory_ratio": peak / pte_peak, "max_mean_diff": diff}
            rows.append(row)
            print(f"{shape:10s} {tool:18s} {row['seconds']:7.2f} s (CPU {row['cpu']:6.2f}) {peak:6.0f} MB | "
                  f"pytrec_eval {row['pte_seconds']:7.2f} s (CPU {row['pte_cpu']:6.2f}) {pte_peak:6.0f} MB | "
                  f"speed-up wall {_fmt(wall)}, CPU {_fmt(cpu)}; memory {peak / pte_peak:.2f}x; "
                  f"max |mean diff| {diff:.1e}", flush=True)
    return rows


def bench_merge(run_path: str, folder: str, n: int, repeat: int) -> dict:
    shards = write_shards(run_path, folder, n)
    exe = shutil.which("hcrbench") or os.path.join(os.path.dirname(sys.executable), "hcrbench")
    ours_out, sort_out = os.path.join(folder, "merged.trec"), os.path.join(folder, "sorted.trec")
    sort_cmd = ["LC_ALL=C", "sort", "-S", "25%", "-k1,1", "-k5,5gr", "-k3,3r", *shards, "|",
                "awk", "'{ if ($1 != q) { q = $1; r = 0 } r++; print $1, $2, $3, r, $5, $6 }'"]
    got: dict[str, list[dict]] = {"sort + awk": [], "hcrbench merge": []}
    for _ in range(repeat):
        for tool in got:
            for p in (ours_out, sort_out):
                if os.path.exists(p):
                    os.remove(p)
            if tool == "hcrbench merge":
                m = _measure_cmd([exe, "merge", *shards, "--out", ours_out])
            else:
                m = _measure_cmd(sort_cmd, stdout_path=sort_out)
            if m["rc"] != 0:
                raise SystemExit(f"{tool}: exit {m['rc']}")
            got[tool].append(m)
    with open(ours_out, "rb") as a, open(run_path, "rb") as b:
        same = a.read() == b.read()
    a, b = got["hcrbench merge"], got["sort + awk"]
    wall = _spread([y["seconds"] / x["seconds"] for x, y in zip(a, b)])
    cpu = _spread([y["cpu"] / x["cpu"] for x, y in zip(a, b)])
    peak, sort_peak = max(x["peak_mb"] for x in a), max(x["peak_mb"] for x in b)
    row = {"shards": n, "seconds": float(np.median([x["seconds"] for x in a])),
           "cpu": float(np.median([x["cpu"] for x in a])), "peak_mb": peak,
           "sort_seconds": float(np.median([x["seconds"] for x in b])),
           "sort_cpu": float(np.median([x["cpu"] for x in b])), "sort_peak_mb": sort_peak,
           "speedup": wall["median"], "wall_speedup": wall, "cpu_speedup": cpu, "memory_ratio": peak / sort_peak,
           "same_as_unsharded": same}
    print(f"merge {n} shards: hcrbench {row['seconds']:.2f} s (CPU {row['cpu']:.2f}) {peak:.0f} MB | sort + awk "
          f"{row['sort_seconds']:.2f} s (CPU {row['sort_cpu']:.2f}) {sort_peak:.0f} MB | speed-up wall {_fmt(wall)},"
          f" CPU {_fmt(cpu)}; memory {peak / sort_peak:.2f}x; merged file = unsharded run: {same}", flush=True)
    return row


def markdown(doc: dict) -> str:
    """A --json file as docs/metrics.md's tables (the machine, date and starting load are the block's first line,
    from ``measured_on``)."""
    out = [f"{doc['queries']:,} queries x {doc['depth']:,} documents ({doc['run_lines'] / 1e6:g}M lines, 27-byte "
           f"doc ids), {doc['repeat']} repeats, each tool in a fresh process (interpreter start-up and imports "
           "included for every tool; wall time, CPU time = user + system, peak RSS of that process), the tools "
           f"one after another in each repeat; load average (1, 5, 15 min) {doc['load_end']} at the end. Speed-up "
           "= pytrec_eval's time / hcrbench's, taken within each repeat: the median and, in brackets, the range "
           "over the repeats; times are medians; memory ratio = hcrbench's largest peak / pytrec_eval's.", "",
           "| file | hcrbench | s | CPU s | MB | pytrec_eval s | CPU s | MB | speed-up (wall) | speed-up (CPU) | "
           "memory ratio | max mean diff |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["read"]:
        out.append(f"| {r['shape']} ({doc['sizes_mb'][r['shape']]:.0f} MB) | {r['tool']} | {r['seconds']:.2f} | "
                   f"{r['cpu']:.2f} | {r['peak_mb']:.0f} | {r['pte_seconds']:.2f} | {r['pte_cpu']:.2f} | "
                   f"{r['pte_peak_mb']:.0f} | {_fmt(r['wall_speedup'])} | {_fmt(r['cpu_speedup'])} | "
                   f"{r['memory_ratio']:.2f} | {r['max_mean_diff']:.1e} |")
    if doc.get("merge"):
        g = doc["merge"]
        out += ["", f"`hcrbench merge` of the fixed6 run split into {g['shards']} shards by doc (every shard holds "
                f"every query) against `LC_ALL=C sort` + awk, through the console script: hcrbench {g['seconds']:.2f}"
                f" s (CPU {g['cpu']:.2f} s), {g['peak_mb']:.0f} MB; sort + awk {g['sort_seconds']:.2f} s (CPU "
                f"{g['sort_cpu']:.2f} s), {g['sort_peak_mb']:.0f} MB; speed-up {_fmt(g['wall_speedup'])} wall, "
                f"{_fmt(g['cpu_speedup'])} CPU; memory ratio {g['memory_ratio']:.2f}; the merged file is the "
                f"unsharded run byte for byte: {'yes' if g['same_as_unsharded'] else 'no'}."]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="500 queries x 1000, one repeat (about a minute)")
    ap.add_argument("--queries", type=int, default=5000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--pool", type=int, default=3_000_000_000, help="distinct doc ids to draw from")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--shards", type=int, default=4, help="shards merged (0: no merge benchmark)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tmp", default=None)
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args()
    if args.small:
        args.queries, args.repeat = 500, 1
    shapes = [s for s in args.shapes.split(",") if s]
    bad = [s for s in shapes if s not in SHAPES]
    if bad:
        raise SystemExit(f"--shapes: unknown {bad[0]!r} (one of {', '.join(SHAPES)})")
    load_start = _load()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with tempfile.TemporaryDirectory(prefix="bench-trec-", dir=args.tmp) as tmp:
        t = time.perf_counter()
        files = write_files(tmp, args.queries, args.depth, args.pool, args.seed, shapes)
        sizes = {s: os.path.getsize(files[s]) / 1e6 for s in shapes}
        print(f"wrote {args.queries * args.depth:,} lines per run ({', '.join(f'{s} {v:.0f} MB' for s, v in sizes.items())})"
              f" in {time.perf_counter() - t:.0f} s on {_cpu()}, load {load_start}", flush=True)
        rows = bench_read(files, shapes, args.repeat)
        merge = None
        if args.shards:
            base = files.get("fixed6") or os.path.join(tmp, "run_fixed6.trec")
            if os.path.exists(base):
                merge = bench_merge(base, tmp, args.shards, args.repeat)
    load_end = _load()
    print(f"load average at the end: {load_end}")
    if args.json:
        doc = {"measured_on": {"date": date, "machine": _cpu(), "load": load_start.split()[0]},
               "load_start": load_start, "load_end": load_end, "queries": args.queries, "depth": args.depth,
               "repeat": args.repeat, "seed": args.seed,
               "run_lines": args.queries * args.depth, "sizes_mb": sizes, "read": rows, "merge": merge}
        tmpf = args.json + ".tmp"
        with open(tmpf, "w") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
        os.replace(tmpf, args.json)


if __name__ == "__main__":
    main()
