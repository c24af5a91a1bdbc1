"""The passage-level perfect control (the harness's gate) and its degraded twin: the order of a query's units
(the units stating the needed facts first, each adding the most facts not yet stated, ties fewer tokens), the
seeded half the degraded control loses, and both rows through ``hcrbench run``."""

from __future__ import annotations

import itertools

from hcrbench.context.delivery import make_unit_set
from hcrbench.data.evidence import EvidenceSpan, QueryEvidence
from hcrbench.data.tokens import get_counter
from hcrbench.data.types import Corpus
from hcrbench.experiment.context_deliver import _fact_order, degraded_queries, passage_rankings


def test_fact_order_takes_most_new_facts_first_then_fewer_tokens_then_unit_order():
    # unit 0 states A; unit 1 states A and B; unit 2 states C; unit 3 states C too but costs less
    items = [(0b001, 10, (0,)), (0b011, 30, (1,)), (0b100, 20, (2,)), (0b100, 5, (3,))]
    assert _fact_order(items, [10, 30, 20, 5]) == [1, 3]
    # equal gain and cost: the smaller unit index first; a unit adding nothing new is left out
    assert _fact_order([(0b01, 5, (4,)), (0b10, 5, (2,)), (0b01, 5, (0,))], [5] * 5) == [0, 2]
    # a run of two units stating a fact together is placed whole, counted once when one is placed already
    assert _fact_order([(0b01, 9, (0,)), (0b10, 18, (0, 1))], [9, 9]) == [0, 1]


def test_fact_order_puts_the_cheapest_covers_units_first():
    """A greedy over every unit takes the unit stating three facts first and needs 400 tokens for the fourth;
    the cheapest cover states all four in 200, and its units come first (each next still adding the most)."""
    items = [(0b0111, 300, (0,)), (0b0011, 100, (1,)), (0b1100, 100, (2,))]
    tokens = [300, 100, 100]
    assert _fact_order(items, tokens) == [0, 2]
    assert _fact_order(items, tokens, {1, 2}) == [1, 2]
    # a fact the cover leaves out is still stated after it
    assert _fact_order([*items, (0b10000, 50, (3,))], [*tokens, 50], {1, 2}) == [1, 2, 3]


def _world():
    texts = {"d1": "Alpha beta gamma delta. The key rotates every quarter. Epsilon zeta eta theta iota.",
             "d2": "Kappa lambda mu nu xi. Backups last thirty days. Omicron pi rho sigma tau."}
    corpus = Corpus(list(texts), list(texts.values()))
    us = make_unit_set("chunks-8", corpus, get_counter(None), {"max_tokens": 8, "overlap": 0})

    def span(d: str, sent: str, f: str) -> EvidenceSpan:
        a = texts[d].index(sent)
        return EvidenceSpan(d, a, a + len(sent), sent, f)

    ev = {"q": QueryEvidence("q", ["F1", "F2"], [span("d1", "The key rotates every quarter.", "F1"),
                                                  span("d2", "Backups last thirty days.", "F2")], [])}
    return texts, us, ev


def test_passage_rankings_put_fact_units_first_then_relevant_documents_by_grade_and_degrade_them():
    from hcrbench.metrics.sufficiency import evidence_coverage

    texts, us, ev = _world()
    good, bad = passage_rankings(us, ev, ["q"], {"q": {"d1": 1, "d2": 2}}, texts, 100, {"q"})
    g = good["q"]
    assert evidence_coverage(g[:2], ev["q"], texts)  # the first two units state both facts
    assert [c.rank for c in g] == list(range(len(g))) and all(a.score > b.score for a, b in itertools.pairwise(g))
    rest = [c.doc_id for c in g[2:]]
    assert rest == sorted(rest, key=lambda d: d != "d2")  # grade 2 (d2) before grade 1 (d1)
    assert {c.chunk_id for c in g} == {us.index.chunked.corpus.doc_ids[i] for i in range(len(us.index.tokens))}
    # degraded: no unit that states a fact is left, every other unit keeps its order
    assert not any(evidence_coverage([c], ev["q"], texts) for c in bad["q"])
    kept = [c.chunk_id for c in g if c.chunk_id in {b.chunk_id for b in bad["q"]}]
    assert kept == [c.chunk_id for c in bad["q"]] and len(bad["q"]) == len(g) - 2
    # cut at the limit
    assert len(passage_rankings(us, ev, ["q"], {"q": {"d1": 1}}, texts, 1)[0]["q"]) == 1


def test_degraded_queries_are_a_seeded_half_of_the_feasible_and_of_the_others():
    feas = {f"q{i}": i % 3 != 0 for i in range(31)}
    a, b = degraded_queries(feas, 7), degraded_queries(feas, 7)
    assert a == b and degraded_queries(feas, 8) != a
    n_feas = sum(feas.values())
    assert sum(feas[q] for q in a) == (n_feas + 1) // 2
    assert sum(not feas[q] for q in a) == (31 - n_feas + 1) // 2


PASSAGE_RUN_CONFIG = """name = "psg"
output_dir = "{out}"
seed = 0
metrics = ["nDCG@10"]
baseline = "bm25"
k = 100
n_resamples = 200
budgets = [8, 12, 40]
[context]
chunk_tokens = 8
reference_budget = 12
[dataset]
path = "{data}"
split = "test"
[[systems]]
name = "bm25"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
[[systems]]
name = "passages"
type = "runfile"
params = {{ paths = {{ test = "{run}" }} }}
"""


def _chunk_run(tiny, path, extra: str = "") -> None:
    """Every context chunk (8 tokens, no overlap) holding part of a query's evidence, by chunk id."""
    import json

    from hcrbench.data.beir import read_corpus
    from hcrbench.data.chunking import chunk_corpus

    chunks = chunk_corpus(read_corpus(tiny / "corpus.jsonl"), max_tokens=8, overlap=0).corpus
    lines = []
    for row in (tiny / "evidence.jsonl").read_text().splitlines():
        ev = json.loads(row)
        ids = [c for c, m in zip(chunks.doc_ids, chunks.metadata) if any(
            e["doc_id"] == m["doc_id"] and m["char_start"] < e["end"] and e["start"] < m["char_end"]
            for e in ev["evidence"])]
        lines += [f"{ev['query_id']} Q0 {c} {r + 1} {10 - r} psg" for r, c in enumerate(ids)]
    path.write_text("\n".join(lines + ([extra] if extra else [])) + "\n")


def test_a_runfile_of_chunk_ids_is_a_unit_delivering_system(tmp_path, tiny):
    import json
    import os
    import subprocess

    run = tmp_path / "psg.trec"
    _chunk_run(tiny, run)
    cfg = tmp_path / "c.toml"
    cfg.write_text(PASSAGE_RUN_CONFIG.format(out=tmp_path / "out", data=tiny, run=run))
    env = {**os.environ, "HCRBENCH_PROGRESS": "0"}
    r = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "unknown docid" not in r.stderr
    s = json.loads((tmp_path / "out" / "eval.json").read_text())["sufficiency"]
    e = s["systems"]["passages"]
    assert (e["delivers"], e["unit_set"]) == ("units", "chunks-8")  # gated by the context chunks' control
    assert e["failure_on_feasible"]["rate"] == 0.0 and e["rates"]["all"]["evidence_coverage"]["rate"] == 1.0
    # an id that is neither a document nor a context chunk is still one line, exit 2
    _chunk_run(tiny, run, "q1 Q0 nope#c9 9 0.5 psg")
    cfg.write_text(PASSAGE_RUN_CONFIG.format(out=tmp_path / "out2", data=tiny, run=run))
    r = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 2 and "unknown docid nope#c9" in r.stderr and "Traceback" not in r.stderr


def test_the_designs_token_efficiency_says_when_it_compares_delivery_modes():
    from hcrbench.experiment.context_judge import compare_budgets as _compare

    def sys_(delivers: str, rates: list[float]) -> dict:
        return {"delivers": delivers, "rates": {b: {"k": {"rate": r}} for b, r in zip(("200", "400"), rates)}}

    outcomes = {"a": {"200": {"k": [True, False, False, False]}, "400": {"k": [True, True, False, False]},
                      "all": {"k": [True] * 4}},
                "b": {"200": {"k": [True, False, False, False]}, "400": {"k": [True, False, False, False]},
                      "all": {"k": [True] * 4}}}
    for mode, crossed in (("documents", True), ("units", False)):
        doc = {"systems": {"a": sys_("units", [0.25, 0.5]), "b": sys_(mode, [0.25, 0.25])}, "comparisons": [],
               "token_efficiency": {}, "highlight": {"system": "a", "flat": "b"}}
        _compare(doc, outcomes, "b", (), [200, 400, None], "k", 400, 50, 0)
        te = doc["token_efficiency_design"]
        assert te["delivery_modes"] == {"a": "units", "b": mode}
        assert (te.get("note") == f"compares delivery modes (a delivers units, b delivers {mode})") is crossed
        assert crossed or "note" not in te
