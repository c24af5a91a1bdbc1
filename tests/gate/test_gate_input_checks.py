"""Gate input checks: relevance threshold >= 1, tiny control pools, clear mismatch errors, the shared Holm."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hcrbench.cli import main
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.gate import build_controls, gate_pairs, gate_runs, holm
from hcrbench.stats.multiple import holm as stats_holm

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
RUN = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d4": 1.0}}
POOL = [f"d{i}" for i in range(1, 16)]


@pytest.mark.parametrize("t", [0, -1, -5])
def test_gate_refuses_non_positive_rel_threshold(t):
    for fn, kw in ((gate_runs, {"runs": RUN}), (gate_pairs, {"runs": RUN})):
        with pytest.raises(InputError) as ei:
            fn(QRELS, item_pool=POOL, n_trials=5, rel_threshold=t, **kw)
        assert str(ei.value).startswith("rel_threshold: must be an integer >= 1")
        assert "positive grades" in str(ei.value)
    with pytest.raises(InputError, match="rel_threshold"):
        build_controls(QRELS, POOL, k=3, rel_threshold=t)


def test_gate_cli_refuses_rel_threshold_zero(tmp_path, capsys):
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq2 0 d3 2\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq2 Q0 d4 1 1.0 a\n")
    (tmp_path / "pool.txt").write_text("\n".join(POOL) + "\n")
    with pytest.raises(SystemExit) as ei:
        main(["gate", str(tmp_path / "a.run"), "--qrels", str(tmp_path / "q.qrels"), "--item-pool",
              str(tmp_path / "pool.txt"), "--rel-threshold", "0", "--n-trials", "5"])
    assert ei.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--rel-threshold" in err


def test_controls_with_a_pool_barely_large_enough():
    runs = build_controls({"q1": {"d1": 1}, "q2": {"d2": 1}}, ["d1", "d2", "d3", "d4"], k=3, seed=1)
    for name, run in runs.items():
        for q in run.query_ids:
            assert len(run[q]) == 3, name
    assert set(runs["oracle"]["q1"]) >= {"d1"} and set(runs["oracle"]["q2"]) >= {"d2"}


def test_gate_names_run_ids_when_no_query_matches():
    with pytest.raises(InputError) as ei:
        gate_runs(QRELS, {"x9": {"d1": 1.0}, "x10": {"d2": 1.0}}, item_pool=POOL, n_trials=5)
    msg = str(ei.value)
    assert "first run ids: 'x9', 'x10'" in msg and "'q1', 'q2'" in msg


def test_too_few_trials_floor_is_at_most_one():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        res = gate_runs(QRELS, RUN, item_pool=POOL, n_trials=1, k=1, metric="RR")
    msg = next(w for w in res["run"].warnings if "too few" in w)
    assert "smallest Holm-adjusted p is 1 >=" in msg


def test_gate_holm_is_the_stats_holm():
    rng = np.random.default_rng(3)
    for _ in range(50):
        p = rng.random(4) ** 2
        p[rng.integers(0, 4)] = p[0]  # ties
        np.testing.assert_array_equal(holm(p), stats_holm(p))
    np.testing.assert_array_equal(holm([1.0, 1.0, 0.5, 0.2]), stats_holm([1.0, 1.0, 0.5, 0.2]))
