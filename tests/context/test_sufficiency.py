"""Sufficiency@B judgements: evidence coverage, answer containment, relevant-passage proxy, and helpers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.context import Candidate, ChunkIndex, greedy
from hcrbench.data.beir import read_corpus
from hcrbench.data.chunking import chunk_corpus
from hcrbench.data.evidence import QueryEvidence, parse_evidence, read_evidence
from hcrbench.data.tokens import default_counter
from hcrbench.metrics.sufficiency import (
    answer_containment,
    covered_facts,
    detection,
    evidence_coverage,
    failure_band,
    is_budget_feasible,
    relevant_passage,
    token_efficiency,
)
from hcrbench.stats.mcnemar import mcnemar_exact

TEXT = "Alpha is red. Beta is blue. Gamma is green. Delta is gold."


def _ev(obj: dict) -> QueryEvidence:
    return parse_evidence(obj, Path("evidence.jsonl"), 1)


def _chunk(doc: str, s: int, e: int, n: int = 5) -> Candidate:
    return Candidate(f"{doc}#{s}", doc, s, e, TEXT[s:e], n, 1.0, 0)


HAND = {"query_id": "q", "facts": ["F1", "F2"],
        "evidence": [{"doc_id": "d", "start": 0, "end": 13, "fact_id": "F1"},
                     {"doc_id": "e", "start": 0, "end": 13, "fact_id": "F1"},
                     {"doc_id": "d", "start": 28, "end": 43, "fact_id": "F2"}],
        "answer": ["red", "GREEN"]}


def test_evidence_coverage_needs_every_fact_but_any_statement_of_it():
    ev = _ev(HAND)
    assert not evidence_coverage([_chunk("d", 0, 13)], ev)  # F2 missing
    assert covered_facts([_chunk("d", 0, 13)], ev) == ["F1"]
    assert evidence_coverage([_chunk("d", 0, 13), _chunk("d", 28, 43)], ev)
    assert evidence_coverage([_chunk("e", 0, 13), _chunk("d", 28, 43)], ev)  # F1 from its other statement
    assert not evidence_coverage([_chunk("d", 0, 12), _chunk("d", 28, 43)], ev)  # span cut short
    assert not evidence_coverage([_chunk("x", 0, 13), _chunk("d", 28, 43)], ev)  # wrong document


def test_coverage_across_adjacent_chunks_bridges_only_whitespace():
    ev = _ev({"query_id": "q", "evidence": [{"doc_id": "d", "start": 0, "end": 27}]})  # two sentences
    parts = [_chunk("d", 0, 13), _chunk("d", 14, 27)]
    assert not evidence_coverage(parts, ev)  # without the text the gap cannot be checked
    assert evidence_coverage(parts, ev, {"d": TEXT})
    assert not evidence_coverage([_chunk("d", 0, 12), _chunk("d", 14, 27)], ev, {"d": TEXT})


def test_answer_containment_and_relevant_passage():
    assert answer_containment("Alpha is  RED and gamma is green.", ["red", "GREEN"]) is True
    assert answer_containment("Alpha is red.", ["red", "green"]) is False
    assert answer_containment("x", None) is None
    assert answer_containment("ﬁve", "five") is True  # NFKC folds the ligature
    assert relevant_passage([_chunk("d", 0, 5)], ["d"]) and not relevant_passage([_chunk("d", 0, 5)], ["e"])


def test_failure_bands_and_detection():
    assert [failure_band(x) for x in (0.05, 0.15, 0.25, 0.31)] == ["good", "acceptable", "concerning", "kill"]
    d = detection({"a": True, "b": True, "c": False, "d": False}, {"a": False, "b": True, "c": False, "d": True})
    assert (d.true_positive, d.false_positive, d.false_negative) == (1, 1, 1)
    assert d.precision == 0.5 and d.recall == 0.5
    assert detection({"a": False}, {"a": True}).precision is None


def test_token_efficiency():
    flat = {200: 0.2, 400: 0.3, 600: 0.5, 800: 0.6}
    hcr = {200: 0.3, 400: 0.5, 600: 0.6}
    t = token_efficiency(flat, hcr, 400)
    assert t == {"target": 0.5, "budget": 600, "ratio": 1.5}
    assert token_efficiency(flat, {400: 0.9})["budget"] is None
    assert token_efficiency(flat, {200: 0.9})["target"] is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_mcnemar_matches_statsmodels(pairs):
    from statsmodels.stats.contingency_tables import mcnemar

    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    table = [[int(np.sum(a & b)), int(np.sum(a & ~b))], [int(np.sum(~a & b)), int(np.sum(~a & ~b))]]
    ref = mcnemar(table, exact=True).pvalue
    r = mcnemar_exact(a, b)
    assert r.pvalue == pytest.approx(ref, abs=1e-12)
    assert (r.a_only, r.b_only) == (table[0][1], table[1][0])


# ------------------------------------------------------------------------------------------------ on Meridian


def _meridian_index(meridian: Path):
    corpus = read_corpus(meridian / "corpus.jsonl")
    chunked = chunk_corpus(corpus, max_tokens=64, overlap=0)
    return corpus, ChunkIndex(chunked), read_evidence(meridian / "evidence.jsonl")


def test_oracle_context_from_minimal_evidence_is_sufficient_at_its_own_token_count(meridian):
    corpus, index, evidence = _meridian_index(meridian)
    texts = dict(zip(corpus.doc_ids, corpus.texts))
    counter = default_counter()
    answerable = {q: e for q, e in evidence.items() if e.facts}
    assert len(answerable) >= 100
    for qid, ev in answerable.items():
        # 1) the minimal spans themselves as the candidates
        spans = [Candidate(f"m{i}", s.doc_id, s.start, s.end, texts[s.doc_id][s.start:s.end],
                           counter.count(texts[s.doc_id][s.start:s.end]), 1.0, i) for i, s in enumerate(ev.minimal)]
        own = sum(c.n_tokens for c in spans)
        assert evidence_coverage(greedy(spans, own), ev), qid
        # 2) the chunks holding the minimal spans, ranked first: sufficient at exactly their token count
        oracle_ids: list[int] = []
        for s in ev.minimal:
            for i in index.by_doc[s.doc_id]:
                c = index.candidate(i, 1.0, 0)
                if c.start < s.end and s.start < c.end and i not in oracle_ids:
                    oracle_ids.append(i)
        cands = [index.candidate(i, 1.0, r) for r, i in enumerate(oracle_ids)]
        budget = sum(c.n_tokens for c in cands)
        assert evidence_coverage(greedy(cands, budget), ev, texts), qid


def test_sufficiency_is_monotone_in_budget_for_greedy(meridian):
    """Stop-at-first-overflow greedy gives nested contexts, so coverage can only grow with B (per query)."""
    corpus, index, evidence = _meridian_index(meridian)
    texts = dict(zip(corpus.doc_ids, corpus.texts))
    from hcrbench.data.beir import read_queries
    from hcrbench.retrieve import make_retriever

    queries = read_queries(meridian / "queries.jsonl")
    r = make_retriever("bm25")
    r.index(corpus)
    run = r.search(queries, k=20).run
    budgets = [0, 100, 200, 400, 600, 800, 1200, 2000, None]
    rates = []
    for b in budgets:
        covered = []
        for q in run.query_ids:
            cands = index.expand(run.ranked(q), 200)
            if evidence[q].facts:
                covered.append(evidence_coverage(greedy(cands, b, stop_at_overflow=True), evidence[q], texts))
        rates.append(covered)
    arr = np.array(rates)
    assert np.all(arr[1:] >= arr[:-1])  # per query, never lost at a larger budget
    means = arr.mean(axis=1)
    assert means[0] == 0.0 and means[-1] > means[3] > 0.0  # and it actually grows


def test_budget_feasibility_from_record_or_minimal_tokens(meridian):
    ev = _ev({"query_id": "q", "evidence": [{"doc_id": "d", "start": 0, "end": 13, "text": "Alpha is red."}]})
    assert is_budget_feasible(ev, 400) and not is_budget_feasible(ev, 2)
    ev2 = _ev({"query_id": "q", "evidence": [], "minimal_tokens": 500, "budget_feasible": False})
    assert not is_budget_feasible(ev2, 400) and is_budget_feasible(ev2, 600)
    # Meridian 1.1: the generator's own flag in queries.meta.jsonl agrees with counting the spans
    metas = [json.loads(x) for x in (meridian / "queries.meta.jsonl").read_text().splitlines()]
    evidence = read_evidence(meridian / "evidence.jsonl")
    agree = np.mean([is_budget_feasible(evidence[m["query_id"]]) == m["budget_feasible"] for m in metas])
    assert agree > 0.95


_PIECE = st.text(alphabet=st.sampled_from(list("ab Σσςß\u00a0\u0301\u200b\t\nﬁＡ１ ")) | st.characters(),
                 max_size=12)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECE, max_size=6))
def test_pieces_normalised_one_by_one_equal_the_joined_context_normalised(pieces):
    from hcrbench.metrics.sufficiency import normalise, normalise_pieces

    assert normalise_pieces(pieces) == normalise("\n\n".join(pieces))


@settings(max_examples=100, deadline=None)
@given(st.lists(_PIECE, max_size=5), _PIECE)
def test_answer_containment_reads_pieces_as_the_joined_text(pieces, answer):
    assert answer_containment(pieces, answer) == answer_containment("\n\n".join(pieces), answer)
