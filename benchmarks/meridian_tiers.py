"""Difficulty tiers and budget feasibility in 128-token chunks per Meridian suite (issue 35 items 3-4): for each
SIZE:SEED, generate the default suite and print one markdown row: the feasible share per category (``!`` outside
10 points of the design's), the tier agreement with the design's meaning, the worst tier-mix deviation and the
CPU seconds of generation. The table in docs/meridian.md ("Tiers and feasibility in deliverable chunks") is its
output.

    python benchmarks/meridian_tiers.py small:0 medium:0 full:0
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from hcrbench.synth import generate_meridian
from hcrbench.synth.describe_tiers import measured_tiers
from hcrbench.synth.tiers import FEASIBLE_BAND, FEASIBLE_DESIGN, TIERS, tier_targets

SHORT = {"thematic": "them", "entity_spanning": "ent", "detail": "det", "two_hop": "2hop", "multi_hop": "3+hop",
         "comparative": "comp", "aggregation": "aggr", "temporal": "temp", "ambiguous": "amb"}


def row(size: str, seed: int, out: Path) -> str:
    t = time.process_time()
    generate_meridian(out, size, seed)
    cpu = time.process_time() - t
    metas = [json.loads(x) for x in (out / "queries.meta.jsonl").read_text().splitlines()]
    got = measured_tiers(out, metas)
    feas: dict[str, list[bool]] = defaultdict(list)
    mix: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(TIERS, 0))
    agree = []
    for m in metas:
        if m["query_id"] in got:
            ce, tier = got[m["query_id"]]
            feas[m["category"]].append(ce.feasible)
            agree.append(tier == m["difficulty"])
            mix[m["category"]][m["difficulty"]] += 1
    cells = []
    for c, design in FEASIBLE_DESIGN.items():
        f = sum(feas[c]) / len(feas[c])
        cells.append(f"{f:.2f}" + ("" if abs(f - design) <= FEASIBLE_BAND + 1e-9 else "!"))
    worst = max((abs(mix[c][t] - tier_targets(c, sum(mix[c].values()))[t]) / sum(mix[c].values()), c)
                for c in mix for t in TIERS)
    return (f"| {size} s{seed} | " + " | ".join(cells)
            + f" | {sum(agree) / len(agree):.2f} | {worst[0]:.2f} ({worst[1]}) | {cpu:.1f} |")


def main(args: list[str]) -> None:
    print("| corpus | " + " | ".join(f"{SHORT[c]} ({v:.0%})" for c, v in FEASIBLE_DESIGN.items())
          + " | tier agreement | tier mix off (worst) | gen s |")
    print("|---" * (len(FEASIBLE_DESIGN) + 4) + "|")
    with tempfile.TemporaryDirectory() as tmp:
        for i, arg in enumerate(args or ["small:0"]):
            size, seed = arg.split(":")
            print(row(size, int(seed), Path(tmp) / str(i)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
