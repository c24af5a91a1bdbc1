"""Measures hcrbench does not compute itself go through ir_measures (named ``ir_measures:X``); ir_measures'
``cutoff=`` keyword and per-measure ``judged_only``; all equal to ir_measures per query."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data import read_qrels, read_run
from hcrbench.errors import InputError
from hcrbench.metrics import evaluate, parse_measures
from hcrbench.metrics.measures import FOREIGN

EX = Path(__file__).resolve().parents[2] / "examples"


def _theirs(measure: str, qrels, run) -> dict[str, float]:
    m = ir_measures.parse_measure(measure)
    return {r.query_id: float(r.value) for r in ir_measures.iter_calc([m], qrels.to_dict(), run.to_dict())}


@pytest.mark.parametrize("spec", ["Compat(p=0.8)", "SDCG(max_rel=4)@10", "NumQ", "StRecall@10"])
def test_measures_only_ir_measures_has_are_computed_through_it(spec):
    qrels, run = read_qrels(EX / "cranfield.qrels"), read_run(EX / "bm25.trec")
    (m,) = parse_measures(spec)
    assert m.kind == FOREIGN and m.name == f"ir_measures:{ir_measures.parse_measure(spec)}"
    res = evaluate(qrels, run, [spec])
    ours = res.runs["bm25"].per_query[m.name]
    theirs = _theirs(spec, qrels, run)
    assert ours == pytest.approx({q: theirs.get(q, 0.0) for q in ours}, abs=1e-12)
    assert parse_measures(m.name) == [m]  # the output name reads back


def test_cutoff_keyword_is_the_at_form():
    assert parse_measures("nDCG(cutoff=10),P(rel=2,cutoff=5),AP(cutoff=100)") == parse_measures(
        "nDCG@10,P(rel=2)@5,AP@100")
    for bad in ("nDCG(cutoff=10)@5", "nDCG(cutoff=x)", "Nope(cutoff=3)"):
        with pytest.raises(InputError):
            parse_measures(bad)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_per_measure_judged_only_equals_ir_measures(seed):
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(30, 8, replace=False)} for i in range(6)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 5)) for j in rng.choice(30, 15, replace=False)} for i in range(6)}
    specs = ["nDCG(judged_only=True)@10", "P(judged_only=True)@5", "AP(judged_only=True)", "nDCG@10"]
    res = evaluate(qrels, run, specs)
    whole = evaluate(qrels, run, ["nDCG@10", "P@5", "AP"], judged_only=True)  # trec_eval -J for all
    for spec, plain in zip(specs, ["nDCG@10", "P@5", "AP", None]):
        name = parse_measures(spec)[0].name
        theirs = {r.query_id: r.value for r in ir_measures.iter_calc([ir_measures.parse_measure(spec)], qrels, run)}
        ours = res.runs["run"].per_query[name]
        assert ours == pytest.approx({q: theirs.get(q, 0.0) for q in ours}, abs=1e-9), spec
        if plain:
            assert ours == pytest.approx(whole.runs["run"].per_query[plain], abs=1e-12)


def test_evaluate_cli_names_ir_measures_and_refuses_what_nobody_knows(tmp_path):
    out = tmp_path / "e.json"
    r = subprocess.run(["hcrbench", "evaluate", str(EX / "cranfield.qrels"), str(EX / "bm25.trec"), "-m",
                        "Compat(p=0.8)", "-m", "nDCG(cutoff=10)", "--json", str(out)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    means = json.loads(out.read_text())["runs"]["bm25"]["means"]
    assert set(means) == {"ir_measures:Compat(p=0.8)", "nDCG@10"} and "ir_measures:Compat" in r.stdout
    e = subprocess.run(["hcrbench", "evaluate", str(EX / "cranfield.qrels"), str(EX / "bm25.trec"), "-m", "Fooo@10"],
                       capture_output=True, text=True, check=False)
    assert e.returncode == 2 and "unknown measure 'Fooo'" in e.stderr and e.stderr.count("\n") == 1
