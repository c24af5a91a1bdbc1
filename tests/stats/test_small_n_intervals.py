"""Intervals at small n (hcrbench.stats.compare.small_n_interval): a warning below SMALL_N queries, and an
interval that stays inside the range a paired difference of a [0, 1] measure can take."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.errors import HcrbenchWarning
from hcrbench.metrics import evaluate
from hcrbench.stats import compare
from hcrbench.stats.compare import SMALL_N, difference_range


def test_two_queries_warn_and_stay_inside_minus_one_one():
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    ev = evaluate(qrels, {"base": {"1": {"x": 1.0, "a": 0.5}, "2": {"b": 1.0}},
                          "new": {"1": {"a": 1.0}, "2": {"x": 1.0, "b": 0.5}}}, "nDCG@10")
    with pytest.warns(HcrbenchWarning, match="rest on 2 queries: the 95% interval at this n says little"):
        (c,) = compare(ev, "base", n_resamples=1000)
    assert -1.0 <= c.ci_low <= c.delta <= c.ci_high <= 1.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=SMALL_N + 5))
def test_any_interval_of_a_unit_measure_stays_in_range(pairs):
    from types import SimpleNamespace

    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    qids = [str(i) for i in range(len(pairs))]
    ev = SimpleNamespace(metrics=["nDCG@10"], runs={
        "base": SimpleNamespace(query_ids=qids, values={"nDCG@10": b}),
        "new": SimpleNamespace(query_ids=qids, values={"nDCG@10": a})})
    with pytest.warns() if len(pairs) < SMALL_N else _nothing():
        (c,) = compare(ev, "base", n_resamples=200)
    assert -1.0 <= c.ci_low <= c.ci_high <= 1.0


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_the_range_is_known_for_unit_measures_only():
    assert difference_range("nDCG@10") == difference_range("P(rel=2)@5") == (-1.0, 1.0)
    assert difference_range("NumRet") is None


def test_evaluate_says_so_through_the_console_script(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "base.trec").write_text("1 Q0 x 1 2.0 base\n1 Q0 a 2 1.0 base\n2 Q0 b 1 1.0 base\n")
    (tmp_path / "new.trec").write_text("1 Q0 a 1 2.0 new\n2 Q0 x 1 2.0 new\n2 Q0 b 2 1.0 new\n")
    r = subprocess.run(["hcrbench", "evaluate", str(tmp_path / "q"), str(tmp_path / "base.trec"),
                        str(tmp_path / "new.trec"), "-m", "nDCG@10", "--json", str(tmp_path / "e.json")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert "rest on 2 queries: the 95% interval at this n says little" in r.stderr
    import json

    c = json.loads((tmp_path / "e.json").read_text())["comparisons"][0]
    assert -1.0 <= c["ci_low"] <= c["ci_high"] <= 1.0
