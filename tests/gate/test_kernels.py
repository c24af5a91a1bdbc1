"""The gate's numpy kernels agree exactly with hcrbench.metrics.evaluate and with pytrec_eval."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.data import Qrels, Run
from hcrbench.errors import InputError
from hcrbench.gate._kernels import KeyedQrels, QueryConstants, metric_values, parse_gate_metric
from hcrbench.gate.core import GateProblem, real_per_query

SPECS = {"nDCG@10": "ndcg_cut_10", "nDCG": "ndcg", "P@5": "P_5", "R@5": "recall_5", "RR": "recip_rank",
         "AP": "map", "AP@10": "map_cut_10"}


def _random_case(seed: int):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(60)]
    qrels = {f"q{q}": {docs[j]: int(rng.integers(-1, 4)) for j in rng.choice(60, size=int(rng.integers(1, 9)),
                                                                                replace=False)}
             for q in range(40)}
    # integer scores force many ties: trec_eval breaks them by doc id descending
    run = {f"q{q}": {docs[j]: float(rng.integers(0, 4)) for j in rng.choice(60, size=int(rng.integers(0, 25)),
                                                                              replace=False)}
           for q in range(40) if rng.random() < 0.9}
    return qrels, {q: v for q, v in run.items() if v}, docs


def _kernel(qrels, run, spec, rel_threshold=1):
    Q, R = Qrels.from_dict(qrels), Run.from_dict(run, name="r")
    prob = GateProblem.build(Q, [R], None, rel_threshold)
    m = parse_gate_metric(spec)
    rel = prob.relevance
    const = QueryConstants.build(rel.rows, rel.grades, len(prob.query_ids), m, rel_threshold)
    keyed = KeyedQrels.build(rel.rows, rel.docs, rel.grades, prob.vocab.size)
    depth = m.cutoff or max(len(v) for v in run.values())
    return prob, m, metric_values(keyed.gains(prob.ranked(R, depth)), m, const, rel_threshold)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("spec", list(SPECS))
def test_kernel_matches_pytrec_eval(seed, spec):
    import pytrec_eval
    qrels, run, _ = _random_case(seed)
    prob, _, vals = _kernel(qrels, run, spec)
    key = SPECS[spec]
    measure = {"ndcg_cut_10": "ndcg_cut.10", "P_5": "P.5", "recall_5": "recall.5",
               "map_cut_10": "map_cut.10"}.get(key, key)
    res = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    ref = np.array([res[q][key] if q in res else 0.0 for q in prob.query_ids])
    np.testing.assert_allclose(vals, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("spec", list(SPECS))
@pytest.mark.parametrize("rel_threshold", [1, 2])
def test_kernel_matches_metrics_evaluate(spec, rel_threshold):
    qrels, run, _ = _random_case(7)
    prob, m, vals = _kernel(qrels, run, spec, rel_threshold)
    ref = real_per_query(prob.qrels, Run.from_dict(run, name="r"), m, rel_threshold, prob.query_ids)
    np.testing.assert_allclose(vals, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("spec,name", [("ndcg@10", "nDCG@10"), ("ndcg_cut_10", "nDCG@10"), ("recall@5", "R@5"),
                                       ("MRR", "RR"), ("map", "AP"), ("P@5", "P@5"), ("RR@10", "RR@10")])
def test_parse_gate_metric(spec, name):
    assert parse_gate_metric(spec).name == name


@pytest.mark.parametrize("spec", ["bleu@4", "P", "R", "nDCG@0", "", "nDCG@x"])
def test_parse_gate_metric_rejects(spec):
    with pytest.raises(InputError, match="--metric"):
        parse_gate_metric(spec)
