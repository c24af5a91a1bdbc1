"""Fault injection, smaller classes of issue 38: hcrbench's reserved names (``.hcrbench-busy``,
``.hcrbench-folder.json``) never overwritten, stale temporary files removed on the next run, every system checked
before any work (naming the config line), ``$`` escaped in report.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from faultkit import config_text, hcrbench, in_process, one_error_line, snapshot

from hcrbench.data.outputs import BUSY, MARKER


@pytest.mark.parametrize("name", [BUSY, MARKER])
def test_force_never_overwrites_a_users_file_by_a_reserved_name(root: Path, capsys, name: str):
    (root / "out").mkdir()
    (root / "out" / name).write_text("my own notes, not hcrbench's\n")
    before = snapshot(root / "out")
    p = hcrbench("run", "a.toml", "--force", cwd=root)
    assert p.returncode == 2, p.stderr
    assert name in one_error_line(p)
    assert snapshot(root / "out") == before
    if name == BUSY:  # any command that takes the folder's lock keeps it too
        code, _, err = in_process(capsys, "report", str(root / "out"))
        assert code == 2 and "not hcrbench's lock file" in err, err
        assert snapshot(root / "out") == before


def test_a_killed_writes_temp_files_are_removed_on_the_next_run(root: Path, capsys):
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    stale = [root / "out" / ".eval.json.ab12cd_4.tmp", root / "out" / "runs" / ".good.trec.zz99yy88.tmp"]
    for p in stale:
        p.write_text("half")
    p = hcrbench("run", "a.toml", "--quiet", cwd=root)
    assert p.returncode == 0, p.stderr
    assert not [s for s in stale if s.exists()]
    assert not list((root / "out").rglob("*.tmp"))


def test_every_system_is_checked_before_any_work(root: Path, monkeypatch):
    text = (config_text("exp-s", root, systems=("good",))
            + '[[systems]]\nname = "bm"\ntype = "bm25"\n'
            + '[[systems]]\nname = "hy"\ntype = "hybrid"\nparams = { dense_backend = "onnx", bogus = 1 }\n')
    (root / "s.toml").write_text(text)
    p = hcrbench("run", "s.toml", cwd=root, env={"HCRBENCH_CACHE": str(root / "cache")})
    assert p.returncode == 2, p.stderr
    line = text.splitlines().index('params = { dense_backend = "onnx", bogus = 1 }') + 1
    assert re.search(rf"s\.toml:{line}: systems\[2\]\.params: unknown parameter 'bogus' for system 'hybrid'",
                     one_error_line(p))
    assert not (root / "out").exists() and not (root / "cache").exists()  # nothing indexed, nothing written


def test_a_missing_run_file_names_the_config_line(root: Path, capsys):
    (root / "poor.trec").unlink()
    code, _, err = in_process(capsys, "run", str(root / "a.toml"))
    line = (root / "a.toml").read_text().splitlines().index(
        f'params = {{ path = "{root / "poor.trec"}" }}') + 1
    assert code == 2 and re.search(rf"a\.toml:{line}: systems\[1\]\.params\.path: run file .*poor\.trec not found",
                                   err), err
    assert not (root / "out").exists()


def test_report_markdown_escapes_dollar_signs():
    from hcrbench.report.markdown import md_escape

    assert md_escape("costs $5, then $x^2$") == r"costs \$5, then \$x^2\$"
    assert not re.search(r"(?<!\\)\$", md_escape("$a$ $$b$$"))
