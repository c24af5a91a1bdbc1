"""BM25's variant and parameters on a BEIR folder (docs/baselines.md's grid): nDCG@10 and R@100 per setting.

    python benchmarks/bm25_grid.py [--dataset ../shared/datasets/scifact] [--split test] [--json PATH]

Each row of :data:`GRID` is ``make_retriever("bm25", **params)`` over the whole corpus, top 100, scored with
``hcrbench.metrics.evaluate`` (trec_eval's ``ndcg_cut.10`` and ``recall.100``, every judged query averaged, a query
with nothing retrieved scoring 0). Prints the table (:func:`markdown`, bold = the default setting); ``--json PATH``
writes the rows, which ``scripts/doc_figures.py`` renders into docs/baselines.md. Deterministic: same folder,
same bytes. Seconds on SciFact.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text

REPO = Path(__file__).resolve().parents[1]
DEFAULT = {"k1": 0.9, "b": 0.4, "stemmer": "english", "stopwords": "en"}
GRID = [DEFAULT, {**DEFAULT, "stopwords": "none"}, {**DEFAULT, "k1": 1.2, "b": 0.75},
        {**DEFAULT, "k1": 1.5, "b": 0.75}, {**DEFAULT, "stemmer": "none"},
        {**DEFAULT, "k1": 1.5, "b": 0.75, "stemmer": "none"}]


def measure(dataset: Path, split: str) -> dict[str, Any]:
    from hcrbench.data import load_beir
    from hcrbench.metrics import evaluate
    from hcrbench.retrieve import make_retriever

    ds = load_beir(str(dataset), split)
    rows = []
    for params in GRID:
        ret = make_retriever("bm25", cache=False, **params)
        ret.index(ds.corpus)
        run = ret.search(ds.queries, k=100).run
        means = next(iter(evaluate(ds.qrels, run, ["nDCG@10", "R@100"]).means.values()))
        rows.append({"params": params, "nDCG@10": float(means["nDCG@10"]), "R@100": float(means["R@100"])})
    return {"dataset": dataset.resolve().name, "split": split, "n_queries": len(ds.qrels.query_ids), "rows": rows}


def markdown(doc: dict[str, Any]) -> str:
    out = [f"{doc['dataset']} {doc['split']} ({doc['n_queries']} judged queries), bold = the default:", "",
           "| k1 | b | stemmer | stopwords | nDCG@10 | R@100 |", "|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        p = r["params"]
        cells = [str(p["k1"]), str(p["b"]), p["stemmer"], p["stopwords"], f"{r['nDCG@10']:.4f}", f"{r['R@100']:.4f}"]
        if p == DEFAULT:
            cells = [f"**{c}**" for c in cells]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, default=REPO.parent / "shared" / "datasets" / "scifact")
    ap.add_argument("--split", default="test")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows to this file")
    a = ap.parse_args()
    if not (a.dataset / "corpus.jsonl").is_file():
        sys.exit(f"{a.dataset}: not a BEIR folder (no corpus.jsonl)")
    doc = measure(a.dataset, a.split)
    print(markdown(doc))
    if a.json is not None:
        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
