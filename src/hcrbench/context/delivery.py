"""What each system hands a reader: its ranking turned into ranked candidates for context selection.

- A system that ranks units of its own (chunked baselines, HCR's routed chunks, RAPTOR's nodes: anything that
  writes ``logs/<system>.units.jsonl``, :mod:`hcrbench.context.units`) delivers them as they are, best first
  (:func:`unit_delivery`).
- A document-level system delivers documents (:func:`document_delivery`): every ranked document is cut into the
  context chunks (``context.chunk_tokens``), a document's chunks are ordered best passage first by one declared
  passage scorer (:data:`PASSAGE_SCORER`, TF-IDF cosine of the query and the chunk), and the documents are
  interleaved **round robin** (:data:`DOCUMENT_ORDER`): the best passage of every ranked document, in rank order,
  before the second passage of any; then every document's second passage; and so on.

Why round robin: a budget of B tokens holds about ``B / chunk_tokens`` chunks (3 at 400 tokens of 128-token
chunks), while most multi-fact queries need evidence from two or more documents. Delivering a whole document before
the next one spends the budget on the first document, so even a perfect ranking (every relevant document first)
failed 45% of the budget-feasible queries of Meridian small at 400 tokens; round robin hands the reader the
top-ranked passage of each of the top documents first, which is what a good document ranking is good at. The
same delivery holds for every system of a kind, so systems differ only in their rankings.

Other designs were measured against it (``benchmarks/perfect_control.py --bounds-only``, docs/context.md): BM25
or MiniLM (cosine or MaxSim) as the passage scorer, two passages of the top document first, passages of the top
documents by score x rank prior, query-term coverage across documents, sentence windows and 64-token chunks. None
was better on every Meridian folder, none brought a perfect ranking near the design's 5% at 400 tokens on every
folder, and the smaller units raised BM25-over-documents' failures (the figures: docs/context.md, block
``context-delivery-bounds``); so this delivery stays, and the gap is reported. Why a perfect document ranking fails
more at 200 tokens since Meridian 5.0.0 (its order among equally graded documents, not the passing-mention lines):
block ``context-perfect-ties``.

:class:`UnitSet` (every unit a chunking can deliver) is here too: feasibility and the oracle's cover are counted
in it, by :mod:`hcrbench.experiment.context_deliver` (they need :mod:`hcrbench.metrics`, a stage above this one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.context.candidates import Candidate, ChunkIndex
from hcrbench.context.similarity import TfidfSimilarity
from hcrbench.context.units import Unit, read_unit_set, read_units, units_path
from hcrbench.data.chunking import ChunkedCorpus, chunk_corpus
from hcrbench.data.tokens import TokenCounter, get_counter
from hcrbench.data.types import Corpus, Run

#: The passage scorer that orders a document's chunks when a document-level system's run is delivered.
PASSAGE_SCORER = "tfidf-cosine"
#: How a document ranking's passages are interleaved (see the module docstring).
DOCUMENT_ORDER = "round-robin"


@dataclass
class Delivery:
    """One system's candidates per query, how they were obtained, and the unit set its feasibility is counted in."""

    delivers: str  # "units" or "documents"
    candidates: dict[str, list[Candidate]]
    unit_set: str
    note: str = ""


def best_passage_first(pos: np.ndarray, doc_of: np.ndarray, passage_scores: np.ndarray) -> np.ndarray:
    """The order that expands a document run *best passage first*: documents keep their rank, a document's chunks
    go by ``passage_scores`` (higher first; text order on ties), not in text order.

    ``pos`` holds chunk positions grouped by document in rank order (as :meth:`ChunkIndex.run_positions` gives
    them), ``doc_of`` the document code of every chunk position, ``passage_scores`` one score per entry of
    ``pos``. Returns indices into ``pos``."""
    if pos.size == 0:
        return np.zeros(0, dtype=np.int64)
    doc = doc_of[pos]
    group = np.concatenate(([0], np.cumsum(doc[1:] != doc[:-1])))
    return np.lexsort((pos, -np.asarray(passage_scores, dtype=np.float64), group))


def round_robin(pos: np.ndarray, doc_of: np.ndarray, passage_scores: np.ndarray) -> np.ndarray:
    """The order in which a document ranking is delivered: round ``r`` holds the ``r``-th best passage of every
    document that has one, documents in rank order; rounds follow each other (``r = 0, 1, ...``).

    Same inputs as :func:`best_passage_first` (chunk positions grouped by document in rank order); returns indices
    into ``pos``. A document's passages keep their best-first order, and each document's best passage comes
    before any document's second: a ranking's top documents all reach the reader before any one of them is read
    further."""
    order = best_passage_first(pos, doc_of, passage_scores)
    if order.size == 0:
        return order
    doc = doc_of[pos[order]]
    group = np.concatenate(([0], np.cumsum(doc[1:] != doc[:-1])))
    within = np.arange(order.size) - np.searchsorted(group, group, side="left")
    return order[np.lexsort((group, within))]


def document_delivery(run: Run, index: ChunkIndex, sim: TfidfSimilarity, qvecs: Mapping[str, Any],
                      qids: Sequence[str], limit: int, unit_set: str) -> Delivery:
    """A document run delivered round robin, best passage first within a document (:func:`round_robin`), cut at
    ``limit`` chunks."""
    expanded = index.run_positions(run, None)
    out: dict[str, list[Candidate]] = {}
    nothing = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
    for q in qids:
        pos, scores = expanded.get(q, nothing)
        order = round_robin(pos, index.doc_of, sim.passage_scores(pos, qvecs[q]))[:limit]
        out[q] = [index.candidate(int(pos[i]), float(scores[i]), r) for r, i in enumerate(order)]
    return Delivery("documents", out, unit_set,
                    f"documents delivered {DOCUMENT_ORDER}, best passage first ({PASSAGE_SCORER})")


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
    """The unit ranking a system wrote into ``out/logs`` (``None``: it delivers documents)."""
    p = units_path(out / "logs", name)
    return read_units(p) if p.is_file() else None


def load_unit_set(out: Path, name: str) -> list[tuple[str, str, int, int]] | None:
    p = units_path(out / "logs", name)
    return read_unit_set(p) if p.is_file() else None


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
