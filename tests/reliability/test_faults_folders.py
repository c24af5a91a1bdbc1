"""Fault injection, output-folder classes (issue 27): folders hcrbench does not own, stale derived files, what
``lock`` covers and what ``verify`` names, concurrent runs on one folder, wall-clock seconds in the report. The
console script runs the case each test is about; set-up steps run in-process."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from faultkit import config_text, hcrbench, in_process, one_error_line, snapshot

from hcrbench.data.outputs import MARKER, FolderLock, read_marker

# ----------------------------------------------------------------------------------------------- ownership


def test_a_folder_of_the_users_files_is_never_overwritten(root: Path, capsys):
    proj = root / "proj"
    proj.mkdir()
    (proj / "config.toml").write_text("# my own config\n")
    (proj / "eval.json").write_text('{"mine": true}\n')
    (root / "p.toml").write_text(config_text("exp-p", root, output_dir="proj"))
    before = snapshot(proj)
    p = hcrbench("run", "p.toml", cwd=root)
    assert p.returncode == 2
    err = one_error_line(p)
    assert re.search(r"p\.toml:2: output_dir: the output folder .*proj holds files hcrbench did not write "
                     r"\(config\.toml, eval\.json\).*--force", err), err
    code, _, err = in_process(capsys, "run", str(root / "p.toml"), "--force")  # --force never overwrites them
    assert code == 2 and "names it would overwrite (config.toml, eval.json)" in err, err
    assert snapshot(proj) == before


def test_force_writes_beside_foreign_files_keeps_them_and_lock_leaves_them_out(root: Path, capsys):
    (root / "out").mkdir()
    (root / "out" / "notes.txt").write_text("mine")
    code, _, err = in_process(capsys, "run", str(root / "a.toml"), "--quiet")
    assert code == 2 and "notes.txt" in err
    code, _, err = in_process(capsys, "run", str(root / "a.toml"), "--quiet", "--force")
    assert code == 0, err
    assert (root / "out" / "notes.txt").read_text() == "mine"
    assert read_marker(root / "out") == {**read_marker(root / "out"), "name": "exp-a", "foreign": ["notes.txt"]}
    assert in_process(capsys, "lock", str(root / "out"))[0] == 0
    locked = json.loads((root / "out" / "hcrbench.lock").read_text())["files"]
    assert "notes.txt" not in locked and {"eval.json", "per_query.parquet", MARKER} <= set(locked)
    (root / "out" / "notes.txt").write_text("edited: not hcrbench's business")
    assert in_process(capsys, "verify", str(root / "out"))[0] == 0


def test_a_folder_from_an_older_hcrbench_is_still_ours(root: Path, capsys):
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    (root / "out" / MARKER).unlink()  # as an hcrbench without markers left it
    code, _, err = in_process(capsys, "run", str(root / "a.toml"))
    assert code == 0 and "reused 2" in err, err
    assert read_marker(root / "out")["name"] == "exp-a"


# ----------------------------------------------------------------------------------------------- stale files, lock


def test_lock_covers_every_file_and_verify_names_each_drift(root: Path, capsys):
    out = root / "out"
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    assert in_process(capsys, "report", str(out))[0] == 0
    assert in_process(capsys, "lock", str(out))[0] == 0
    locked = set(json.loads((out / "hcrbench.lock").read_text())["files"])
    assert {"per_query.parquet", "report.html", "report.md", "tables.tex", "runs/good.trec"} <= locked
    (out / "per_query.parquet").write_bytes((out / "per_query.parquet").read_bytes() + b"\0")
    (out / "report.md").write_text((out / "report.md").read_text().replace("0.", "9.", 1))
    p = hcrbench("verify", str(out), "--no-reevaluate", cwd=root)
    drift = [ln for ln in p.stdout.splitlines() if ln.startswith("DRIFT")]
    assert p.returncode == 1 and len(drift) == 2, p.stdout
    assert "per_query.parquet: sha256 changed" in drift[0] and "report.md: sha256 changed" in drift[1]
    (out / "manifest.json").write_text((out / "manifest.json").read_text()[:100])  # truncated: drift, not exit 2
    code, stdout, _ = in_process(capsys, "verify", str(out))
    assert code == 1 and re.search(r"manifest\.json:\d+: invalid JSON", stdout), stdout
    assert "manifest.json: sha256 changed" in stdout
    (out / "hcrbench.lock").unlink()
    code, _, err = in_process(capsys, "verify", str(out))
    assert code == 2 and "no lock here" in err


def test_a_rerun_with_changed_inputs_leaves_no_stale_report(root: Path, capsys):
    out = root / "out"
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    assert in_process(capsys, "report", str(out))[0] == 0
    assert (out / "report.html").is_file()
    (root / "poor.trec").write_text("".join(f"q{i} Q0 d{i} 1 3.0 p\n" for i in range(8)))  # poor is now perfect
    p = hcrbench("run", "a.toml", "--quiet", cwd=root)
    assert p.returncode == 0, p.stderr
    assert not any((out / f).exists() for f in ("report.html", "report.md", "tables.tex"))
    ev = json.loads((out / "eval.json").read_text())
    assert ev["runs"]["poor"]["means"]["RR"] == 1.0


def test_the_report_holds_no_wall_clock_seconds(root: Path, capsys):
    out = root / "out"
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    man = json.loads((out / "manifest.json").read_text())
    man["systems"]["good"]["seconds"] = 9876.54321
    (out / "manifest.json").write_text(json.dumps(man))
    assert in_process(capsys, "report", str(out))[0] == 0
    for name in ("report.md", "report.html"):
        assert "9876" not in (out / name).read_text()


# ----------------------------------------------------------------------------------------------- concurrency


def test_a_second_run_on_a_busy_folder_stops_naming_the_holder(root: Path, capsys):
    out = root / "out"
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    (root / "a.toml").write_text(config_text("exp-a", root, systems=("good",)))  # edited while the first runs
    before = snapshot(out)
    with FolderLock(out):  # what a running `hcrbench run` holds
        p = hcrbench("run", "a.toml", "--only", "good", cwd=root)
        assert p.returncode == 2
        err = one_error_line(p)
        assert f"is in use by another hcrbench command (pid {os.getpid()} on " in err, err
        assert snapshot(out) == {**before, ".hcrbench-busy": snapshot(out)[".hcrbench-busy"]}
    code, _, err = in_process(capsys, "run", str(root / "a.toml"), "--quiet")  # once it is free: runs
    assert code == 0, err
    man = json.loads((out / "manifest.json").read_text())
    assert list(man["systems"]) == list(json.loads((out / "eval.json").read_text())["runs"]) == ["good"]


def test_a_folder_holding_only_its_config_data_and_experiments_is_claimed_without_force(root: Path, capsys):
    """hcrbench quickstart's layout: the config inside the output folder, the data under it, smaller sizes in
    sizes/ (each an experiment folder of its own)."""
    qs = root / "qs"
    (qs / "sizes").mkdir(parents=True)
    (root / "data").rename(qs / "data")
    (qs / "sizes" / "small.toml").write_text(config_text("small", root, output_dir="small").replace(
        'path = "data"', f'path = "{qs / "data"}"'))
    assert in_process(capsys, "run", str(qs / "sizes" / "small.toml"), "--quiet")[0] == 0
    (qs / "sizes" / "small.toml").unlink()  # sizes/ now holds one experiment folder, nothing else
    (qs / "quickstart.toml").write_text(config_text("qs", root, output_dir="."))
    code, _, err = in_process(capsys, "run", str(qs / "quickstart.toml"), "--quiet")
    assert code == 0, err
    assert read_marker(qs)["foreign"] == []


def test_two_runs_at_once_the_second_stops_and_the_first_stays_consistent(root: Path):
    """Issue 27's race: start `hcrbench run a.toml`, edit a.toml, start `hcrbench run a.toml --only good`."""
    import subprocess
    import time

    from faultkit import FAKEFS

    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_FAKE_FAULT": f"SLOW:{root / 'out' / 'runs'}",
           "PYTHONPATH": os.pathsep.join([str(FAKEFS), os.environ.get("PYTHONPATH", "")])}
    first = subprocess.Popen(["hcrbench", "run", "a.toml", "--quiet"], cwd=root, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    busy = root / "out" / ".hcrbench-busy"
    deadline = time.time() + 120
    while not (busy.is_file() and f'"pid": {first.pid}' in busy.read_text()) and first.poll() is None \
            and time.time() < deadline:
        time.sleep(0.1)
    original = (root / "a.toml").read_text()
    (root / "a.toml").write_text(original.replace("n_resamples = 200", "n_resamples = 300"))  # edited meanwhile
    second = hcrbench("run", "a.toml", "--only", "good", cwd=root)
    _, first_err = first.communicate(timeout=300)
    assert first.returncode == 0, first_err
    assert second.returncode == 2 and f"in use by another hcrbench command (pid {first.pid} " in \
        one_error_line(second)
    out = root / "out"
    man = json.loads((out / "manifest.json").read_text())
    assert (out / "config.toml").read_text() == original and man["config"]["n_resamples"] == 200
    assert man["status"] == "complete" and list(json.loads((out / "eval.json").read_text())["runs"]) == \
        list(man["systems"]) == ["good", "poor"]


def test_a_report_on_a_busy_folder_stops_naming_the_holder_and_writes_nothing(root: Path, capsys):
    out = root / "out"
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    assert not (out / "report.html").exists()  # --quiet writes no report
    before = snapshot(out)
    with FolderLock(out):  # what a running `hcrbench run` holds while it writes the folder
        p = hcrbench("report", "out", cwd=root)
        assert p.returncode == 2, p.stderr
        err = one_error_line(p)
        assert f"the output folder out is in use by another hcrbench command (pid {os.getpid()} on " in err, err
        assert snapshot(out) == {**before, ".hcrbench-busy": snapshot(out)[".hcrbench-busy"]}
    p = hcrbench("report", "out", cwd=root)  # once it is free: writes the report, and leaves the lock free
    assert p.returncode == 0, p.stderr
    assert (out / "report.html").is_file()
    with FolderLock(out):
        pass
