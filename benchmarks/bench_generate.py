"""Generation speed and memory by size, side by side: docs/s and the ratio to the medium run.

    python benchmarks/bench_generate.py [--sizes 500,2000,20000]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from hcrbench.synth import generate_meridian


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="500,2000,20000")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            generate_meridian(Path(tmp) / "m", n, args.seed, grow=True)
            dt = time.perf_counter() - t0
            mb = (Path(tmp) / "m" / "corpus.jsonl").stat().st_size / 1e6
        rows.append((n, dt, mb, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
    base = next((r for r in rows if r[0] == 2000), rows[0])
    print(f"{'docs':>8s} {'seconds':>8s} {'docs/s':>8s} {'corpus MB':>10s} {'peak RSS MB':>12s} {'time vs medium':>15s}")
    for n, dt, mb, rss in rows:
        print(f"{n:8d} {dt:8.2f} {n / dt:8.0f} {mb:10.1f} {rss:12.0f} {dt / base[1]:14.2f}x")


if __name__ == "__main__":
    main()
