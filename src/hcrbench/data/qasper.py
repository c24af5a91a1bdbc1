"""QASPER (Dasigi et al., 2021), the design's real-document layer: papers -> paragraph documents, questions ->
queries, annotated evidence paragraphs -> qrels and evidence records for sufficiency@B.

Input: one QASPER JSON file (``qasper-{train,dev,test}-v0.3.json``): ``{paper_id: {"title", "abstract",
"full_text": [{"section_name", "paragraphs": [...]}], "qas": [{"question", "question_id", "answers": [{"answer":
{"unanswerable", "extractive_spans", "yes_no", "free_form_answer", "evidence", "highlighted_evidence"}}]}]}}``.

- Documents: the abstract (``PAPER:abstract``) and every non-empty paragraph (``PAPER:S.P``, section S, paragraph
  P); title = the paper's title; metadata ``paper_id`` and ``heading_path`` (QASPER joins nested section names
  with ``" ::: "``).
- Queries: ``question_id`` / ``question``; metadata ``paper_id``, ``unanswerable`` (every annotator said so),
  ``answer_type`` (extractive / abstractive / boolean / none, of the annotation used).
- Qrels: grade 1 for every paragraph any annotator cites as evidence (matched by exact text within the paper).
  Evidence that names a figure or table (``FLOAT SELECTED: ...``) matches no paragraph and is counted in
  :attr:`QasperDataset.unmatched_evidence`, as are quotes that appear nowhere in the paper.
- Evidence (``evidence.jsonl``): from the first answerable annotation whose evidence all matched, one fact per
  evidence paragraph (each stated by the whole paragraph), ``answer`` = its extractive spans (all must occur),
  else its free-form answer, else "yes"/"no". Unanswerable questions get no evidence record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.beir import BeirDataset
from hcrbench.data.evidence import EvidenceSpan, QueryEvidence
from hcrbench.data.structured import read_json
from hcrbench.data.types import Corpus, Qrels, Queries
from hcrbench.errors import InputError


@dataclass
class QasperDataset(BeirDataset):
    """A BEIR dataset plus the evidence records and what could not be matched."""

    evidence: list[QueryEvidence] = field(default_factory=list)
    unmatched_evidence: int = 0
    n_unanswerable: int = 0


def _norm(text: str) -> str:
    return " ".join(text.split())


def _answer_of(ans: dict[str, Any]) -> tuple[str, str | list[str] | None]:
    if ans.get("unanswerable"):
        return "none", None
    spans = [s for s in ans.get("extractive_spans") or [] if isinstance(s, str) and s.strip()]
    if spans:
        return "extractive", spans
    if ans.get("yes_no") is not None:
        return "boolean", "yes" if ans["yes_no"] else "no"
    free = ans.get("free_form_answer") or ""
    return ("abstractive", free) if free.strip() else ("none", None)


def load_qasper(path: str | Path, split: str = "test") -> QasperDataset:
    """Read a QASPER JSON file (errors name the file and the paper / question key at fault)."""
    p = Path(path)
    if not p.is_file():
        raise InputError("file not found" if not p.exists() else "not a file", path=p)
    try:
        raw = read_json(p)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        line = getattr(e, "lineno", None)
        raise InputError(f"invalid JSON ({getattr(e, 'msg', e)})", path=p, line=line) from None
    if not isinstance(raw, dict):
        raise InputError("expected an object of papers keyed by paper id", path=p)
    ids: list[str] = []
    texts: list[str] = []
    titles: list[str] = []
    metas: list[dict[str, Any]] = []
    qids: list[str] = []
    qtexts: list[str] = []
    qmetas: list[dict[str, Any]] = []
    qrels: dict[str, dict[str, int]] = {}
    records: list[QueryEvidence] = []
    unmatched = n_unans = 0
    for paper_id, paper in raw.items():
        where = f"{paper_id}"
        if not isinstance(paper, dict):
            raise InputError("each paper must be an object", path=p, field=where)
        title = str(paper.get("title") or "")
        by_text: dict[str, str] = {}

        def add(doc_id: str, text: str, heading: list[str], title=title, paper_id=paper_id, by_text=by_text) -> None:
            ids.append(doc_id)
            texts.append(text)
            titles.append(title)
            metas.append({"paper_id": str(paper_id), "heading_path": heading})
            by_text.setdefault(_norm(text), doc_id)

        abstract = paper.get("abstract") or ""
        if isinstance(abstract, str) and abstract.strip():
            add(f"{paper_id}:abstract", abstract, ["Abstract"])
        sections = paper.get("full_text") or []
        if not isinstance(sections, list):
            raise InputError("'full_text' must be a list of sections", path=p, field=f"{where}.full_text")
        for s, sec in enumerate(sections):
            if not isinstance(sec, dict):
                raise InputError("each section must be an object", path=p, field=f"{where}.full_text[{s}]")
            heading = [h.strip() for h in str(sec.get("section_name") or "").split(":::") if h.strip()]
            for n, para in enumerate(sec.get("paragraphs") or []):
                if isinstance(para, str) and para.strip():
                    add(f"{paper_id}:{s}.{n}", para, heading)
        for k, qa in enumerate(paper.get("qas") or []):
            if not isinstance(qa, dict) or "question" not in qa or "question_id" not in qa:
                raise InputError("each question needs 'question' and 'question_id'", path=p,
                                 field=f"{where}.qas[{k}]")
            qid = str(qa["question_id"])
            answers = [a.get("answer", {}) for a in qa.get("answers") or [] if isinstance(a, dict)]
            unans = bool(answers) and all(a.get("unanswerable") for a in answers)
            n_unans += unans
            rel: dict[str, int] = {}
            chosen: tuple[str, list[str], Any] | None = None
            first_type = "none"
            for a in answers:
                kind, answer = _answer_of(a)
                if first_type == "none":
                    first_type = kind
                docs = []
                ok = True
                for ev in a.get("evidence") or []:
                    d = by_text.get(_norm(str(ev)))
                    if d is None:
                        unmatched += 1
                        ok = False
                    else:
                        rel[d] = 1
                        docs.append(d)
                if chosen is None and kind != "none" and docs and ok:
                    chosen = (kind, list(dict.fromkeys(docs)), answer)
            qids.append(qid)
            qtexts.append(str(qa["question"]))
            qmetas.append({"paper_id": str(paper_id), "unanswerable": unans,
                           "answer_type": chosen[0] if chosen else first_type})
            if rel:
                qrels[qid] = rel
            if chosen is not None:
                pos = {d: i for i, d in enumerate(ids)}
                spans = [EvidenceSpan(d, 0, len(texts[pos[d]]), texts[pos[d]], d) for d in chosen[1]]
                records.append(QueryEvidence(qid, [s.fact_id for s in spans], spans, list(spans),
                                             None, None, chosen[2]))
    if len(set(qids)) != len(qids):
        dup = next(q for i, q in enumerate(qids) if q in qids[:i])
        raise InputError(f"question id {dup!r} appears twice", path=p, field="question_id")
    corpus = Corpus(ids, texts, titles, metas, name=f"qasper-{split}")
    queries = Queries(qids, qtexts, qmetas, name=f"qasper-{split}")
    return QasperDataset(corpus, queries, Qrels.from_dict(qrels), split, p, records, unmatched, n_unans)
