"""The one-look registry through the console script: checking a locked split and recording the look are one step
under a file lock, before any work, so of four concurrent runs exactly one scores and every look is recorded; a
second look is refused at once and leaves no folder; a read-only ``HCRBENCH_HOME`` is refused in one line before
any work instead of scoring with the look unrecorded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reliability"))
from faultkit import FAKEFS, config_text, hcrbench, make_dataset, one_error_line


@pytest.fixture
def root(tmp_path: Path) -> Path:
    make_dataset(tmp_path / "data")
    (tmp_path / "good.trec").write_text("".join(f"q{i} Q0 d{i} 1 2.0 g\nq{i} Q0 d{i + 8} 2 1.0 g\n" for i in range(8)))
    (tmp_path / "poor.trec").write_text("".join(f"q{i} Q0 d{i + 8} 1 2.0 p\nq{i} Q0 d{i} 2 1.0 p\n" for i in range(8)))
    for i in range(4):
        (tmp_path / f"c{i}.toml").write_text(
            config_text(f"c{i}", tmp_path, output_dir=f"out{i}").replace('[dataset]\n', '[dataset]\nlocked = true\n'))
    return tmp_path


def _registry(home: Path) -> list[dict]:
    reg = json.loads((home / "scored-splits.json").read_text())
    (entry,) = reg["splits"].values()
    return entry["scorings"]


def test_four_concurrent_runs_on_a_locked_split_one_scores_every_look_recorded(root):
    import os

    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_HOME": str(root / "home")}
    procs = [subprocess.Popen(["hcrbench", "run", f"c{i}.toml", "--quiet"], cwd=root, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(4)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    ok = [i for i, (rc, _) in enumerate(results) if rc == 0]
    assert len(ok) == 1, results
    for i, (rc, err) in enumerate(results):
        if i not in ok:
            assert rc == 2 and "is locked and was already scored 1 time(s)" in err and "--force-test" in err, err
            assert not (root / f"out{i}").exists()  # refused before any work: no folder
    (look,) = _registry(root / "home")
    assert look["experiment"] == f"c{ok[0]}" and look["systems"] == ["good", "poor"] and "pending" not in look


def test_a_second_look_is_refused_at_once_and_a_forced_one_is_recorded(root):
    home = {"HCRBENCH_HOME": str(root / "home")}
    assert hcrbench("run", "c0.toml", "--quiet", cwd=root, env=home).returncode == 0
    r = hcrbench("run", "c1.toml", "--quiet", cwd=root, env=home)
    assert r.returncode == 2 and "already scored 1 time(s), last by experiment 'c0'" in one_error_line(r)
    assert not (root / "out1").exists() and len(_registry(root / "home")) == 1
    r = hcrbench("run", "c1.toml", "--quiet", "--force-test", cwd=root, env=home)
    assert r.returncode == 0, r.stderr
    assert [(s["experiment"], s["forced"]) for s in _registry(root / "home")] == [("c0", False), ("c1", True)]


def test_a_read_only_home_is_refused_before_any_work(root):
    home = root / "home"
    home.mkdir()
    r = hcrbench("run", "c0.toml", "--quiet", cwd=root, fault=f"EROFS:{home}", env={"HCRBENCH_HOME": str(home)})
    assert r.returncode == 1, r.stderr
    line = one_error_line(r)
    assert "scored-splits.json" in line and "Read-only file system" in line and "HCRBENCH_HOME" in line, line
    assert not (root / "out0").exists()  # nothing scored with the look unrecorded
    assert FAKEFS.is_dir()


def test_quickstart_refuses_a_users_folder_at_once_with_advice_it_can_follow(tmp_path):
    """The runner's refusal says --force, which the quickstart lacks, and came after minutes of tuning: refused
    before any work, naming --out, the user's file untouched."""
    users = tmp_path / "mine"
    users.mkdir()
    (users / "notes.txt").write_text("mine")
    r = hcrbench("quickstart", "--encoder", "hash", "--out", str(users), cwd=tmp_path,
                 env={"HCRBENCH_HOME": str(tmp_path / "home")}, timeout=120)
    assert r.returncode == 2
    line = one_error_line(r)
    assert "--out" in line and "notes.txt" in line and "--force" not in line.replace("no --force", ""), line
    assert sorted(p.name for p in users.iterdir()) == ["notes.txt"] and (users / "notes.txt").read_text() == "mine"
