"""`hcrbench quickstart` cold and warm in one go: the time to the first verdict, wall and CPU seconds per stage,
side by side.

1. cold: a fresh output folder (the corpus is generated, every system runs, every step computes) and, unless
   ``--shared-cache``, a fresh embedding cache (``$HCRBENCH_CACHE`` in a temp folder: MiniLM encodes every world):
   the first run a new user makes from a fresh clone.
2. warm: the same command again into the same folder (every system and every step reused).
3. with ``--memo-off``, a third run with ``HCRBENCH_MEMO=0``: warm systems, every step recomputed (what a warm run
   cost before the step memo, hcrbench.experiment.memo).

"first verdict" is the wall time until the first look's verdict line (``look 1 (... queries, ...): <verdict>``, on
stderr) appears; "verdict block" until the command has printed its verdict block and exited (later looks, when the
first leaves rules undecided and the budget allows, come between the two). Stages are the runner's
(``manifest.json["stages"]`` of the main folder and of the tuning experiment, ``tune/``); "rest" is the whole
command minus those (start-up, imports, generation, the report, the terminal output). CPU seconds are the command's
user + system time (``getrusage`` of the child). Then the outputs of the cold and warm runs are compared byte for
byte (the manifests' timing fields, the hcrbench commit and verdicts' ``new_look`` excluded).

    python benchmarks/bench_quickstart.py [--size small] [--out DIR] [--max-worlds N] [--encoder hash] [--seed S]
                                          [--budget MIN] [--shared-cache] [--memo-off]

A run of several looks (test worlds added while a rule is undecided) re-runs warm too: the warm run reuses the last
recorded look (``OUT/looks.json``) and its verdicts, and its first verdict is the command's end (no look line).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIRST_VERDICT = re.compile(r"^look 1 \(")


def run(out: Path, size: str, env: dict[str, str], extra: list[str]) -> dict:
    """One ``hcrbench quickstart`` into ``out``: the first verdict's wall time, whole wall / CPU seconds and the
    stages of both manifests."""
    import threading

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(["hcrbench", "quickstart", "--size", size, "--out", str(out), *extra], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first: list[float] = []
    err: list[str] = []

    def read_err() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if not first and FIRST_VERDICT.match(line):
                first.append(time.perf_counter() - t0)
            err.append(line)

    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    assert proc.stdout is not None
    stdout = proc.stdout.read()
    proc.wait()
    reader.join()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):  # 1: --fail-on; the default run has none
        sys.exit(f"hcrbench quickstart failed (exit {proc.returncode}):\n{''.join(err)[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    stages = {}
    for prefix, man in (("", out / "manifest.json"), ("tune/", next((out / "data" / "tune").glob("*/manifest.json"),
                                                                     None))):
        if man is not None and man.is_file():
            for name, s in (json.loads(man.read_text()).get("stages") or {}).items():
                stages[prefix + name] = s
    last = [ln.strip() for ln in err if ln.startswith("computed ")]
    verdict = [ln.strip() for ln in err if FIRST_VERDICT.match(ln)]
    return {"wall": wall, "cpu": cpu, "stages": stages, "line": last[-1] if last else "",
            "first": first[0] if first else None, "first_line": verdict[0] if verdict else "",
            "has_block": bool(stdout.strip())}


def _norm(b: bytes) -> bytes:
    return re.sub(rb"(hcrbench[ _]commit[^0-9a-f]*)[0-9a-f]{40}(\+dirty)?", rb"\1<commit>", b)


def snapshot(out: Path) -> dict[str, bytes]:
    """Every output file but logs (timings), memo and locks; manifests without their timing fields."""
    snap = {}
    for p in sorted(out.rglob("*")):
        rel = p.relative_to(out).as_posix()
        parts = rel.split("/")
        if not p.is_file() or "memo" in parts[:-1] or rel.endswith(".hcrbench-busy") or \
                (parts[0] == "logs" and not rel.endswith(".units.jsonl")):
            continue
        data = p.read_bytes()
        if p.name == "manifest.json" and b'"timings"' in data:  # an experiment's manifest
            doc = json.loads(data)
            for k in ("timings", "stages", "hcrbench_commit"):
                doc.pop(k, None)
            data = json.dumps(doc, sort_keys=True).encode()
        if p.name == "verdicts.json":  # a warm re-run is not a new look at the locked split: the one field it sets
            data = re.sub(rb'"new_look": (true|false)', b'"new_look": <look>', data)
        snap[rel] = _norm(data)
    return snap


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="small")
    ap.add_argument("--out", type=Path, default=None, help="a folder that does not exist yet (default: a temp one)")
    ap.add_argument("--memo-off", action="store_true", help="also time a warm run with HCRBENCH_MEMO=0")
    ap.add_argument("--max-worlds", type=int, default=None, help="passed to quickstart (default: its own)")
    ap.add_argument("--encoder", default=None, help="passed to quickstart (default: its own, minilm)")
    ap.add_argument("--seed", type=int, default=None, help="passed to quickstart (default: the verdict seed)")
    ap.add_argument("--budget", type=float, default=None, help="passed to quickstart, minutes (default: its own)")
    ap.add_argument("--shared-cache", action="store_true", help="keep $HCRBENCH_CACHE as it is (a cold folder, "
                    "not a cold cache)")
    ap.add_argument("--keep", action="store_true", help="keep the output folder")
    args = ap.parse_args()
    if args.out is not None and args.out.exists():
        sys.exit(f"{args.out} exists: pass a folder that does not exist yet")
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-quickstart-")) / "qs"
    env = {**os.environ, "HCRBENCH_PROGRESS": "0"}
    if not args.shared_cache:
        cache = out.parent / f"{out.name}-cache"
        if cache.exists():
            sys.exit(f"{cache} exists: a cold run needs an empty embedding cache (or pass --shared-cache)")
        env["HCRBENCH_CACHE"] = str(cache)
    extra = [f for flag, value in (("--max-worlds", args.max_worlds), ("--encoder", args.encoder),
                                   ("--seed", args.seed), ("--budget", args.budget))
             if value is not None for f in (flag, str(value))]
    load0 = os.getloadavg()
    cold_name = "cold" if not args.shared_cache else "cold folder"
    runs = {cold_name: run(out, args.size, env, extra)}
    cold = snapshot(out)
    runs["warm"] = run(out, args.size, env, extra)
    warm = snapshot(out)
    if args.memo_off:
        runs["warm, memo off"] = run(out, args.size, {**env, "HCRBENCH_MEMO": "0"}, extra)
    load1 = os.getloadavg()
    names = []
    for r in runs.values():
        names += [n for n in r["stages"] if n not in names]
    cols = list(runs)
    print(f"hcrbench quickstart --size {args.size} --out {out}" + (f" {' '.join(extra)}" if extra else "")
          + ("" if args.shared_cache else f" (HCRBENCH_CACHE={env['HCRBENCH_CACHE']}, empty at the start)"))
    print(f"load average (1/5/15 min) before {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f}, after "
          f"{load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f}; {os.cpu_count()} CPUs")
    print(f"{'':<34}" + "".join(f"{c:>26}" for c in cols))
    firsts = ["-" if r["first"] is None else f"{r['first']:.1f} s" for r in runs.values()]
    print(f"{'first verdict (wall, look 1)':<34}" + "".join(f"{f:>26}" for f in firsts))
    print(f"{'verdict block (wall, exit)':<34}" + "".join(f"{r['wall']:>25.1f}s" for r in runs.values()))
    print(f"{'stage':<34}" + "".join(f"{c + ' wall':>18}{'CPU':>8}" for c in cols))

    def row(name: str, vals: list[tuple[float, float] | None]) -> None:
        print(f"{name:<34}" + "".join(f"{'-':>18}{'-':>8}" if v is None else f"{v[0]:>17.2f}s{v[1]:>7.2f}s"
                                      for v in vals))

    for n in names:
        row(n, [(r["stages"][n]["wall_s"], r["stages"][n]["cpu_s"]) if n in r["stages"] else None
                for r in runs.values()])
    row("rest (start-up, generation, report)", [
        (r["wall"] - sum(s["wall_s"] for s in r["stages"].values()),
         r["cpu"] - sum(s["cpu_s"] for s in r["stages"].values())) for r in runs.values()])
    row("whole command", [(r["wall"], r["cpu"]) for r in runs.values()])
    for c, r in runs.items():
        print(f"{c}: {r['line']}; {r['first_line'] or 'no look line'}"
              + ("" if r["has_block"] else "; no verdict block on stdout"))
    diff = sorted(k for k in set(cold) | set(warm) if cold.get(k) != warm.get(k))
    print(f"outputs, {cold_name} vs warm: {len(cold)} files compared (timing fields, the hcrbench commit and "
          f"verdicts' new_look excluded); differ: {', '.join(diff) if diff else 'none'}")
    if args.out is None and not args.keep:
        shutil.rmtree(out.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
