"""alpha-nDCG@k (Clarke et al., SIGIR 2008) over subtopic qrels, as ndeval (TREC Web diversity) computes it.

A doc's gain at rank i is ``sum over the query's subtopics s of J(d, s) * (1 - alpha)^c_s``, with ``J`` binary
(grade >= the threshold) and ``c_s`` the number of docs above it already relevant to ``s``; DCG discounts by
``log2(1 + i)``. The ideal DCG is ndeval's greedy ideal ranking of the judged docs (at each rank the doc with the
largest gain given those above). Queries whose subtopics have no relevant doc score 0. The run is ranked in
trec_eval order (score as float32 descending, then doc id descending).
"""

from __future__ import annotations

import math
from typing import Any

from hcrbench.data.interop import as_run
from hcrbench.data.subtopics import SubtopicQrels
from hcrbench.errors import InputError


def _gains(docs: list[str], rel: dict[str, set[str]], alpha: float, k: int) -> list[float]:
    seen: dict[str, int] = {}
    out = []
    for d in docs[:k]:
        subs = rel.get(d, set())
        out.append(sum((1.0 - alpha) ** seen.get(s, 0) for s in subs))
        for s in subs:
            seen[s] = seen.get(s, 0) + 1
    return out


def _ideal(rel: dict[str, set[str]], alpha: float, k: int) -> list[float]:
    pool = sorted(rel)
    seen: dict[str, int] = {}
    out = []
    while pool and len(out) < k:
        best, best_gain = 0, -1.0
        for i, d in enumerate(pool):
            g = sum((1.0 - alpha) ** seen.get(s, 0) for s in rel[d])
            if g >= best_gain:  # ndeval keeps the last doc of equal gain
                best, best_gain = i, g
        d = pool.pop(best)
        out.append(best_gain)
        for s in rel[d]:
            seen[s] = seen.get(s, 0) + 1
    return out


def _dcg(gains: list[float]) -> float:
    return sum(g / math.log2(i + 2.0) for i, g in enumerate(gains))


def alpha_ndcg(subtopics: SubtopicQrels | dict, run: Any, k: int, alpha: float = 0.5,
               threshold: int = 1) -> dict[str, float]:
    """``{qid: alpha-nDCG@k}`` for every query of ``subtopics`` (queries missing from the run score 0).

    ``subtopics``: :class:`SubtopicQrels` or ``{qid: {doc: {subtopic: grade}}}``; ``run``: a
    :class:`~hcrbench.data.Run`, ``{qid: {doc: score}}`` or a run path; ``alpha`` in [0, 1).
    """
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InputError(f"cutoff must be a positive integer, got {k!r}", field="k")
    if not 0.0 <= alpha < 1.0:
        raise InputError(f"must be in [0, 1), got {alpha!r}", field="alpha")
    if not isinstance(subtopics, SubtopicQrels):
        subtopics = SubtopicQrels.from_dict(subtopics)
    run = as_run(run)  # a Run, dict, path, ranx Run, DataFrame, ScoredDoc records (hcrbench.data.interop)
    present = set(run.query_ids)
    ranked = {q: [d for d, _ in run.ranked(q)[:k]] for q in subtopics.query_ids if q in present}
    out = {}
    for qid, docs in subtopics.judgments.items():
        rel = {d: {s for s, g in subs.items() if g >= threshold} for d, subs in docs.items()}
        rel = {d: s for d, s in rel.items() if s}
        ideal = _dcg(_ideal(rel, alpha, k))
        out[qid] = _dcg(_gains(ranked.get(qid, []), rel, alpha, k)) / ideal if ideal > 0 else 0.0
    return out
