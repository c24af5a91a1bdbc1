"""Topic figures of Meridian suites (issue 35): per split, the share of queries in distinct clusters (clusters /
queries), the relevant-document and fact sets repeated within the split, the entities (expected or named in the
text) in two or more splits, and the world's systems / policies, as ``hcrbench describe`` computes them
(:func:`hcrbench.synth.checks.describe_topics.topic_props`).

    python benchmarks/meridian_topics.py [--sizes small,medium,full] [--seeds 0,1,2,3,4,613,8128] [--queries 300]
                                         [--json PATH [--add]] [--fixed-size]
    python benchmarks/meridian_topics.py --docs --json PATH     # docs/meridian.md's block, every row (~10 min)

Prints one markdown row per size and suite size (seeds as ranges, :func:`markdown`) and, on stderr, each suite's
generation time. ``--json PATH`` writes the rows (no timings: same generator, same bytes), which
``scripts/doc_figures.py`` renders into docs/meridian.md. A suite the world cannot hold is a row saying so (the
generator's one-line error), not a traceback. The defaults take a few minutes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SPLITS = ("tune", "dev", "test")
SEEDS = (0, 1, 2, 3, 4, 613, 8128)  # the default suites' seeds (``--seeds``' default, the docs' block)


def measure_one(size: str, seed: int, n: int, grow: bool = True) -> dict[str, Any]:
    """One suite's topic figures (``error`` set when the world cannot hold it); ``grow=False`` keeps the world at
    ``size`` documents (``--fixed-size``: the control that shows what growth buys)."""
    from hcrbench.data import iter_jsonl
    from hcrbench.errors import InputError
    from hcrbench.synth import generate_meridian
    from hcrbench.synth.checks.describe_topics import topic_props
    from hcrbench.synth.questions.topics import MIN_DISTINCT_SHARE

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "m"
        t0 = time.perf_counter()
        try:
            man = generate_meridian(out, size, seed=seed, n_queries=n, grow=grow)
        except InputError as e:
            return {"size": size, "seed": seed, "queries": n, "grow": grow, "error": str(e)}
        print(f"{size} s{seed} q{n}: generated in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        metas = [o for _, o in iter_jsonl(out / "queries.meta.jsonl")]
        world = json.loads((out / "world.json").read_text(encoding="utf-8"))
    props, table = topic_props(metas, world)
    p = {x["property"]: x["measured"] for x in props}
    splits = {s: {k: table[s][k] for k in ("queries", "clusters", "distinct_share", "effective_topics",
                                          "repeated_relevant_sets")} for s in SPLITS if s in table}
    met = all(t["clusters"] >= MIN_DISTINCT_SHARE * t["queries"] - 1e-9 for t in splits.values())
    return {"size": size, "seed": seed, "queries": n, "grow": grow, "docs": man["n_docs"], "splits": splits,
            "met": met,
            "repeated_fact_sets": p["fact sets repeated within a split"],
            "leaked_entities": p["entities (expected or named in the text) in two or more splits"],
            "systems": len(world["systems"]), "policies": len(world["policies"])}


def measure(sizes: list[str], seeds: list[int], queries: list[int], grow: bool = True) -> dict[str, Any]:
    from hcrbench.synth import GENERATOR_VERSION

    rows = [measure_one(size, seed, n, grow) for size in sizes for n in queries for seed in seeds]
    return {"generator_version": GENERATOR_VERSION, "rows": rows}


def _span(values: list, fmt: str) -> str:
    lo, hi = format(min(values), fmt), format(max(values), fmt)
    return lo if lo == hi else f"{lo}-{hi}"


def _seeds(seeds: list[int]) -> str:
    runs: list[list[int]] = []
    for s in sorted(seeds):
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def markdown(doc: dict[str, Any]) -> str:
    """One row per size and suite size, seeds as ranges: the distinct share and repeated relevant sets per split,
    repeated fact sets, leaked entities, how many seeds meet 2/3 in every split."""
    out = [f"Generator {doc['generator_version']}.", "",
           "| size (documents; systems / policies), queries, seeds | distinct share tune / dev / test | repeated relevant sets "
           "tune / dev / test | repeated fact sets | entities in two splits | >= 2/3 every split |",
           "|---|---|---|---|---|---|"]
    groups: dict[tuple[str, int, bool], list[dict[str, Any]]] = {}
    for r in doc["rows"]:
        groups.setdefault((r["size"], r["queries"], r.get("grow", True)), []).append(r)
    for (size, n, grow), rows in groups.items():
        size = size if grow else f"{size} --fixed-size"
        ok = [r for r in rows if "error" not in r]
        seeds = _seeds([r["seed"] for r in rows])
        if not ok:
            out.append(f"| {size}, {n}, seeds {seeds} | cannot hold: {rows[0]['error']} | | | | |")
            continue
        world = _span([r["docs"] for r in ok], ",d") + "; " + _span([r["systems"] for r in ok], "d") + " / " + \
            _span([r["policies"] for r in ok], "d")
        share = " / ".join(_span([r["splits"][s]["distinct_share"] for r in ok], ".2f") for s in SPLITS)
        rep = " / ".join(_span([r["splits"][s]["repeated_relevant_sets"] for r in ok], "d") for s in SPLITS)
        met = sum(r["met"] for r in ok)
        refused = len(rows) - len(ok)
        out.append(f"| {size} ({world}), {n}, seeds {seeds} | {share} | {rep} | "
                   f"{_span([r['repeated_fact_sets'] for r in ok], 'd')} | "
                   f"{_span([r['leaked_entities'] for r in ok], 'd')} | "
                   f"{'yes' if met == len(ok) else 'no'} ({met} of {len(ok)})"
                   + (f"; {refused} refused" if refused else "") + " |")
    return "\n".join(out)


def docs_rows() -> dict[str, Any]:
    """Every row of the docs' block in its order: the default suites (small, medium, full; seeds 0-4, 613, 8128),
    small's fixed-size control on the same seeds, and 900-query suites on medium and full seeds 0, 1, 7."""
    seeds = list(SEEDS)
    parts = [measure(["small", "medium", "full"], seeds, [300]), measure(["small"], seeds, [300], grow=False),
             measure(["medium", "full"], [0, 1, 7], [900])]
    return {"generator_version": parts[0]["generator_version"], "rows": [r for p in parts for r in p["rows"]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="small,medium,full")
    ap.add_argument("--seeds", default=",".join(map(str, SEEDS)))
    ap.add_argument("--queries", default="300", help="comma-separated suite sizes")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows to this file")
    ap.add_argument("--fixed-size", action="store_true", help="keep each world at its size (no growth): the control")
    ap.add_argument("--add", action="store_true", help="append the rows to --json's existing rows (same generator)")
    ap.add_argument("--docs", action="store_true",
                    help="the rows of docs/meridian.md's block: the defaults, small --fixed-size, and 900 queries on "
                         "medium and full seeds 0, 1, 7 (other options ignored)")
    a = ap.parse_args()
    if a.docs:
        doc = docs_rows()
    else:
        doc = measure(a.sizes.split(","), [int(x) for x in a.seeds.split(",")],
                      [int(x) for x in a.queries.split(",")], grow=not a.fixed_size)
    if a.add and a.json is not None and a.json.exists():
        old = json.loads(a.json.read_text(encoding="utf-8"))
        if old.get("generator_version") == doc["generator_version"]:
            doc["rows"] = old["rows"] + doc["rows"]
    print(markdown(doc))
    if a.json is not None:
        from hcrbench.data.atomic import atomic_write_text

        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
