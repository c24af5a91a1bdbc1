"""Seeds are 0..2**32-1 and resample / trial counts at most ten million, on every command: one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from hcrbench.cli import main
from hcrbench.errors import InputError
from hcrbench.gate import gate_runs

BIG_SEED = str(2**32)
TOO_MANY = str(10**7 + 1)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq2 0 d3 2\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq2 Q0 d4 1 1.0 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 2.0 b\nq2 Q0 d3 1 1.0 b\n")
    (tmp_path / "pool.txt").write_text("\n".join(f"d{i}" for i in range(1, 16)) + "\n")
    return {k: str(tmp_path / f) for k, f in
            (("qrels", "q.qrels"), ("a", "a.run"), ("b", "b.run"), ("pool", "pool.txt"))}


def _error(args: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as ei:
        main(args)
    assert ei.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_evaluate_bounds(files, capsys):
    base = ["evaluate", files["qrels"], files["a"], files["b"]]
    assert "--seed: must be an integer in 0..4294967295" in _error([*base, "--seed", BIG_SEED], capsys)
    assert "--resamples: must be an integer in 1..10000000" in _error([*base, "--resamples", TOO_MANY], capsys)
    assert main([*base, "--seed", str(2 ** 32 - 1), "--resamples", "50"]) == 0


def test_gate_bounds(files, capsys):
    base = ["gate", files["a"], files["b"], "--qrels", files["qrels"], "--item-pool", files["pool"]]
    assert "--seed: must be an integer in 0..4294967295" in _error([*base, "--seed", BIG_SEED], capsys)
    assert "--n-trials: must be an integer in 1..10000000" in _error([*base, "--n-trials", TOO_MANY], capsys)
    err = _error([*base, "--baseline", "a", "--n-resamples", TOO_MANY], capsys)
    assert "--n-resamples: must be an integer in 1..10000000" in err


def test_generate_seed_bound(tmp_path, capsys):
    err = _error(["generate", "meridian", "--seed", BIG_SEED, "--out", str(tmp_path / "m")], capsys)
    assert "--seed: must be an integer in 0..4294967295" in err
    assert not (tmp_path / "m").exists()


def test_gate_api_caps_trials():
    with pytest.raises(InputError, match=r"n_trials: must be an integer in 1\.\.10000000"):
        gate_runs({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, item_pool=["d1", "d2"], n_trials=10**7 + 1)
