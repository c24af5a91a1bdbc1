"""Delivery of a document ranking (hcrbench.context.delivery): round robin across documents, best passage first
within one, and what it buys a perfect ranking; the old import names still work."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.context import select
from hcrbench.context.delivery import best_passage_first, document_delivery, round_robin


@st.composite
def ranking(draw):
    """Chunk positions grouped by document in rank order (each document a contiguous block of positions, blocks
    in a random rank order), with one passage score per position."""
    sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=8))
    starts = np.cumsum([0, *sizes[:-1]])
    rank = draw(st.permutations(range(len(sizes))))
    pos = np.concatenate([np.arange(starts[d], starts[d] + sizes[d]) for d in rank]).astype(np.int64)
    doc_of = np.repeat(np.arange(len(sizes)), sizes).astype(np.int64)
    scores = np.array(draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9]), min_size=len(pos), max_size=len(pos))))
    return pos, doc_of, scores, list(rank)


@settings(max_examples=150, deadline=None)
@given(ranking())
def test_round_robin_gives_every_documents_best_passage_before_any_second(case):
    pos, doc_of, scores, rank = case
    order = round_robin(pos, doc_of, scores)
    assert sorted(order.tolist()) == list(range(len(pos)))  # a permutation: nothing lost, nothing repeated
    docs = doc_of[pos[order]]
    seen: dict[int, int] = {}
    rounds = []
    for d in docs:
        rounds.append(seen.get(int(d), 0))
        seen[int(d)] = seen.get(int(d), 0) + 1
    assert rounds == sorted(rounds)  # round r (the r-th passage of each document) before round r + 1
    for r in set(rounds):  # within a round, documents in rank order
        in_round = [int(d) for d, k in zip(docs, rounds) if k == r]
        assert in_round == [d for d in rank if d in in_round]
    # a document's passages keep the best-passage-first order (higher score first, text order on ties)
    bpf = best_passage_first(pos, doc_of, scores)
    for d in set(docs.tolist()):
        assert [int(i) for i in order if doc_of[pos[i]] == d] == [int(i) for i in bpf if doc_of[pos[i]] == d]


def test_round_robin_on_an_example():
    pos = np.array([10, 11, 12, 3, 4])  # doc A (chunks 10-12) ranked first, then doc B (3-4)
    doc_of = np.zeros(20, dtype=np.int64)
    doc_of[3:5] = 1
    order = round_robin(pos, doc_of, np.array([0.1, 0.9, 0.1, 0.0, 0.5]))
    assert pos[order].tolist() == [11, 4, 10, 3, 12]
    assert round_robin(np.zeros(0, dtype=np.int64), doc_of, np.zeros(0)).size == 0


@settings(max_examples=60, deadline=None)
@given(n_docs=st.integers(1, 6), n_chunks=st.integers(1, 4), extra=st.integers(0, 5))
def test_a_perfect_ranking_fills_the_budget_with_one_passage_per_top_document(n_docs, n_chunks, extra):
    """When each relevant document's best passage states its fact and the budget holds one passage per relevant
    document, a perfect ranking (the relevant documents first) gives a context with every one of them: the
    property that document-by-document delivery lacked (it spent the budget on the first document)."""
    from hcrbench.context import ChunkIndex
    from hcrbench.context.similarity import TfidfSimilarity
    from hcrbench.data.chunking import chunk_corpus
    from hcrbench.data.types import Corpus, Run

    filler = "plain words about nothing in particular here"
    texts, ids = [], []
    for d in range(n_docs + extra):
        ids.append(f"D{d}")
        texts.append(". ".join([f"zebra{d} answer" if (d < n_docs and c == 0) else f"{filler} {c}"
                                for c in range(n_chunks)]) + ".")
    chunked = chunk_corpus(Corpus(ids, texts), max_tokens=12, overlap=0)
    index = ChunkIndex(chunked)
    sim = TfidfSimilarity(chunked.corpus.doc_ids, chunked.corpus.texts)
    query = " ".join(f"zebra{d} answer" for d in range(n_docs))
    run = Run.from_ranked({"q": [(f"D{d}", float(100 - d)) for d in range(n_docs + extra)]})
    qv = dict(zip(["q"], sim.query_vectors([query])))
    dl = document_delivery(run, index, sim, qv, ["q"], 1000, "chunks-12")
    best = {f"D{d}": max(int(index.tokens[i]) for i in index.by_doc[f"D{d}"]) for d in range(n_docs)}
    sel = select("q", dl.candidates["q"], sum(best.values()), "greedy", token_counter=index.counter)
    got = {c.doc_id for c in sel.chunks if "zebra" in c.text}
    assert got == {f"D{d}" for d in range(n_docs)}


def test_old_import_names_still_work():
    from hcrbench.context import delivery
    from hcrbench.context.candidates import best_passage_first as old
    from hcrbench.experiment import context_deliver

    assert old is delivery.best_passage_first
    for name in ("Delivery", "UnitSet", "document_delivery", "unit_delivery", "make_unit_set", "spans_unit_set",
                 "PASSAGE_SCORER", "chunking_unit_set", "context_unit_set", "load_units", "load_unit_set"):
        assert getattr(context_deliver, name) is getattr(delivery, name)
