"""Verdict rules, per-stratum disaggregation and the bench-size calibration curve."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.errors import InputError
from hcrbench.gate import calibration_curve, plot_calibration, stratify, verdict
from hcrbench.stats import Comparison, minimum_detectable_effect, required_n


def _cmp(delta, lo, hi, p_holm, n=200, d=0.5):
    return Comparison("sys", "base", "nDCG@10", n, delta, lo, hi, p_holm, p_holm, d, 0, 0, 0)


def test_null_fail_takes_precedence():
    assert verdict(_cmp(0.1, 0.05, 0.15, 0.001), False, min_delta=0.01).label == "NULL-FAIL"


@pytest.mark.parametrize("delta,sign", [(0.05, "+"), (-0.05, "-")])
def test_hit_states_the_sign(delta, sign):
    v = verdict(_cmp(delta, min(delta * 0.5, delta * 1.5), max(delta * 0.5, delta * 1.5), 0.001), True,
                min_delta=0.01)
    assert v.label == "HIT" and v.sign == sign


def test_under_ns_reports_needed_n_and_projection():
    diffs = np.random.default_rng(0).normal(0.004, 0.2, size=100)
    v = verdict(_cmp(0.004, -0.035, 0.043, 0.8, n=100), True, min_delta=0.02, diffs=diffs)
    sd = diffs.std(ddof=1)
    assert v.label == "UNDER-NS"
    assert v.n_needed == required_n(0.02, sd) and v.n_needed > 100
    assert v.mde == pytest.approx(minimum_detectable_effect(sd, 100))
    assert v.projected_half_width < 0.039  # more queries, narrower CI


def test_miss_when_powered_and_small():
    diffs = np.random.default_rng(1).normal(0.001, 0.05, size=2000)
    v = verdict(_cmp(0.001, -0.001, 0.003, 0.4, n=2000), True, min_delta=0.02, diffs=diffs)
    assert v.label == "MISS" and v.mde < 0.02


def test_verdict_rejects_bad_min_delta():
    with pytest.raises(InputError, match="min_delta"):
        verdict(_cmp(0.1, 0.05, 0.15, 0.001), True, min_delta=0)


def test_stratify_shares_and_deltas():
    qids = ["a", "b", "c", "d", "e"]
    a = [0.5, 0.2, 0.3, 0.9, 0.1]
    b = [0.4, 0.2, 0.5, 0.9, 0.0]
    rows = stratify(qids, a, b, {"a": "x", "b": "x", "c": "y", "d": "y", "e": "y"})
    by = {r.stratum: r for r in rows}
    assert by["x"].n == 2 and by["x"].delta == pytest.approx(0.05)
    assert by["x"].helped == 0.5 and by["x"].tied == 0.5 and by["x"].hurt == 0.0
    assert by["y"].helped == pytest.approx(1 / 3) and by["y"].hurt == pytest.approx(1 / 3)
    assert by["(all)"].n == 5 and by["(all)"].delta == pytest.approx(np.mean(np.subtract(a, b)))


def test_calibration_curve_shrinks_and_matches_projection(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.random(800)
    b = a - 0.02 + rng.normal(0, 0.1, 800)
    rows = calibration_curve(a, b, seed=0, n_resamples=1000, repeats=3)
    meas = [r for r in rows if r.kind == "measured"]
    assert [r.n for r in meas] == [100, 200, 400, 800]
    widths = [r.ci_width for r in meas]
    assert widths == sorted(widths, reverse=True)
    for r in meas:  # bootstrap width agrees with the SE projection within 20%
        assert r.ci_width == pytest.approx(r.projected_width, rel=0.2)
    proj = [r for r in rows if r.kind == "projected"]
    assert [r.n for r in proj] == [1600, 3200] and proj[0].projected_width < meas[-1].projected_width
    assert calibration_curve(a, b, seed=0, n_resamples=1000, repeats=3) == rows  # deterministic
    out = tmp_path / "cal.png"
    plot_calibration(rows, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
