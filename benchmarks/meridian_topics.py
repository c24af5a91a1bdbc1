"""Independent topics per split on Meridian (docs/meridian.md, issue 35): the share of each split's queries in
distinct clusters, the effective number of topics, the relevant sets repeated within the split, and the entities
that leak across splits, as ``hcrbench describe`` computes them (:func:`hcrbench.synth.describe_topics.topic_props`).

    python benchmarks/meridian_topics.py [--json PATH]

Generates Meridian medium seed 0 and small seeds 0-4 (default 300 queries) in a scratch folder. Prints the table
(:func:`markdown`); ``--json PATH`` writes the rows (no timings: same generator, same bytes), which
``scripts/doc_figures.py`` renders into docs/meridian.md. About a minute.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

CASES = [("medium", 0), ("small", 0), ("small", 1), ("small", 2), ("small", 3), ("small", 4)]
SPLITS = ("tune", "dev", "test")


def measure() -> dict[str, Any]:
    from hcrbench.data import iter_jsonl
    from hcrbench.synth import GENERATOR_VERSION, generate_meridian
    from hcrbench.synth.describe_topics import topic_props

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size, seed in CASES:
            out = Path(tmp) / f"{size}-{seed}"
            generate_meridian(out, size, seed)
            world = json.loads((out / "world.json").read_text(encoding="utf-8"))
            metas = [obj for _, obj in iter_jsonl(out / "queries.meta.jsonl")]
            props, table = topic_props(metas, world)
            leak = next(p for p in props if p["property"].startswith("entities (expected or named"))["measured"]
            rows.append({"size": size, "seed": seed, "leaked_entities": leak,
                         "splits": {s: {k: table[s][k] for k in ("queries", "clusters", "distinct_share",
                                                                 "effective_topics", "repeated_relevant_sets")}
                                    for s in SPLITS if s in table}})
    return {"generator_version": GENERATOR_VERSION, "rows": rows}


def _cell(rows: list[dict[str, Any]], split: str) -> str:
    def span(key: str, fmt: str) -> str:
        v = [r["splits"][split][key] for r in rows if split in r["splits"]]
        lo, hi = format(min(v), fmt), format(max(v), fmt)
        return lo if lo == hi else f"{lo}-{hi}"

    return (f"{span('distinct_share', '.2f')} / {span('effective_topics', '.1f')} / "
            f"{span('repeated_relevant_sets', 'd')}")


def markdown(doc: dict[str, Any]) -> str:
    """One row per corpus (small seeds 1-4 as ranges): share / effective topics / repeated sets per split."""
    v = doc["generator_version"]
    groups: list[tuple[str, list[dict[str, Any]]]] = []
    for r in doc["rows"]:
        if r["size"] == "small" and r["seed"] >= 1:
            continue
        groups.append((f"{v} {r['size']} s{r['seed']}", [r]))
    rest = [r for r in doc["rows"] if r["size"] == "small" and r["seed"] >= 1]
    if rest:
        groups.append((f"{v} small s{rest[0]['seed']}-s{rest[-1]['seed']}", rest))
    out = ["| corpus | tune: share / eff / rep | dev | test | named-entity leakage |", "|---|---|---|---|---|"]
    for name, rows in groups:
        leaks = sorted({r["leaked_entities"] for r in rows})
        leak = str(leaks[0]) if len(leaks) == 1 else f"{leaks[0]}-{leaks[-1]}"
        out.append(f"| {name} | " + " | ".join(_cell(rows, s) for s in SPLITS) + f" | {leak} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=None, help="also write the rows to this file")
    a = ap.parse_args()
    doc = measure()
    print(markdown(doc))
    if a.json is not None:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        part = a.json.with_name(f".{a.json.name}.part")
        part.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        os.replace(part, a.json)


if __name__ == "__main__":
    main()
