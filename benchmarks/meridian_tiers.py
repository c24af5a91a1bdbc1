"""Difficulty tiers and budget feasibility in 128-token chunks per Meridian suite (issue 35 items 3-4): for each
SIZE:SEED, generate the default suite on a grown world (``grow=True``) and print one markdown row: its documents, the
feasible share per category (``!`` outside 10 points of the design's), the tier agreement with the design's
meaning, the worst tier-mix deviation (describe's targets: a hand-written pattern's feasible questions at their
tier by construction) and the CPU seconds of generation (on stderr). The generated block ``meridian-tiers`` of
docs/meridian.md is its output.

    python benchmarks/meridian_tiers.py [SIZE:SEED ...] [--json OUT]      # no SIZE:SEED: the docs' 13 corpora
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from hcrbench.synth import generate_meridian
from hcrbench.synth.checks.describe_tiers import fixed_tiers, measured_tiers
from hcrbench.synth.questions.tiers import FEASIBLE_BAND, FEASIBLE_DESIGN, TIERS, tier_targets

SHORT = {"thematic": "them", "entity_spanning": "ent", "detail": "det", "two_hop": "2hop", "multi_hop": "3+hop",
         "comparative": "comp", "aggregation": "aggr", "temporal": "temp", "ambiguous": "amb"}


def measure(size: str, seed: int, out: Path) -> tuple[dict, float]:
    """One corpus's figures (feasible share per category, tier agreement, worst tier-mix deviation) and the CPU
    seconds its generation took (printed, never saved: a timing cannot be compared byte for byte)."""
    t = time.process_time()
    man = generate_meridian(out, size, seed, grow=True)
    cpu = time.process_time() - t
    metas = [json.loads(x) for x in (out / "queries.meta.jsonl").read_text().splitlines()]
    got = measured_tiers(out, metas)
    feas: dict[str, list[bool]] = defaultdict(list)
    mix: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(TIERS, 0))
    fixed = fixed_tiers(metas, got)  # describe's: a pattern's feasible questions at their tier by construction
    agree = []
    for m in metas:
        if m["query_id"] in got:
            ce, tier = got[m["query_id"]]
            feas[m["category"]].append(ce.feasible)
            agree.append(tier == m["difficulty"])
            mix[m["category"]][m["difficulty"]] += 1
    shares = {c: round(sum(feas[c]) / len(feas[c]), 4) for c in FEASIBLE_DESIGN}
    worst = max((abs(mix[c][t] - tier_targets(c, sum(mix[c].values()), fixed[c])[t]) / sum(mix[c].values()), c)
                for c in mix for t in TIERS)
    return {"corpus": f"{size} s{seed}", "size": size, "seed": seed, "documents": man["n_docs"], "feasible": shares,
            "agreement": round(sum(agree) / len(agree), 4), "mix_off": round(worst[0], 4), "mix_worst": worst[1]}, cpu


def markdown(doc: dict) -> str:
    """The docs' table from a --json file (or from rows measured now)."""
    lines = ["| corpus | documents | " + " | ".join(f"{SHORT[c]} ({v:.0%})" for c, v in FEASIBLE_DESIGN.items())
             + " | tier agreement | tier mix off (worst) |", "|---" * (len(FEASIBLE_DESIGN) + 4) + "|"]
    for r in doc["rows"]:
        cells = [f"{r['feasible'][c]:.2f}" + ("" if abs(r["feasible"][c] - d) <= FEASIBLE_BAND + 1e-9 else "!")
                 for c, d in FEASIBLE_DESIGN.items()]
        lines.append(f"| {r['corpus']} | {r['documents']:,} | " + " | ".join(cells)
                     + f" | {r['agreement']:.2f} | {r['mix_off']:.2f} ({r['mix_worst']}) |")
    return "\n".join(lines)


DEFAULT = ["small:0", "small:1", "small:2", "small:3", "small:88", "medium:0", "medium:1", "medium:2", "medium:11",
           "medium:53", "full:0", "full:1", "full:29"]


def main(args: list[str]) -> None:
    out_json = None
    if "--json" in args:
        i = args.index("--json")
        out_json, args = Path(args[i + 1]), args[:i] + args[i + 2:]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, arg in enumerate(args or DEFAULT):
            size, seed = arg.split(":")
            r, cpu = measure(size, int(seed), Path(tmp) / str(i))
            rows.append(r)
            print(f"{r['corpus']}: generated in {cpu:.1f} s CPU", file=sys.stderr, flush=True)
    doc = {"rows": rows}
    print(markdown(doc))
    if out_json is not None:
        from hcrbench.data.atomic import atomic_write_text

        atomic_write_text(out_json, json.dumps(doc, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
