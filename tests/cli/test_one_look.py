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
    r = hcrbench("quickstart", "--worlds", "1", "--encoder", "hash", "--out", str(users), cwd=tmp_path,
                 env={"HCRBENCH_HOME": str(tmp_path / "home")}, timeout=120)
    assert r.returncode == 2
    line = one_error_line(r)
    assert "--out" in line and "notes.txt" in line and "--force" not in line.replace("no --force", ""), line
    assert sorted(p.name for p in users.iterdir()) == ["notes.txt"] and (users / "notes.txt").read_text() == "mine"


def _worlds(home: Path) -> list[dict]:
    (entry,) = json.loads((home / "scored-splits.json").read_text())["worlds"].values()
    return entry["claims"]


def test_four_concurrent_quickstarts_on_one_world_one_proceeds_the_others_refused_before_any_work(tmp_path):
    """Four quickstarts started at once into four new folders on the same Meridian world: exactly one claims it and
    goes on (generating, tuning); the other three are refused in one line, exit 2, with no folder made, advising
    only flags the quickstart has."""
    import os
    import signal
    import time

    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_HOME": str(tmp_path / "home")}
    procs = [subprocess.Popen(["hcrbench", "quickstart", "--worlds", "1", "--encoder", "hash", "--seed", "5", "--out", f"qs{i}",
                               "--quiet"], cwd=tmp_path, env=env, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, start_new_session=True) for i in range(4)]
    try:
        deadline = time.monotonic() + 240
        while sum(p.poll() is not None for p in procs) < 3 and time.monotonic() < deadline:
            time.sleep(0.5)
        time.sleep(2)
        running = [i for i, p in enumerate(procs) if p.poll() is None or p.returncode == 0]
        assert len(running) == 1, [(p.returncode, p.stderr.read() if p.poll() is not None else "") for p in procs]
        (winner,) = running
        for i, p in enumerate(procs):
            if i == winner:
                continue
            err = p.stderr.read()
            lines = [ln for ln in err.splitlines() if ln.startswith("hcrbench: error:")]
            assert p.returncode == 2 and len(lines) == 1 and "Traceback" not in err, err
            assert "Meridian small seed 5's test split is claimed by the quickstart running now in" in lines[0]
            assert f"qs{winner}" in lines[0] and "--relook" in lines[0] and "--seed" in lines[0], lines[0]
            assert "--force" not in lines[0]
            assert not (tmp_path / f"qs{i}").exists()  # refused before any work: no folder, no data generated
        (claim,) = _worlds(tmp_path / "home")
        assert claim["output_dir"] == str((tmp_path / f"qs{winner}").resolve())
        assert claim["pid"] == procs[winner].pid and claim["relook"] is False
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def test_quickstart_with_a_read_only_home_is_refused_before_any_work(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    r = hcrbench("quickstart", "--worlds", "1", "--encoder", "hash", "--seed", "5", "--out", "qs", "--quiet", cwd=tmp_path,
                 fault=f"EROFS:{home}", env={"HCRBENCH_HOME": str(home)}, timeout=120)
    assert r.returncode == 1, r.stderr
    line = one_error_line(r)
    assert "scored-splits.json" in line and "Read-only file system" in line and "HCRBENCH_HOME" in line, line
    assert not (tmp_path / "qs").exists()  # nothing generated, nothing scored with the look unrecorded


def test_quickstart_into_a_new_folder_on_a_scored_world_is_refused_before_generating(tmp_path):
    """A world another folder's quickstart scored (its process gone, its scoring in the registry): a new folder is
    refused in seconds, before Meridian is generated; with --relook the claim is taken and marked a relook."""
    import os
    import signal
    import time

    from hcrbench.protocol.looks import world_key

    done = subprocess.Popen(["true"])
    done.wait()  # a process id that has ended
    first = str((tmp_path / "first").resolve())
    home = tmp_path / "home"
    home.mkdir()
    (home / "scored-splits.json").write_text(json.dumps({"version": 1, "splits": {"k": {"scorings": [
        {"experiment": "quickstart-small", "output_dir": first, "systems": ["hcr"], "forced": True,
         "time": "2026-12-07T07:00:00+00:00"}]}}, "worlds": {world_key("small", 5): {"claims": [
             {"output_dir": first, "pid": done.pid, "host": __import__("socket").gethostname(),
              "time": "2026-12-07T07:00:00+00:00", "relook": False}]}}}))
    t0 = time.monotonic()
    r = hcrbench("quickstart", "--worlds", "1", "--encoder", "hash", "--seed", "5", "--out", "qs", "--quiet", cwd=tmp_path,
                 env={"HCRBENCH_HOME": str(home)}, timeout=120)
    assert r.returncode == 2 and time.monotonic() - t0 < 60
    line = one_error_line(r)
    assert f"was already scored by the quickstart in {first}" in line and "--relook" in line, line
    assert not (tmp_path / "qs").exists()
    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_HOME": str(home)}
    p = subprocess.Popen(["hcrbench", "quickstart", "--worlds", "1", "--encoder", "hash", "--seed", "5", "--out", "qs", "--quiet",
                          "--relook"], cwd=tmp_path, env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while p.poll() is None and not (tmp_path / "qs" / "data").exists() and time.monotonic() < deadline:
            time.sleep(0.3)
        assert p.poll() is None and (tmp_path / "qs" / "data").exists()  # past the claim: generating
        claims = _worlds(home)
        assert [c["output_dir"] for c in claims] == [first, str((tmp_path / "qs").resolve())]
        assert claims[-1]["relook"] is True
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()


@pytest.mark.parametrize("args", [("--encoder", "hash", "--size", "medium"), ("--encoder", "minilm"),
                                  ("--encoder", "hash", "--sizes", "small,medium")])
def test_quickstart_refuses_another_quickstarts_folder_at_once_naming_only_its_own_flags(tmp_path, args):
    """A folder holding a hash quickstart at size small: another size or encoder would be another experiment, which
    the runner refused only after generating and tuning, advising a --force the quickstart lacks."""
    from hcrbench.data.outputs import write_marker

    out = tmp_path / "qs"
    out.mkdir()
    write_marker(out, name="quickstart-hash-small", config_path=out / "quickstart.toml")
    before = sorted(p.name for p in out.iterdir())
    r = hcrbench("quickstart", "--worlds", "1", "--out", str(out), "--seed", "5", "--quiet", *args, cwd=tmp_path,
                 env={"HCRBENCH_HOME": str(tmp_path / "home")}, timeout=120)
    assert r.returncode == 2, r.stderr
    line = one_error_line(r)
    assert "'quickstart-hash-small', another quickstart" in line and "choose another --out" in line, line
    assert "--force" not in line and sorted(p.name for p in out.iterdir()) == before
    assert not (tmp_path / "home").exists()  # refused before the look was claimed


def test_a_killed_run_of_a_locked_split_resumes_its_own_pending_look(root):
    """A run killed after claiming its look left it pending; re-running the same config resumes that look (not a
    second one, no --force-test); another folder is still refused, and so is a look another live process holds."""
    import socket

    home = root / "home"
    home.mkdir()
    ended = subprocess.Popen(["true"])
    ended.wait()
    from hcrbench.data.hashing import sha256_file
    from hcrbench.data.splitlock import split_key

    files = {k: sha256_file(root / "data" / k) for k in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv")}
    key = split_key(files, "test")
    pending = {"experiment": "c0", "output_dir": str((root / "out0").resolve()), "systems": [], "forced": False,
               "time": "2026-12-07T08:00:00+00:00", "pending": True, "claim": "feed", "pid": ended.pid,
               "host": socket.gethostname()}
    (home / "scored-splits.json").write_text(json.dumps({"version": 1, "splits": {key: {"scorings": [pending]}}}))
    r = hcrbench("run", "c1.toml", "--quiet", cwd=root, env={"HCRBENCH_HOME": str(home)})
    assert r.returncode == 2 and "already scored 1 time(s), last by experiment 'c0'" in one_error_line(r)
    r = hcrbench("run", "c0.toml", "--quiet", cwd=root, env={"HCRBENCH_HOME": str(home)})
    assert r.returncode == 0, r.stderr
    (look,) = _registry(home)
    assert look["experiment"] == "c0" and "pending" not in look and look["resumes"] == pending["time"]
    assert look["systems"] == ["good", "poor"]
    live = subprocess.Popen(["sleep", "60"])
    try:  # a pending look whose process still runs is not taken over
        held = {**look, "pending": True, "claim": "beef", "pid": live.pid, "output_dir": str((root / "out2").resolve())}
        (home / "scored-splits.json").write_text(json.dumps({"version": 1, "splits": {key: {"scorings": [held]}}}))
        r = hcrbench("run", "c2.toml", "--quiet", cwd=root, env={"HCRBENCH_HOME": str(home)})
        assert r.returncode == 2 and "already scored 1 time(s)" in one_error_line(r)
    finally:
        live.kill()
        live.wait()
