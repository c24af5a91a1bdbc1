"""Qrels, runs and measures in the neighbours' shapes (ir_measures, pandas / PyTerrier, pytrec_eval, ranx) on
SciFact BM25 runs: every shape gives ir_measures' means; outputs round-trip; anything else is a one-line error."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

import hcrbench
from hcrbench.data import Qrels, Run, interop, load_beir, write_run
from hcrbench.errors import InputError
from hcrbench.retrieve import make_retriever, rrf

SCIFACT = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "scifact"
MEASURES = "nDCG@10,AP,RR,P@5,R@100,Rprec,Judged@10"


@pytest.fixture(scope="module")
def scifact(tmp_path_factory):
    """SciFact test qrels and two BM25 runs (stemmed and not), also written as TREC files."""
    if not (SCIFACT / "corpus.jsonl").is_file():
        pytest.fail(f"SciFact not found at {SCIFACT}")
    ds = load_beir(SCIFACT, "test")
    runs = {}
    for name, stem in (("bm25", "english"), ("bm25_plain", None)):
        r = make_retriever("bm25", stemmer=stem)
        r.index(ds.corpus)
        runs[name] = r.search(ds.queries, 100).run.rename(name)
    folder = tmp_path_factory.mktemp("scifact_runs")
    for name, run in runs.items():
        write_run(run, folder / f"{name}.trec")
    return ds.qrels, runs, folder


def _ir_measures_means(qrels: Qrels, run: Run, measures: str) -> dict[str, float]:
    import ir_measures

    parsed = [ir_measures.parse_measure(m) for m in measures.split(",")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agg = ir_measures.calc_aggregate(parsed, qrels.to_dict(), run.to_dict())
    return {str(m): v for m, v in agg.items()}


def _shapes(qrels: Qrels, run: Run, folder: Path):
    import ir_measures

    qrels_records = [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    run_records = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return {
        "hcrbench objects": (qrels, run),
        "paths": (str(SCIFACT / "qrels" / "test.tsv"), folder / "bm25.trec"),
        "pytrec_eval dicts": (qrels.to_dict(), run.to_dict()),
        "ir_measures records": (qrels_records, run_records),
        "ir_measures record iterators": (iter(qrels_records), iter(run_records)),
        "ir_measures DataFrames": (qrels.to_frame(), run.to_frame()),
        "PyTerrier DataFrames": (qrels.to_frame("pyterrier"), run.to_frame("pyterrier")),
    }


def test_every_input_shape_gives_ir_measures_means(scifact):
    import ir_measures

    qrels, runs, folder = scifact
    want = _ir_measures_means(qrels, runs["bm25"], MEASURES)
    measure_objects = [ir_measures.parse_measure(m) for m in MEASURES.split(",")]
    for shape, (q, r) in _shapes(qrels, runs["bm25"], folder).items():
        res = hcrbench.evaluate(q, r, measure_objects)  # ir_measures Measure objects as the metrics
        got = next(iter(res.means.values()))
        assert set(got) == {"nDCG@10", "AP", "RR", "P@5", "R@100", "Rprec", "Judged@10"}
        for m in measure_objects:
            assert math.isclose(got[str(m)], want[str(m)], abs_tol=1e-9), (shape, m, got[str(m)], want[str(m)])


def test_mixed_runs_in_one_call_and_a_broken_run_scores_lower(scifact):
    qrels, runs, _ = scifact
    broken = {q: {d: -s for d, s in docs.items()} for q, docs in runs["bm25"].items()}  # ranking reversed
    res = hcrbench.evaluate(qrels.to_frame(), {"frame": runs["bm25"].to_frame("pyterrier"),
                                              "dict": runs["bm25_plain"].to_dict(), "reversed": broken}, "nDCG@10")
    assert res.means["frame"]["nDCG@10"] == pytest.approx(_ir_measures_means(qrels, runs["bm25"], "nDCG@10")
                                                          ["nDCG@10"], abs=1e-12)
    assert res.means["reversed"]["nDCG@10"] < 0.5 * res.means["frame"]["nDCG@10"]


def test_frames_round_trip_and_ir_measures_reads_them(scifact):
    import ir_measures

    qrels, runs, _ = scifact
    run = runs["bm25"]
    for style in ("ir_measures", "pyterrier"):
        assert interop.as_run(run.to_frame(style)).to_dict() == run.to_dict()
        assert interop.as_qrels(qrels.to_frame(style)).to_dict() == qrels.to_dict()
    pt = run.to_frame("pyterrier")
    assert list(pt.columns) == ["qid", "docno", "score", "rank"]
    first = pt[pt.qid == run.query_ids[0]]
    assert first["rank"].tolist() == list(range(len(first)))
    assert first["docno"].tolist() == [d for d, _ in run.ranked(run.query_ids[0])]
    agg = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels.to_frame(), run.to_frame())
    assert agg[ir_measures.nDCG @ 10] == pytest.approx(hcrbench.evaluate(qrels, run).means["bm25"]["nDCG@10"],
                                                       abs=1e-12)


def test_the_gate_and_alpha_ndcg_take_the_same_shapes(scifact):
    from hcrbench.gate.core import as_qrels, as_runs
    from hcrbench.metrics import alpha_ndcg

    qrels, runs, folder = scifact
    shapes = _shapes(qrels, runs["bm25"], folder)
    for q, r in (shapes["ir_measures records"], shapes["PyTerrier DataFrames"]):
        assert as_qrels(q).to_dict() == qrels.to_dict()
        assert as_runs({"x": r})["x"].to_dict() == runs["bm25"].to_dict()
    sub = {q: {d: {"0": g} for d, g in docs.items()} for q, docs in qrels.items()}
    assert alpha_ndcg(sub, runs["bm25"].to_frame(), 10) == alpha_ndcg(sub, runs["bm25"], 10)


def test_rrf_takes_plain_dicts_and_frames(scifact):
    _, runs, _ = scifact
    want = rrf([runs["bm25"], runs["bm25_plain"]]).to_dict()
    assert rrf([runs["bm25"].to_dict(), runs["bm25_plain"].to_dict()]).to_dict() == want
    assert rrf([runs["bm25"].to_frame(), runs["bm25_plain"].to_frame("pyterrier")]).to_dict() == want


@pytest.mark.parametrize("bad, accepted", [
    (3, "a Run, a path"),
    (object(), "ranx Run, ir_measures ScoredDoc tuples or a DataFrame"),
    ([1, 2], "a run must be"),
])
def test_other_run_objects_are_refused_naming_what_is_accepted(bad, accepted):
    with pytest.raises(InputError) as e:
        hcrbench.evaluate({"q": {"d": 1}}, bad)
    assert accepted in str(e.value) and "\n" not in str(e.value)


def test_other_qrels_and_bad_frames_are_refused():
    import pandas as pd

    with pytest.raises(InputError, match=r"qrels must be a Qrels.*ranx Qrels.*got int"):
        hcrbench.evaluate(12, {"q": {"d": 1.0}})
    with pytest.raises(InputError, match=r"needs columns query_id, doc_id, score .*it has: a, b"):
        interop.as_run(pd.DataFrame({"a": [1], "b": [2]}))
    with pytest.raises(InputError, match=r"no 'label' column"):
        interop.as_qrels(pd.DataFrame({"qid": ["1"], "docno": ["d"], "score": [1.0]}))
    with pytest.raises(InputError, match=r"query '1' holds doc 'd' twice"):
        interop.as_run(pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d", "d"], "score": [1.0, 2.0]}))
    with pytest.raises(InputError, match=r"grade for query '1' doc 'd' is invalid"):
        interop.as_qrels(pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": [0.5]}))
    with pytest.raises(InputError, match=r"namedtuples with fields query_id, doc_id, score"):
        interop.as_run(iter([(1, 2, 3)]))
    with pytest.raises(InputError, match=r"a measure must be a string like 'nDCG@10'"):
        hcrbench.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, [3])


def test_short_reprs_and_tables(scifact):
    qrels, runs, _ = scifact
    res = hcrbench.evaluate(qrels, runs, MEASURES)
    comparisons = hcrbench.compare(res, n_resamples=500)
    assert len(repr(res)) < 600 and "bm25_plain" in repr(res)
    assert repr(runs["bm25"]) == f"Run('bm25': 300 queries, {runs['bm25'].n_entries:,} retrieved docs)"
    assert repr(qrels) == "Qrels('scifact/test': 300 queries, 339 judgments)"
    assert "<table>" in res._repr_html_() and "<table>" in runs["bm25"]._repr_html_()
    text = res.to_markdown(comparisons=comparisons)
    md = [ln for ln in text.splitlines() if ln.startswith("|")]
    assert len(md) == 2 + len(runs) and md[0].startswith("| run | nDCG@10 |")
    assert text.splitlines()[-1].startswith("† the mean differs significantly from the mean of the baseline")
    marked = {c.metric for c in comparisons if c.significant()}
    assert sum("†" in cell for cell in md[3].split("|")) == len(marked)
    tex = res.to_latex(caption="SciFact")
    assert r"\begin{tabular}{lrrrrrrr}" in tex and r"bm25\_plain" in tex
    assert "<table>" in comparisons._repr_html_() and len(repr(comparisons).splitlines()) == 2 + len(comparisons)
    assert comparisons.to_frame()["p_holm"].tolist() == [c.p_holm for c in comparisons]
    assert comparisons.to_markdown().count("\n") == 2 + len(comparisons) + 2  # a blank line, then the legend
    frame = res.to_frame()
    assert frame.loc["bm25", "nDCG@10"] == res.means["bm25"]["nDCG@10"]
    assert list(frame.index) == ["bm25", "bm25_plain"]


@pytest.mark.slow  # ranx compiles its numba kernels on first use: 20-40 s on 2 cores
def test_ranx_objects_in_and_out_and_the_ranx_aliases_equal_ranx(scifact):
    import ranx

    qrels, runs, _ = scifact
    res = hcrbench.evaluate(qrels.to_ranx(), [r.to_ranx() for r in runs.values()], "nDCG@10,AP")
    assert list(res.means) == ["bm25", "bm25_plain"]
    assert res.means["bm25"] == hcrbench.evaluate(qrels, runs["bm25"], "nDCG@10,AP").means["bm25"]
    cran_q = interop.as_qrels(Path(__file__).resolve().parents[2] / "examples" / "cranfield.qrels")
    cran_r = interop.as_run(Path(__file__).resolve().parents[2] / "examples" / "bm25.trec")
    names = ["f1@10", "dcg@10", "dcg_burges@10", "r-precision", "ndcg_burges@10", "f1"]
    for q, r in ((qrels, runs["bm25"]), (cran_q, cran_r)):  # SciFact: binary grades; Cranfield: graded
        want = ranx.evaluate(q.to_ranx(), r.to_ranx(), names)
        got = hcrbench.evaluate(q, r, names).means[r.name]
        for name, ours in zip(names, got):
            assert math.isclose(got[ours], want[name], rel_tol=1e-9, abs_tol=1e-12), (name, got[ours], want[name])
