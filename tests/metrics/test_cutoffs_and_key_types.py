"""Measure parsing: absurd cutoffs are one-line errors; dict runs with mixed key types are converted."""

from __future__ import annotations

import warnings

import pytest

from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.metrics import evaluate, parse_measure


@pytest.mark.parametrize("spec", ["P@99999999999999999999", "nDCG@1000000001", "Unjudged@9223372036854775807",
                                  "R@9223372036854775808", "map_cut_99999999999", "Judged@10000000000"])
def test_absurd_cutoffs_are_refused(spec):
    with pytest.raises(InputError) as ei:
        parse_measure(spec)
    msg = str(ei.value)
    assert msg.startswith(f"{spec}: cutoff ") and "\n" not in msg
    with pytest.raises(InputError):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, spec)


def test_largest_allowed_cutoff_still_evaluates():
    res = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "P@1000000000,nDCG@1000000000")
    assert res.means["run"] == {"P@1000000000": 1e-9, "nDCG@1000000000": 1.0}


def test_mixed_key_types_in_a_dict_run_are_all_converted():
    qrels = {"q1": {"2": 1, "d1": 0}, "q2": {"3": 1}}
    mixed = {"q1": {"d1": 2.0, 2: 1.0}, "q2": {3: 1.0, "x": 2.0}}  # first key str, later keys int
    as_str = {"q1": {"d1": 2.0, "2": 1.0}, "q2": {"3": 1.0, "x": 2.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        got = evaluate(qrels, mixed, "RR,NumRelRet").means["run"]
        want = evaluate(qrels, as_str, "RR,NumRelRet").means["run"]
    assert got == want == {"RR": 0.5, "NumRelRet": 2.0}  # a count's run value is its sum, as ir_measures
