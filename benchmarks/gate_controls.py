"""The falsification gate on BM25 and the built-in controls, through the console script (docs/gate.md, Measured):

    python benchmarks/gate_controls.py [--dataset ../shared/datasets/scifact] [--json PATH]

``hcrbench retrieve --system bm25 --k 100`` then ``hcrbench gate RUN --dataset DIR --controls --json`` (200
trials, seed 0: the gate's defaults) in a scratch folder; keeps per system and control the real nDCG@10 and
strict R@5, whether each passes the gate, the nulls it fails, and for the system the largest null mean and Holm p.
Prints the table (:func:`markdown`); ``--json PATH`` writes what it keeps, which ``scripts/doc_figures.py`` renders
into docs/gate.md. Deterministic: same dataset, same bytes. Seconds on SciFact.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text

REPO = Path(__file__).resolve().parents[1]


def _hcrbench(*args: str) -> None:
    exe = Path(sys.executable).with_name("hcrbench")
    r = subprocess.run([str(exe) if exe.exists() else "hcrbench", *args], capture_output=True, text=True,
                       env={**os.environ, "HCRBENCH_PROGRESS": "0"}, check=False)
    if r.returncode not in (0, 1):  # 1: a run fails the gate, which is a result
        sys.exit(f"hcrbench {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[-500:]}")


def _side(g: dict[str, Any]) -> dict[str, Any]:
    nulls = g["nulls"]
    return {"metric": g["metric"], "real": g["real_mean"], "pass": g["gate_pass"],
            "failed": sorted(k for k, v in nulls.items() if not v["passed"]),
            "max_null_mean": max(v["mean"] for v in nulls.values()),
            "max_holm_p": max(v["p_holm"] for v in nulls.values()), "n_trials": g["n_trials"], "seed": g["seed"],
            "n_queries": g["n_queries"]}


def measure(dataset: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "bm25.trec"
        _hcrbench("retrieve", "--dataset", str(dataset), "--system", "bm25", "--k", "100", "--out", str(run))
        out = Path(tmp) / "gate.json"
        _hcrbench("gate", str(run), "--dataset", str(dataset), "--controls", "--json", str(out))
        g = json.loads(out.read_text(encoding="utf-8"))
    rows = [{"name": n, "kind": "system", "graded": _side(s["graded"]), "strict": _side(s["strict"])}
            for n, s in g["systems"].items()]
    rows += [{"name": n, "kind": "control", "graded": _side(s["graded"]), "strict": _side(s["strict"])}
             for n, s in g["controls"]["results"].items()]
    return {"dataset": dataset.resolve().name, "trusted": g["controls"]["trusted"], "rows": rows}


def markdown(doc: dict[str, Any]) -> str:
    first = doc["rows"][0]["graded"]
    out = [f"{doc['dataset']}: {first['n_queries']} judged queries, {first['n_trials']} trials, seed {first['seed']}:",
           "", "| system | nDCG@10 real | gate | strict R@5 real | gate | nulls failed |", "|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        g, s = r["graded"], r["strict"]
        failed = ",".join(g["failed"]) or "-"
        if s["failed"] != g["failed"]:
            failed += " / " + (",".join(s["failed"]) or "-")
        if r["kind"] == "system" and not g["failed"] and not s["failed"]:
            failed += (f" (every null mean <= {max(g['max_null_mean'], s['max_null_mean']):.4f}, Holm p "
                       f"{max(g['max_holm_p'], s['max_holm_p']):.4f})")
        out.append(f"| {r['name']} | {g['real']:.4f} | {'PASS' if g['pass'] else 'FAIL'} | {s['real']:.4f} | "
                   f"{'PASS' if s['pass'] else 'FAIL'} | {failed} |")
    out += ["", f"Harness trusted on {doc['dataset']}: {'✓' if doc['trusted'] else 'no'}."]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, default=REPO.parent / "shared" / "datasets" / "scifact")
    ap.add_argument("--json", type=Path, default=None, help="also write what is kept to this file")
    a = ap.parse_args()
    if not (a.dataset / "corpus.jsonl").is_file():
        sys.exit(f"{a.dataset}: not a BEIR folder (no corpus.jsonl)")
    doc = measure(a.dataset)
    print(markdown(doc))
    if a.json is not None:
        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
