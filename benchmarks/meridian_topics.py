"""Topic figures of Meridian suites (issue 35): per split, the share of queries in distinct clusters (clusters /
queries), repeated relevant-document and fact sets, named-entity leakage, the world's size and generation time.

    python benchmarks/meridian_topics.py [--sizes small,medium,full] [--seeds 0,1,2,3,4] [--queries 300]

A suite the world cannot hold is reported as one line (the generator's error), not a traceback.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from hcrbench.data import iter_jsonl
from hcrbench.errors import InputError
from hcrbench.synth import generate_meridian
from hcrbench.synth.describe_topics import topic_props
from hcrbench.synth.topics import MIN_DISTINCT_SHARE

SPLITS = ("tune", "dev", "test")


def row(size: str, seed: int, n: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "m"
        t0 = time.perf_counter()
        try:
            generate_meridian(out, size, seed=seed, n_queries=n)
        except InputError as e:
            return f"| {size} | {seed} | {n} | cannot hold ({time.perf_counter() - t0:.0f} s): {e} |"
        dt = time.perf_counter() - t0
        metas = [o for _, o in iter_jsonl(out / "queries.meta.jsonl")]
        world = json.loads((out / "world.json").read_text())
    props, table = topic_props(metas, world)
    p = {x["property"]: x["measured"] for x in props}
    share = " / ".join(f"{table[s]['clusters'] / table[s]['queries']:.2f}" for s in SPLITS)
    rep = " / ".join(str(table[s]["repeated_relevant_sets"]) for s in SPLITS)
    met = all(table[s]["clusters"] >= MIN_DISTINCT_SHARE * table[s]["queries"] - 1e-9 for s in SPLITS)
    return (f"| {size} | {seed} | {n} | {share} | {rep} | {p['fact sets repeated within a split']} | "
            f"{p['entities (expected or named in the text) in two or more splits']} | "
            f"{len(world['systems'])} / {len(world['policies'])} | {dt:.1f} s | {'yes' if met else 'no'} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="small,medium,full")
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--queries", default="300", help="comma-separated suite sizes")
    args = ap.parse_args()
    print("| size | seed | queries | distinct share tune / dev / test | repeated relevant sets | repeated fact "
          "sets | leaked entities | systems / policies | generation | >= 2/3 every split |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        for n in (int(x) for x in args.queries.split(",")):
            for seed in (int(x) for x in args.seeds.split(",")):
                print(row(size, seed, n), flush=True)


if __name__ == "__main__":
    main()
