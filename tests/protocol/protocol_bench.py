"""A small constructed benchmark for the protocol tests: five topics with disjoint vocabularies, eight documents
each, every query naming one document's marker word (so HCR with the hashed encoder routes it), plus Meridian-like
metadata (category, difficulty, domain, entities) and an evidence file for sufficiency@B. A second query per
document forms the tune split (the easy-routing checkpoint reads tune + dev, never test)."""

from __future__ import annotations

import json
from pathlib import Path

TOPICS = {
    "astro": ["galaxy", "nebula", "telescope", "orbit", "comet", "quasar", "stellar", "planet"],
    "cook": ["recipe", "oven", "flour", "butter", "simmer", "garlic", "pastry", "sauce"],
    "law": ["court", "statute", "appeal", "verdict", "tribunal", "plaintiff", "clause", "contract"],
    "ship": ["harbor", "vessel", "cargo", "anchor", "hull", "sailor", "dock", "freight"],
    "music": ["violin", "melody", "tempo", "chord", "sonata", "rhythm", "opera", "choir"],
}
CATEGORIES = ["detail", "thematic", "entity_spanning", "detail"]


def write_bench(root: Path) -> Path:
    """Write the benchmark as a BEIR folder at ``root``; returns ``root``."""
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    docs, queries, qrels, evidence, tune = [], [], [], [], []
    for t, (topic, vocab) in enumerate(TOPICS.items()):
        for d in range(8):
            marker = f"mark{t}{d}x"
            doc = f"{topic}-{d}"
            words = [vocab[(d + j) % len(vocab)] for j in range(6)]
            fact = f"The {marker} budget is {100 + 7 * d + t} units."
            text = f"{fact} " + " ".join(words) + f". More on {marker} and {words[0]} {words[1]}."
            docs.append({"_id": doc, "title": "", "text": text,
                         "metadata": {"domain": topic, "entities": [f"E-{t}{d:02d}"]}})
            q = f"q{t}_{d}"
            queries.append({"_id": q, "text": f"What is the {marker} budget for {vocab[d % 8]} {vocab[(d + 1) % 8]}?",
                            "metadata": {"category": CATEGORIES[d % 4], "difficulty": "easy" if d < 5 else "hard"}})
            qrels.append((q, doc, 2))
            queries.append({"_id": f"t{t}_{d}", "text": f"Tell me about {marker} and {vocab[(d + 2) % 8]}.",
                            "metadata": {"category": "detail", "difficulty": "easy"}})
            tune.append((f"t{t}_{d}", doc, 2))
            qrels.append((q, f"{topic}-{(d + 1) % 8}", 1))
            span = {"doc_id": doc, "start": 0, "end": len(fact), "text": fact, "fact_id": f"F{t}{d}"}
            evidence.append({"query_id": q, "facts": [f"F{t}{d}"], "evidence": [span], "minimal": [span],
                             "minimal_tokens": 12, "budget_feasible": True, "answer": str(100 + 7 * d + t)})
    for name, rows in (("corpus.jsonl", docs), ("queries.jsonl", queries), ("evidence.jsonl", evidence)):
        (root / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{g}\n" for q, d, g in qrels), encoding="utf-8")
    (root / "qrels" / "tune.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{g}\n" for q, d, g in tune), encoding="utf-8")
    return root
