"""Wilcoxon signed-rank and Benjamini-Hochberg beside Holm: equal to scipy and statsmodels, and what compare's
``test`` / ``correction`` change (the deciding p, never ``p_holm``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from test_compare import make_eval

from hcrbench.errors import InputError
from hcrbench.stats import adjust, benjamini_hochberg, compare, holm, wilcoxon_p, wilcoxon_test

probs = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(probs)
def test_bh_equals_statsmodels_and_scipy(p):
    ours = benjamini_hochberg(p)
    assert ours == pytest.approx(multipletests(p, method="fdr_bh")[1], abs=1e-12)
    assert ours == pytest.approx(sps.false_discovery_control(p, method="bh"), abs=1e-12)
    assert adjust(p, "none").tolist() == list(p)
    assert np.all(ours <= holm(p) + 1e-15)  # FDR control is never stricter than FWER control


@settings(max_examples=25, deadline=None)  # statsmodels' Holm takes ~0.1 s a call
@given(probs)
def test_holm_equals_statsmodels(p):
    assert adjust(p, "holm") == pytest.approx(multipletests(p, method="holm")[1], abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), min_size=30, max_size=30),
       st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), min_size=30, max_size=30))
def test_wilcoxon_equals_scipy_on_tied_differences(a, b):
    a, b = np.array(a), np.array(b)
    if np.all(a == b):
        assert wilcoxon_p(a, b) == 1.0  # scipy has nothing to rank: no evidence
    else:
        ref = sps.wilcoxon(a, b)
        assert wilcoxon_p(a, b) == pytest.approx(ref.pvalue, abs=1e-15)
        res = wilcoxon_test(a, b)
        assert (res.statistic, res.pvalue) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue, abs=1e-15))
        assert res.n_nonzero == int(np.count_nonzero(a - b))


@pytest.mark.parametrize("family", ["run", "metric", "all"])
def test_compare_wilcoxon_bh_equal_the_references_over_the_family(family):
    ev = make_eval(n=80, seed=3, names=("b", "x", "y", "z"), metrics=("nDCG@10", "R@100", "RR"))
    comps = compare(ev, n_resamples=200, family=family, test="wilcoxon", correction="bh")
    default = compare(ev, n_resamples=200, family=family)
    assert [c.p_holm for c in comps] == [c.p_holm for c in default]  # the contract field never moves
    groups: dict = {}
    for c in comps:
        a = ev.runs[c.run].values[c.metric]
        b = ev.runs[c.baseline].values[c.metric]
        assert c.p_wilcoxon == pytest.approx(sps.wilcoxon(a, b).pvalue, abs=1e-15)
        key = {"run": c.run, "metric": c.metric, "all": ""}[family]
        groups.setdefault(key, []).append(c)
    for members in groups.values():
        ref = multipletests([c.p_wilcoxon for c in members], method="fdr_bh")[1]
        assert [c.p_adj for c in members] == pytest.approx(ref, abs=1e-12)
        assert all(c.significant(0.05) == (c.p_adj < 0.05) for c in members)
    assert all(d.p_adj == d.p_holm for d in default)  # defaults: the Holm-adjusted permutation p decides
    assert "Wilcoxon signed-rank" in comps[0].legend() and "Benjamini-Hochberg" in comps[0].legend()
    assert comps[0].to_dict()["test"] == "wilcoxon" and comps[0].to_dict()["correction"] == "bh"


def test_compare_refuses_unknown_test_or_correction():
    ev = make_eval(names=("a", "b"))
    with pytest.raises(InputError):
        compare(ev, test="sign")
    with pytest.raises(InputError):
        compare(ev, correction="tukey-kramer")


def test_evaluate_cli_test_correction_alpha(tmp_path):
    """Through the console script: --test wilcoxon --correction bh --alpha 0.1 decide the bold rows and p_adj,
    equal to scipy + statsmodels on the per-query values the same JSON holds; bad values are one line, exit 2."""
    import json
    import subprocess
    from pathlib import Path

    ex = Path(__file__).resolve().parents[2] / "examples"
    out = tmp_path / "e.json"
    r = subprocess.run(["hcrbench", "evaluate", str(ex / "cranfield.qrels"), str(ex / "bm25.trec"),
                        str(ex / "bm25_stemmed.trec"), "-m", "nDCG@10", "-m", "AP", "-m", "P@5", "--test", "wilcoxon",
                        "--correction", "bh", "--alpha", "0.1", "--resamples", "200", "--json", str(out)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert "Wilcoxon signed-rank test" in r.stdout and "Benjamini-Hochberg" in r.stdout and "p < 0.1" in r.stdout
    doc = json.loads(out.read_text())
    comps = doc["comparisons"]
    raw = []
    for c in comps:
        a = doc["runs"][c["run"]]["per_query"][c["metric"]]
        b = doc["runs"][c["baseline"]]["per_query"][c["metric"]]
        qs = sorted(a)
        raw.append(sps.wilcoxon([a[q] for q in qs], [b[q] for q in qs]).pvalue)
        assert c["test"] == "wilcoxon" and c["correction"] == "bh"
    assert [c["p_wilcoxon"] for c in comps] == pytest.approx(raw, abs=1e-15)
    assert [c["p_adj"] for c in comps] == pytest.approx(multipletests(raw, method="fdr_bh")[1], abs=1e-12)
    for bad in (["--test", "sign"], ["--correction", "bonferoni"], ["--alpha", "1.5"]):
        e = subprocess.run(["hcrbench", "evaluate", str(ex / "cranfield.qrels"), str(ex / "bm25.trec"), *bad],
                           capture_output=True, text=True, check=False)
        assert e.returncode == 2 and e.stderr.count("\n") == 1 and bad[0] in e.stderr, e.stderr


def test_all_pairs_letters_can_follow_the_chosen_test_and_correction(tmp_path):
    import json
    import subprocess
    from pathlib import Path

    from hcrbench.stats import significance_letters

    ex = Path(__file__).resolve().parents[2] / "examples"
    rev = tmp_path / "rev.trec"
    rev.write_text("".join(f"{p[0]} Q0 {p[2]} 1 {-float(p[4])} rev\n"
                           for p in (ln.split() for ln in (ex / "bm25.trec").read_text().splitlines())))
    out = tmp_path / "ap.json"
    r = subprocess.run(["hcrbench", "evaluate", str(ex / "cranfield.qrels"), str(ex / "bm25.trec"),
                        str(ex / "bm25_stemmed.trec"), str(rev), "-m", "nDCG@10", "--all-pairs", "--letters", "adj",
                        "--test", "wilcoxon", "--correction", "bh", "--resamples", "200", "--json", str(out)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["letters"]["by"] == "p_adj"
    runs = doc["letters"]["runs"]
    assert runs["bm25"]["nDCG@10"] == runs["bm25_stemmed"]["nDCG@10"] == "c" and runs["rev"]["nDCG@10"] == ""
    ev = make_eval(n=40, seed=1, names=("a", "b", "c"), metrics=("RR",))
    comps = compare(ev, pairs="all", n_resamples=200, test="wilcoxon", correction="bh")
    letters = significance_letters(comps, ["a", "b", "c"], p="p_adj", superscript=False)
    for c in comps:  # a letter appears exactly where the adjusted Wilcoxon p says so
        winner, loser = (c.run, c.baseline) if c.delta > 0 else (c.baseline, c.run)
        mark = "abc"[["a", "b", "c"].index(loser)]
        assert (mark in letters[(winner, "RR")]) == (c.p_adj <= 0.05), c
