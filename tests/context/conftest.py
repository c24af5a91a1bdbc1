"""A small Meridian folder (generated once per session, deterministic) for context and sufficiency tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def meridian(tmp_path_factory, meridian_copy) -> Path:
    out = tmp_path_factory.mktemp("meridian") / "m"
    meridian_copy(out, size="small", seed=0, grow=True)
    return out


DOCS = {
    "d1": "Key rotation happens every quarter. The signing key is stored in the vault. Rotation is automated.",
    "d2": "Nightly backups cover the billing database. Backups are kept for 30 days. Restores are tested monthly.",
    "d3": "The outage was caused by an expired signing key. It lasted four hours. The fix was a manual rotation.",
    "d4": "New engineers get laptop access on day one. Laptops are refreshed every three years.",
    "d5": "Invoices are generated from the billing database. Invoices are sent on the first day of the month.",
}
QUERIES = {
    "q1": ("how often is the signing key rotated", "security"),
    "q2": ("how long are billing backups kept", "data"),
    "q3": ("what caused the outage and how long did it last", "security"),
    "q4": ("when are laptops refreshed", "it"),
}
QRELS = {"q1": {"d1": 2}, "q2": {"d2": 2}, "q3": {"d3": 2}, "q4": {"d4": 2}}
# (doc, sentence, fact id); q3 needs two facts from d3.
EVIDENCE = {
    "q1": [("d1", "Key rotation happens every quarter.", "F1")],
    "q2": [("d2", "Backups are kept for 30 days.", "F2")],
    "q3": [("d3", "The outage was caused by an expired signing key.", "F3"), ("d3", "It lasted four hours.", "F4")],
    "q4": [("d4", "Laptops are refreshed every three years.", "F5")],
}
ANSWERS = {"q1": "every quarter", "q2": "30 days", "q3": ["expired signing key", "four hours"], "q4": "three years"}


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A 5-document BEIR folder with a hand-built evidence.jsonl (fact ids, minimal sets, answers)."""
    import json

    folder = tmp_path / "tiny"
    (folder / "qrels").mkdir(parents=True)
    with open(folder / "corpus.jsonl", "w") as fh:
        for d, text in DOCS.items():
            fh.write(json.dumps({"_id": d, "title": "", "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w") as fh:
        for q, (text, cat) in QUERIES.items():
            fh.write(json.dumps({"_id": q, "text": text, "metadata": {"category": cat}}) + "\n")
    with open(folder / "qrels" / "test.tsv", "w") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for q, docs in QRELS.items():
            for d, g in docs.items():
                fh.write(f"{q}\t{d}\t{g}\n")
    with open(folder / "evidence.jsonl", "w") as fh:
        for q, items in EVIDENCE.items():
            spans = []
            for d, sent, fact in items:
                start = DOCS[d].index(sent)
                spans.append({"doc_id": d, "start": start, "end": start + len(sent), "text": sent, "fact_id": fact})
            fh.write(json.dumps({"query_id": q, "facts": [s["fact_id"] for s in spans], "evidence": spans,
                                 "minimal": spans, "answer": ANSWERS[q]}) + "\n")
    return folder
