"""``hcrbench lock`` vouches only for what it re-derives, through the console script: an edited mean or an edited
``cost`` block of eval.json is refused by ``lock`` itself (not only flagged later by ``verify``), and a run stopped
while its report is written leaves a manifest that is not "complete", which ``lock`` refuses and ``verify``
flags."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reliability"))
from faultkit import config_text, make_dataset

GATE = '[gate]\nmetric = "nDCG@10"\ncontrols = false\nn_trials = 50\nstrict = false\n'
#: Loaded at interpreter start (PYTHONPATH): the report writer dies half way, as a kill -9 would.
KILL_IN_REPORT = '''
import os
from pathlib import Path

import hcrbench.report.document as document


def _killed(folder):
    (Path(folder) / "report.html").write_text("<html><body>half a rep", encoding="utf-8")
    os._exit(137)


document.make_report = _killed
'''


@pytest.fixture
def root(tmp_path: Path) -> Path:
    make_dataset(tmp_path / "data")
    (tmp_path / "good.trec").write_text("".join(f"q{i} Q0 d{i} 1 2.0 g\nq{i} Q0 d{i + 8} 2 1.0 g\n" for i in range(8)))
    (tmp_path / "poor.trec").write_text("".join(f"q{i} Q0 d{i + 8} 1 2.0 p\nq{i} Q0 d{i} 2 1.0 p\n" for i in range(8)))
    return tmp_path


def _hcrbench(root: Path, *args: str, kill_in_report: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_HOME": str(root / "home")}
    if kill_in_report:
        site = root / "site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(KILL_IN_REPORT, encoding="utf-8")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)
    return subprocess.run(["hcrbench", *args], cwd=root, capture_output=True, text=True, timeout=300, env=env)


def _edit_eval(out: Path, edit) -> None:
    doc = json.loads((out / "eval.json").read_text())
    edit(doc)
    (out / "eval.json").write_text(json.dumps(doc, indent=2))


@pytest.mark.parametrize(("edit", "named"), [
    (lambda d: d["runs"]["poor"]["means"].__setitem__("RR", d["runs"]["poor"]["means"]["RR"] + 0.05),
     "poor means RR: stored 0.55"),
    (lambda d: d["cost"]["good"].__setitem__("chunks_scored", 0.5), "cost good chunks_scored: stored 0.5"),
])
def test_lock_refuses_an_edited_mean_or_cost_it_would_vouch_for(root, edit, named):
    (root / "a.toml").write_text(config_text("a", root))
    assert _hcrbench(root, "run", "a.toml", "--quiet").returncode == 0
    out = root / "out"
    _edit_eval(out, edit)
    r = _hcrbench(root, "lock", "out")
    assert r.returncode == 2, r.stdout + r.stderr
    line, = r.stderr.strip().splitlines()
    assert "eval.json" in line and named in line and "hcrbench run' again" in line, line
    assert not (out / "hcrbench.lock").exists()


def test_a_run_killed_while_its_report_is_written_is_not_complete_lock_refuses_verify_flags(root):
    (root / "a.toml").write_text(config_text("a", root) + GATE)
    first = _hcrbench(root, "run", "a.toml", "--quiet")
    assert first.returncode == 0, first.stderr
    out = root / "out"
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    assert _hcrbench(root, "lock", "out").returncode == 0

    killed = _hcrbench(root, "run", "a.toml", "--quiet", kill_in_report=True)
    assert killed.returncode == 137, killed.stderr
    assert json.loads((out / "manifest.json").read_text())["status"] != "complete"
    v = _hcrbench(root, "verify", "out")
    assert v.returncode == 1 and "manifest.json: status 'reporting', not 'complete'" in v.stdout, v.stdout
    r = _hcrbench(root, "lock", "out")
    assert r.returncode == 2 and "not complete (status 'reporting')" in r.stderr, r.stderr

    again = _hcrbench(root, "run", "a.toml", "--quiet")  # a finished re-run completes it
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    assert _hcrbench(root, "verify", "out").returncode == 0


@pytest.mark.parametrize("how", ["move", "copy"])
def test_a_locked_folder_moved_or_copied_with_its_dataset_still_verifies(tmp_path, how):
    """The manifest names the dataset relative to the output folder too, so a project folder moved (the old
    path gone) or copied to another place verifies intact: no false DRIFT line, the report re-renders the same."""
    import shutil

    proj = tmp_path / "proj"
    proj.mkdir()
    make_dataset(proj / "data")
    (proj / "good.trec").write_text("".join(f"q{i} Q0 d{i} 1 2.0 g\nq{i} Q0 d{i + 8} 2 1.0 g\n" for i in range(8)))
    (proj / "poor.trec").write_text("".join(f"q{i} Q0 d{i + 8} 1 2.0 p\nq{i} Q0 d{i} 2 1.0 p\n" for i in range(8)))
    (proj / "a.toml").write_text(config_text("a", proj) + GATE)
    assert _hcrbench(proj, "run", "a.toml", "--quiet").returncode == 0
    assert _hcrbench(proj, "lock", "out").returncode == 0
    other = tmp_path / "elsewhere" / "proj2"
    other.parent.mkdir()
    (shutil.move if how == "move" else shutil.copytree)(proj, other)
    v = _hcrbench(tmp_path, "verify", str(other / "out"))
    assert v.returncode == 0 and "DRIFT" not in v.stdout, v.stdout
    assert "intact" in v.stdout
