"""Why the perfect document ranking fails more at small budgets: what each of its failures turns on (docs/context.md).

    python benchmarks/perfect_ties.py DATA [DATA ...] [--generate --out DIR] [--budgets 200 400] [--json PATH]

For each Meridian folder (test split), on the queries feasible at each budget in the 128-token context chunks,
the failures of the perfect runfile's ranking (every relevant document by grade, ties by id) through the harness's
delivery (TF-IDF best passage first, round robin, greedy; ``perfect_control.Bench``), and of variants that each
change one thing:

- **mention lines removed**: the same folder with the passing-mention lines (generator 5.2's "See also: ..." /
  "Last edited by ..." lines near a page's end, before its footer if any) cut from every page that has them
  (``metadata.mentions``) before chunking: do the failures turn on them?
- **oracle passage order**: a document's fact-stating chunks first (a perfect passage scorer; uses the evidence);
- **ties by needed facts**: equally graded documents ordered by how many of the query's needed facts each states
  (more first, then id): still a ranking perfect by grade (nDCG@10 = 1), with the harness's passage scorer;
- **both**: ties by needed facts and oracle passage order.

Also the share of feasible queries whose first relevant document (grade, then id) states every needed fact.
The last two variants use the evidence: bounds that locate the failures, not deliveries a system could use.
``DATA`` may be any Meridian folder (an earlier generator's too); ``--generate`` makes each DATA named SIZE-SEED that
is no folder with ``perfect_control.generated`` (the grown world of the perfect-control block).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from hcrbench.data.atomic import atomic_write_text
from perfect_control import Bench, generated

VARIANTS = ("harness", "mentions removed", "oracle passage order", "ties by needed facts", "both")


def strip_mentions(text: str, keep_before: int = 0) -> tuple[str, int]:
    """``text`` without its passing-mention lines (lines that start as the generator's "See also: ..." / "Last
    edited by ..." lines do, before a footer or at the end) and the blank line before each; a line that starts
    before ``keep_before`` (the end of the document's last evidence span) is kept, so every statement keeps its
    offsets. Returns the text and the number of mention lines kept so."""
    from hcrbench.synth.corpus.mentions import MENTION_PREFIXES

    out: list[tuple[int, str]] = []  # (start offset, line)
    pos = kept = 0
    for line in text.split("\n"):
        start, pos = pos, pos + len(line) + 1
        if line.startswith(MENTION_PREFIXES):
            if start >= keep_before:
                if out and not out[-1][1].strip() and out[-1][0] >= keep_before:
                    out.pop()
                continue
            kept += 1
        out.append((start, line))
    return "\n".join(x for _, x in out), kept


def stripped_folder(data: Path, dest: Path) -> tuple[Path, int, int]:
    """A copy of ``data`` (links, but corpus.jsonl) whose documents that name something in passing
    (``metadata.mentions``) have their mention lines cut: the folder, the number of documents cut and the number
    of mention lines kept because a statement of the evidence follows them (their removal would move it)."""
    dest.mkdir(parents=True, exist_ok=True)
    for f in data.iterdir():
        if f.name != "corpus.jsonl" and not (dest / f.name).exists():
            os.symlink(f.resolve(), dest / f.name)
    last: dict[str, int] = {}
    for line in (data / "evidence.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            for sp in json.loads(line).get("evidence", []):
                last[sp["doc_id"]] = max(last.get(sp["doc_id"], 0), int(sp["end"]))
    n = kept = 0
    rows = []
    for line in (data / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            if (d.get("metadata") or {}).get("mentions"):
                t, k = strip_mentions(d["text"], last.get(d["_id"], 0))
                n += t != d["text"]
                kept += k
                d["text"] = t
            rows.append(json.dumps(d, ensure_ascii=False))
    atomic_write_text(dest / "corpus.jsonl", "\n".join(rows) + "\n")
    return dest, n, kept


def needed_stated(b: Bench, q: str, doc: str) -> int:
    """How many of ``q``'s needed facts ``doc`` states (anywhere in its text)."""
    ev = b.ev[q]
    return sum(any(sp.doc_id == doc for sp in ev.statements(f)) for f in ev.facts)


def failures(b: Bench, budget: int, variant: str) -> tuple[int, int]:
    """(failing, feasible) at ``budget`` for one variant on ``b``'s folder."""
    b.budget = budget  # Bench.sufficient selects at b.budget
    feas = b.feasible(budget)
    fail = 0
    for q in feas:
        docs = b.perfect(q)
        if variant in ("ties by needed facts", "both"):
            g = b.qrels[q]
            docs = sorted(docs, key=lambda d: (-g[d], -needed_stated(b, q, d), d))
        fail += not b.sufficient(q, b.deliver(q, docs, "oracle" if variant in ("oracle passage order", "both")
                                              else "tfidf"))
    return fail, len(feas)


def first_states_all(b: Bench, budget: int) -> tuple[int, int]:
    """(queries whose first relevant document by grade then id states every needed fact, feasible queries)."""
    feas = b.feasible(budget)
    return sum(needed_stated(b, q, b.perfect(q)[0]) == len(b.ev[q].facts) for q in feas), len(feas)


def measure(data: Path, out: Path, budgets: list[int]) -> dict:
    b = Bench(data, max(budgets))
    nostrip, n_docs, kept = stripped_folder(data, out / "no-mentions" / data.name)
    bs = Bench(nostrip, max(budgets))
    rows = {}
    for budget in budgets:
        row = {v: failures(bs if v == "mentions removed" else b, budget, v) for v in VARIANTS}
        row["first states all"] = first_states_all(b, budget)
        rows[str(budget)] = {k: {"count": c, "n": n} for k, (c, n) in row.items()}
        print(f"{data.name} B={budget}: " + "  ".join(f"{k} {c}/{n}" for k, (c, n) in row.items()), flush=True)
    return {"data": data.name, "documents_with_mentions": n_docs, "mention_lines_kept": kept, "budgets": rows}


def markdown(doc: dict) -> str:
    """The block: per folder and budget, the failing queries of each variant (counts: the feasible column says of
    how many; no percentages, so the page's bars such as 5% are never read as quoting it); then the sums."""
    gen = f"Meridian generator {doc['generator']}'s folders. " if doc.get("generator") else ""
    head = ["Meridian (seed)", "B", "feasible", "perfect runfile (the harness)", "mention lines removed",
            "oracle passage order", "ties by needed facts", "both", "first document states every needed fact"]
    out = [gen + "The perfect runfile's failing queries (of the feasible ones) on the queries feasible at B in 128-token "
           "context chunks, with one thing changed at a time:", "",
           "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    tot: dict[tuple[str, str], list[int]] = {}
    for f in doc["folders"]:
        size, _, seed = f["data"].rpartition("-")
        for budget, row in f["budgets"].items():
            n = row["harness"]["n"]
            cells = [f"{size} ({seed})" if size else f["data"], budget, str(n)]
            for k in (*VARIANTS, "first states all"):
                c, nk = row[k]["count"], row[k]["n"]  # the mention-free folder counts its own feasible queries
                cells.append(f"{c}" + (f" of {nk}" if nk != n else "") if nk else "—")
                t = tot.setdefault((budget, k), [0, 0])
                t[0], t[1] = t[0] + c, t[1] + nk
            out.append("| " + " | ".join(cells) + " |")
    cut = sum(f.get("documents_with_mentions", 0) for f in doc["folders"])
    kept = sum(f.get("mention_lines_kept", 0) for f in doc["folders"])
    out += ["", f"Mention lines were cut from {cut} documents over the folders (every page with `metadata.mentions`; "
            f"{kept} lines kept because a statement of the evidence follows them).", ""]
    for budget in dict.fromkeys(b for b, _ in tot):
        def pct(k: str, budget: str = budget) -> str:
            c, n = tot[budget, k]
            return f"{c} of {n}" if n else "—"

        out.append(f"Over the {len(doc['folders'])} folders at B={budget}: the harness fails {pct('harness')}; "
                   f"with the mention lines removed {pct('mentions removed')}; with oracle passage order "
                   f"{pct('oracle passage order')}; with ties by needed facts {pct('ties by needed facts')}; both "
                   f"{pct('both')}; the first document states every needed fact for {pct('first states all')}.")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=Path("perfect-ties"))
    ap.add_argument("--budgets", type=int, nargs="+", default=[200, 400])
    ap.add_argument("--generate", action="store_true", help="generate each DATA named SIZE-SEED that is no folder")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    a = ap.parse_args()
    doc: dict = {"budgets": a.budgets, "folders": []}
    if a.generate:
        from hcrbench.synth import GENERATOR_VERSION

        a.data = [generated(d, a.out) for d in a.data]
        doc["generator"] = GENERATOR_VERSION
    for d in a.data:
        doc["folders"].append(measure(d, a.out, a.budgets))
    print(markdown(doc))
    if a.json is not None:
        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
