"""What a world costs and what it adds: fresh Meridian worlds, real systems run on each through ``hcrbench run``,
the variance components of the verdicts' per-query differences and the queries per world / worlds per batch that
buy the most evidence per minute.

    python benchmarks/world_variance.py [--worlds 8] [--size small] [--seed 424242] [--out DIR] [--budget-min 8]
                                        [--json PATH]

Generates ``--worlds`` worlds (world 0 tune, 1 dev, the rest test: ``--worlds 8`` gives 6 test worlds) from a seed
no doc or test uses, runs BM25 on whole documents, BM25 on 128-token chunks, dense retrieval and HCR (both with the
model-free hashed encoder, so it runs in minutes on a CPU: the differences are plumbing-real, not a quality claim
for a language model) on the test worlds, and for each pair reads :func:`components_of_run`: between worlds,
between topics within a world, within topic, the design effect, and the allocation at the run's own per-world
costs with a ``--budget-min`` batch. Prints Markdown tables; ``--json PATH`` writes the document
docs/figures/protocol-world-variance.json holds (rendered into docs/protocol.md by ``scripts/doc_figures.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.experiment.world_variance import components_of_run

SYSTEMS = """
[[systems]]
name = "bm25"
type = "bm25"
params = { k1 = 0.9, b = 0.4 }

[[systems]]
name = "bm25-chunks"
type = "bm25"
params = { k1 = 0.9, b = 0.4 }
chunking = { max_tokens = 128, overlap = 32, respect_sentences = true, structure_aware = true }

[[systems]]
name = "dense"
type = "dense"
params = { backend = "hash" }

[[systems]]
name = "hcr"
type = "hcr"
params = { backend = "hash", seed = 0 }
"""
PAIRS = [("hcr", "bm25-chunks"), ("hcr", "bm25"), ("bm25", "dense")]
METRIC = "nDCG@10"


def run_worlds(root: Path, worlds: int, size: str, seed: int) -> tuple[Path, float]:
    """Generate the worlds and run every system on the test worlds; returns the run folder and the seconds one
    world took to generate (a fresh test world's cost too)."""
    env = {**os.environ, "HCRBENCH_PROGRESS": "0"}
    data = root / "data"
    t0 = time.perf_counter()
    subprocess.run(["hcrbench", "generate", "meridian", "--worlds", str(worlds), "--size", size, "--seed", str(seed),
                    "--out", str(data)], check=True, env=env, stdout=sys.stderr)
    generate_s = (time.perf_counter() - t0) / worlds
    cfg = root / "exp.toml"
    cfg.write_text(f'name = "world-variance"\noutput_dir = "run"\nseed = 0\nmetrics = ["{METRIC}"]\n'
                   f'baseline = "bm25"\nk = 100\nn_resamples = 1000\n\n[dataset]\npath = "data"\nsplit = "test"\n'
                   + SYSTEMS, encoding="utf-8")
    subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], check=True, env=env, cwd=root, stdout=sys.stderr)
    return root / "run", generate_s


def measure(out: Path, budget_min: float, n_boot: int, seed: int, args: dict[str, Any],
            generate_s: float = 0.0) -> dict[str, Any]:
    pairs = [components_of_run(out, a, b, METRIC, n_boot=n_boot, seed=seed, budget_s=budget_min * 60.0,
                               generate_s=generate_s) for a, b in PAIRS]
    return {"args": args, "metric": METRIC, "budget_min": budget_min, "n_boot": n_boot, "generate_s": generate_s,
            "pairs": pairs, "costs": pairs[0]["costs"]}


def _f(x: float | None, fmt: str = ".4f") -> str:
    return "–" if x is None else format(x, fmt)


def markdown(doc: dict[str, Any]) -> str:
    """Three tables: the components per pair, the allocation per pair, and the per-world costs by system."""
    p0 = doc["pairs"][0]
    lines = [f"**Variance components of the per-query {doc['metric']} differences** ({len(p0['worlds'])} test "
             f"worlds of {doc['args']['size']}, {p0['components']['n_queries']} queries; world-bootstrap SE, "
             f"{doc['n_boot']} resamples):", "",
             "| difference | mean | between worlds: raw (SE at >= 0) | between topics (SE) | within topic (SE) | topics | "
             "design effect | effective n | world floor B [95%] | world means' variance: observed / model |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in doc["pairs"]:
        c = p["components"]
        comp = c["components"]
        cells = [f"{comp['between_worlds']['raw']:.5f} ({_f(comp['between_worlds']['se'], '.5f')})"]
        cells += [f"{_f(comp[k]['value'], '.5f')} ({_f(comp[k]['se'], '.5f')}); {comp[k]['share']:.0%}"
                  for k in ("between_topics", "within_topic")]
        wm = p["world_mean_variance"]
        lines.append(f"| {p['a']} − {p['b']} | {c['mean']:+.4f} | {' | '.join(cells)} | {c['n_topics']} | "
                     f"{c['design_effect']:.2f} | {c['effective_n']:.0f} | {c['world_floor']:.5f} "
                     f"[{_f(c['world_floor_low'], '.5f')}, {_f(c['world_floor_high'], '.5f')}] | "
                     f"{wm['observed']:.5f} / {wm['model']:.5f} |")
    lines += ["", f"**Allocation** (per world: C_w seconds to generate it ({doc.get('generate_s', 0.0):.1f} s) and "
              f"build every system on it, C_q seconds per query for every system; a {doc['budget_min']:g}-minute "
              "batch):", "",
              "| difference | C_w (s) | C_q (s) | n* | queries / world | worlds / batch | SE per batch | "
              "gain over the whole suite |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for p in doc["pairs"]:
        for label, key in (("", "allocation"), (" (B at its upper bound)", "allocation_cautious")):
            if key not in p:
                continue
            al = p[key]
            lines.append(f"| {p['a']} − {p['b']}{label} | {al['cost_world_s']:.1f} | {al['cost_query_s']:.4f} | "
                         f"{_f(al['n_star'], '.0f')} | {al['queries_per_world']} | {al['worlds_per_batch']} | "
                         f"{al['se_per_batch']:.4f} | ×{al['gain_over_full_suite']:.2f} |")
    names = sorted({s for c in doc["costs"].values() for s in c["by_system"]})
    lines += ["", "**Per-world cost by system** (fixed seconds / milliseconds per query):", "",
              "| world | queries | " + " | ".join(names) + " | total |", "|---|---:|" + "---:|" * (len(names) + 1)]
    for w, c in sorted(doc["costs"].items()):
        cells = [f"{c['by_system'][s]['fixed_s']:.1f} / {1000 * c['by_system'][s]['per_query_s']:.1f}"
                 if s in c["by_system"] else "–" for s in names]
        lines.append(f"| {w} | {c['n_queries']} | {' | '.join(cells)} | {c['seconds']:.1f} s |")
    ratios = [p["world_mean_variance"]["observed"] / p["world_mean_variance"]["model"] for p in doc["pairs"]
              if p["world_mean_variance"]["model"] > 0]
    if ratios:
        lines += ["", f"The worlds' mean differences vary {min(ratios):.2f}-{max(ratios):.2f} times as much as "
                  "independent topics would make them (observed / model above): "
                  + ("the worlds are more alike than their topics, so the topic component overstates what a world "
                     "adds and the design effect above overstates the variance of the pooled mean."
                     if max(ratios) < 1 else "the nested model accounts for the spread of the worlds.")]
    for key, what in (("allocation", "at the estimate"), ("allocation_cautious", "with B at its upper bound")):
        if key in p0:
            lines += ["", f"Choice for {p0['a']} − {p0['b']} {what}: " + "; ".join(p0[key]["reasons"]) + "."]
    return "\n".join(lines)


def _measured(root: Path, a: argparse.Namespace, args: dict[str, Any]) -> dict[str, Any]:
    out, generate_s = run_worlds(root, a.worlds, a.size, a.seed)
    return measure(out, a.budget_min, a.n_boot, 0, args, generate_s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", type=int, default=8)
    ap.add_argument("--size", default="small")
    ap.add_argument("--seed", type=int, default=424242)
    ap.add_argument("--budget-min", type=float, default=8.0)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--out", type=Path, default=None, help="work folder (default: a temporary one, removed)")
    ap.add_argument("--from-run", type=Path, default=None, help="read a finished run folder instead of running")
    ap.add_argument("--generate-s", type=float, default=0.0,
                    help="with --from-run: seconds to generate one world (else measured here)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    args = {"worlds": a.worlds, "size": a.size, "seed": a.seed}
    if a.from_run is not None:
        doc = measure(a.from_run, a.budget_min, a.n_boot, 0, args, a.generate_s)
    elif a.out is not None:
        a.out.mkdir(parents=True, exist_ok=True)
        doc = _measured(a.out, a, args)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            doc = _measured(Path(tmp), a, args)
    print(markdown(doc))
    if a.json is not None:
        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
