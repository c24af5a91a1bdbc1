"""Policies: the budget is never exceeded, max_hops=1 equals single-hop, and a two-hop chain needs two hops."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data import Corpus, Queries
from hcrbench.errors import InputError
from hcrbench.retrieve import make_retriever
from hcrbench.retrieve.policy import Policy, run_policy

# The answer to "who approved the travel rule change?" is in d_bridge's target: the question names the change,
# the change record (d_change) names its decision DEC-0042 but not the approver, and only the decision record
# (d_decision) names the approver. d_decision shares no word with the question.
FILLER = ["Quarterly revenue grew in the northern region.", "The cafeteria menu changes every Monday.",
          "Printers on floor three need new toner.", "The parking garage closes at midnight.",
          "Travel bookings go through the portal.", "Change requests are logged weekly.",
          "The approval workflow has three steps.", "Rule books are stored on the wiki."]


def two_hop_corpus(n_filler: int = 30, seed: int = 0) -> tuple[Corpus, Queries]:
    rng = random.Random(seed)
    ids, texts = ["d_change", "d_decision"], [
        "Change notice: the travel rule change for economy flights was recorded under decision DEC-0042.",
        "DEC-0042 was signed off by Priya Raman, Chief Financial Officer, on 3 March.",
    ]
    for i in range(n_filler):
        ids.append(f"f{i:03d}")
        texts.append(" ".join(rng.sample(FILLER, 3)))
    return Corpus(ids, texts, name="two-hop"), Queries(["q1"], ["who approved the travel rule change"])


def bm25(corpus: Corpus):
    r = make_retriever("bm25", stemmer="none", cache=False)
    r.index(corpus)
    return r


def test_two_hop_chain_needs_two_hops() -> None:
    corpus, queries = two_hop_corpus()
    r = bm25(corpus)
    one = run_policy(r, corpus, queries, Policy(max_hops=1, total_budget=5))
    two = run_policy(r, corpus, queries, Policy(max_hops=2, total_budget=5, chunks_per_hop=2))
    assert "d_change" in one.run["q1"]
    assert "d_decision" not in one.run["q1"]  # unreachable in one hop: no shared word with the question
    assert "d_decision" in two.run["q1"]
    assert two.expansions["q1"][0][0] == "DEC-0042"  # the identifier is the first expansion
    assert two.costs["q1"].hops_used == 2
    assert two.costs["q1"].retrieval_passes == 1 + len(two.expansions["q1"][0])
    assert one.costs["q1"].retrieval_passes == 1 and one.costs["q1"].hops_used == 1
    assert two.costs["q1"].embedding_calls == 0  # BM25 encodes nothing


def test_max_hops_one_is_single_hop() -> None:
    corpus, queries = two_hop_corpus(60, seed=3)
    queries = Queries(["q1", "q2", "q3"], ["who approved the travel rule change", "printers toner floor",
                                           "parking garage revenue"])
    r = bm25(corpus)
    a = run_policy(r, corpus, queries, Policy(max_hops=1, total_budget=7))
    b = run_policy(r, corpus, queries, Policy(max_hops=1, total_budget=7, chunks_per_hop=2,
                                              budget_multiplier=1.5))
    assert a.run.to_dict() == b.run.to_dict()
    assert [a.run.ranked(q) for q in a.run] == [b.run.ranked(q) for q in b.run]


def test_final_order_is_original_score() -> None:
    corpus, queries = two_hop_corpus()
    r = bm25(corpus)
    two = run_policy(r, corpus, queries, Policy(max_hops=2, total_budget=8, chunks_per_hop=2))
    full = r.search(queries, k=len(corpus)).run["q1"]
    for d, s in two.run["q1"].items():
        assert s == pytest.approx(full.get(d, 0.0))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), budget=st.integers(1, 12), hops=st.integers(1, 4),
       per_hop=st.integers(1, 6), mult=st.sampled_from([1.0, 1.5, 2.0]), n=st.integers(3, 40))
def test_chunks_examined_never_exceed_budget(seed, budget, hops, per_hop, mult, n) -> None:
    rng = random.Random(seed)
    words = ["alpha", "beta", "Gamma Ray", "DEC-0001", "DEC-0002", "INC-7", "Priya Raman", "travel", "rule",
             "budget", "Helix HRIS", "team", "lead"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(2, 12))) for _ in range(n)]
    corpus = Corpus([f"d{i}" for i in range(n)], texts)
    queries = Queries(["a", "b"], ["alpha travel rule", "who leads the team"])
    r = bm25(corpus)
    p = Policy(max_hops=hops, total_budget=budget, chunks_per_hop=per_hop, budget_multiplier=mult)
    res = run_policy(r, corpus, queries, p)
    for q in ("a", "b"):
        c = res.costs[q]
        assert c.chunks_examined <= p.examined_budget
        assert c.chunks_examined <= len(corpus)
        assert len(res.run[q]) <= budget if q in res.run else True
        assert 1 <= c.hops_used <= hops
        assert all(len(e) <= 5 for e in res.expansions[q])
        flat = [x.lower() for e in res.expansions[q] for x in e]
        assert len(flat) == len(set(flat))  # no expansion query asked twice
    # deterministic: the same inputs give the same run
    again = run_policy(r, corpus, queries, p)
    assert again.run.to_dict() == res.run.to_dict()


def test_policy_names_and_validation() -> None:
    assert Policy(max_hops=2, total_budget=15).name == "2-hop@15"
    assert Policy.parse("2-hop@15x1.5").examined_budget == 22
    assert Policy.parse("1-hop@10").name == "1-hop@10"
    for bad in ("two-hop", "0-hop@5"):
        with pytest.raises(InputError):
            Policy.parse(bad)
    with pytest.raises(InputError):
        Policy(max_expansions=6)
    with pytest.raises(InputError):
        Policy(expander="nope")


class BagOfWords:
    """A deterministic hashed bag-of-words encoder (no weights) that records what it encodes."""

    model_id = "test-bow"
    dim = 2048

    def __init__(self) -> None:
        self.texts_seen: list[str] = []

    def encode(self, texts):
        import hashlib
        import re

        import numpy as np

        self.texts_seen.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                out[i, int(hashlib.sha256(w.encode()).hexdigest(), 16) % self.dim] += 1.0
            n = np.linalg.norm(out[i])
            if n:
                out[i] /= n
        return out


def test_dense_counts_one_embedding_call_per_pass_even_when_cached() -> None:
    corpus, queries = two_hop_corpus()
    enc = BagOfWords()
    r = make_retriever("dense", encoder=enc)
    r.index(corpus)
    p = Policy(max_hops=2, total_budget=5, chunks_per_hop=2)
    for _ in range(2):  # the second run finds every query embedding in the cache
        res = run_policy(r, corpus, queries, p)
        c = res.costs["q1"]
        assert res.encodes_queries and c.embedding_calls == c.retrieval_passes > 1
    assert "DEC-0042" in enc.texts_seen  # the expansion query was really embedded (the first time)
