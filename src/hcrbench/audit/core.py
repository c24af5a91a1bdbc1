"""``audit(folder, split)``: a benchmark linter for any BEIR-format folder.

Loads ``corpus.jsonl``, ``queries.jsonl``, every ``qrels/*.tsv`` and, when present, ``queries.meta.jsonl`` (Meridian's
per-query record: ``answer``, ``expected_entities``, ``evidence``, ``category``); query ``metadata`` fields with the
same names are read too. Then runs the checks of :mod:`hcrbench.audit.checks` on ``split`` (plus the unjudged share
of a run's top 10 when a run is given) and returns them in a fixed order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.audit import checks as C
from hcrbench.audit.text import inverted, near_duplicate_pairs, stems
from hcrbench.errors import InputError


def _list(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, (list, tuple)):
        return [str(x) for x in v if isinstance(x, (str, int, float))]
    return []


@dataclass
class Bench:
    """The loaded folder, in the shapes the checks use."""

    path: Path
    split: str
    qrels: Any
    all_qrels: dict[str, Any]
    query_text: dict[str, str]
    all_query_ids: list[str]
    split_of: dict[str, str]
    doc_ids: list[str]
    doc_texts: list[str]
    answers: dict[str, list[str]] = field(default_factory=dict)
    entities: dict[str, list[str]] = field(default_factory=dict)
    evidence: dict[str, list[str]] = field(default_factory=dict)
    category: dict[str, str] = field(default_factory=dict)
    facts: dict[str, list[str]] = field(default_factory=dict)
    #: query -> document -> the text of the evidence spans that metadata says state a needed fact there
    evidence_text: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    #: query -> documents judged in a secondary view (``qrels-<view>/<split>.tsv``, e.g. Meridian's topical grades)
    other_judged: dict[str, set[str]] = field(default_factory=dict)
    #: per document, the entity ids its metadata names (``entities``), when the corpus has them
    doc_entities: list[set[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.query_stems = dict(zip(self.all_query_ids, stems([self.query_text[q] for q in self.all_query_ids])))
        self.doc_index = inverted(stems(self.doc_texts))
        self._pairs: list | None = None

    def doc_pairs(self) -> list[tuple[int, int, float]]:
        if self._pairs is None:
            self._pairs = near_duplicate_pairs(self.doc_texts, C.NEAR_DUP)
        return self._pairs


def load_bench(folder: str | Path, split: str = "test") -> Bench:
    """Read a BEIR folder for auditing; missing files and an unknown split are one-line errors."""
    from hcrbench.data import read_qrels
    from hcrbench.data.beir import read_corpus, read_queries

    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("BEIR dataset folder not found", path=folder)
    for name in ("corpus.jsonl", "queries.jsonl"):
        if not (folder / name).exists():
            raise InputError(f"BEIR folder is missing {name}", path=folder)
    splits = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
    if split not in splits:
        raise InputError(f"no qrels/{split}.tsv (splits: {', '.join(splits) or 'none'})", path=folder, field="--split")
    all_qrels = {s: read_qrels(folder / "qrels" / f"{s}.tsv") for s in splits}
    queries = read_queries(folder / "queries.jsonl")
    corpus = read_corpus(folder / "corpus.jsonl")
    meta: dict[str, dict[str, Any]] = {q: dict(m or {}) for q, m in zip(queries.query_ids, queries.metadata)}
    side = folder / "queries.meta.jsonl"
    if side.exists():
        from hcrbench.data.beir import (
            iter_jsonl,  # the project's JSONL reader: file:line errors, huge numbers
        )

        for _, rec in iter_jsonl(side):
            qid = str(rec.get("query_id", rec.get("_id", "")))
            if qid:
                meta.setdefault(qid, {}).update(rec)
    text = dict(zip(queries.query_ids, queries.texts))
    split_of: dict[str, str] = {}
    for s, qr in all_qrels.items():
        for q in qr.query_ids:
            split_of.setdefault(q, s)
    judged = [q for q in queries.query_ids if q in split_of]
    unknown = [q for q in all_qrels[split].query_ids if q not in text]
    if len(unknown) == len(all_qrels[split].query_ids):
        raise InputError(f"no query of qrels/{split}.tsv is in queries.jsonl", path=folder)
    docs = [f"{t} {x}".strip() if t else x for t, x in zip(corpus.titles, corpus.texts)]
    b = Bench(folder, split, all_qrels[split], all_qrels, text, judged, split_of, list(corpus.doc_ids), docs)
    for view in sorted(folder.glob(f"qrels-*/{split}.tsv")):
        qr = read_qrels(view)
        for q in qr.query_ids:
            b.other_judged.setdefault(q, set()).update(qr[q])
    body = dict(zip(corpus.doc_ids, corpus.texts))
    b.doc_entities = [set(_list((m or {}).get("entities"))) for m in corpus.metadata]
    for q, m in meta.items():
        b.answers[q] = _list(m.get("answer", m.get("answers")))
        b.entities[q] = _list(m.get("expected_entities", m.get("entities")))
        b.facts[q] = _list(m.get("facts"))
        ev = m.get("evidence")
        if isinstance(ev, list):
            b.evidence[q] = list(dict.fromkeys(str(e.get("doc_id")) for e in ev if isinstance(e, dict)
                                               and e.get("doc_id") is not None))
            b.evidence_text[q] = _span_texts(ev, body)
        if m.get("category") is not None:
            b.category[q] = str(m["category"])
    return b


def _span_texts(evidence: list, body: dict[str, str]) -> dict[str, list[str]]:
    """document -> the text of its evidence spans (an entry's ``text``, else ``start``/``end`` into the document's
    text); entries without either are skipped."""
    out: dict[str, list[str]] = {}
    for e in evidence:
        if not isinstance(e, dict) or e.get("doc_id") is None:
            continue
        d = str(e["doc_id"])
        t = e.get("text")
        if not isinstance(t, str):
            start, end = e.get("start"), e.get("end")
            if not (isinstance(start, int) and isinstance(end, int) and d in body and 0 <= start < end):
                continue
            t = body[d][start:end]
        if t.strip() and t not in out.get(d, []):
            out.setdefault(d, []).append(t)
    return out


def audit(folder: str | Path, split: str = "test", run: Any = None, k: int = 10) -> list[C.Check]:
    """Every check on ``split`` of the BEIR folder (and ``run``'s unjudged share when given), in a fixed order."""
    b = load_bench(folder, split)
    out = [C.false_negatives(b), C.duplicate_queries(b), C.split_leakage(b), C.graded_near_duplicates(b),
           C.oracle_ceilings(b)]
    if run is not None:
        out.append(C.unjudged_in_run(b, run, k))
    return out
