"""The human check of Meridian's labels: a blind review sheet, and agreement between a reader and the generator.

``review_sheet`` draws a category-stratified sample of queries (seeded) and writes, per query, a few graded
documents (relevant, topical and judged-negative ones, shuffled) with a snippet, the query and the generator's
answer, as a CSV a person fills in (``human_grade`` 0-3 per row, ``answer_ok`` y/n on each query's first row).
The generator's grades go to a separate key file (``SHEET.key.json``) so the reader does not see them.
``review_score`` reads both back and reports Cohen's kappa (unweighted and linearly weighted) and Kendall's tau-b
between the reader's and the generator's grades; the design asks for tau >= 0.7 over 30 queries.
"""

from __future__ import annotations

import csv
import json
import re
import warnings
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data import atomic_open, atomic_write_text, iter_jsonl
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError
from hcrbench.synth.world_model.seeds import rng

COLUMNS = ["row", "query_id", "query", "answer", "evidence", "doc_id", "doc_title", "snippet", "human_grade",
           "answer_ok", "notes"]
TAU_TARGET = 0.7
SNIPPET_CHARS = 600
PER_GRADE = {3: 2, 2: 2, 1: 1, 0: 1}  # documents shown per query, by generator grade


def key_path(sheet: Path) -> Path:
    return sheet.with_name(sheet.name.removesuffix(".csv") + ".key.json")


def _answer(a: Any) -> str:
    return "; ".join(map(str, a)) if isinstance(a, list) else str(a)


def _snippet(text: str, spans: list[tuple[int, int]]) -> str:
    """The sentences that state needed facts (from provenance), else the start of the document."""
    if spans:
        parts = list(dict.fromkeys(text[a:b].strip() for a, b in sorted(spans)))
        out = " ... ".join(parts)
    else:
        body = text.split("\n", 1)[-1]
        out = re.sub(r"\s+", " ", body).strip()
    return out[:SNIPPET_CHARS]


def review_sheet(folder: str | Path, out: str | Path, n: int = 30, seed: int = 0) -> dict[str, Any]:
    """Write a blind review sheet of ``n`` queries (category-stratified) and its key; returns a summary."""
    folder, out = Path(folder), Path(out)
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InputError(f"must be a positive integer, got {n!r}", field="--n")
    for name in ("corpus.jsonl", "queries.meta.jsonl", "evidence.jsonl"):
        if not (folder / name).is_file():
            raise InputError(f"not a Meridian folder: missing {name}", path=folder)
    metas = [m for _, m in iter_jsonl(folder / "queries.meta.jsonl") if m.get("qrels")]
    if "facts" not in (metas[0] if metas else {}):
        raise InputError("needs a Meridian 2 folder (queries.meta.jsonl has no 'facts')", path=folder)
    by_cat: dict[str, list[dict]] = defaultdict(list)
    for m in metas:
        by_cat[m["category"]].append(m)
    r = rng(seed, "review_sheet")
    for rows in by_cat.values():
        r.shuffle(rows)
    picked: list[dict] = []
    cats = sorted(by_cat)
    while len(picked) < min(n, len(metas)):  # round-robin over categories: stratified
        for c in cats:
            if by_cat[c] and len(picked) < n:
                picked.append(by_cat[c].pop())
    docs_needed: dict[str, dict] = {}
    plan: list[tuple[dict, list[tuple[str, int]]]] = []
    for m in picked:
        by_grade: dict[int, list[str]] = defaultdict(list)
        for d, g in sorted({**m.get("qrels_topical", {}), **m["qrels"]}.items()):  # primary and topical views
            by_grade[g].append(d)
        shown: list[tuple[str, int]] = []
        for g, k in PER_GRADE.items():
            shown += [(d, g) for d in r.sample(by_grade[g], min(k, len(by_grade[g])))]
        r.shuffle(shown)
        plan.append((m, shown))
        for d, _ in shown:
            docs_needed[d] = {}
    evidence = {}
    for _, ev in iter_jsonl(folder / "evidence.jsonl"):
        evidence[ev["query_id"]] = ev
    for _, doc in iter_jsonl(folder / "corpus.jsonl"):
        if doc["_id"] in docs_needed:
            docs_needed[doc["_id"]] = doc
    rows, key = [], []
    for m, shown in plan:
        ev = evidence.get(m["query_id"], {})
        minimal = " ... ".join(dict.fromkeys(e["text"].strip() for e in ev.get("minimal", [])))
        for j, (d, g) in enumerate(shown):
            doc = docs_needed[d]
            spans = [(e["start"], e["end"]) for e in ev.get("evidence", []) if e["doc_id"] == d]
            rows.append({"row": len(rows) + 1, "query_id": m["query_id"], "query": m["text"],
                         "answer": _answer(m["answer"]) if j == 0 else "", "evidence": minimal if j == 0 else "",
                         "doc_id": d, "doc_title": doc.get("title", ""), "snippet": _snippet(doc.get("text", ""), spans),
                         "human_grade": "", "answer_ok": "", "notes": ""})
            key.append({"row": len(rows), "query_id": m["query_id"], "doc_id": d, "grade": g,
                        "category": m["category"], "difficulty": m["difficulty"]})
    with atomic_open(out, "w") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    atomic_write_text(key_path(out), json.dumps({"folder": str(folder), "seed": seed, "rows": key}, indent=1) + "\n")
    return {"queries": len(plan), "rows": len(rows), "categories": {c: sum(m["category"] == c for m, _ in plan)
                                                                    for c in cats}, "key": str(key_path(out))}


def cohen_kappa(a: np.ndarray, b: np.ndarray, labels: list[int], weights: str | None = None) -> float:
    """Cohen's kappa of two raters over ``labels`` (``weights``: None or "linear"): scikit-learn's
    ``cohen_kappa_score`` (NaN when undefined)."""
    from hcrbench.llm.judge import kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when both raters use one grade: NaN, as before
        return float(kappa_score()(np.asarray(a), np.asarray(b), labels=labels, weights=weights))


@dataclass
class ReviewScore:
    n_rows: int
    n_graded: int
    n_queries: int
    kappa: float
    kappa_linear: float
    tau: float
    tau_p: float
    answer_ok: float | None
    exact_agreement: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def review_score(sheet: str | Path, key: str | Path | None = None) -> ReviewScore:
    """Agreement between the grades a reader filled into ``sheet`` and the generator's (from the key file)."""
    from scipy.stats import kendalltau

    sheet = Path(sheet)
    kp = Path(key) if key is not None else key_path(sheet)
    if not sheet.is_file():
        raise InputError("no such file", path=sheet)
    try:
        keyed = {int(x["row"]): x for x in read_json(kp)["rows"]}
    except FileNotFoundError:
        raise InputError("key file not found (written beside the sheet by review-sheet)", path=kp) from None
    except (ValueError, KeyError, TypeError):
        raise InputError("not a review key (expected {\"rows\": [...]})", path=kp) from None
    human, gen, ok = [], [], []
    queries: set[str] = set()
    n_rows = 0
    with open(sheet, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in ("row", "human_grade", "answer_ok") if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"missing column(s) {', '.join(missing)}", path=sheet, line=1)
        for rec in reader:
            line = reader.line_num
            n_rows += 1
            try:
                row = int(rec["row"])
            except (TypeError, ValueError):
                raise InputError(f"row must be an integer, got {rec['row']!r}", path=sheet, line=line,
                                 field="row") from None
            if row not in keyed:
                raise InputError(f"row {row} is not in the key file", path=sheet, line=line, field="row")
            g = (rec.get("human_grade") or "").strip()
            if g:
                if g not in ("0", "1", "2", "3"):
                    raise InputError(f"must be 0, 1, 2 or 3, got {g!r}", path=sheet, line=line, field="human_grade")
                human.append(int(g))
                gen.append(int(keyed[row]["grade"]))
                queries.add(keyed[row]["query_id"])
            a = (rec.get("answer_ok") or "").strip().lower()
            if a:
                if a not in ("y", "n", "yes", "no"):
                    raise InputError(f"must be y or n, got {a!r}", path=sheet, line=line, field="answer_ok")
                ok.append(a.startswith("y"))
    if len(human) < 2:
        raise InputError("fewer than two rows have a human_grade; fill the sheet first", path=sheet,
                         field="human_grade")
    h, g = np.asarray(human), np.asarray(gen)
    labels = [0, 1, 2, 3]
    tau = kendalltau(h, g, variant="b")
    return ReviewScore(n_rows, len(human), len(queries), cohen_kappa(h, g, labels),
                       cohen_kappa(h, g, labels, "linear"), float(tau.statistic), float(tau.pvalue),
                       (sum(ok) / len(ok)) if ok else None, float((h == g).mean()))
