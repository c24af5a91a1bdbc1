"""What each system hands a reader, as ranked candidates for context selection, and the deliverable-unit oracle.

- A system that ranks units of its own (chunked baselines, and any retriever exposing ``unit_run``) delivers them:
  the runner keeps them in ``logs/<system>.units.jsonl`` (:mod:`hcrbench.context.units`) and they go to selection
  as they are, best first.
- A document-level system delivers documents: each is expanded to the context chunks (``context.chunk_tokens``)
  *best passage first* by one declared passage scorer, the same for every such system (:data:`PASSAGE_SCORER`:
  TF-IDF cosine of the query and the chunk); documents keep their rank.
- The oracle control delivers the cheapest cover of the needed facts by the context chunks that fits the budget
  (:func:`hcrbench.metrics.sufficiency.cheapest_cover`), or the most facts that fit when none does.

Feasibility is counted in the same units: a query is budget-feasible at B for a unit set when the cheapest cover
of its needed facts by those units costs at most B tokens (:func:`unit_feasibility`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.context import Candidate, ChunkIndex, TfidfSimilarity
from hcrbench.context.candidates import best_passage_first
from hcrbench.context.units import Unit, read_unit_set, read_units, units_path
from hcrbench.data.chunking import chunk_corpus
from hcrbench.data.evidence import QueryEvidence
from hcrbench.data.tokens import TokenCounter, get_counter
from hcrbench.data.types import Corpus, Run
from hcrbench.metrics.sufficiency import MAX_EXACT_FACTS, cheapest_cover

#: The passage scorer that orders a document's chunks when a document-level system's run is expanded.
PASSAGE_SCORER = "tfidf-cosine"


@dataclass
class Delivery:
    """One system's candidates per query, how they were obtained, and the unit set its feasibility is counted in."""

    delivers: str  # "units" or "documents"
    candidates: dict[str, list[Candidate]]
    unit_set: str
    note: str = ""


def context_unit_set(chunk_tokens: int) -> str:
    return f"chunks-{chunk_tokens}"


def chunking_unit_set(params: Mapping[str, Any]) -> str:
    """A stable name for one chunking: ``chunks-128o32`` (+ ``s`` structure-aware, ``-<counter>`` if named)."""
    name = f"chunks-{params['max_tokens']}o{params.get('overlap', 0)}"
    if params.get("structure_aware"):
        name += "s"
    if not params.get("respect_sentences", True):
        name += "w"
    if params.get("token_counter"):
        name += f"-{params['token_counter']}"
    return name


def document_delivery(run: Run, index: ChunkIndex, sim: TfidfSimilarity, qvecs: Mapping[str, Any],
                      qids: Sequence[str], limit: int, unit_set: str) -> Delivery:
    """A document run expanded best passage first (:func:`best_passage_first`), cut at ``limit`` chunks."""
    expanded = index.run_positions(run, None)
    out: dict[str, list[Candidate]] = {}
    nothing = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
    for q in qids:
        pos, scores = expanded.get(q, nothing)
        order = best_passage_first(pos, index.doc_of, sim.passage_scores(pos, qvecs[q]))[:limit]
        out[q] = [index.candidate(int(pos[i]), float(scores[i]), r) for r, i in enumerate(order)]
    return Delivery("documents", out, unit_set, f"documents expanded best passage first ({PASSAGE_SCORER})")


def unit_delivery(units: Mapping[str, list[Unit]], doc_texts: Mapping[str, str], counter: TokenCounter,
                  qids: Sequence[str], limit: int, unit_set: str) -> Delivery:
    """A system's own ranked units, as they are (tokens recounted with the context's counter)."""
    counts: dict[str, int] = {}
    out: dict[str, list[Candidate]] = {}
    for q in qids:
        cands: list[Candidate] = []
        for uid, doc, s, e, score, text in units.get(q, [])[:limit]:
            if doc is not None and doc in doc_texts and s is not None and e is not None:
                t = doc_texts[doc][s:e]
            else:
                doc, s, e, t = "", 0, 0, text or ""
            if uid not in counts:
                counts[uid] = counter.count(t)
            cands.append(Candidate(uid, doc, s, e, t, counts[uid], float(score), len(cands)))
        out[q] = cands
    return Delivery("units", out, unit_set, "its own ranked units")


def load_units(out: Path, name: str) -> dict[str, list[Unit]] | None:
    p = units_path(out / "logs", name)
    return read_units(p) if p.is_file() else None


def load_unit_set(out: Path, name: str) -> list[tuple[str, str, int, int]] | None:
    p = units_path(out / "logs", name)
    return read_unit_set(p) if p.is_file() else None


@dataclass
class UnitSet:
    """Every unit a chunking can deliver (as a :class:`ChunkIndex`), for covers and feasibility."""

    name: str
    index: ChunkIndex
    params: dict[str, Any]


def make_unit_set(name: str, corpus: Corpus, counter: TokenCounter, params: Mapping[str, Any]) -> UnitSet:
    """Chunk ``corpus`` as ``params`` say; token counts are the context counter's (``counter``)."""
    cc = chunk_corpus(corpus, max_tokens=int(params["max_tokens"]), overlap=int(params.get("overlap", 0)),
                      respect_sentences=bool(params.get("respect_sentences", True)),
                      structure_aware=bool(params.get("structure_aware", False)),
                      counter=get_counter(params.get("token_counter")) if params.get("token_counter") else counter)
    index = ChunkIndex(cc)
    if cc.counter != counter.name:  # chunked with another counter: budgets are in the context counter's tokens
        index.tokens = np.array([counter.count(t) for t in cc.corpus.texts], dtype=np.int64)
    return UnitSet(name, index, dict(params))


def spans_unit_set(name: str, spans: Sequence[tuple[str, str, int, int]], corpus: Corpus,
                   counter: TokenCounter) -> UnitSet:
    """A unit set from the spans a system declared (``unit_set`` in its units file), tokens by ``counter``."""
    from hcrbench.data.chunking import ChunkedCorpus

    texts = dict(zip(corpus.doc_ids, corpus.texts))
    order = {d: i for i, d in enumerate(corpus.doc_ids)}
    rows = sorted((sp for sp in spans if sp[1] in texts), key=lambda sp: (order[sp[1]], sp[2], sp[3], sp[0]))
    ids, bodies, metas = [], [], []
    for uid, doc, a, b in rows:
        t = texts[doc][a:b]
        ids.append(uid)
        bodies.append(t)
        metas.append({"doc_id": doc, "char_start": a, "char_end": b, "n_tokens": counter.count(t)})
    cc = ChunkedCorpus(Corpus(ids, bodies, None, metas, name=name), {u: m["doc_id"] for u, m in zip(ids, metas)},
                       counter.name, {"declared_by": name})
    return UnitSet(name, ChunkIndex(cc), {"declared": len(ids)})


class _Units:
    """Candidates of a unit set, indexed the way :func:`cheapest_cover` wants them."""

    def __init__(self, us: UnitSet) -> None:
        self.index = us.index
        self.units = [us.index.candidate(i, 0.0, i) for i in range(len(us.index.tokens))]
        if us.index.tokens is not None:  # recounted tokens (another counter) replace the chunker's
            self.units = [u._replace(n_tokens=int(t)) for u, t in zip(self.units, us.index.tokens)]
        self.by_doc = us.index.by_doc


def unit_feasibility(us: UnitSet, evidence: Mapping[str, QueryEvidence], qids: Sequence[str],
                     doc_texts: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Per query with facts: ``{"cover_tokens": int | None, "exact": bool}`` — the cheapest complete cover by
    this unit set (``None``: no set of units states every fact)."""
    u = _Units(us)
    out: dict[str, dict[str, Any]] = {}
    for q in qids:
        ev = evidence.get(q)
        if ev is None or not ev.facts:
            continue
        c = cheapest_cover(ev, u.units, u.by_doc, None, doc_texts)
        out[q] = {"cover_tokens": c.tokens if c.complete else None, "exact": len(ev.facts) <= MAX_EXACT_FACTS}
    return out


def oracle_candidates(us: UnitSet, evidence: Mapping[str, QueryEvidence], qids: Sequence[str],
                      budgets: Sequence[int | None], doc_texts: Mapping[str, str]
                      ) -> dict[str | None, dict[str, list[Candidate]]]:
    """``{budget: {query: candidates}}``: the cheapest cover that fits each budget (the most facts when none
    does), in text order; a query without evidence gets no candidates."""
    u = _Units(us)
    out: dict[str | None, dict[str, list[Candidate]]] = {}
    for b in budgets:
        per: dict[str, list[Candidate]] = {}
        for q in qids:
            ev = evidence.get(q)
            if ev is None or not ev.facts:
                per[q] = []
                continue
            c = cheapest_cover(ev, u.units, u.by_doc, b, doc_texts)
            per[q] = [u.units[i]._replace(score=1.0, rank=r) for r, i in enumerate(c.units)]
        out[b] = per  # type: ignore[index]
    return out
