"""compare() on a real evaluation (hcrbench.metrics.evaluate on the Cranfield example runs), checked against
pytrec_eval per-query values, scipy.stats and statsmodels; and the CLI's --json against the library."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from hcrbench import evaluate
from hcrbench.cli import main
from hcrbench.data import read_qrels, read_run
from hcrbench.stats import compare, evaluation_json, permutation_test

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QRELS, BASE, RUN = EXAMPLES / "cranfield.qrels", EXAMPLES / "bm25.trec", EXAMPLES / "bm25_stemmed.trec"
METRICS = {"nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@5": "P_5"}


@pytest.fixture(scope="module")
def evaluation():
    runs = {"bm25": read_run(BASE), "bm25_stemmed": read_run(RUN)}
    return evaluate(read_qrels(QRELS), runs, list(METRICS))


@pytest.fixture(scope="module")
def reference():
    """Per-query values from pytrec_eval (trec_eval -c semantics: qrels queries missing from a run score 0)."""
    import pytrec_eval
    qrels = read_qrels(QRELS).to_dict()
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(METRICS.values()))
    out = {}
    for name, path in (("bm25", BASE), ("bm25_stemmed", RUN)):
        res = ev.evaluate(read_run(path).to_dict())
        out[name] = {m: np.array([res.get(q, {}).get(t, 0.0) for q in sorted(qrels)]) for m, t in METRICS.items()}
    return out


def test_compare_on_real_evaluation_matches_references(evaluation, reference):
    comps = compare(evaluation, n_resamples=5000, seed=0, family="run")  # Holm over this run's metrics
    assert [c.metric for c in comps] == list(METRICS)
    n = len(reference["bm25"]["AP"])
    for c in comps:
        a, b = reference["bm25_stemmed"][c.metric], reference["bm25"][c.metric]
        d = a - b
        assert c.run == "bm25_stemmed" and c.baseline == "bm25" and c.n == n
        assert c.delta == pytest.approx(d.mean(), abs=1e-9)
        assert c.helped == int((d > 1e-9).sum()) and c.hurt == int((d < -1e-9).sum())
        if np.any(d != 0):
            assert c.t_p == pytest.approx(float(stats.ttest_rel(a, b).pvalue), rel=1e-6)
            assert c.cohens_d == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-6)
        exact = permutation_test(a, b, exact_threshold=min(n, 30))  # exact over all sign vectors
        se = math.sqrt(exact.pvalue * (1 - exact.pvalue) / 5000)
        assert abs(c.p - exact.pvalue) < 4 * se + 2 / 5000
        assert c.ci_low <= c.delta <= c.ci_high
    np.testing.assert_allclose([c.p_holm for c in comps], multipletests([c.p for c in comps], method="holm")[1])
    # family="metric" (every run vs the baseline, per metric) holds one comparison per metric here: Holm p = p
    per_metric = compare(evaluation, n_resamples=5000, seed=0, family="metric")
    assert [c.p_holm for c in per_metric] == [c.p for c in comps] and all(c.family_size == 1 for c in per_metric)
    assert [c.p_holm for c in compare(evaluation, n_resamples=5000, seed=0)] == [c.p_holm for c in comps]  # default


def test_cli_json_equals_library(evaluation, tmp_path, capsys):
    out = tmp_path / "eval.json"
    rc = main(["evaluate", str(QRELS), str(BASE), str(RUN), "--metrics", ",".join(METRICS),
               "--resamples", "3000", "--seed", "5", "--json", str(out)])  # fmt: skip
    capsys.readouterr()
    assert rc == 0
    doc = json.loads(out.read_text())
    expected = evaluation_json(evaluation, compare(evaluation, n_resamples=3000, seed=5, simultaneous=True))
    assert doc["comparisons"] == json.loads(json.dumps(expected["comparisons"]))
    # --baseline flips the direction: the same deltas with the opposite sign, helped and hurt swapped
    rc = main(["evaluate", str(QRELS), str(BASE), str(RUN), "--metrics", ",".join(METRICS),
               "--resamples", "3000", "--seed", "5", "--baseline", "bm25_stemmed", "--json", str(out)])  # fmt: skip
    capsys.readouterr()
    assert rc == 0
    flipped = json.loads(out.read_text())["comparisons"]
    for f, c in zip(flipped, doc["comparisons"]):
        assert (f["run"], f["baseline"]) == ("bm25", "bm25_stemmed")
        assert f["delta"] == pytest.approx(-c["delta"], abs=1e-12)
        assert (f["helped"], f["hurt"], f["tied"]) == (c["hurt"], c["helped"], c["tied"])
