"""The measures beyond the core set, per query, against their reference implementations on hypothesis data.

- pytrec_eval (trec_eval): bpref, infAP, gm_map, set_P, set_recall, set_F, iprec_at_recall, 11pt_avg;
- ranx: hits@k (a count) and ndcg_burges@k (exponential gains);
- ir_measures' providers: NumRet(rel=) (pytrec_eval provider), RBP(rel=, p=) (cwl_eval), ERR@k and
  nDCG(dcg=exp-log2)@k (gdeval, the TREC Web track script); nERR@k = gdeval's ERR@k of the run over gdeval's
  ERR@k of the ideal ranking.

Ties: pytrec_eval comparisons use the same tie-laden data as test_vs_pytrec_eval; ranx, cwl_eval and gdeval
break ties differently (or compare float64), so their cases draw distinct scores.
"""

from __future__ import annotations

import itertools
import math
import warnings

import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hcrbench.errors import HcrbenchWarning
from hcrbench.metrics import evaluate
from hcrbench.metrics.interpolated import ELEVEN_POINTS, lround

DOCS = ["a", "b", "B", "a1", "a10", "a2", "d", "zz", "Z", "x_9", "x-9", "0", "10", "9"]
QIDS = ["q1", "q2", "q3", "10", "9"]
SCORES = [0.0, -0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 1e-9, 3.25, 1.0 + 1e-9, 0.1 + 0.2, 0.3]
LEVELS = (0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 1.0)

PTE = {"bpref": "Bpref", "infAP": "infAP", "gm_map": "GMAP", "set_P": "SetP", "set_recall": "SetR",
       "set_F": "SetF", "11pt_avg": "11pt_avg",
       **{f"iprec_at_recall_{x:.2f}": f"IPrec@{x:g}" for x in LEVELS}}
PTE_REQUEST = {"bpref", "infAP", "gm_map", "set_P", "set_recall", "set_F", "11pt_avg",
               "iprec_at_recall." + ",".join(str(x) for x in LEVELS)}
_CALLS = itertools.count()


def _quiet(qrels, run, metrics, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        return next(iter(evaluate(qrels, run, metrics, **kw)))


@st.composite
def tied_cases(draw):
    qrels_q = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=len(QIDS), unique=True))
    qrels = {q: draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=8))
             for q in qrels_q}
    run = {q: draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=10))
           for q in qrels_q}
    return qrels, run, draw(st.sampled_from([1, 2]))


def _v9_cut(level: float, n_rel: int) -> int:
    return int(level * n_rel + 0.9)  # trec_eval 9 (pytrec_eval); trec_eval 10 rounds: lround(level * n_rel)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_cases())
def test_trec_eval_measures_match_pytrec_eval(case):
    qrels, run, t = case
    r = _quiet(qrels, run, sorted(set(PTE.values())), rel_threshold=t)
    tag = f"c{next(_CALLS)}:"  # fresh ids: pytrec_eval caches per query id across calls
    defined = {q: v for q, v in qrels.items() if max(v.values()) >= 0}
    ev = pytrec_eval.RelevanceEvaluator({tag + q: v for q, v in defined.items()}, PTE_REQUEST, relevance_level=t)
    pte = {q[len(tag):]: v for q, v in ev.evaluate({tag + q: run[q] for q in defined}).items()}
    checked = 0
    for i, q in enumerate(r.query_ids):
        if q not in pte:
            continue
        n_rel = sum(g >= t for g in qrels[q].values())
        for pname, ours in PTE.items():
            if pname.startswith("iprec") and lround(float(pname[-4:]) * n_rel) != _v9_cut(float(pname[-4:]), n_rel):
                continue  # the documented trec_eval 9 -> 10 change (checked against trec_eval 10 in conformance)
            if pname == "11pt_avg" and any(lround(x * n_rel) != _v9_cut(x, n_rel) for x in ELEVEN_POINTS):
                continue
            got, want = r.values[ours][i], pte[q][pname]
            assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9), (q, pname, got, want, qrels, run, t)
            checked += 1
    assert checked or not pte


@st.composite
def distinct_cases(draw, qids=("1", "2", "3", "4"), max_grade=4):
    qrels_q = draw(st.lists(st.sampled_from(qids), min_size=1, max_size=len(qids), unique=True))
    qrels = {q: draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, max_grade), min_size=1, max_size=8))
             for q in qrels_q}
    run = {}
    for q in qrels_q:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        scores = draw(st.permutations(range(len(docs))))
        run[q] = {d: float(s) + 0.5 for d, s in zip(docs, scores)}
    return qrels, run


@pytest.mark.slow  # ~60 s: ranx's numba JIT and per-call setup; the hand-checked ranx case below stays fast
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(distinct_cases(max_grade=3), st.sampled_from([1, 3, 5, 10]), st.sampled_from([1, 2]))
def test_hits_and_ndcg_burges_match_ranx(case, k, t):
    from ranx import Qrels as RQrels
    from ranx import Run as RRun
    from ranx import evaluate as ranx_evaluate

    qrels, run = case
    # ranx keeps positive judgments only and reports queries in sorted order: give both tools the same input
    pos = {q: {d: g for d, g in v.items() if g > 0} for q, v in sorted(qrels.items())}
    pos = {q: v for q, v in pos.items() if v}
    if not pos:
        return
    r = _quiet(pos, {q: run[q] for q in pos}, [f"Hits(rel={t})@{k}", f"ndcg_burges@{k}"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = ranx_evaluate(RQrels(pos), RRun({q: run[q] for q in pos}), [f"hits@{k}-l{t}", f"ndcg_burges@{k}"],
                            return_mean=False, make_comparable=True)
    assert r.query_ids == sorted(pos)
    for name, rname in ((f"Hits(rel={t})@{k}", f"hits@{k}-l{t}"), (f"nDCG(dcg=exp-log2)@{k}", f"ndcg_burges@{k}")):
        for i, q in enumerate(r.query_ids):
            assert math.isclose(r.values[name][i], float(got[rname][i]), rel_tol=1e-9, abs_tol=1e-12), (
                name, q, pos, run)


def test_hits_is_a_count_as_in_ranx_test_suite():
    # ranx's own test: three relevant docs in the top 5 -> hits@5 == 3 (a success rate would say 1.0)
    qrels = {"q1": {"d1": 1, "d2": 1, "d3": 1, "d9": 1}}
    run = {"q1": {"d1": 5.0, "x": 4.0, "d2": 3.0, "d3": 2.0, "y": 1.0, "d9": 0.5}}
    r = _quiet(qrels, run, "hits@5,Hits,Success@5")
    assert r.means == {"Hits@5": 3.0, "Hits": 4.0, "Success@5": 1.0}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_cases())
def test_numret_rel_matches_ir_measures(case):
    import ir_measures

    qrels, run, t = case
    defined = {q: v for q, v in qrels.items() if max(v.values()) >= 0}
    if not defined:
        return
    m = ir_measures.NumRet(rel=t)
    want = {x.query_id: x.value for x in ir_measures.pytrec_eval.iter_calc([m], defined, run)}
    r = _quiet(defined, run, f"NumRet(rel={t}),NumRet")
    for i, q in enumerate(r.query_ids):
        assert r.values[f"NumRet(rel={t})"][i] == want.get(q, 0.0)
        assert r.values["NumRet"][i] == len(run[q])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(distinct_cases(), st.sampled_from([0.5, 0.8, 0.95]), st.sampled_from([1, 2]))
def test_rbp_matches_ir_measures_cwl_eval(case, p, t):
    import ir_measures

    qrels, run = case
    defined = {q: v for q, v in qrels.items() if max(v.values()) >= 0}
    if not defined:
        return
    m = ir_measures.RBP(rel=t, p=p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = {x.query_id: x.value for x in ir_measures.cwl_eval.iter_calc([m], defined, run)}
    r = _quiet(defined, run, f"RBP(rel={t},p={p})")
    for i, q in enumerate(r.query_ids):
        got = r.values[f"RBP(rel={t},p={p})" if p != 0.8 else f"RBP(rel={t})"][i]
        assert math.isclose(got, want.get(q, 0.0), rel_tol=1e-9, abs_tol=1e-12), (q, qrels, run)


def _gdeval(qrels: dict, run: dict, k: int) -> dict[str, tuple[float, float]]:
    """{qid: (nDCG@k exp-log2, ERR@k)} from ir_measures' gdeval provider (5 printed decimals)."""
    import ir_measures

    ms = [ir_measures.nDCG(dcg="exp-log2") @ k, ir_measures.ERR @ k]
    out: dict[str, dict[str, float]] = {}
    for x in ir_measures.gdeval.iter_calc(ms, qrels, run):
        out.setdefault(x.query_id, {})[x.measure.NAME] = x.value
    return {q: (v["nDCG"], v["ERR"]) for q, v in out.items()}


@pytest.mark.skipif(__import__("shutil").which("perl") is None, reason="gdeval needs perl")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(distinct_cases(), st.sampled_from([1, 3, 5, 10]))
def test_err_nerr_and_exp_ndcg_match_gdeval(case, k):
    qrels, run = case
    judged_pos = {q for q, v in qrels.items() if max(v.values()) > 0}
    if not judged_pos:
        return
    want = _gdeval(qrels, run, k)
    ideal_run = {q: {d: float(g) + 1.0 - i * 1e-3 for i, (d, g) in enumerate(sorted(v.items(), key=lambda x: -x[1]))}
                 for q, v in qrels.items()}
    ideal = _gdeval(qrels, ideal_run, k)
    r = _quiet(qrels, run, [f"ERR@{k}", f"nERR@{k}", f"nDCG(dcg=exp-log2)@{k}"])
    for i, q in enumerate(r.query_ids):
        if q not in judged_pos:
            continue  # gdeval prints nothing for a query without a positive judgment
        ndcg, err = want[q]
        assert abs(r.values[f"ERR@{k}"][i] - err) <= 5e-6 + 1e-12, (q, qrels, run)  # gdeval prints 5 decimals
        assert abs(r.values[f"nDCG(dcg=exp-log2)@{k}"][i] - ndcg) <= 5e-6 + 1e-12, (q, qrels, run)  # gdeval prints 5 decimals
        best = ideal[q][1]
        # nERR from gdeval's two 5-decimal numbers: compare with the error that rounding allows
        nerr_ref = err / best
        tol = 5e-6 / best + 5e-6 * err / best**2 + 1e-9
        assert abs(r.values[f"nERR@{k}"][i] - nerr_ref) <= tol, (q, qrels, run)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_cases(), st.sampled_from([{0: 0, 1: 1, 2: 5, 3: 10}, {1: 3, 2: 1}, {0: 2, 3: 0}]),
       st.sampled_from([None, 3, 10]))
def test_ndcg_gain_map_matches_ir_measures(case, gains, k):
    import ir_measures

    qrels, run, _ = case
    defined = {q: v for q, v in qrels.items() if max(v.values()) >= 0}
    if not defined:
        return
    m = ir_measures.nDCG(gains=gains) if k is None else ir_measures.nDCG(gains=gains) @ k
    want = {x.query_id: x.value for x in ir_measures.pytrec_eval.iter_calc([m], defined, run)}
    spec = "nDCG(gains={" + ",".join(f"{g}:{v}" for g, v in gains.items()) + "})" + ("" if k is None else f"@{k}")
    r = _quiet(defined, run, spec)
    name = next(iter(r.values))
    for i, q in enumerate(r.query_ids):
        if max(defined[q].values()) <= 0 and gains.get(0, 0) <= 0:
            continue  # all-zero gains: trec_eval's ndcg reads outside its array (see test_vs_pytrec_eval)
        assert math.isclose(r.values[name][i], want.get(q, 0.0), rel_tol=1e-9, abs_tol=1e-9), (q, qrels, run, gains)
