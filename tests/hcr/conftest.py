"""A constructed corpus with known clusters: four topics with disjoint vocabularies, six documents each.

Every document has a unique marker word; query ``qT_D`` asks for topic T's marker D with topic words, and only
that document is relevant. Routing that works must reach it (eps = 0), and k-means must recover the topics.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hcrbench.data.types import Corpus, Queries

os.environ.setdefault("HCRBENCH_PROGRESS", "0")

TOPICS = {
    "astro": ["galaxy", "nebula", "telescope", "orbit", "comet", "quasar", "stellar", "planet"],
    "cook": ["recipe", "oven", "flour", "butter", "simmer", "garlic", "pastry", "sauce"],
    "law": ["court", "statute", "appeal", "verdict", "tribunal", "plaintiff", "clause", "contract"],
    "ship": ["harbor", "vessel", "cargo", "anchor", "hull", "sailor", "dock", "freight"],
}
MARKERS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray"]


def constructed() -> tuple[Corpus, Queries, dict[str, dict[str, int]], dict[str, str]]:
    ids, texts, titles, metas = [], [], [], []
    qids, qtexts, qmeta = [], [], []
    qrels: dict[str, dict[str, int]] = {}
    domain: dict[str, str] = {}
    m = 0
    for t, (topic, vocab) in enumerate(TOPICS.items()):
        for d in range(6):
            marker = MARKERS[m]
            m += 1
            doc = f"{topic}-{d}"
            words = [vocab[(d + j) % len(vocab)] for j in range(6)]
            text = f"The {marker} note. " + " ".join(words) + f". More on {marker} and {words[0]} {words[1]}."
            ids.append(doc)
            texts.append(text)
            titles.append("")
            metas.append({"domain": topic, "entities": [f"E-{t}{d:02d}"]})
            domain[doc] = topic
            q = f"q{t}_{d}"
            qids.append(q)
            qtexts.append(f"{marker} {vocab[d % len(vocab)]} {vocab[(d + 1) % len(vocab)]}")
            qmeta.append({"category": "thematic" if d % 2 else "detail"})
            qrels[q] = {doc: 1}
    return (Corpus(ids, texts, titles, metas, name="constructed"), Queries(qids, qtexts, qmeta), qrels, domain)


@pytest.fixture
def clusters():
    return constructed()


@pytest.fixture
def beir_dir(tmp_path: Path) -> Path:
    """The constructed corpus as a BEIR folder (for the CLI tests)."""
    corpus, queries, qrels, _ = constructed()
    root = tmp_path / "constructed"
    (root / "qrels").mkdir(parents=True)
    with open(root / "corpus.jsonl", "w") as fh:
        for i, d in enumerate(corpus.doc_ids):
            fh.write(json.dumps({"_id": d, "title": "", "text": corpus.texts[i],
                                 "metadata": corpus.metadata[i]}) + "\n")
    with open(root / "queries.jsonl", "w") as fh:
        for q, t in queries.items():
            fh.write(json.dumps({"_id": q, "text": t, "metadata": queries.meta(q)}) + "\n")
    with open(root / "qrels" / "test.tsv", "w") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for q, v in qrels.items():
            for d, g in v.items():
                fh.write(f"{q}\t{d}\t{g}\n")
    return root
