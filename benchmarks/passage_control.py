"""The passage-level perfect control and its degraded twin under the selections the default configs use, through
``hcrbench run`` on Meridian folders (docs/context.md's generated block ``context-passage-control``).

    python benchmarks/passage_control.py small-7001 medium-7001 --generate --out OUT [--signals ranking,tfidf]
                                         [--json PATH]

Each DATA is a Meridian folder, or with ``--generate`` a name SIZE-SEED generated under ``OUT/data`` by ``hcrbench
generate meridian --size SIZE --seed SEED --fixed-size`` (the design's 500 / 2,000 / 3,500 documents). Per folder
and per ``[context] selection_signals`` value, ``hcrbench run`` (the console script) runs BM25 in every delivery
mode and selection the packaged configs (src/hcrbench/experiment/templates/) use, so the context step builds the
passage control of each: documents in the 128-token context chunks (greedy, the baselines' default; submodular),
the 128-token, 32-overlap, structure-aware units of the flat baselines and HCR (greedy; submodular, HCR's
default) and 100-token leaf chunks like RAPTOR's (greedy). Printed and written (``--json``): each passage control
row's failure on the queries feasible at 400 in its unit set, and the degraded twin's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from hcrbench.data.atomic import atomic_write_text

CONFIG = """name = "passage-control"
output_dir = "{out}"
seed = 0
metrics = ["nDCG@10"]
baseline = "bm25"
k = 100
n_resamples = 200
budgets = [200, 400, 800]
selection = "greedy"
[context]
selection_signals = "{signals}"
[dataset]
path = "{data}"
split = "test"
[[systems]]
name = "bm25"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
chunking = {{ max_tokens = 128, overlap = 32, structure_aware = true }}
[[systems]]
name = "bm25-submodular"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
chunking = {{ max_tokens = 128, overlap = 32, structure_aware = true }}
selection = "submodular"
[[systems]]
name = "bm25-doc"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
[[systems]]
name = "bm25-doc-submodular"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
selection = "submodular"
[[systems]]
name = "bm25-leaves"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
chunking = {{ max_tokens = 100, overlap = 0 }}
"""

SIGNALS = ("ranking", "tfidf")


def generated(data: Path, out: Path) -> Path:
    """``data`` itself when it is a folder, else Meridian SIZE-SEED (its name) generated under ``out / "data"`` at
    the size's fixed document count."""
    if data.is_dir():
        return data
    size, _, seed = data.name.rpartition("-")
    if not size or not seed.isdigit():
        sys.exit(f"{data}: not a folder, and not named SIZE-SEED (e.g. small-7001) to generate")
    dest = out / "data" / data.name
    if not (dest / "corpus.jsonl").is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        r = subprocess.run(["hcrbench", "generate", "meridian", "--size", size, "--seed", seed, "--fixed-size",
                            "--out", str(dest)], capture_output=True, text=True,
                           env={**os.environ, "HCRBENCH_PROGRESS": "0"})
        if r.returncode != 0:
            sys.exit(r.stderr)
    return dest


def through_run(data: Path, out: Path, signals: str) -> dict:
    """``hcrbench run`` on ``data`` with selection signals ``signals`` into ``out``: the passage rows' failures."""
    out.mkdir(parents=True, exist_ok=True)
    cfg = out / "passage-control.toml"
    cfg.write_text(CONFIG.format(out=out / "out", data=data.resolve(), signals=signals))
    r = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True,
                       env={**os.environ, "HCRBENCH_PROGRESS": "0"})
    if r.returncode != 0:
        sys.exit(r.stderr)
    s = json.loads((out / "out" / "eval.json").read_text())["sufficiency"]

    def at_400(row: str) -> dict:
        f = s["systems"][row]["failure_on_feasible"]
        return {"row": row, "rate": f["rate"], "n": f["n"], "failures": round(f["rate"] * f["n"])}

    return {"controls": {us: {m: at_400(row) for m, row in per.items()}
                         for us, per in s["passage_by_selection"].items()},
            "degraded": {"unit_set": s["systems"][s["passage_degraded"]]["unit_set"],
                         "selection": s["systems"][s["passage_degraded"]]["selection"],
                         **at_400(s["passage_degraded"])}}


def _folder(name: str, n_docs: int | None) -> str:
    size, _, seed = name.rpartition("-")
    label = f"{size} ({seed})" if size and seed.isdigit() else name
    return f"{label}, {n_docs:,} docs" if n_docs else label


def markdown(doc: dict) -> str:
    """The figures as docs/context.md shows them: per folder and signals, each passage control row's failure on the
    queries feasible at 400 in its unit set, the degraded twin's, and a summary line."""
    cols = sorted({(us, m) for f in doc["folders"] for got in f["signals"].values()
                   for us, per in got["controls"].items() for m in per})
    gen = f"Meridian generator {doc['generator']}'s folders. " if doc.get("generator") else ""
    out = [gen + "Failure on the queries feasible at 400 tokens in each unit set (failing of feasible), by the "
           "selection signals (`[context] selection_signals`):", "",
           "| Meridian (seed) | signals | " + " | ".join(f"passage, {us}, {m}" for us, m in cols)
           + " | degraded |", "|---|---" + "|---" * len(cols) + "|---|"]
    spans: dict[str, list[float]] = {}
    for f in doc["folders"]:
        for sig, got in f["signals"].items():
            cells = []
            for us, m in cols:
                a = got["controls"].get(us, {}).get(m)
                cells.append("—" if a is None else f"{a['rate']:.1%} ({a['failures']} of {a['n']})")
                if a is not None:
                    spans.setdefault(f"{sig}/{m}", []).append(a["rate"])
            g = got["degraded"]
            spans.setdefault(f"{sig}/degraded", []).append(g["rate"])
            out.append(f"| {_folder(f['data'], f.get('n_docs'))} | {sig} | " + " | ".join(cells)
                       + f" | {g['rate']:.1%} ({g['failures']} of {g['n']}) |")

    def rng(key: str) -> str:
        v = spans.get(key)
        return "—" if not v else f"{min(v):.1%}" if min(v) == max(v) else f"{min(v):.1%}-{max(v):.1%}"

    line = [f"Over the {len(doc['folders'])} folders, with the ranking's signals (the default) the passage control "
            "fails " + ", ".join(f"{rng('ranking/' + m)} under {m}" for m in sorted({m for _, m in cols}))
            + f"; the degraded twin {rng('ranking/degraded')}"]
    if any(k.startswith("tfidf/") for k in spans):
        line.append(" With TF-IDF signals: " + ", ".join(f"{rng('tfidf/' + m)} under {m}"
                                                        for m in sorted({m for _, m in cols}))
                    + f"; the degraded twin {rng('tfidf/degraded')}.")
    out += ["", ".".join(line[:1]) + "." + "".join(line[1:])]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--signals", default="ranking,tfidf", help="comma-separated [context] selection_signals")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    signals = [x for x in a.signals.split(",") if x]
    if not signals or set(signals) - set(SIGNALS):
        sys.exit(f"--signals: expected some of {', '.join(SIGNALS)}, got {a.signals!r}")
    doc: dict = {"folders": []}
    for d in a.data:
        folder = generated(d, a.out) if a.generate else d
        manifest = json.loads((folder / "manifest.json").read_text()) if (folder / "manifest.json").is_file() \
            else {}
        row = {"data": d.name, "n_docs": manifest.get("n_docs"), "generator": manifest.get("generator_version"),
               "signals": {}}
        for sig in signals:
            row["signals"][sig] = got = through_run(folder, a.out / d.name / sig, sig)
            for us, per in got["controls"].items():
                for m, f in per.items():
                    print(f"{d.name} {sig:7s} passage control in {us:15s} {m:10s} {100 * f['rate']:5.1f}% "
                          f"({f['failures']} of {f['n']})")
            g = got["degraded"]
            print(f"{d.name} {sig:7s} degraded in {g['unit_set']} ({g['selection']}) {100 * g['rate']:5.1f}% "
                  f"({g['failures']} of {g['n']})")
        doc["folders"].append(row)
    gens = {f["generator"] for f in doc["folders"]}
    if len(gens) == 1:
        doc["generator"] = gens.pop()
    print(markdown(doc))
    if a.json:
        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
