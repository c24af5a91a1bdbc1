"""Fairness: the rerank baseline reranks as many candidates as HCR's cascade considered, read from HCR's log."""

from __future__ import annotations

import pytest

from hcrbench.data.tree import read_routing_log
from hcrbench.errors import InputError
from hcrbench.retrieve import make_retriever
from hcrbench.retrieve.hcr.hashenc import HashingEncoder


def test_rerank_matches_hcrs_candidates_per_query(clusters, tmp_path):
    corpus, queries, _, _ = clusters
    log = tmp_path / "hcr.routing.jsonl"
    hcr = make_retriever("hcr", backend="hash", chunk_tokens=0, depth=2, branching=4, cache=False,
                         target_pool=6, mode="beam", links=False, log_path=str(log))
    hcr.index(corpus)
    hcr.search(queries, 10)
    want = {r.query_id: r.chunks_scored for r in read_routing_log(log)}
    assert len(set(want.values())) > 1 or min(want.values()) < len(corpus)

    bm25 = make_retriever("bm25", cache=False)
    bm25.index(corpus)
    first = bm25.search(queries, 100)
    have = {q: len(first.run.ranked(q)) for q in queries.query_ids}  # BM25 returns only matching documents
    first_cost = first.costs.counters.get("docs_scored", 0)

    def baseline(**kw):
        r = make_retriever("rerank", first=make_retriever("bm25", cache=False), encoder=HashingEncoder(),
                           cache=False, **kw)
        r.index(corpus)
        res = r.search(queries, 20)
        return r, res.costs.counters["docs_scored"] - first_cost  # what the reranker scored

    per_q, n = baseline(top_n_from=str(log))
    assert n == sum(min(want[q], have[q]) for q in want)
    assert per_q.params["top_n_from"] == str(log) and per_q.params["top_n"] == max(want.values())
    mean_r, n_mean = baseline(top_n_from=str(log), top_n_match="mean")
    mean = round(sum(want.values()) / len(want))
    assert mean_r.top_n == mean and n_mean == sum(min(mean, have[q]) for q in want)
    _, n_fixed = baseline(top_n=3)  # the control: a fixed top_n ignores the log
    assert n_fixed == sum(min(3, have[q]) for q in want)
    rr, _ = baseline(top_n_from=str(log), top_n_field="reranked")
    assert rr.top_n == max(r.reranked for r in read_routing_log(log))


def test_missing_log_is_a_one_line_error(tmp_path):
    with pytest.raises(InputError) as ei:
        make_retriever("rerank", first=make_retriever("bm25", cache=False), encoder=HashingEncoder(),
                       top_n_from=str(tmp_path / "nope.jsonl"))
    assert ei.value.field == "top_n_from" and "\n" not in str(ei.value)
    with pytest.raises(InputError) as ei:
        make_retriever("rerank", first=make_retriever("bm25", cache=False), encoder=HashingEncoder(),
                       top_n_match="median")
    assert ei.value.field == "top_n_match"
