"""What a system delivers: the cheapest cover of the needed facts (against brute force), best-passage-first
expansion of documents, the unit ranking file, and reading-order context text."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.context import Candidate, Selection
from hcrbench.context.candidates import best_passage_first
from hcrbench.context.units import read_units, unit_rows, write_units
from hcrbench.data.evidence import EvidenceSpan, QueryEvidence
from hcrbench.data.types import Corpus, Run
from hcrbench.errors import InputError
from hcrbench.metrics.sufficiency import cheapest_cover, evidence_coverage

TEXT = "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj"  # ten 4-letter words, 5 characters apart


def _units(doc: str, cuts: list[int], tokens: list[int]) -> list[Candidate]:
    """Consecutive units of ``doc`` cut at word boundaries ``cuts`` (word indices)."""
    bounds = [0, *cuts, 10]
    out = []
    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        out.append(Candidate(f"{doc}#c{i}", doc, 5 * a, 5 * b - 1, TEXT[5 * a:5 * b - 1], tokens[i], 0.0, i))
    return out


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(1, 9), min_size=1, max_size=5, unique=True).map(sorted),
       tok=st.lists(st.integers(1, 30), min_size=6, max_size=6),
       facts=st.lists(st.lists(st.tuples(st.sampled_from("xy"), st.integers(0, 9), st.integers(1, 2)),
                               min_size=1, max_size=2), min_size=1, max_size=3),
       budget=st.one_of(st.none(), st.integers(0, 80)))
def test_cheapest_cover_equals_brute_force_over_unit_subsets(cuts, tok, facts, budget):
    units = _units("x", cuts, tok) + _units("y", [5], tok[:2])
    texts = {"x": TEXT, "y": TEXT}
    spans = []
    for f, alts in enumerate(facts):
        for doc, w, n in alts:
            n = min(n, 10 - w)
            spans.append(EvidenceSpan(doc, 5 * w, 5 * (w + n) - 1, TEXT[5 * w:5 * (w + n) - 1], f"F{f}"))
    ev = QueryEvidence("q", [f"F{f}" for f in range(len(facts))], spans, spans)
    by_doc = {"x": [i for i, u in enumerate(units) if u.doc_id == "x"],
              "y": [i for i, u in enumerate(units) if u.doc_id == "y"]}
    got = cheapest_cover(ev, units, by_doc, budget, texts, max_run=len(units))
    # brute force: the cheapest subset that evidence_coverage accepts (within the budget)
    best = None
    for r in range(len(units) + 1):
        for sub in itertools.combinations(range(len(units)), r):
            cost = sum(units[i].n_tokens for i in sub)
            if (budget is None or cost <= budget) and evidence_coverage([units[i] for i in sub], ev, texts):
                best = cost if best is None else min(best, cost)
    assert got.complete == (best is not None)
    if best is not None:
        assert got.tokens == best
        assert evidence_coverage([units[i] for i in got.units], ev, texts)
    if budget is not None:
        assert got.tokens <= budget


def test_partial_cover_states_the_most_facts_that_fit():
    units = _units("x", [2, 4, 6, 8], [10, 10, 10, 10, 10])
    spans = [EvidenceSpan("x", 0, 4, "aaaa", "F1"), EvidenceSpan("x", 20, 24, "eeee", "F2"),
             EvidenceSpan("x", 45, 49, "jjjj", "F3")]
    ev = QueryEvidence("q", ["F1", "F2", "F3"], spans, spans)
    by_doc = {"x": list(range(5))}
    c = cheapest_cover(ev, units, by_doc, 25, {"x": TEXT})
    assert not c.complete and len(c.facts) == 2 and c.tokens == 20
    assert cheapest_cover(ev, units, by_doc, None, {"x": TEXT}).tokens == 30


def test_best_passage_first_keeps_document_rank_and_orders_passages_by_score():
    pos = np.array([10, 11, 12, 3, 4])  # doc A (chunks 10-12) ranked first, then doc B (3-4)
    doc_of = np.zeros(20, dtype=np.int64)
    doc_of[3:5] = 1
    order = best_passage_first(pos, doc_of, np.array([0.1, 0.9, 0.1, 0.0, 0.5]))
    assert pos[order].tolist() == [11, 10, 12, 4, 3]


def test_unit_file_round_trip_and_bad_line(tmp_path):
    corpus = Corpus(["A#c0", "A#c1", "S1"], ["one two", "three", "a summary"], None,
                    [{"doc_id": "A", "char_start": 0, "char_end": 7}, {"doc_id": "A", "char_start": 8,
                                                                        "char_end": 13}, {}])
    run = Run.from_ranked({"q1": [("A#c1", 2.0), ("S1", 1.5), ("A#c0", 1.0)], "q2": []})
    p = write_units(tmp_path / "logs" / "s.units.jsonl", run, corpus)
    got = read_units(p)
    assert got["q1"] == [("A#c1", "A", 8, 13, 2.0, None), ("S1", None, None, None, 1.5, "a summary"),
                         ("A#c0", "A", 0, 7, 1.0, None)]
    assert got["q2"] == []
    assert [r["query_id"] for r in unit_rows(run, corpus, depth=1)] == ["q1", "q2"]
    p.write_text(json.dumps({"query_id": "q", "units": [["x", None, None, None, 1.0]]}) + "\n")
    with pytest.raises(InputError) as e:
        read_units(p)
    assert e.value.line == 1 and "neither" in str(e.value)


def test_context_text_is_in_reading_order():
    text = "The key is stored in the vault. Rotation is automated."
    a = Candidate("d#c1", "d", 32, 54, text[32:54], 5, 0.9, 0)
    b = Candidate("d#c0", "d", 0, 31, text[0:31], 7, 0.5, 1)
    c = Candidate("e#c0", "e", 0, 5, "Other", 1, 0.4, 2)
    s = Selection("q", 100, "greedy", [a, c, b], "cl100k", 3)
    assert s.text(" ") == f"{text[0:31]} {text[32:54]} Other"


def test_a_retriever_that_exposes_its_units_is_scored_on_them_and_its_declared_unit_set(tmp_path, tiny):
    """The interface for HCR / RAPTOR: ``unit_run`` + ``unit_corpus`` after ``search`` -> the runner keeps them in
    ``logs/<system>.units.jsonl`` (with the unit set), the context step selects from them and counts feasibility
    in them, with no ``chunking`` table on the system."""
    from hcrbench.data.chunking import chunk_corpus
    from hcrbench.data.types import RunResult
    from hcrbench.experiment import run_experiment
    from hcrbench.retrieve import make_retriever
    from hcrbench.retrieve.base import register_retriever

    @register_retriever("test-own-units")
    class OwnUnits:
        def __init__(self) -> None:
            self.inner = make_retriever("bm25")
            self.params = {}

        def index(self, corpus):
            self._c = chunk_corpus(corpus, max_tokens=8, overlap=0)
            self.unit_corpus = self._c.corpus
            self.inner.index(self._c.corpus)

        def search(self, queries, k=100):
            r = self.inner.search(queries, k=4 * k)
            self.unit_run = r.run
            return RunResult(self._c.doc_run(r.run).top_k(k), r.costs)

    cfg = tmp_path / "u.toml"
    cfg.write_text(f'name = "u"\noutput_dir = "u"\nmetrics = ["nDCG@10"]\nk = 5\nn_resamples = 100\n'
                   f'budgets = [12, 40]\n[context]\nchunk_tokens = 8\nreference_budget = 40\n[dataset]\npath = "{tiny}"\n'
                   '[[systems]]\nname = "own"\ntype = "test-own-units"\n')
    res = run_experiment(cfg, progress=False)
    s = res.sufficiency
    e = s["systems"]["own"]
    assert e["delivers"] == "units" and e["unit_set"] == "units:own" and "not declared" not in e["how"]
    from hcrbench.data.beir import read_corpus

    n_units = len(chunk_corpus(read_corpus(tiny / "corpus.jsonl"), max_tokens=8, overlap=0).corpus)
    assert s["feasibility"]["unit_sets"]["units:own"]["params"] == {"declared": n_units}
    assert s["oracle"] == "oracle" and s["systems"]["oracle"]["unit_set"] == "units:own"  # the baseline's units
    assert s["systems"]["oracle"]["rates"]["all"]["evidence_coverage"]["rate"] == 1.0  # covers in its units
    assert s["systems"]["oracle"]["failure_on_feasible"]["rate"] == 0.0
    assert e["mean_tokens"]["12"] <= 12
    rows = [json.loads(x) for x in (tmp_path / "u" / "contexts" / "own.jsonl").read_text().splitlines()]
    assert all("#c" in c for r in rows for c in r["chunks"])
    assert read_units(tmp_path / "u" / "logs" / "own.units.jsonl").keys() == {"q1", "q2", "q3", "q4"}
