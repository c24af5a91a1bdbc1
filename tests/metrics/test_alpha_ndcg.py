"""alpha-nDCG@k over subtopic qrels against ndeval (pyndeval, through ir_measures) on hypothesis data."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hcrbench.data.subtopics import SubtopicQrels, read_subtopic_qrels
from hcrbench.errors import InputError
from hcrbench.metrics import alpha_ndcg

DOCS = [f"d{i}" for i in range(12)]


@st.composite
def cases(draw):
    sub: dict = {}
    for q in draw(st.lists(st.sampled_from(["1", "2", "3"]), min_size=1, max_size=3, unique=True)):
        for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True)):
            subs = draw(st.lists(st.sampled_from(["1", "2", "3", "4"]), min_size=1, max_size=4, unique=True))
            sub.setdefault(q, {})[d] = {s: draw(st.integers(0, 2)) for s in subs}
    run = {}
    for q in sub:
        docs = draw(st.lists(st.sampled_from([*DOCS, "x1", "x2"]), min_size=1, max_size=12, unique=True))
        run[q] = {d: float(len(docs) - i) for i, d in enumerate(docs)}  # distinct scores
    return sub, run


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from([1, 3, 5, 10, 20]), st.sampled_from([1, 2]))
def test_alpha_ndcg_matches_ndeval(case, k, rel):
    import ir_measures
    from ir_measures import GenericQrel

    sub, run = case
    qrels = [GenericQrel(q, d, g, s) for q, docs in sub.items() for d, subs in docs.items() for s, g in subs.items()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = {m.query_id: m.value
                for m in ir_measures.pyndeval.iter_calc([ir_measures.alpha_nDCG(rel=rel) @ k], qrels, run)}
    got = alpha_ndcg(sub, run, k, threshold=rel)
    for q, v in want.items():
        assert math.isclose(got[q], v, abs_tol=1e-6), (q, got[q], v, sub[q], run[q])


def test_redundant_docs_are_discounted():
    sub = {"q": {"a": {"s1": 1}, "b": {"s1": 1}, "c": {"s2": 1}}}
    diverse = alpha_ndcg(sub, {"q": {"a": 3.0, "c": 2.0, "b": 1.0}}, 3)["q"]
    redundant = alpha_ndcg(sub, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, 3)["q"]
    assert diverse == pytest.approx(1.0) and redundant < diverse
    assert alpha_ndcg(sub, {"other": {"a": 1.0}}, 3) == {"q": 0.0}


def test_subtopic_qrels_reader(tmp_path):
    p = tmp_path / "div.qrels"
    p.write_text("# TREC Web diversity qrels\n1 1 d1 1\n1 2 d1 0\n1 2 d2 1\n\n2 1 d3 2\n")
    s = read_subtopic_qrels(p)
    assert s.judgments == {"1": {"d1": {"1": 1, "2": 0}, "d2": {"2": 1}}, "2": {"d3": {"1": 2}}}
    assert s.subtopics("1") == ["1", "2"] and s.subtopics("2", threshold=3) == []
    assert isinstance(s, SubtopicQrels)
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 1 d1 1\n1 1 d1 x\n")
    with pytest.raises(InputError) as e:
        read_subtopic_qrels(bad)
    assert e.value.line == 2 and e.value.field == "rel"
    with pytest.raises(InputError, match="alpha"):
        alpha_ndcg(s, {"1": {"d1": 1.0}}, 5, alpha=1.0)


def test_evaluate_computes_alpha_ndcg_from_subtopics(tmp_path):
    from hcrbench.metrics import evaluate

    sub = {"q1": {"a": {"s1": 1}, "b": {"s1": 1}, "c": {"s2": 2}}, "q2": {"d": {"s1": 1}}}
    qrels = {"q1": {"a": 1, "b": 1, "c": 2}, "q2": {"d": 1}, "q3": {"e": 1}}
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 2.0, "d": 1.0}, "q3": {"e": 1.0}}
    p = tmp_path / "div.qrels"
    p.write_text("".join(f"{q} {s} {d} {g}\n" for q, docs in sub.items() for d, ss in docs.items()
                         for s, g in ss.items()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = next(iter(evaluate(qrels, run, "alpha_nDCG@5,alpha-ndcg(rel=2,alpha=0.9)@2", subtopics=p)))
    want = alpha_ndcg(sub, run, 5)
    assert r.per_query["alpha_nDCG@5"] == {"q1": want["q1"], "q2": want["q2"], "q3": 0.0}
    assert r.per_query["alpha_nDCG(rel=2,alpha=0.9)@2"]["q1"] == alpha_ndcg(sub, run, 2, 0.9, threshold=2)["q1"]
    with pytest.raises(InputError, match="subtopic qrels") as e:
        evaluate(qrels, run, "alpha_nDCG@5")
    assert e.value.field == "subtopics"


def test_evaluate_cli_scores_alpha_ndcg_with_subtopics(tmp_path):
    """`hcrbench evaluate --subtopics FILE -m alpha_nDCG@5` prints ndeval's number; without the file the qrels'
    second column is the subtopic (ndeval's convention); a qrels file without one (BEIR TSV): exit 2."""
    import json
    import subprocess

    sub = {"q1": {"a": {"s1": 1}, "b": {"s1": 1}, "c": {"s2": 2}}, "q2": {"d": {"s1": 1}}}
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 2.0, "d": 1.0}}
    (tmp_path / "div.qrels").write_text("".join(f"{q} {s} {d} {g}\n" for q, docs in sub.items()
                                                for d, ss in docs.items() for s, g in ss.items()))
    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq1 0 b 1\nq1 0 c 2\nq2 0 d 1\n")
    (tmp_path / "r.trec").write_text("".join(f"{q} Q0 {d} {i + 1} {s} r\n" for q, docs in run.items()
                                             for i, (d, s) in enumerate(docs.items())))
    base = ["hcrbench", "evaluate", str(tmp_path / "q.qrels"), str(tmp_path / "r.trec"), "-m", "alpha_nDCG@5"]
    ok = subprocess.run([*base, "--subtopics", str(tmp_path / "div.qrels"), "--json", str(tmp_path / "e.json")],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    doc = json.loads((tmp_path / "e.json").read_text())
    want = alpha_ndcg(sub, run, 5)
    assert abs(doc["runs"]["r"]["means"]["alpha_nDCG@5"] - (want["q1"] + want["q2"]) / 2) < 1e-12
    plain = subprocess.run([*base, "--json", str(tmp_path / "p.json")], capture_output=True, text=True)
    assert plain.returncode == 0, plain.stderr
    one_subtopic = {"q1": {"a": {"0": 1}, "b": {"0": 1}, "c": {"0": 2}}, "q2": {"d": {"0": 1}}}
    want = alpha_ndcg(one_subtopic, run, 5)
    got = json.loads((tmp_path / "p.json").read_text())["runs"]["r"]["means"]["alpha_nDCG@5"]
    assert abs(got - (want["q1"] + want["q2"]) / 2) < 1e-12
    (tmp_path / "q.tsv").write_text("query-id\tcorpus-id\tscore\nq1\ta\t1\n")
    bad = subprocess.run(["hcrbench", "evaluate", str(tmp_path / "q.tsv"), *base[3:]], capture_output=True, text=True)
    assert bad.returncode == 2 and "--subtopics" in bad.stderr and "second column" in bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_alpha_ndcg_from_a_standard_qrels_file_equals_ndeval():
    """Without subtopics, a TREC qrels file's second column is the subtopic, as ndeval reads it (Cranfield)."""
    from pathlib import Path

    import ir_measures

    from hcrbench.data import read_run
    from hcrbench.metrics import evaluate

    examples = Path(__file__).resolve().parents[2] / "examples"
    run = read_run(examples / "bm25.trec")
    qrels = [ir_measures.Qrel(*line.split()[:1], line.split()[2], int(line.split()[3]), line.split()[1])
             for line in (examples / "cranfield.qrels").read_text().splitlines() if line.strip()]
    for rel in (1, 3):
        measure = ir_measures.alpha_nDCG(rel=rel) @ 10
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = {m.query_id: m.value for m in ir_measures.pyndeval.iter_calc([measure], qrels, run.to_dict())}
            got = next(iter(evaluate(examples / "cranfield.qrels", run, f"alpha_nDCG(rel={rel})@10"))).per_query
        values = got[f"alpha_nDCG(rel={rel})@10"]
        assert want and all(math.isclose(values[q], v, abs_tol=1e-6) for q, v in want.items()), rel
        assert any(v > 0 for v in want.values())
