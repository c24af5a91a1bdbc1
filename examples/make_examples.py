"""Regenerate the small example files in examples/ from the Cranfield collection in ../shared.

    python examples/make_examples.py

Writes cranfield.qrels (TREC qrels of the first 25 queries, queries numbered by position as the qrels do) and
two real BM25 runs over the 1,400 abstracts, top 100: bm25.trec (no stemming) and bm25_stemmed.trec (Snowball
English stemming), both with bm25s' default Lucene variant (k1=1.5, b=0.75).
"""

from __future__ import annotations

import re
from pathlib import Path

import bm25s
import Stemmer

HERE = Path(__file__).resolve().parent
CRAN = HERE.parent.parent / "shared" / "datasets" / "cranfield"
N_QUERIES = 25


def _smart_records(path: Path) -> list[dict[str, str]]:
    records: list[dict[str, str]] = []
    field = None
    for line in path.read_text().splitlines():
        m = re.match(r"^\.([A-Z])\s*(.*)$", line)
        if m:
            if m.group(1) == "I":
                records.append({"I": m.group(2).strip()})
                field = None
            else:
                field = m.group(1)
                records[-1][field] = ""
            continue
        if field:
            records[-1][field] += line + " "
    return records


def main() -> None:
    docs = _smart_records(CRAN / "cran.all.1400")
    queries = _smart_records(CRAN / "cran.qry")[:N_QUERIES]
    doc_ids = [d["I"] for d in docs]
    texts = [" ".join((d.get("T", "") + " " + d.get("W", "")).split()) for d in docs]
    qtexts = [" ".join(q["W"].split()) for q in queries]
    qids = [str(i) for i in range(1, len(queries) + 1)]  # the qrels number queries by position

    lines = [ln for ln in (CRAN / "QRelsCorrectedforTRECeval").read_text().splitlines()
             if ln.split() and ln.split()[0] in set(qids)]
    (HERE / "cranfield.qrels").write_text("\n".join(lines) + "\n")

    for name, stemmer in (("bm25", None), ("bm25_stemmed", Stemmer.Stemmer("english"))):
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                        show_progress=False)
        res, scores = retriever.retrieve(bm25s.tokenize(qtexts, stopwords="en", stemmer=stemmer,
                                                        show_progress=False), k=100, show_progress=False)
        with open(HERE / f"{name}.trec", "w") as fh:
            for qi, qid in enumerate(qids):
                for r, (di, s) in enumerate(zip(res[qi], scores[qi]), start=1):
                    fh.write(f"{qid} Q0 {doc_ids[di]} {r} {float(s):.6f} {name}\n")


if __name__ == "__main__":
    main()
