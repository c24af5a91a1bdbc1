"""Results are readable by any spelling of a measure, and ranx's relevance-level suffix (``-l2``) is either
translated (measures with a threshold) or refused with a line that says why."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import ranx

from hcrbench import evaluate
from hcrbench.data import read_qrels, read_run
from hcrbench.metrics import parse_measures

EX = Path(__file__).resolve().parents[2] / "examples"
QRELS, RUN = EX / "cranfield.qrels", EX / "bm25.trec"


def test_means_values_and_per_query_answer_to_every_alias():
    res = evaluate(QRELS, RUN, "RR@10,nDCG@10,AP")
    run = next(iter(res))
    means = res.means[run.name]
    for alias in ("mrr@10", "MRR@10", "RR(cutoff=10)", "recip_rank@10", "rr@10"):
        assert alias in means and means[alias] == means["RR@10"] == means.get(alias)
        np.testing.assert_array_equal(run.values[alias], run.values["RR@10"])
        np.testing.assert_array_equal(run[alias], run["RR@10"])
        assert run.per_query[alias] == run.per_query["RR@10"]
    assert means["ndcg_cut_10"] == means["nDCG@10"] and means["map"] == means["AP"]
    assert list(means) == ["RR@10", "nDCG@10", "AP"]  # iteration and JSON see the canonical names only
    assert json.loads(json.dumps(means)) == dict(means)


def test_a_measure_not_evaluated_is_a_key_error_naming_what_was():
    means = evaluate(QRELS, RUN, "RR@10").means["bm25"]
    with pytest.raises(KeyError, match=r"P@5.*have: RR@10"):
        means["precision@5"]
    assert "P@5" not in means and means.get("P@5", -1.0) == -1.0 and means.get("not a measure!") is None


@pytest.mark.parametrize("ranx_name,ours", [("precision@5-l2", "P(rel=2)@5"), ("recall@100-l3", "R(rel=3)@100")])
def test_ranx_relevance_level_equals_ranx(ranx_name, ours):
    qrels, run = read_qrels(QRELS), read_run(RUN)
    res = evaluate(qrels, run, ranx_name)
    assert res.metrics == [ours]
    assert [m.name for m in parse_measures(ranx_name.replace("precision", "mrr").replace("recall", "map"))] in (
        [ours.replace("P", "RR")], [ours.replace("R(", "AP(")])  # every thresholded kind takes the suffix
    theirs_qrels = ranx.Qrels(qrels.to_dict())
    theirs_run = ranx.Run(run.to_dict())
    ranx.evaluate(theirs_qrels, theirs_run, ranx_name, make_comparable=True)
    per_q = dict(theirs_run.scores[ranx_name])
    got = res.runs[run.name].per_query[ranx_name]
    for q, v in got.items():
        assert v == pytest.approx(per_q.get(q, 0.0), abs=1e-12), q


@pytest.mark.parametrize("spec", ["ndcg@10-l2", "ndcg_burges@10-l3", "err@10-l2"])
def test_ranx_level_on_a_graded_measure_is_one_accurate_line(spec):
    r = subprocess.run(["hcrbench", "evaluate", str(QRELS), str(RUN), "-m", spec], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    level = spec.rsplit("-l", 1)[1]
    assert f"ranx's relevance level '-l{level}'" in r.stderr and "raw grades" in r.stderr
    assert "cutoff must be an integer" not in r.stderr
