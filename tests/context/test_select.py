"""Budgeted selection: never over budget, greedy semantics (skip vs stop), MMR / submodular behaviour."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.context import Candidate, adaptive_beta, greedy, mmr, select, submodular
from hcrbench.errors import InputError


def _cands(tokens: list[int]) -> list[Candidate]:
    return [Candidate(f"c{i}", f"d{i}", 0, 1, f"text {i}", t, float(len(tokens) - i), i)
            for i, t in enumerate(tokens)]


def _sims(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    v = rng.random((n, 4))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    q = rng.random(4)
    q /= np.linalg.norm(q)
    return v @ q, np.clip(v @ v.T, 0, 1)


token_lists = st.lists(st.integers(min_value=0, max_value=300), min_size=0, max_size=40)


@settings(max_examples=200, deadline=None)
@given(tokens=token_lists, budget=st.integers(min_value=0, max_value=1500), seed=st.integers(0, 10**6),
       method=st.sampled_from(["greedy", "greedy-stop", "mmr", "submodular"]))
def test_selection_never_exceeds_budget(tokens, budget, seed, method):
    cands = _cands(tokens)
    sims = _sims(len(cands), seed)
    stop = method == "greedy-stop"
    sel = select("q", cands, budget, method.removesuffix("-stop"), token_counter="cl100k", sims=sims,
                 stop_at_overflow=stop)
    assert sel.n_tokens <= budget
    ids = sel.chunk_ids
    assert len(ids) == len(set(ids))  # no chunk twice
    assert set(ids) <= {c.chunk_id for c in cands}


@settings(max_examples=200, deadline=None)
@given(tokens=token_lists, budget=st.integers(min_value=0, max_value=1500))
def test_greedy_fills_until_nothing_fits(tokens, budget):
    cands = _cands(tokens)
    chosen = greedy(cands, budget)
    left = budget - sum(c.n_tokens for c in chosen)
    # every skipped chunk did not fit at the moment it was considered, so it does not fit now either
    assert all(c.n_tokens > left for c in cands if c not in chosen)
    # chosen chunks keep rank order
    assert [c.rank for c in chosen] == sorted(c.rank for c in chosen)


def test_greedy_skip_versus_stop_at_first_overflow():
    cands = _cands([80, 50, 20, 10])
    assert [c.chunk_id for c in greedy(cands, 100)] == ["c0", "c2"]
    assert [c.chunk_id for c in greedy(cands, 100, stop_at_overflow=True)] == ["c0"]
    assert [c.chunk_id for c in greedy(cands, None)] == ["c0", "c1", "c2", "c3"]


def test_skip_greedy_is_not_nested_in_budget_but_stop_greedy_is():
    # Why monotonicity is claimed for the stop variant only: a bigger budget can admit a big chunk that then
    # crowds out a small one the smaller budget had picked.
    cands = _cands([8, 5, 2])
    assert {c.chunk_id for c in greedy(cands, 10)} == {"c0", "c2"}
    assert {c.chunk_id for c in greedy(cands, 13)} == {"c0", "c1"}
    for b in range(0, 16):
        small = {c.chunk_id for c in greedy(cands, b, stop_at_overflow=True)}
        big = {c.chunk_id for c in greedy(cands, b + 1, stop_at_overflow=True)}
        assert small <= big


def test_mmr_lambda_one_is_relevance_order_and_zero_avoids_duplicates():
    cands = _cands([10, 10, 10])
    sim_q = np.array([0.9, 0.85, 0.3])
    sim_cc = np.array([[1.0, 0.99, 0.0], [0.99, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert [c.chunk_id for c in mmr(cands, 20, sim_q, sim_cc, lam=1.0)] == ["c0", "c1"]
    # with diversity weighted in, the near-duplicate c1 loses to the distinct c2
    assert [c.chunk_id for c in mmr(cands, 20, sim_q, sim_cc, lam=0.5)] == ["c0", "c2"]
    with pytest.raises(InputError):
        mmr(cands, 20, sim_q, sim_cc, lam=1.5)


def test_submodular_stops_when_no_gain_is_positive_and_prefers_cheap_relevant_chunks():
    cands = _cands([10, 10, 40])
    sim_q = np.array([0.5, 0.5, 0.6])
    sim_cc = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    # beta = 1: after c0 the duplicate c1 has gain 0.5 - 1.0 < 0; c2 is still positive
    chosen = submodular(cands, None, sim_q, sim_cc, alpha=1.0, beta=1.0)
    assert [c.chunk_id for c in chosen] == ["c0", "c2"]
    # beta = 0: pure relevance per token, everything fits unconstrained
    assert len(submodular(cands, None, sim_q, sim_cc, alpha=1.0, beta=0.0)) == 3
    # gain per token: the 10-token chunks come before the 40-token one
    assert submodular(cands, 15, sim_q, sim_cc, beta=0.0)[0].chunk_id == "c0"


def test_adaptive_beta_rule():
    tokens = np.array([100] * 10)
    sim_q = np.full(10, 0.4)
    sim_cc = np.full((10, 10), 0.2)
    np.fill_diagonal(sim_cc, 1.0)
    # B = 400 holds k = 4 average chunks: the average gain 0.4 - beta * m * 0.2 is zero at m = 3
    beta = adaptive_beta(sim_q, sim_cc, tokens, 400)
    assert beta == pytest.approx(0.4 / (0.2 * 3))
    assert adaptive_beta(sim_q, np.eye(10), tokens, 400) == 0.0  # nothing redundant: no penalty
    # with identical chunks, the selection stops after about k chunks, not at the budget
    chosen = submodular(_cands([100] * 10), 400, sim_q, sim_cc)
    assert 1 <= len(chosen) <= 4


def test_bad_budget_and_method():
    with pytest.raises(InputError):
        greedy(_cands([1]), -1)
    with pytest.raises(InputError):
        select("q", _cands([1]), 10, "best", token_counter="cl100k")
    with pytest.raises(InputError):
        select("q", _cands([1]), 10, "mmr", token_counter="cl100k")


@settings(max_examples=200, deadline=None)
@given(tokens=token_lists, budget=st.one_of(st.none(), st.integers(min_value=0, max_value=1500)),
       stop=st.booleans())
def test_greedy_positions_equals_greedy(tokens, budget, stop):
    from hcrbench.context import greedy_positions

    cands = _cands(tokens)
    want = [c.rank for c in greedy(cands, budget, stop_at_overflow=stop)]
    assert greedy_positions(tokens, budget, stop_at_overflow=stop) == want


def test_positions_equal_expand(meridian):
    from hcrbench.context import ChunkIndex
    from hcrbench.data.beir import read_corpus
    from hcrbench.data.chunking import chunk_corpus

    index = ChunkIndex(chunk_corpus(read_corpus(meridian / "corpus.jsonl"), max_tokens=64, overlap=0))
    rng = np.random.default_rng(0)
    docs = list(index.by_doc)
    for _ in range(30):
        ranked = [(docs[i], float(-n)) for n, i in enumerate(rng.choice(len(docs), 40, replace=False))]
        ranked.insert(3, ("unknown-doc", -2.5))
        ranked.insert(5, (index.chunked.corpus.doc_ids[index.by_doc[ranked[0][0]][0]], -4.5))  # a chunk id again
        for limit in (1, 7, 100, None):
            cands = index.expand(ranked, limit)
            pos, scores = index.positions(ranked, limit)
            assert [c.chunk_id for c in cands] == [index.chunked.corpus.doc_ids[p] for p in pos]
            assert [c.score for c in cands] == scores.tolist()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_run_positions_equal_positions_per_query(data):
    """The whole-run vectorised expansion gives each query exactly what positions(run.ranked(q)) gives, including
    float32 score ties (doc id descending), unknown documents and documents without chunks."""
    from hcrbench.context import ChunkIndex
    from hcrbench.data.chunking import chunk_corpus
    from hcrbench.data.types import Corpus, Run

    n_docs = data.draw(st.integers(1, 12))
    words = [" ".join(["word"] * data.draw(st.integers(0, 60))) + "." for _ in range(n_docs)]
    corpus = Corpus([f"d{i}" for i in range(n_docs)], words, [""] * n_docs, [{} for _ in range(n_docs)])
    index = ChunkIndex(chunk_corpus(corpus, max_tokens=16, overlap=0))
    ids = [*corpus.doc_ids, "ghost"]
    score = st.sampled_from([0.0, 1.0, 1.0 + 1e-9, 2.5, -3.0, 7.25])
    ranked = {f"q{j}": data.draw(st.dictionaries(st.sampled_from(ids), score, max_size=len(ids)))
              for j in range(data.draw(st.integers(1, 4)))}
    run = Run.from_dict(ranked)
    limit = data.draw(st.sampled_from([1, 3, 10, None]))
    got = index.run_positions(run, limit)
    for q in run.query_ids:
        pos, sc = index.positions(run.ranked(q), limit)
        assert got[q][0].tolist() == pos.tolist() and got[q][1].tolist() == sc.tolist()


# ---- the harness's selection signals: the ranking's rank gain against the text already delivered

spans = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 400), st.integers(1, 200), st.integers(1, 300)),
                 min_size=0, max_size=30)


def _span_cands(rows: list[tuple[int, int, int, int]]) -> list[Candidate]:
    return [Candidate(f"u{i}", f"d{d}", s, s + n, "x" * n, t, 0.0, i) for i, (d, s, n, t) in enumerate(rows)]


def test_rank_gain_and_delivered_overlap():
    from hcrbench.context import delivered_overlap, rank_gain

    assert rank_gain(3) == pytest.approx([1.0, 1 / np.log2(3), 0.5])
    cands = [Candidate("a", "D", 0, 100, "", 10, 0.0, 0), Candidate("b", "D", 75, 125, "", 10, 0.0, 1),
             Candidate("c", "E", 0, 100, "", 10, 0.0, 2), Candidate("s", "", 0, 0, "summary", 10, 0.0, 3)]
    red = delivered_overlap(cands)
    # a delivers 25 of b's 50 characters, b 25 of a's 100; another document and a summary share nothing
    assert red[0, 1] == pytest.approx(0.5) and red[1, 0] == pytest.approx(0.25)
    assert not red[2].any() and not red[:, 2].any() and not red[3].any() and not red[:, 3].any()
    assert not np.diag(red).any()


@settings(max_examples=200, deadline=None)
@given(rows=spans, budget=st.integers(0, 1500), method=st.sampled_from(["mmr", "submodular"]))
def test_ranking_signals_keep_the_ranking_where_no_text_repeats(rows, budget, method):
    """Units that share no text (no two spans of one document overlap) are selected as greedy selects them, so a
    ranking that hands over the right passages first keeps them under every selection."""
    from hcrbench.context import ranking_signals

    seen: list[tuple[int, int, int]] = []
    kept = []
    for d, s, n, t in rows:
        if all(d != d2 or s + n <= s2 or s2 + n2 <= s for d2, s2, n2 in seen):
            seen.append((d, s, n))
            kept.append((d, s, n, t))
    cands = _span_cands(kept)
    sel = select("q", cands, budget, method, token_counter="cl100k", sims=ranking_signals(cands), beta=1.0,
                 per_token=False)
    assert sel.chunk_ids == [c.chunk_id for c in greedy(cands, budget)]


@settings(max_examples=200, deadline=None)
@given(rows=spans, budget=st.one_of(st.none(), st.integers(0, 1500)))
def test_ranking_signals_skip_a_unit_whose_text_is_delivered(rows, budget):
    """Under the ranking's signals (beta = alpha, by marginal gain) submodular never delivers a unit whose text
    the context already holds whole, and keeps a unit only while its rank gain exceeds the share delivered."""
    from hcrbench.context import delivered_overlap, rank_gain, ranking_signals

    cands = _span_cands(rows)
    chosen = submodular(cands, budget, *ranking_signals(cands), beta=1.0, per_token=False)
    red, gain = delivered_overlap(cands), rank_gain(len(cands))
    for k, c in enumerate(chosen):
        before = [p.rank for p in chosen[:k]]
        assert red[before, c.rank].sum() < gain[c.rank]
    dup = [Candidate("a", "D", 0, 100, "", 10, 0.0, 0), Candidate("b", "D", 10, 60, "", 10, 0.0, 1),
           Candidate("c", "D", 100, 200, "", 10, 0.0, 2)]
    assert [c.chunk_id for c in submodular(dup, None, *ranking_signals(dup), beta=1.0, per_token=False)] == \
        ["a", "c"]
