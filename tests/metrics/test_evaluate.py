"""evaluate(): inputs, result shapes, ledger, warnings, tie order, thresholds, determinism, CLI-grade errors."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import hcrbench
from hcrbench.data import Qrels, Run, RunResult, write_qrels, write_run
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.metrics import evaluate

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "n": -1}, "q2": {"x": 0}, "q3": {"z": 1}}
RUN = {"q1": {"a": 1.0, "c": 3.0, "e": 2.0, "n": 0.5}, "q2": {"y": 1.0}, "q9": {"a": 1.0}}


def _quiet(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        return evaluate(*args, **kw)


def test_hand_computed_values():
    r = _quiet(QRELS, RUN, "P@2,RR,AP,nDCG@3,R@2,Rprec,Success@1,Judged@2,NumRelRet")["run"]
    assert r.query_ids == ["q1", "q2", "q3"]
    v = {m: dict(zip(r.query_ids, r.values[m].tolist())) for m in r.values}
    # q1 ranking: c(1) e(-) a(2) n(-1); relevant (>=1): c, a
    assert v["P@2"]["q1"] == 0.5 and v["RR"]["q1"] == 1.0
    assert v["AP"]["q1"] == pytest.approx((1 / 1 + 2 / 3) / 2)
    dcg = 1 + 2 / math.log2(4)
    idcg = 2 + 1 / math.log2(3)
    assert v["nDCG@3"]["q1"] == pytest.approx(dcg / idcg)
    assert v["R@2"]["q1"] == 0.5 and v["Rprec"]["q1"] == 0.5 and v["Success@1"]["q1"] == 1.0
    assert v["Judged@2"]["q1"] == 0.5 and v["NumRelRet"]["q1"] == 2
    assert all(v[m]["q2"] == 0 and v[m]["q3"] == 0 for m in v if m != "Judged@2")


def test_ties_break_by_doc_id_descending_strcmp():
    # Equal scores: trec_eval orders by doc id descending as bytes: "b" > "a10" > "a1" > "Z" > "B" > "9" > "10".
    docs = ["10", "9", "B", "Z", "a1", "a10", "b"]
    for rel in docs:
        r = _quiet({"q": {rel: 1}}, {"q": dict.fromkeys(docs, 1.0)}, "RR")["run"]
        expected = sorted(docs, reverse=True).index(rel) + 1
        assert r.values["RR"][0] == pytest.approx(1 / expected), rel
    # ... and the run file's rank column / input order plays no part.
    r2 = _quiet({"q": {"a1": 1}}, {"q": dict.fromkeys(reversed(docs), 1.0)}, "RR")["run"]
    assert r2.values["RR"][0] == pytest.approx(1 / 3)


def test_missing_and_ignored_queries_warn_once_each_and_fill_the_ledger():
    with pytest.warns(HcrbenchWarning) as rec:
        res = evaluate(QRELS, RUN, "nDCG@10,AP")
    msgs = [str(w.message) for w in rec]
    assert sum("not in the qrels are ignored: 'q9'" in m for m in msgs) == 1
    assert sum("1 qrels queries absent from the run are counted as 0: 'q3'" in m for m in msgs) == 1
    led = res.ledger["run"]
    assert led.zero_filled == ["q3"] and led.ignored == ["q9"] and led.no_relevant == ["q2"]
    assert led.n_queries_averaged == 3 and led.missing_policy == "zero" and led.rel_threshold == 1
    # unjudged at 10: q1 retrieves e (no judgment); n (-1) is judged; q2 retrieves y (no judgment)
    assert led.unjudged_at_k == {10: {"total": 2, "mean": 2 / 3}}
    json.dumps(res.to_dict())  # JSON-ready
    skip = _quiet(QRELS, RUN, "AP", missing="skip")["run"]
    assert skip.query_ids == ["q1", "q2"] and skip.ledger.skipped == ["q3"] and skip.ledger.zero_filled == []


def test_threshold_changes_relevance_but_not_ndcg_gains():
    base = _quiet(QRELS, RUN, "nDCG@10,P@2,NumRel")["run"]
    two = _quiet(QRELS, RUN, "nDCG@10,P@2,NumRel", rel_threshold=2)["run"]
    np.testing.assert_array_equal(base.values["nDCG@10"], two.values["nDCG@10"])
    assert two.values["P@2"][0] == 0.0 and two.values["NumRel"][0] == 1
    per = _quiet(QRELS, RUN, "P(rel=2)@3,P@3")["run"]
    assert per.values["P(rel=2)@3"][0] == pytest.approx(1 / 3) and per.values["P@3"][0] == pytest.approx(2 / 3)
    zero = _quiet(QRELS, RUN, "NumRel", rel_threshold=0)["run"]  # grade 0 counts, negative grades never
    assert zero.values["NumRel"].tolist() == [3, 1, 1]


def test_many_runs_input_forms_and_result_views(tmp_path):
    run_obj = Run.from_dict(RUN, name="bm25")
    qrels_path = tmp_path / "q.qrels"
    run_path = tmp_path / "dense.trec"
    write_qrels(Qrels.from_dict(QRELS), qrels_path)
    write_run(Run.from_dict(RUN), run_path)
    res = _quiet(str(qrels_path), [run_obj, RunResult(run_obj), run_path, RUN], ["AP", "P@2"])
    assert list(res.runs) == ["bm25", "bm25-2", "dense", "run4"]
    assert len({json.dumps(r.means) for r in res}) == 1  # same ranking, same numbers, whatever the form
    df = res.per_query
    assert list(df.columns) == ["run", "query_id", "AP", "P@2"] and len(df) == 12
    named = _quiet(QRELS, {"a": RUN, "b": run_obj}, "AP")
    assert list(named.runs) == ["a", "b"] and named.metrics == ["AP"]
    top = hcrbench.evaluate(Qrels.from_dict(QRELS), {"q1": RUN["q1"], "q2": RUN["q2"], "q3": {}}, "RR")
    assert top.means["run"]["RR"] == pytest.approx(1 / 3)


def test_same_inputs_give_identical_json():
    rng = np.random.default_rng(3)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(10)} for i in range(30)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 4)) for j in range(20)} for i in range(30)}
    a = json.dumps(_quiet(qrels, run, "nDCG@5,AP,RR,Judged@5").to_dict(), sort_keys=True)
    b = json.dumps(_quiet(dict(reversed(qrels.items())), run, "nDCG@5,AP,RR,Judged@5").to_dict(),
                   sort_keys=True)
    c = json.dumps(_quiet(qrels, run, "nDCG@5,AP,RR,Judged@5").to_dict(), sort_keys=True)
    assert a == c
    assert json.loads(a)["runs"]["run"]["means"] == json.loads(b)["runs"]["run"]["means"]


def test_ragged_runs_use_the_lexsort_path_and_agree():
    # One very long ranking makes padding wasteful: the fallback path must give the same numbers.
    rng = np.random.default_rng(1)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(0, 400, 7)} for i in range(50)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 5)) for j in range(3)} for i in range(49)}
    run["q49"] = {f"d{j}": float(rng.integers(0, 5)) for j in range(200_000)}
    whole = _quiet(qrels, run, "AP,nDCG@10,RR")["run"]
    parts = _quiet(qrels, {q: run[q] for q in list(run)[:49]}, "AP,nDCG@10,RR")["run"]
    for m in whole.values:
        np.testing.assert_array_equal(whole.values[m][:49], parts.values[m][:49])
    alone = _quiet({"q49": qrels["q49"]}, {"q49": run["q49"]}, "AP,nDCG@10,RR")["run"]
    for m in whole.values:
        assert whole.values[m][49] == alone.values[m][0]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"metrics": "nDCG@x"}, "metrics"),
        ({"missing": "drop"}, "missing"),
        ({"rel_threshold": 1.5}, "rel_threshold"),
        ({"qrels": {}}, "qrels"),
        ({"qrels": 42}, "qrels"),
        ({"run": {"q1": {"a": float("nan")}}}, "score"),
        ({"run": {"zz": {"a": 1.0}}}, "query_id"),
        ({"run": 3.5}, "runs"),
    ],
)
def test_user_mistakes_raise_one_line_input_errors(kwargs, field):
    args = {"qrels": QRELS, "run": RUN, "metrics": "AP"}
    args.update(kwargs)
    with pytest.raises(InputError) as e:
        _quiet(args.pop("qrels"), args.pop("run"), **{k if k != "metrics" else "metrics": v for k, v in args.items()})
    assert e.value.field == field and "\n" not in str(e.value)


def test_bad_qrels_file_names_file_and_line(tmp_path):
    p = tmp_path / "bad.qrels"
    p.write_text("q1 0 a 1\nq1 0 b x\n")
    with pytest.raises(InputError, match=r"bad.qrels:2: rel:"):
        _quiet(str(p), RUN, "AP")
