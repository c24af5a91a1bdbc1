"""The gate's anti-oracle control retrieves, by construction, only documents not judged relevant for the query;
scoring it must not print evaluate's "none of its retrieved documents is judged" warning (meant for a user's run
whose ids are from another collection), while a real run with such ids still gets it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hcrbench.data import Qrels, Run
from hcrbench.errors import HcrbenchWarning
from hcrbench.gate._kernels import parse_gate_metric
from hcrbench.gate.core import real_per_query

QRELS = {f"q{i}": {f"d{i}": 1} for i in range(6)}


def _run(name: str, docs: dict[str, list[str]]) -> Run:
    return Run.from_dict({q: {d: float(10 - j) for j, d in enumerate(ds)} for q, ds in docs.items()}, name=name)


def test_the_anti_oracle_control_is_scored_without_the_foreign_ids_warning():
    run = _run("anti_oracle", {q: ["x1", "x2"] for q in QRELS})
    with warnings.catch_warnings():
        warnings.simplefilter("error", HcrbenchWarning)
        vals = real_per_query(Qrels.from_dict(QRELS), run, parse_gate_metric("nDCG@10"), 1, list(QRELS),
                              expect_unjudged=True)
    assert np.all(vals == 0.0)


def test_a_users_run_named_like_the_control_still_warns():
    """Silencing is the caller's statement about how it built the run, not a property of the run's name."""
    run = _run("anti_oracle", {q: ["x1", "x2"] for q in QRELS})
    with pytest.warns(HcrbenchWarning, match="none of its 12 retrieved documents is judged"):
        real_per_query(Qrels.from_dict(QRELS), run, parse_gate_metric("nDCG@10"), 1, list(QRELS))


def test_the_controls_report_prints_no_foreign_ids_warning():
    from hcrbench.gate import run_controls

    qrels = {f"q{i}": {f"d{i}": 1, f"d{i + 1}": 1} for i in range(8)}
    pool = [f"d{i}" for i in range(40)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", HcrbenchWarning)
        warnings.filterwarnings("ignore", message="(?!.*retrieved documents is judged)", category=HcrbenchWarning)
        run_controls(Qrels.from_dict(qrels), pool, n_trials=20, strict=False)


def test_a_real_run_of_foreign_ids_still_warns():
    run = _run("mine", {q: ["x1", "x2"] for q in QRELS})
    with pytest.warns(HcrbenchWarning, match="none of its 12 retrieved documents is judged"):
        real_per_query(Qrels.from_dict(QRELS), run, parse_gate_metric("nDCG@10"), 1, list(QRELS))
