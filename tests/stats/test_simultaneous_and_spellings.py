"""compare(): every correction over the declared family equals statsmodels, intervals say whether they are adjusted
(simultaneous Bonferroni intervals where a correction is asked), ranx's spellings, and the all-pairs family."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from test_compare import make_eval

from hcrbench.errors import InputError
from hcrbench.stats import compare

EX = Path(__file__).resolve().parents[2] / "examples"
CORRECTIONS = ["bonferroni", "holm", "holm-sidak", "hommel", "fdr_bh", "fdr_by", "sidak"]


def _families(comps):
    groups: dict = {}
    for i, c in enumerate(comps):
        key = {"run": (c.run, c.baseline), "metric": c.metric}.get(c.family, "")
        groups.setdefault(key, []).append(i)
    return groups.values()


@pytest.mark.parametrize("correction", CORRECTIONS)
@pytest.mark.parametrize("family", ["run", "metric", "all"])
def test_each_correction_over_the_family_equals_statsmodels(correction, family):
    ev = make_eval(n=50, seed=4, names=("b", "x", "y", "z"), metrics=("nDCG@10", "R@100", "RR"))
    comps = compare(ev, n_resamples=200, family=family, test="t", correction=correction)
    for idx in _families(comps):
        raw = [comps[i].t_p for i in idx]
        want = multipletests(raw, method=correction)[1]
        np.testing.assert_allclose([comps[i].p_adj for i in idx], want, rtol=1e-12, atol=0)
        assert all(comps[i].family_size == len(idx) for i in idx)
    assert all(c.correction == correction and c.simultaneous for c in comps)


def test_simultaneous_t_intervals_are_at_bonferronis_level_and_contain_the_per_comparison_ones():
    ev = make_eval(n=40, seed=1, names=("b", "x", "y"), metrics=("nDCG@10", "R@100", "RR"))
    comps = compare(ev, n_resamples=300, ci_method="t", correction="holm")
    for c in comps:
        d = ev.runs[c.run].values[c.metric] - ev.runs[c.baseline].values[c.metric]
        level = 1 - 0.05 / c.family_size
        half = sps.t.ppf((1 + level) / 2, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
        assert c.sim_confidence == pytest.approx(level)
        assert (c.sim_low, c.sim_high) == (pytest.approx(max(-1.0, d.mean() - half)),
                                           pytest.approx(min(1.0, d.mean() + half)))
        assert c.sim_low <= c.ci_low <= c.ci_high <= c.sim_high
        doc = c.to_dict()
        assert doc["ci_adjusted"] is False and doc["sim_method"] == "bonferroni"
        assert (doc["sim_ci_low"], doc["sim_ci_high"]) == (c.sim_low, c.sim_high)
    assert "not adjusted" in comps[0].interval_note() and "Bonferroni" in comps[0].interval_note()


def test_bca_simultaneous_interval_reuses_the_comparisons_resamples():
    ev = make_eval(n=320, seed=2, names=("b", "x"), metrics=("nDCG@10", "R@100"))
    comps = compare(ev, n_resamples=400, correction="bonferroni")
    again = compare(ev, n_resamples=400, correction="bonferroni")
    assert [(c.sim_low, c.sim_high) for c in comps] == [(c.sim_low, c.sim_high) for c in again]  # seeded
    assert all(c.ci_method == "bca" and c.sim_low < c.ci_low and c.sim_high > c.ci_high for c in comps)


def test_the_default_document_is_unchanged_and_asked_corrections_add_simultaneous_intervals():
    ev = make_eval(n=30, names=("b", "x"))
    plain = compare(ev, n_resamples=200)
    assert not any(c.simultaneous for c in plain) and "sim_ci_low" not in plain[0].to_dict()
    none = compare(ev, n_resamples=200, correction="none")
    assert not any(c.simultaneous for c in none)
    forced = compare(ev, n_resamples=200, simultaneous=True)
    assert [c.p_holm for c in forced] == [c.p_holm for c in plain] and all(c.simultaneous for c in forced)


def test_ranx_spellings_mean_the_same_comparison():
    ev = make_eval(n=30, names=("a", "b", "c"))
    ours = compare(ev, pairs="all", test="t", alpha=0.01, n_resamples=300, seed=42)
    theirs = compare(ev, pairs="all", stat_test="student", max_p=0.01, n_permutations=300, random_seed=42)
    assert ours == theirs and all(c.alpha == 0.01 for c in theirs)
    assert compare(ev, test="fisher", n_resamples=200) == compare(ev, test="permutation", n_resamples=200)
    tukey = compare(ev, pairs="all", test="tukey", n_resamples=200)
    assert all(c.p_adj == c.p_tukey and c.correction == "none" for c in tukey)
    assert "Tukey's HSD holds the family-wise error" in tukey[0].legend()
    c = ours[0]
    assert c.significant() == (c.p_adj < 0.01) and c.significant(0.5) == (c.p_adj < 0.5)
    with pytest.raises(InputError, match="max_p"):
        compare(ev, alpha=0.05, max_p=0.01)
    with pytest.raises(TypeError, match="rounding"):
        compare(ev, rounding_digits=3)
    with pytest.raises(InputError, match="student"):
        compare(ev, test="welch")


def test_all_pairs_family_is_every_pair_on_one_metric_by_default():
    ev = make_eval(n=40, names=("a", "b", "c", "d"), metrics=("nDCG@10", "R@100"))
    comps = compare(ev, pairs="all", n_resamples=200)
    assert {c.family for c in comps} == {"metric"} and {c.family_size for c in comps} == {6}  # 4 runs: 6 pairs
    for metric in ("nDCG@10", "R@100"):
        rows = [c for c in comps if c.metric == metric]
        np.testing.assert_allclose([c.p_holm for c in rows], multipletests([c.p for c in rows], method="holm")[1])
    assert {c.family for c in compare(ev, n_resamples=200)} == {"run"}  # against a baseline: unchanged
    assert {c.family_size for c in compare(ev, pairs="all", family="run", n_resamples=200)} == {2}


def test_evaluate_cli_corrections_and_labelled_intervals(tmp_path):
    out = tmp_path / "e.json"
    runs = [str(EX / "bm25.trec"), str(EX / "bm25_stemmed.trec")]
    r = subprocess.run(["hcrbench", "evaluate", str(EX / "cranfield.qrels"), *runs, "-m", "nDCG@10,AP,RR,P@5",
                        "--resamples", "300", "--test", "student", "--correction", "hommel", "--json", str(out)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert "(unadjusted)" in r.stdout and "simultaneous 95% CI" in r.stdout and "Hommel" in r.stdout
    comps = json.loads(out.read_text())["comparisons"]
    np.testing.assert_allclose([c["p_adj"] for c in comps], multipletests([c["t_p"] for c in comps],
                                                                          method="hommel")[1], rtol=1e-12)
    assert all(c["ci_adjusted"] is False and c["sim_ci_low"] <= c["ci_low"] for c in comps)
    assert all(c["sim_confidence"] == pytest.approx(1 - 0.05 / 4) for c in comps)
    bad = subprocess.run(["hcrbench", "evaluate", str(EX / "cranfield.qrels"), *runs, "--correction", "holms"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "hommel" in bad.stderr
    third = tmp_path / "third.trec"  # bm25 with its ranks reversed: a third system
    third.write_text("".join(f"{f[0]} Q0 {f[2]} 1 {-float(f[4])} third\n"
                             for f in map(str.split, (EX / "bm25.trec").read_text().splitlines())))
    pairs = subprocess.run(["hcrbench", "evaluate", str(EX / "cranfield.qrels"), *runs, str(third),
                            "-m", "nDCG@10", "--resamples", "200", "--all-pairs", "--json", str(out)],
                           capture_output=True, text=True, check=False)
    assert pairs.returncode == 0, pairs.stderr
    assert {(c["family"], c["family_size"]) for c in json.loads(out.read_text())["comparisons"]} == {("metric", 3)}


def test_exported_tables_label_the_intervals():
    ev = make_eval(n=30, names=("b", "x"))
    asked = compare(ev, n_resamples=200, correction="bonferroni")
    md = asked.to_markdown()
    assert "| simultaneous ci |" in md and "not adjusted" in md and "Bonferroni's level" in md
    assert "simultaneous ci" not in compare(ev, n_resamples=200).to_markdown()
    assert compare(ev, n_resamples=200, correction="none")[0].to_dict()["ci_adjusted"] is False
