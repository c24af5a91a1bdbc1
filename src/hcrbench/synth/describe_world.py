"""The world half of ``hcrbench describe``: violations of every world rule and the share of text stating facts.

Read from the folder's files (``world.json``, ``corpus.jsonl``, ``provenance.jsonl``), like the rest of describe.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hcrbench.data import iter_jsonl
from hcrbench.data.structured import read_json
from hcrbench.synth.world_rules import violation_counts


def fact_share(docs: list[dict[str, Any]], spans: list[tuple[str, int, int]]) -> float:
    """Characters of body text inside a fact statement (the union of provenance spans) over all characters."""
    covered: dict[str, list[tuple[int, int]]] = {}
    for doc_id, start, end in spans:
        covered.setdefault(doc_id, []).append((start, end))
    total = inside = 0
    for d in docs:
        total += len(d["text"])
        last = 0
        for start, end in sorted(covered.get(d["_id"], [])):
            start = max(start, last)
            if end > start:
                inside += end - start
                last = end
    return inside / max(total, 1)


def world_props(folder: str | Path) -> list[dict[str, Any]]:
    """One property per world rule (violations, target 0) and the share of text that states world facts."""
    folder = Path(folder)
    world = read_json(folder / "world.json")
    docs = [obj for _, obj in iter_jsonl(folder / "corpus.jsonl")]
    counts = violation_counts(world, docs)
    props = [{"property": f"world rule: {name}", "measured": n, "target": "0 violations",
              "met": n == 0} for name, n in counts.items()]
    prov = folder / "provenance.jsonl"
    if prov.is_file():
        spans = [(o["doc_id"], o["start"], o["end"]) for _, o in iter_jsonl(prov)]
        props.append({"property": "share of text stating world facts", "measured": round(fact_share(docs, spans), 3),
                      "target": "reported (characters inside fact statements)", "met": True})
    return props
