"""Count measures are aggregated as ir_measures (and trec_eval's ``all`` line) aggregate them: summed, not
averaged; every measure handed to ir_measures uses that measure's own aggregator."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

import ir_measures
import pytest

from hcrbench import evaluate
from hcrbench.errors import HcrbenchWarning

EX = Path(__file__).resolve().parents[2] / "examples"
QRELS, RUN = EX / "cranfield.qrels", EX / "bm25.trec"
FOREIGN = ["ir_measures:NumRet", "NumQ", "ir_measures:NumRelRet", "ir_measures:NumRel", "ir_measures:NumRet(rel=3)",
           "ir_measures:nDCG@10", "ir_measures:P@5", "SetRelP", "ir_measures:Rprec"]
NATIVE = {"NumRet": ir_measures.NumRet, "NumRel": ir_measures.NumRel, "NumRelRet": ir_measures.NumRelRet,
          "NumRet(rel=3)": ir_measures.NumRet(rel=3)}


def _theirs(measures, run_path=RUN):
    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    return ir_measures.calc_aggregate(measures, qrels, run)


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_measures_handed_to_ir_measures_equal_calc_aggregate(missing):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        res = evaluate(QRELS, RUN, FOREIGN, missing=missing)
    ours = res.means[next(iter(res.runs))]
    theirs = _theirs([ir_measures.parse_measure(m.split(":", 1)[-1]) for m in FOREIGN])
    for spec, name in zip(FOREIGN, res.metrics):
        want = theirs[ir_measures.parse_measure(spec.split(":", 1)[-1])]
        assert ours[name] == want, (spec, ours[name], want)
    assert ours["ir_measures:NumQ"] == len(res[next(iter(res.runs))].query_ids) == 25  # a count, not 1.0
    assert ours["ir_measures:NumRet"] > 100  # summed over 25 queries (an average would be below the depth)


def test_hcrbench_own_counts_are_summed_as_ir_measures_and_trec_eval_do():
    res = evaluate(QRELS, RUN, list(NATIVE))
    ours = next(iter(res)).means
    theirs = _theirs(list(NATIVE.values()))
    for name, measure in NATIVE.items():
        assert ours[name] == theirs[measure], name
    assert ours["NumRet"] == float(next(iter(res)).values["NumRet"].sum())


def test_trec_format_prints_summed_counts_as_integers(tmp_path):
    r = subprocess.run(["hcrbench", "evaluate", str(QRELS), str(RUN), "-m", "NumQ,NumRet,ir_measures:NumRelRet",
                        "--format", "trec"], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    lines = {ln.split("\t")[0].strip(): ln.split("\t")[2] for ln in r.stdout.splitlines() if "\tall\t" in ln}
    theirs = _theirs([ir_measures.NumQ, ir_measures.NumRet, ir_measures.NumRelRet])
    assert lines["ir_measures:NumQ"] == str(int(theirs[ir_measures.NumQ]))
    assert lines["num_ret"] == str(int(theirs[ir_measures.NumRet]))
    assert lines["ir_measures:NumRet(rel=1)"] == str(int(theirs[ir_measures.NumRelRet]))  # their name for it
