"""``hcrbench evaluate QRELS FOLDER [--engine ray]``: every run file of a folder, here or one Ray task per file, with
the numbers (and the JSON, byte for byte) of scoring the files one by one here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

from hcrbench.data import read_qrels, read_run
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.experiment.evaluate_runs import evaluate_runs
from hcrbench.metrics import evaluate

HCRBENCH = shutil.which("hcrbench")
CLI = [HCRBENCH] if HCRBENCH else [sys.executable, "-m", "hcrbench.cli"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QRELS = EXAMPLES / "cranfield.qrels"
ENV = {**os.environ, "HCRBENCH_PROGRESS": "0", "RAY_USAGE_STATS_ENABLED": "0"}


def _folder(tmp: Path) -> Path:
    runs = tmp / "runs"
    runs.mkdir()
    for name in ("bm25.trec", "bm25_stemmed.trec"):
        shutil.copy(EXAMPLES / name, runs / name)
    lines = (EXAMPLES / "bm25.trec").read_text().splitlines(keepends=True)
    (runs / "partial.trec").write_text("".join(lines[: len(lines) // 2]))  # some queries missing: a warning
    (runs / ".hidden").write_text("not a run")
    return runs


def _cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, check=False, cwd=cwd, env=ENV,
                          timeout=300)


def test_folder_is_its_run_files_in_name_order(tmp_path):
    runs = _folder(tmp_path)
    a = _cli("evaluate", QRELS, runs, "-m", "nDCG@10,AP", "--json", "folder.json", cwd=tmp_path)
    files = [runs / "bm25.trec", runs / "bm25_stemmed.trec", runs / "partial.trec"]
    b = _cli("evaluate", QRELS, *files, "-m", "nDCG@10,AP", "--json", "files.json", cwd=tmp_path)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert (tmp_path / "folder.json").read_bytes() == (tmp_path / "files.json").read_bytes()
    empty = tmp_path / "empty"
    empty.mkdir()
    c = _cli("evaluate", QRELS, empty, cwd=tmp_path)
    assert c.returncode == 2 and "the folder holds no run files" in c.stderr


def test_evaluate_runs_local_equals_evaluate(tmp_path):
    runs = _folder(tmp_path)
    files = sorted(p for p in runs.iterdir() if not p.name.startswith("."))
    qrels = read_qrels(QRELS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HcrbenchWarning)
        got = evaluate_runs(qrels, files, ["nDCG@10", "AP", "P@5"], names=[p.stem for p in files], missing="skip")
    assert any("partial" in str(w.message) for w in caught)  # the task's warning, repeated by the driver
    want = evaluate(qrels, {p.stem: read_run(p) for p in files}, ["nDCG@10", "AP", "P@5"], missing="skip")
    assert list(got.runs) == list(want.runs)
    for name in want.runs:
        for m in want.metrics:
            np.testing.assert_array_equal(got[name].values[m], want[name].values[m])
        assert got[name].ledger.to_dict() == want[name].ledger.to_dict()
    streamed = evaluate_runs(qrels, files, ["AP"], names=[p.stem for p in files], stream=True)
    assert streamed.means == evaluate(qrels, {p.stem: read_run(p) for p in files}, "AP").means
    with pytest.raises(InputError, match="must be one of local, ray"):
        evaluate_runs(qrels, files, ["AP"], engine="spark")


def test_address_without_ray_is_a_usage_error(tmp_path):
    out = _cli("evaluate", QRELS, EXAMPLES / "bm25.trec", "--address", "127.0.0.1:1", cwd=tmp_path)
    assert out.returncode == 2 and "--address needs --engine ray" in out.stderr


@pytest.mark.slow  # ~15 s: starts and stops a private Ray on 127.0.0.1
@pytest.mark.skipif(find_spec("ray") is None, reason="needs the [ray] extra")
def test_ray_gives_the_local_json_byte_for_byte(tmp_path):
    runs = _folder(tmp_path)
    common = ["evaluate", QRELS, runs, "-m", "nDCG@10,AP,RR", "--resamples", "500"]
    local = _cli(*common, "--json", "local.json", cwd=tmp_path)
    ray = _cli(*common, "--engine", "ray", "--json", "ray.json", cwd=tmp_path)
    assert local.returncode == 0 and ray.returncode == 0, ray.stderr[-3000:]
    assert (tmp_path / "ray.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert "partial" in ray.stderr and "absent from the run" in ray.stderr  # the worker's warning, in the driver
    (runs / "zbad.trec").write_text("q Q0 d 1 high t\n")
    bad = _cli(*common, "--engine", "ray", "--stream", cwd=tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("zbad.trec:1: score: score is not a number: 'high'")
