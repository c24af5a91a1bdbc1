"""Issue 51's "Done when" bounds of Meridian on seeds no test names, at small, medium and full: for each SIZE:SEED,
generate the default suite (the size asked, ``grow=False``, as ``hcrbench generate meridian`` does) and read
``hcrbench describe``'s rows (:func:`hcrbench.synth.checks.describe.describe`): queries relying on an identifier, date or
name no document writes or that does not pick out one referent, asides at the top grade, template-skeleton share,
the year's spreads (decisions, follow-ups, incidents by system load, severities) with their world rules, every
document kind present, the lexical overlap inside the real collections' range, and the targets ``describe``
reports missed.

    python benchmarks/meridian_bounds.py [SIZE:SEED ...] [--json OUT]   # no SIZE:SEED: the docs' six folders

The generated block ``meridian-bounds`` of docs/meridian.md is its output. Same generator, same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

DEFAULT = ("small:5101", "small:5102", "medium:5101", "medium:5102", "full:5101", "full:5102")
RULES = ("decisions_meetings_spread_over_year", "decisions_change_course_plausibly", "incidents_follow_system_load",
         "severity_mix_realistic")
# describe's rows this table reads (property name -> key in the row)
ROWS = {"unanswerable": "queries relying on an identifier, date or name no document writes",
        "ambiguous_referent": "queries whose identifier, date or name does not pick out one referent",
        "asides_top": "asides among top-grade relevant judgments (all; test)",
        "skeleton": "queries repeating a template skeleton of their category",
        "busiest_month": "busiest month's share of decisions",
        "change_course": "share of follow-up decisions that change course",
        "top3_incidents": "top 3 systems' share of incidents",
        "top3_users": "top 3 systems' share of users (expected)",
        "severity1": "share of severity 1 incidents",
        "kinds": "documents per kind",
        "lexical": "lexical overlap of queries with their relevant documents"}
# short names of the targets describe may report missed (the table's last row); others print whole
SHORT = {"queries needing >10 documents": ">10 documents",
         "difficulty easy/medium/hard per category (target)": "tier mix",
         "budget-feasible share per category (128-token chunks, 400 tokens)": "feasible shares",
         "independent topics per split (clusters / queries, effective topics)": "independent topics",
         "relevant-document sets repeated within a split": "repeated relevant sets"}


def measure(size: str, seed: int) -> dict[str, Any]:
    from hcrbench.synth import generate_meridian
    from hcrbench.synth.checks.describe import describe

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "m"
        man = generate_meridian(out, size, seed)
        d = describe(out, write=False)
    print(f"Meridian {size} seed {seed}: measured", file=sys.stderr, flush=True)
    return row(d, size, seed, man["generator_version"])


def row(d: dict[str, Any], size: str, seed: int, generator: str) -> dict[str, Any]:
    """The table's figures from one ``describe`` result (``describe.json``)."""
    props = {p["property"]: p for p in d["properties"]}
    got = {k: props[name] for k, name in ROWS.items()}
    skel = got["skeleton"]["measured"]
    top = next((k for k in skel if k.startswith("highest")), None)
    return {"size": size, "seed": seed, "generator": generator, "documents": d["n_docs"],
            "unanswerable": got["unanswerable"]["measured"]["queries"],
            "ambiguous_referent": got["ambiguous_referent"]["measured"]["queries"],
            "asides_top_test": got["asides_top"]["measured"][1],
            "skeleton_all": skel["all"],
            "skeleton_highest": [top[len("highest ("):-1] if top else None, skel[top] if top else None],
            "busiest_month": got["busiest_month"]["measured"], "change_course": got["change_course"]["measured"],
            "top3_incidents": got["top3_incidents"]["measured"], "top3_users": got["top3_users"]["measured"],
            "severity1": got["severity1"]["measured"],
            "rule_violations": {r: props[f"world rule: {r}"]["measured"] for r in RULES},
            "kinds": got["kinds"]["measured"], "kinds_met": got["kinds"]["met"],
            "lexical_met": got["lexical"]["met"], "missed": d["missed"]}


def markdown(doc: dict[str, Any]) -> str:
    rows = doc["rows"]
    gens = sorted({r["generator"] for r in rows})
    head = ["figure (bound)", *[f"{r['size']} {r['seed']}" for r in rows]]
    lines = [f"Meridian generator {', '.join(gens)}; `describe`'s rows, the default 300-query suite at the size asked.",
             "", "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]

    def line(label: str, cells: list[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    line("documents", [f"{r['documents']:,}" for r in rows])
    line("queries relying on what no document writes (0)", [str(r["unanswerable"]) for r in rows])
    line("queries whose anchor picks out no single referent (0)", [str(r["ambiguous_referent"]) for r in rows])
    line("asides among top-grade test judgments (< 5%)", [f"{r['asides_top_test']:.1%}" for r in rows])
    line("queries repeating a skeleton (<= 0.25)", [f"{r['skeleton_all']:.2f}" for r in rows])
    line("highest category's skeleton share", [f"{r['skeleton_highest'][1]:.2f} ({r['skeleton_highest'][0]})"
                                               for r in rows])
    line("busiest month's share of decisions (each month 1/3x-2x of 1/9)", [f"{r['busiest_month']:.1%}" for r in rows])
    line("follow-up decisions changing course (10-40%)", [f"{r['change_course']:.1%}" for r in rows])
    line("top 3 systems' incidents / users (within 15 points)",
         [f"{r['top3_incidents']:.1%} / {r['top3_users']:.1%}" for r in rows])
    line("severity 1 incidents (1-8%)", [f"{r['severity1']:.1%}" for r in rows])
    line("violations of the four year rules (0)", [str(sum(r["rule_violations"].values())) for r in rows])
    line("documents per kind: fewest (every kind present)",
         [f"{min(r['kinds'].values())} ({min(r['kinds'], key=r['kinds'].get)})" + ("" if r["kinds_met"] else " !")
          for r in rows])
    line("lexical overlap inside the real range (describe)", ["yes" if r["lexical_met"] else "no" for r in rows])
    line("targets describe reports missed", ["; ".join(SHORT.get(m, m) for m in r["missed"]) or "none"
                                              for r in rows])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="*", default=list(DEFAULT), help="SIZE:SEED (default: the docs' six folders)")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    try:
        specs = [(s.split(":")[0], int(s.split(":")[1])) for s in a.specs]
    except (IndexError, ValueError):
        print(f"error: {' '.join(a.specs)!r}: expected SIZE:SEED", file=sys.stderr)
        return 2
    doc = {"rows": [measure(size, seed) for size, seed in specs]}
    print(markdown(doc))
    if a.json:
        from hcrbench.data import atomic_write_text

        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
