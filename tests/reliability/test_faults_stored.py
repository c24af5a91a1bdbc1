"""Fault injection, stored numbers (issue 38): ``lock`` refuses, and ``verify`` names, a per-query value, an
interval or p value, a per-query table row or a report number that does not re-derive from the runs; both take
the folder's run lock."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from faultkit import hcrbench, in_process, one_error_line

from hcrbench.data.outputs import FolderLock


@pytest.fixture
def done(root: Path, capsys) -> Path:
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    return root / "out"


def _edit_eval(out: Path, fn) -> None:
    doc = json.loads((out / "eval.json").read_text())
    fn(doc)
    (out / "eval.json").write_text(json.dumps(doc, indent=2) + "\n")


def _per_query(doc):
    pq = doc["runs"]["poor"]["per_query"]["nDCG@10"]
    pq["q3"] = 1.0 if pq["q3"] != 1.0 else 0.5


def _p_value(doc):
    doc["comparisons"][0]["p"] = 0.001
    doc["comparisons"][0]["ci_low"] = 0.2


def test_lock_refuses_an_edited_per_query_value(done: Path):
    _edit_eval(done, _per_query)
    p = hcrbench("lock", "out", cwd=done.parent)
    assert p.returncode == 2, p.stdout + p.stderr
    assert re.search(r"eval\.json: poor per_query nDCG@10 q3: stored 1\.0, re-derived", one_error_line(p))
    assert not (done / "hcrbench.lock").exists()


@pytest.mark.parametrize(("edit", "named"), [
    (lambda out: _edit_eval(out, _p_value), r"eval\.json: comparisons\[0\] p: stored 0\.001"),
    (lambda out: (out / "per_query.csv").write_text(
        (out / "per_query.csv").read_text().replace("poor,q3,", "poor,q3,0.9", 1).replace("0.90", "0.9")),
     r"per_query\.csv: poor nDCG@10 q3: stored"),
])
def test_lock_refuses_edited_intervals_p_values_and_tables(done: Path, capsys, edit, named):
    edit(done)
    code, _, err = in_process(capsys, "lock", str(done))
    assert code == 2 and re.search(named, err), err


def test_lock_refuses_an_edited_report_number(done: Path, capsys):
    assert in_process(capsys, "report", str(done))[0] == 0
    md = (done / "report.md").read_text()
    numbers = re.findall(r"\b0\.\d{3}\b", md)
    assert numbers
    (done / "report.md").write_text(md.replace(numbers[0], "0.999", 1))
    code, _, err = in_process(capsys, "lock", str(done))
    assert code == 2 and "report.md: differs from a fresh rendering" in err, err


def test_verify_names_a_per_query_value_edited_together_with_its_hash(done: Path, capsys):
    """The forger edits eval.json and the lock's hash of it: the hashes agree, the re-derivation does not."""
    assert in_process(capsys, "lock", str(done))[0] == 0
    _edit_eval(done, _per_query)
    lock = json.loads((done / "hcrbench.lock").read_text())
    lock["files"]["eval.json"] = hashlib.sha256((done / "eval.json").read_bytes()).hexdigest()
    (done / "hcrbench.lock").write_text(json.dumps(lock, indent=2, sort_keys=True) + "\n")
    p = hcrbench("verify", "out", cwd=done.parent)
    assert p.returncode == 1, p.stdout
    assert re.search(r"DRIFT: .*eval\.json: poor per_query nDCG@10 q3: stored", p.stdout), p.stdout
    assert "intact" not in p.stdout


@pytest.mark.parametrize("command", ["lock", "verify"])
def test_lock_and_verify_wait_for_no_run_they_stop_at_once(done: Path, capsys, command: str):
    assert in_process(capsys, "lock", str(done))[0] == 0
    before = (done / "hcrbench.lock").read_bytes()
    with FolderLock(done):  # as `hcrbench run` holds it while it rewrites the folder
        p = hcrbench(command, "out", cwd=done.parent)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "is in use by another hcrbench command" in one_error_line(p)
    assert (done / "hcrbench.lock").read_bytes() == before


def test_an_untouched_folder_still_locks_and_verifies(done: Path, capsys):
    assert in_process(capsys, "report", str(done))[0] == 0
    assert in_process(capsys, "lock", str(done))[0] == 0
    code, out, _ = in_process(capsys, "verify", str(done))
    assert code == 0 and "intact" in out
