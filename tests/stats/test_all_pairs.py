"""All-pairs comparison: every pair once, Holm over the declared family, Tukey's HSD (scipy), ranx's letters."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import tukey_hsd
from test_compare import make_eval

from hcrbench.errors import InputError
from hcrbench.stats import compare, holm, significance_letters, tukey_hsd_pvalues


def test_every_pair_once_later_against_earlier():
    ev = make_eval(names=("a", "b", "c", "d"))
    comps = compare(ev, pairs="all", metrics="nDCG@10", n_resamples=200)
    assert [(c.run, c.baseline) for c in comps] == [("b", "a"), ("c", "a"), ("d", "a"), ("c", "b"), ("d", "b"),
                                                    ("d", "c")]
    # the default (a baseline) is unchanged: a contract
    base = compare(ev, metrics="nDCG@10", n_resamples=200)
    assert [(c.run, c.baseline) for c in base] == [("b", "a"), ("c", "a"), ("d", "a")]
    assert all(c.p_tukey is None for c in base)
    assert [c.p for c in base] == [c.p for c in comps[:3]]  # the same seeds: a pair's p does not depend on mode


@pytest.mark.parametrize("family,sizes", [("metric", 3), ("run", 2), ("all", 6)])
def test_holm_over_the_declared_family(family, sizes):
    ev = make_eval(names=("a", "b", "c"))
    comps = compare(ev, pairs="all", family=family, n_resamples=300)
    assert all(c.family_size == sizes for c in comps)
    groups: dict = {}
    for i, c in enumerate(comps):
        key = {"metric": c.metric, "run": (c.run, c.baseline)}.get(family, "")
        groups.setdefault(key, []).append(i)
    for idx in groups.values():
        assert np.allclose(holm([comps[i].p for i in idx]), [comps[i].p_holm for i in idx])


def test_tukey_equals_scipy_and_is_symmetric():
    ev = make_eval(names=("a", "b", "c"))
    comps = compare(ev, pairs="all", n_resamples=100)
    for m in ("nDCG@10", "R@100"):
        ref = tukey_hsd(*[ev.runs[n].values[m] for n in "abc"]).pvalue
        got = {(c.run, c.baseline): c.p_tukey for c in comps if c.metric == m}
        assert got[("b", "a")] == pytest.approx(ref[1, 0]) and got[("c", "b")] == pytest.approx(ref[2, 1])
    flat = tukey_hsd_pvalues([np.ones(5), np.ones(5)])  # zero variance: scipy says NaN, equal means say 1
    assert flat.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(InputError):
        tukey_hsd_pvalues([np.ones(5)])


def test_letters_mark_who_beats_whom():
    ev = make_eval(n=200, names=("low", "mid", "high"))  # each run adds ~0.05 to the previous one's mean
    for n, shift in (("mid", 0.3), ("high", 0.6)):  # make the ordering unmistakable
        ev.runs[n].values["nDCG@10"] = ev.runs["low"].values["nDCG@10"] + shift
    comps = compare(ev, pairs="all", metrics="nDCG@10", n_resamples=500)
    letters = significance_letters(comps, ["low", "mid", "high"], p="p_holm")
    assert letters == {("low", "nDCG@10"): "", ("mid", "nDCG@10"): "ᵃ", ("high", "nDCG@10"): "ᵃᵇ"}
    plain = significance_letters(comps, ["low", "mid", "high"], superscript=False)
    assert plain[("high", "nDCG@10")] == "ab"
    # a copy of the baseline is marked by nobody and marks nobody
    ev.runs["mid"].values["nDCG@10"] = ev.runs["low"].values["nDCG@10"].copy()
    same = significance_letters(compare(ev, pairs="all", metrics="nDCG@10", n_resamples=200), ["low", "mid", "high"])
    assert same[("mid", "nDCG@10")] == "" and same[("high", "nDCG@10")] == "ᵃᵇ"
    with pytest.raises(InputError):
        significance_letters(comps, ["low"], p="q")
    with pytest.raises(InputError):
        compare(ev, pairs="some")
