"""trec_eval's -M (``max_docs``) and -J (``judged_only``) against pytrec_eval, in the API and the CLI.

-J: pytrec_eval's ``judged_docs_only_flag`` is trec_eval's -J. -M: pytrec_eval has no -M, so the reference is
pytrec_eval on the run cut to each query's top M in trec_eval order (score as float32 descending, doc id
descending), which is what trec_eval -M does before scoring.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import warnings

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.metrics import evaluate

DOCS = ["a", "b", "B", "a1", "a10", "a2", "d", "zz", "Z", "x_9", "0", "10", "9"]
SCORES = [0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 3.25, 1.0 + 1e-9, 0.1 + 0.2, 0.3]
OURS = {"map": "AP", "P_3": "P@3", "ndcg_cut_5": "nDCG@5", "recip_rank": "RR", "bpref": "Bpref",
        "num_ret": "NumRet", "num_rel_ret": "NumRelRet", "recall_5": "R@5", "Rprec": "Rprec"}
_CALLS = itertools.count()


@st.composite
def cases(draw):
    qids = draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, max_size=3, unique=True))
    qrels = {q: draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 2), min_size=1, max_size=7)) for q in qids}
    run = {q: draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=10))
           for q in qids}
    return qrels, run


def _top(ranking: dict, m: int) -> dict:
    ranked = sorted(ranking.items(), key=lambda x: x[0], reverse=True)
    ranked.sort(key=lambda x: float(np.float32(x[1])), reverse=True)
    return dict(ranked[:m])


def _pte(qrels, run, **kw):
    tag = f"c{next(_CALLS)}:"
    ev = pytrec_eval.RelevanceEvaluator({tag + q: v for q, v in qrels.items()}, set(OURS) | {"P.3", "ndcg_cut.5",
                                        "recall.5"}, **kw)
    return {q[len(tag):]: v for q, v in ev.evaluate({tag + q: v for q, v in run.items()}).items()}


def _ours(qrels, run, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        return next(iter(evaluate(qrels, run, list(OURS.values()), **kw)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.integers(1, 6), st.booleans())
def test_max_docs_and_judged_only_match_pytrec_eval(case, m, judged_only):
    qrels, run = case
    r = _ours(qrels, run, max_docs=m, judged_only=judged_only)
    want = _pte(qrels, {q: _top(v, m) for q, v in run.items()}, judged_docs_only_flag=judged_only)
    for i, q in enumerate(r.query_ids):
        for pname, ours in OURS.items():
            got, exp = r.values[ours][i], want[q][pname]
            assert math.isclose(got, exp, rel_tol=1e-9, abs_tol=1e-9), (q, pname, got, exp, qrels, run, m)


def test_judged_only_changes_the_ranking_as_trec_eval():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}  # an unjudged doc on top
    plain = _ours(qrels, run)
    judged = _ours(qrels, run, judged_only=True)
    assert plain.means["AP"] == 0.5 and judged.means["AP"] == 1.0
    assert judged.ledger.to_dict()["judged_only"] is True and "judged_only" not in plain.ledger.to_dict()


@pytest.mark.parametrize("bad", [0, -3, 1.5, True, "10"])
def test_bad_max_docs_is_an_input_error(bad):
    with pytest.raises(InputError, match="max_docs"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP", max_docs=bad)


def test_cli_flags_match_pytrec_eval(conformance_dir, tmp_path):
    out = tmp_path / "eval.json"
    cmd = ["hcrbench", "evaluate", str(conformance_dir / "qrels.test"), str(conformance_dir / "results.test"),
           "-m", "map,P@20,bpref", "--max-docs", "15", "--judged-only", "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(out.read_text())["runs"]["results.test"]
    from hcrbench.data import read_qrels, read_run

    qrels = read_qrels(conformance_dir / "qrels.test").to_dict()
    run = read_run(conformance_dir / "results.test").to_dict()
    want = _pte(qrels, {q: _top(v, 15) for q, v in run.items()}, judged_docs_only_flag=True)
    for q in qrels:
        assert math.isclose(got["per_query"]["AP"][q], want[q]["map"], abs_tol=1e-12)
        assert math.isclose(got["per_query"]["Bpref"][q], want[q]["bpref"], abs_tol=1e-12)
    assert got["ledger"]["max_docs"] == 15 and got["ledger"]["judged_only"] is True
    bad = subprocess.run([*cmd[:4], "--max-docs", "0"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--max-docs" in bad.stderr and "Traceback" not in bad.stderr


# trec_eval 10.0's own -M regression output: `trec_eval -m all_trec -q -c -M100 qrels.test results.trunc`
# (its test/out.test.aqcM, not in ../shared), the `all` lines of the measures hcrbench implements.
OUT_TEST_AQCM_ALL = {
    "num_ret": "184", "num_rel": "561", "num_rel_ret": "29", "map": "0.0947", "gm_map": "0.0032",
    "Rprec": "0.1495", "bpref": "0.1252", "recip_rank": "0.1667", "iprec_at_recall_0.00": "0.2952",
    "iprec_at_recall_0.40": "0.1905", "iprec_at_recall_0.50": "0.1282", "iprec_at_recall_0.60": "0.1111",
    "P_10": "0.2000", "P_15": "0.1556", "P_100": "0.0967", "P_1000": "0.0097", "recall_10": "0.1347",
    "recall_100": "0.2162", "infAP": "0.0947", "11pt_avg": "0.1205", "ndcg": "0.1800", "ndcg_cut_10": "0.1717",
    "ndcg_cut_100": "0.2299", "ndcg_cut_200": "0.2011", "map_cut_10": "0.0671", "map_cut_100": "0.0947",
    "success_5": "0.3333", "success_10": "0.6667", "set_P": "0.1005", "set_recall": "0.2162", "set_F": "0.0693",
    "rbp": "0.1679", "unj_20": "0.0333",
}


def test_max_docs_reproduces_trec_eval_out_test_aqcm(conformance_dir):
    from hcrbench.data import read_qrels, read_run
    from hcrbench.metrics import parse_measure

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        r = next(iter(evaluate(read_qrels(conformance_dir / "qrels.test"), read_run(conformance_dir / "results.trunc"),
                               list(OUT_TEST_AQCM_ALL), missing="zero", max_docs=100)))
    assert r.query_ids == ["301", "302", "303"]
    for name, printed in OUT_TEST_AQCM_ALL.items():
        m = parse_measure(name).name
        got = float(r.values[m].sum()) if name.startswith("num_") else r.means[m]
        mine = str(round(got)) if name.startswith("num_") else f"{got:.4f}"
        assert mine == printed, (name, got, printed)
