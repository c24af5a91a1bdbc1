"""Budget-feasible share per Meridian query category under different evidence units (why the design's shares
are not reached).

    python benchmarks/meridian_feasibility_units.py DIR [--budget 400]

``evidence.jsonl``'s minimal evidence is the cheapest set of *sentences* stating every needed fact (the issue's
definition). This script recomputes the cheapest cover when each statement costs its whole paragraph (text between
blank lines), its section (heading to heading), the smallest chunk holding it (``chunk_text`` at 128 tokens,
heading-aware, and at 256 tokens, the library default) or its document, and prints the share of queries whose
cover fits the budget, next to the design's targets. Exact cover up to 12 facts, greedy (tokens per new fact) above.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

from hcrbench.data.chunking import chunk_text
from hcrbench.data.tokens import default_counter
from hcrbench.synth.checks.describe import FEASIBLE_DESIGN


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--budget", type=int, default=400)
    args = ap.parse_args()
    folder = Path(args.folder)
    counter = default_counter()
    docs = {o["_id"]: o["text"] for o in _jsonl(folder / "corpus.jsonl")}
    heads = {d: [m.start() for m in re.finditer(r"^## ", t, re.M)] for d, t in docs.items()}

    def section(d: str, s: int, e: int) -> tuple[str, int, int]:
        return d, max([h for h in heads[d] if h <= s], default=0), min([h for h in heads[d] if h >= e],
                                                                        default=len(docs[d]))

    def para(d: str, s: int, e: int) -> tuple[str, int, int]:
        t = docs[d]
        a, b = t.rfind("\n\n", 0, s), t.find("\n\n", e)
        return d, 0 if a < 0 else a + 2, len(t) if b < 0 else b

    spans: dict[tuple[str, int], list[tuple[int, int]]] = {}

    def chunker(size: int, structure: bool):
        def unit(d: str, s: int, e: int) -> tuple[str, int, int]:
            key = (d, size + structure)
            if key not in spans:
                spans[key] = [(a, b) for a, b, _, _ in chunk_text(docs[d], max_tokens=size, overlap=32,
                                                                   structure_aware=structure, counter=counter)]
            # cheapest chunk that holds the whole statement (falls back to the document)
            best = [(b - a, a, b) for a, b in spans[key] if a <= s and e <= b]
            _, a, b = min(best) if best else (0, 0, len(docs[d]))
            return d, a, b
        return unit

    units = {"sentence": lambda d, s, e: (d, s, e), "paragraph": para, "section": section,
             "chunk128": chunker(128, True), "chunk256": chunker(256, False),
             "document": lambda d, s, e: (d, 0, len(docs[d]))}
    cost: dict[tuple[str, int, int], int] = {}

    def tokens(u: tuple[str, int, int]) -> int:
        if u not in cost:
            cost[u] = counter.count(docs[u[0]][u[1]:u[2]])
        return cost[u]

    meta = {m["query_id"]: m for m in _jsonl(folder / "queries.meta.jsonl")}
    res: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for ev in _jsonl(folder / "evidence.jsonl"):
        need = ev["facts"]
        if not need:
            continue
        cat = meta[ev["query_id"]]["category"]
        full = (1 << len(need)) - 1
        for name, unit in units.items():
            opts: dict[tuple[str, int, int], int] = defaultdict(int)
            for s in ev["evidence"]:
                opts[unit(s["doc_id"], s["start"], s["end"])] |= 1 << need.index(s["fact_id"])
            if len(need) <= 12:
                best = {0: 0}
                for mask in range(full + 1):
                    if mask in best:
                        for u, m in opts.items():
                            nxt = mask | m
                            if nxt != mask and best[mask] + tokens(u) < best.get(nxt, 1 << 60):
                                best[nxt] = best[mask] + tokens(u)
                total = best.get(full, 1 << 60)
            else:
                covered, total = 0, 0
                while covered != full:
                    u, m = min(((u, m) for u, m in opts.items() if m & ~covered),
                               key=lambda x: (tokens(x[0]) / (x[1] & ~covered).bit_count(), x[0]))
                    covered |= m
                    total += tokens(u)
            res[name][cat].append(total <= args.budget)
    print(f"budget-feasible share per category at {args.budget} tokens, by evidence unit ({folder})")
    print(f"{'category':18s} {'design':>7s} " + " ".join(f"{n:>9s}" for n in units))
    for cat, target in FEASIBLE_DESIGN.items():
        cells = [sum(res[n][cat]) / max(len(res[n][cat]), 1) for n in units]
        print(f"{cat:18s} {target:7.2f} " + " ".join(f"{c:9.2f}" for c in cells))


if __name__ == "__main__":
    main()
