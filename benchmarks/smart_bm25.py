"""The default BM25 on the two SMART collections, through the console script (docs/datasets.md's sanity check):

    python benchmarks/smart_bm25.py [--datasets ../shared/datasets] [--json PATH]

For Cranfield (cranqrel's undocumented -1 rows read as grade 0, the default; dropped; read as 5, as
``QRelsCorrectedforTRECeval`` writes them) and CISI: ``hcrbench convert smart``, ``hcrbench retrieve --system
bm25`` and ``hcrbench evaluate -m nDCG@10,AP,P@5,R@100 --json`` in a scratch folder, then one row per reading:
the queries averaged, the four means and the unjudged documents in the top 10 (evaluate's ledger). Prints the
table docs/datasets.md shows (:func:`markdown`); ``--json PATH`` writes the rows, which ``scripts/doc_figures.py``
renders there. Deterministic: same shared files, same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench_cli import run_hcrbench

REPO = Path(__file__).resolve().parents[1]
METRICS = ["nDCG@10", "AP", "P@5", "R@100"]
# (row key, collection, folder under --datasets, --cranfield-minus-one or None)
READINGS = [("cranfield", "cranfield", "cranfield", "0"), ("cranfield-drop", "cranfield", "cranfield", "drop"),
            ("cranfield-5", "cranfield", "cranfield", "5"), ("cisi", "cisi", "cisi", None)]


def measure(datasets: Path) -> dict[str, Any]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for key, coll, folder, minus_one in READINGS:
            out = Path(tmp) / key
            run_hcrbench("convert", "smart", "--collection", coll, "--in", str(datasets / folder), "--out", str(out),
                      *(["--cranfield-minus-one", minus_one] if minus_one is not None else []))
            run = Path(tmp) / f"{key}.run"
            run_hcrbench("retrieve", "--dataset", str(out), "--system", "bm25", "--out", str(run))
            ev = Path(tmp) / f"{key}.json"
            run_hcrbench("evaluate", str(out / "qrels" / "test.tsv"), str(run), "-m", ",".join(METRICS), "--json",
                      str(ev))
            r = next(iter(json.loads(ev.read_text(encoding="utf-8"))["runs"].values()))
            led = r["ledger"]
            rows.append({"key": key, "collection": coll, "minus_one": minus_one, "n": led["n_queries_averaged"],
                         "means": {m: r["means"][m] for m in METRICS},
                         "unjudged_top10": led["unjudged_at_k"]["10"]["total"]})
    return {"metrics": METRICS, "rows": rows}


def markdown(doc: dict[str, Any]) -> str:
    """The table: Cranfield's default reading (saying whether dropping the -1 rows gives the same means), the
    reading as 5, CISI; then the unjudged documents in BM25's top 10."""
    rows = {r["key"]: r for r in doc["rows"]}
    same = rows["cranfield-drop"]["means"] == rows["cranfield"]["means"]
    label = {"cranfield": "Cranfield (-1 → 0, default" + ("; `drop` gives the same)" if same else ")"),
             "cranfield-drop": "Cranfield (-1 rows dropped)",
             "cranfield-5": "Cranfield (-1 → 5, `QRelsCorrectedforTRECeval` as written)", "cisi": "CISI"}
    head = {"AP": "AP (k=100)"}
    out = ["| collection | queries averaged | " + " | ".join(head.get(m, m) for m in doc["metrics"]) + " |",
           "|---|---" + "|---" * len(doc["metrics"]) + "|"]
    for r in doc["rows"]:
        if r["key"] == "cranfield-drop" and same:
            continue
        bold = r["key"] in ("cranfield", "cisi")
        cells = [f"**{r['means'][m]:.4f}**" if bold and m == "nDCG@10" else f"{r['means'][m]:.4f}"
                 for m in doc["metrics"]]
        out.append(f"| {label[r['key']]} | {r['n']} | " + " | ".join(cells) + " |")
    out += ["", f"Unjudged documents in BM25's top 10: {rows['cranfield']['unjudged_top10']:,} over Cranfield's "
                f"{rows['cranfield']['n']} queries, {rows['cisi']['unjudged_top10']:,} over CISI's {rows['cisi']['n']}."]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=REPO.parent / "shared" / "datasets",
                    help="the folder holding cranfield/ and cisi/ (default: ../shared/datasets)")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows to this file")
    a = ap.parse_args()
    for _k, _c, folder, _m in READINGS:
        if not (a.datasets / folder).is_dir():
            sys.exit(f"{a.datasets / folder}: not found (the SMART files of {folder})")
    doc = measure(a.datasets)
    print(markdown(doc))
    if a.json is not None:
        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
