"""An output that is (or resolves to) one of the files an input folder expands to is refused before any work:
``evaluate QRELS runs/ --json runs/a.trec`` (or ``--out``) used to replace a run of the folder, exit 0."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


def _run(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *map(str, args)], capture_output=True, text=True, check=False, cwd=cwd)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "runs").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "q.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "runs/a.trec").write_text("q1 Q0 d1 1 2.0 a\nq2 Q0 d3 1 1.0 a\n")
    (tmp_path / "elsewhere/b.trec").write_text("q1 Q0 d2 1 2.0 b\nq2 Q0 d2 1 1.0 b\n")
    (tmp_path / "runs/b.trec").symlink_to(Path("../elsewhere/b.trec"))
    return tmp_path


@pytest.mark.parametrize("option", ["--json", "--out"])
@pytest.mark.parametrize("target", ["runs/a.trec", "runs/./a.trec", "elsewhere/b.trec", "runs/b.trec"])
def test_an_output_over_a_file_of_an_input_folder_is_refused(root, option, target):
    before = {p: p.read_bytes() for p in (root / "runs/a.trec", root / "elsewhere/b.trec")}
    p = _run("evaluate", "q.txt", "runs/", option, target, cwd=root)
    assert p.returncode == 2, p.stdout + p.stderr
    err = p.stderr.strip()
    assert len(err.splitlines()) == 1 and option in err and "input" in err and "Traceback" not in err, err
    assert p.stdout == ""  # refused before any work
    assert {q: q.read_bytes() for q in before} == before


def test_an_output_beside_the_runs_of_a_folder_is_written(root):
    p = _run("evaluate", "q.txt", "runs", "--json", "runs/scores.json", cwd=root)
    assert p.returncode == 0, p.stderr
    assert (root / "runs/scores.json").is_file()
