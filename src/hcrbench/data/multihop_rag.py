"""MultiHop-RAG (Tang & Yang, COLM 2024): its ``corpus.json`` and ``MultiHopRAG.json`` as a BEIR dataset.

The files (609 news articles; 2,556 queries over 2-4 articles) cannot be fetched here; a user who has them runs
``hcrbench convert multihop-rag --in DIR --out OUT``. ``corpus.json`` is a list of articles ``{"title", "author",
"source", "published_at", "category", "url", "body"}``; ``MultiHopRAG.json`` a list of queries ``{"query",
"answer", "question_type", "evidence_list": [{"title", "author", "url", "source", "category", "published_at",
"fact"}]}``. Articles become documents ``MHR-D0000..`` (file order; title + body), queries ``MHR-Q0000..``; each
evidence item is matched to its article by URL (then by title) and the article is judged relevant (grade 1), so
qrels are by article. The question type (inference, comparison, temporal, null) is the query's ``category``
stratum; the answer and the evidence facts go to the query's metadata. Null queries have no evidence and so no
judgments: like the benchmark's own evaluation, they are not scored.

:func:`multihop_rag_scores` is the benchmark's own retrieval scorer (``retrieval_evaluate.py``): a retrieved text
"contains" a fact when the fact, with spaces and newlines removed, is a substring of the text so stripped; Hits@k
(any fact in the top k), MRR@10 and MAP@10 (new facts found at rank r add count / r; divided by min(#facts, 10)).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hcrbench.data.beir import BeirDataset
from hcrbench.data.structured import read_json
from hcrbench.data.types import Corpus, Qrels, Queries
from hcrbench.errors import HcrbenchWarning, InputError

QUESTION_TYPES = {"inference_query": "inference", "comparison_query": "comparison",
                  "temporal_query": "temporal", "null_query": "null"}


def _load_list(path: Path, what: str) -> list[Any]:
    if not path.is_file():
        raise InputError(f"{what} not found", path=path)
    data = read_json(path, what=what)  # syntax, nesting, size, encoding: one line (data.structured)
    if not isinstance(data, list):
        raise InputError(f"expected a JSON list of {what} records, got {type(data).__name__}", path=path)
    return data


def _str(rec: Any, key: str, path: Path, i: int, *, required: bool = True) -> str:
    if not isinstance(rec, dict):
        raise InputError(f"record {i} is not a JSON object", path=path, field=f"[{i}]")
    v = rec.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str) or (required and not v.strip()):
        raise InputError(f"record {i}: '{key}' must be a non-empty string, got {v!r}", path=path,
                         field=f"[{i}].{key}")
    return v


def _norm(s: str) -> str:
    return s.replace(" ", "").replace("\n", "")


def load_multihop_rag(folder: str | Path) -> BeirDataset:
    """Read ``corpus.json`` and ``MultiHopRAG.json`` from ``folder`` (split ``test``)."""
    folder = Path(folder)
    cpath, qpath = folder / "corpus.json", folder / "MultiHopRAG.json"
    articles = _load_list(cpath, "article")
    ids, texts, titles, metas = [], [], [], []
    by_url: dict[str, str] = {}
    by_title: dict[str, list[str]] = {}
    for i, a in enumerate(articles):
        title, body = _str(a, "title", cpath, i), _str(a, "body", cpath, i)
        did = f"MHR-D{i:04d}"
        meta = {k: a[k] for k in ("author", "source", "published_at", "category", "url") if a.get(k) is not None}
        ids.append(did)
        texts.append(body)
        titles.append(title)
        metas.append(meta)
        url = a.get("url")
        if isinstance(url, str) and url:
            by_url.setdefault(url, did)
        by_title.setdefault(title.strip(), []).append(did)
    records = _load_list(qpath, "query")
    qids, qtexts, qmetas = [], [], []
    qrels: dict[str, dict[str, int]] = {}
    unmatched = 0
    for i, r in enumerate(records):
        text = _str(r, "query", qpath, i)
        qtype = _str(r, "question_type", qpath, i)
        ev = r.get("evidence_list", [])
        if not isinstance(ev, list):
            raise InputError(f"record {i}: 'evidence_list' must be a list", path=qpath, field=f"[{i}].evidence_list")
        qid = f"MHR-Q{i:04d}"
        facts = []
        rel: dict[str, int] = {}
        for j, e in enumerate(ev):
            if not isinstance(e, dict):
                raise InputError(f"record {i}: evidence {j} is not an object", path=qpath,
                                 field=f"[{i}].evidence_list[{j}]")
            fact = e.get("fact")
            if not isinstance(fact, str) or not fact.strip():
                raise InputError(f"record {i}: evidence {j} has no 'fact' string", path=qpath,
                                 field=f"[{i}].evidence_list[{j}].fact")
            facts.append(fact)
            did = by_url.get(e.get("url") or "")
            if did is None:
                cands = by_title.get(str(e.get("title") or "").strip(), [])
                did = cands[0] if len(cands) == 1 else None
            if did is None:
                unmatched += 1
                continue
            rel[did] = 1
        qids.append(qid)
        qtexts.append(text)
        qmetas.append({"category": QUESTION_TYPES.get(qtype, qtype), "question_type": qtype,
                       "answer": r.get("answer"), "facts": facts})
        if rel:
            qrels[qid] = rel
    if unmatched:
        warnings.warn(f"{unmatched} evidence items match no article of corpus.json by url or title; "
                      "they are not in the qrels", HcrbenchWarning, stacklevel=2)
    corpus = Corpus(ids, texts, titles, metas, name="multihop-rag")
    queries = Queries(qids, qtexts, qmetas, name="multihop-rag")
    return BeirDataset(corpus, queries, Qrels.from_dict(qrels, name="multihop-rag/test"), "test", folder)


def multihop_rag_scores(retrieved: Sequence[Sequence[str]], facts: Sequence[Sequence[str]]) -> dict[str, Any]:
    """The benchmark's Hits@10, Hits@4, MAP@10, MRR@10 over queries: ``retrieved`` texts (best first) and the
    gold ``facts`` per query (queries without facts are skipped, as its script skips null queries).

    Returns the four means, ``n``, and ``per_query`` lists of each (for paired statistics)."""
    per: dict[str, list[float]] = {"Hits@10": [], "Hits@4": [], "MAP@10": [], "MRR@10": []}
    for texts, gold in zip(retrieved, facts):
        if not gold:
            continue
        g = [_norm(x) for x in gold]
        found: list[str] = []
        ap, first, h4, h10 = 0.0, None, False, False
        for rank, t in enumerate(texts[:10], start=1):
            t = _norm(t)
            if not any(x in t for x in g):
                continue
            h10 = True
            h4 = h4 or rank <= 4
            first = first or rank
            count = 0
            for x in g:  # as its script: a fact counts once, at the first rank that holds it
                if x in t and x not in found:
                    count += 1
                    found.append(x)
            ap += count / rank
        per["Hits@10"].append(float(h10))
        per["Hits@4"].append(float(h4))
        per["MAP@10"].append(ap / min(len(g), 10))
        per["MRR@10"].append(1.0 / first if first else 0.0)
    n = len(per["Hits@10"])
    out: dict[str, Any] = {k: (sum(v) / n if n else float("nan")) for k, v in per.items()}
    out["n"] = n
    out["per_query"] = per
    return out
