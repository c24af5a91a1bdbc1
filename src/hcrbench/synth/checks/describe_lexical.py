"""Lexical overlap between queries and their relevant documents, measured the same way on any judged collection.

Meridian's queries are written from the facts they need, so their wording could sit much closer to (or farther
from) the relevant documents than a person's question does. These measures put a number on that shape, per query,
for a BEIR folder, a SMART collection or a Meridian folder alike, so a generated suite can be set beside real ones
(``benchmarks/meridian_lexical.py``, docs/meridian.md):

- **terms** of a text: its content stems (stopwords and 1-2 letter words out, Snowball-stemmed as in
  :mod:`hcrbench.synth.corpus.stems`) and its identifier-like tokens (below), which the stems alone would drop.
- **rarest-word exclusivity**: the query's rarest term (by document frequency over the corpus, among the terms
  that occur in it at all) occurs only in relevant documents. Ties at the lowest frequency count when any tied
  term is exclusive.
- **shared terms**: the share of the query's terms found in the title or text of its relevant documents.
- **no shared term**: that share is 0 (a query without terms counts here too: nothing of it can match).
- **identifier exclusivity**: the query names an identifier-like token (letters and digits mixed in one token, as
  ``INC-21201``, ``HR-POL-026``, ``p53`` or ``IL-6``; case-insensitive) that occurs in the corpus only in
  relevant documents. Reported over all queries and over the queries that name any identifier-like token.

A document is relevant at grade >= ``min_grade`` (1: every positive judgment). Queries without a relevant
document are left out and counted.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.synth.corpus.stems import STOPWORDS, WORD, _stemmer

#: a token of letters, digits and inner ``-``/``.``/``/``; identifier-like when it mixes letters and digits
TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-./][A-Za-z0-9]+)*")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[A-Za-z]")
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
VOCABULARY_ORIGIN = "adversarial:vocabulary"  # the queries worded to share no word with their facts' statements


def _is_identifier(token: str) -> bool:
    return bool(_DIGIT.search(token) and _LETTER.search(token))


def identifiers(text: str) -> set[str]:
    """Identifier-like tokens of ``text``, lower-cased: tokens that mix letters and digits."""
    return {t.lower() for t in TOKEN.findall(text) if _is_identifier(t)}


def _split_identifiers(text: str) -> tuple[str, set[str]]:
    """``text`` without its identifier-like tokens (so ``INC`` of ``INC-20003`` is not also a word), and them."""
    found: set[str] = set()

    def cut(m: re.Match) -> str:
        t = m.group()
        if _is_identifier(t):
            found.add(t.lower())
            return " "
        return t

    return TOKEN.sub(cut, text), found


class _Terms:
    """Terms of texts (content stems and identifiers), one stem per distinct word cached (documents repeat their
    words)."""

    def __init__(self) -> None:
        self._cache: dict[str, str] = {}
        self._stem = _stemmer().stemWords

    def __call__(self, text: str) -> set[str]:
        text, ids = _split_identifiers(text)
        words = {w for w in WORD.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS}
        new = [w for w in words if w not in self._cache]
        if new:
            self._cache.update(zip(new, self._stem(new), strict=True))
        # identifiers keep their digits and hyphens, so they never collide with a stem
        return {self._cache[w] for w in words} | ids


@dataclass(frozen=True)
class QueryOverlap:
    """One query's overlap with its relevant documents."""

    qid: str
    n_terms: int
    n_relevant: int
    shared: float  # share of the query's terms in the relevant documents' text
    rarest_exclusive: bool
    names_identifier: bool
    identifier_exclusive: bool


def query_overlaps(docs: Iterable[tuple[str, str]], queries: Mapping[str, str],
                   qrels: Mapping[str, Mapping[str, int]], *, min_grade: int = 1) -> list[QueryOverlap]:
    """Per-query overlap measures (module docstring) over ``docs`` (``(doc_id, full text)`` pairs, streamed once).

    Only queries with text and at least one document judged ``>= min_grade`` are measured, in ``queries``' order.
    """
    terms = _Terms()
    rel = {q: {d for d, g in qrels.get(q, {}).items() if g >= min_grade} for q in queries}
    judged = [q for q in queries if rel[q]]
    q_terms = {q: terms(queries[q]) for q in judged}
    wanted = set().union(*q_terms.values()) if q_terms else set()
    needed_docs = set().union(*(rel[q] for q in judged)) if judged else set()
    postings: dict[str, set[str]] = defaultdict(set)  # of the query terms only
    rel_terms: dict[str, set[str]] = {}
    for doc_id, text in docs:
        s = terms(text)
        for t in s & wanted:
            postings[t].add(doc_id)
        if doc_id in needed_docs:
            rel_terms[doc_id] = s
    out = []
    for q in judged:
        qt, r = q_terms[q], rel[q]
        in_rel = set().union(*(rel_terms.get(d, set()) for d in r))
        shared = len(qt & in_rel) / len(qt) if qt else 0.0
        present = [t for t in qt if postings.get(t)]
        rarest = False
        if present:
            low = min(len(postings[t]) for t in present)
            rarest = any(postings[t] <= r for t in present if len(postings[t]) == low)
        ids = identifiers(queries[q])
        id_excl = any(postings.get(t) and postings[t] <= r for t in ids)
        out.append(QueryOverlap(q, len(qt), len(r), shared, rarest, bool(ids), bool(id_excl)))
    return out


def summarize(rows: list[QueryOverlap], *, n_unjudged: int = 0) -> dict[str, Any]:
    """Distribution summary of :func:`query_overlaps` rows: shares of queries and quantiles of the shared-stem
    share (rounded to 3 places; ``None`` where there is nothing to measure)."""
    n = len(rows)
    shared = np.asarray([r.shared for r in rows], dtype=float)
    named = [r for r in rows if r.names_identifier]

    def share(k: int, of: int) -> float | None:
        return round(k / of, 3) if of else None

    return {
        "queries": n,
        "queries_without_relevant": n_unjudged,
        "rarest_exclusive": share(sum(r.rarest_exclusive for r in rows), n),
        "shared_mean": round(float(shared.mean()), 3) if n else None,
        "shared_quantiles": {f"p{round(p * 100)}": round(float(np.quantile(shared, p)), 3) for p in QUANTILES}
        if n else {},
        "no_shared_term": share(int((shared == 0).sum()), n),
        "names_identifier": share(len(named), n),
        "identifier_exclusive": share(sum(r.identifier_exclusive for r in rows), n),
        "identifier_exclusive_of_named": share(sum(r.identifier_exclusive for r in named), len(named)),
    }


def dataset_overlap(dataset, *, min_grade: int = 1) -> dict[str, Any]:
    """:func:`summarize` of a loaded :class:`~hcrbench.data.BeirDataset` (its queries and split's qrels)."""
    corpus, queries, qrels = dataset.corpus, dataset.queries, dataset.qrels
    q = {qid: text for qid, text in queries.items() if qid in qrels}
    j = {qid: qrels[qid] for qid in q}
    docs = ((corpus.doc_ids[i], corpus.full_text(i)) for i in range(len(corpus)))
    rows = query_overlaps(docs, q, j, min_grade=min_grade)
    return summarize(rows, n_unjudged=len(q) - len(rows))


def meridian_overlap(folder: str | Path, *, min_grade: int = 1, splits: tuple[str, ...] | None = None
                     ) -> dict[str, Any]:
    """Overlap of a Meridian folder's queries (``queries.meta.jsonl``, every split unless ``splits`` names some):
    ``all``, one summary per category and per origin, and the ids of the queries that share no term with their
    relevant documents although they are not vocabulary-mismatch queries (``no_shared_term_not_vocabulary``)."""
    from hcrbench.data import iter_jsonl

    folder = Path(folder)
    metas = [m for _, m in iter_jsonl(folder / "queries.meta.jsonl") if splits is None or m.get("split") in splits]
    queries = {m["query_id"]: m["text"] for m in metas}
    qrels = {m["query_id"]: m.get("qrels") or {} for m in metas}
    docs = ((o["_id"], f"{o.get('title', '')} {o['text']}".strip()) for _, o in iter_jsonl(folder / "corpus.jsonl"))
    rows = query_overlaps(docs, queries, qrels, min_grade=min_grade)
    origin = {m["query_id"]: m.get("origin") for m in metas}
    # the design's one place without overlap: a query of any other origin sharing no term is the generator's slip
    slips = [r.qid for r in rows if r.shared == 0 and origin[r.qid] != VOCABULARY_ORIGIN]
    return {"all": summarize(rows, n_unjudged=len(metas) - len(rows)),
            "by_category": _grouped(rows, metas, "category"), "by_origin": _grouped(rows, metas, "origin"),
            "no_shared_term_not_vocabulary": slips, "rows": [asdict(r) for r in rows]}


def _grouped(rows: list[QueryOverlap], metas: list[dict[str, Any]], field: str) -> dict[str, Any]:
    """:func:`summarize` per value of the queries' ``field`` (a category, an origin such as
    ``adversarial:vocabulary``)."""
    of = {m["query_id"]: str(m.get(field, "")) for m in metas}
    by: dict[str, list[QueryOverlap]] = defaultdict(list)
    for r in rows:
        by[of[r.qid]].append(r)
    measured = {r.qid for r in rows}
    unjudged: dict[str, int] = defaultdict(int)
    for m in metas:
        unjudged[of[m["query_id"]]] += m["query_id"] not in measured
    return {g: summarize(v, n_unjudged=unjudged[g]) for g, v in sorted(by.items())}


#: The real collections' range (SciFact, NFCorpus, Cranfield, CISI; docs/meridian.md's meridian-lexical table,
#: measured by benchmarks/meridian_lexical.py) that a Meridian suite's overlap is held to: the share of queries
#: whose rarest word occurs only in relevant documents, the share naming an identifier only relevant documents
#: carry, and the lower quartile of the share of query terms found in the relevant documents.
REAL_RANGE = {"rarest_exclusive": (0.004, 0.143), "identifier_exclusive": (0.0, 0.073), "p25": (0.4, 0.698)}


def within_real_range(summary: dict[str, Any]) -> dict[str, bool]:
    """Per measure of :data:`REAL_RANGE`, whether ``summary`` (:func:`summarize`) falls inside it."""
    got = {"rarest_exclusive": summary["rarest_exclusive"], "identifier_exclusive": summary["identifier_exclusive"],
           "p25": summary["shared_quantiles"].get("p25")}
    return {k: v is not None and lo <= v <= hi for k, v in got.items() for lo, hi in [REAL_RANGE[k]]}


def lexical_props(folder: Path) -> list[dict[str, Any]]:
    """``describe``'s row: the overlap summary of every judged query, met when the rarest-word and identifier
    exclusivity and the lower quartile of shared terms fall inside the real collections' range
    (:data:`REAL_RANGE`) and no query outside the vocabulary-mismatch ones shares no term."""
    m = meridian_overlap(folder)
    s, q = m["all"], m["all"]["shared_quantiles"]
    measured = {"rarest word only in relevant docs": s["rarest_exclusive"],
                "identifier only in relevant docs": s["identifier_exclusive"],
                "query terms in relevant docs (p25/p50/p75)": f"{q.get('p25')}/{q.get('p50')}/{q.get('p75')}",
                "no term shared": s["no_shared_term"],
                "no term shared, not vocabulary-mismatch (queries)": len(m["no_shared_term_not_vocabulary"])}
    inside = within_real_range(s)
    target = "the real collections' range (" + ", ".join(f"{k} {lo}-{hi}" for k, (lo, hi) in REAL_RANGE.items()) + \
        "); no term shared only where vocabulary-mismatch"
    return [{"property": "lexical overlap of queries with their relevant documents", "measured": measured,
             "target": target, "met": all(inside.values()) and not m["no_shared_term_not_vocabulary"]}]
