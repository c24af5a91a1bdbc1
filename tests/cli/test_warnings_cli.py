"""Warnings: on stderr, in plain words (no file:line, no class name), each once per run; an error line alone.

Also the "did you swap qrels and run?" hint, and output files only where pointed (one missing folder at most).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hcrbench.cli import main

ENV = {**os.environ, "HCRBENCH_PROGRESS": "0"}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq2 0 d3 2\nq3 0 d5 1\n")
    # 'a' misses q3 (zero-filled) and has x9, which the qrels do not judge (ignored)
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq2 Q0 d4 1 1.0 a\nx9 Q0 d1 1 1.0 a\n")
    return {"qrels": tmp_path / "q.qrels", "a": tmp_path / "a.run"}


def test_evaluate_warnings_go_to_stderr_in_plain_words(files):
    proc = subprocess.run(["hcrbench", "evaluate", str(files["qrels"]), str(files["a"])], capture_output=True,
                          text=True, env=ENV, timeout=120)
    assert proc.returncode == 0, proc.stderr
    warns = [ln for ln in proc.stderr.splitlines() if ln.startswith("warning: ")]
    assert any("absent from the run" in w and "'q3'" in w for w in warns), proc.stderr
    assert any("not in the qrels" in w and "'x9'" in w for w in warns), proc.stderr
    assert "warning" not in proc.stdout.lower()
    assert "HcrbenchWarning" not in proc.stderr and ".py:" not in proc.stderr
    assert len(warns) == len(set(warns))


# A command that warns the same thing three times, another thing once, then succeeds or fails.
SCRIPT = """
import sys, warnings
from hcrbench import cli
from hcrbench.errors import HcrbenchWarning, InputError

def noisy(fail: bool = False):
    for _ in range(3):
        warnings.warn("the same thing", HcrbenchWarning)
    warnings.warn("library says so", UserWarning)
    print("result")
    if fail:
        raise InputError("bad", field="--x")

cli.app.command("noisy")(noisy)
sys.exit(cli.main(sys.argv[1:]))
"""


def test_each_warning_once_and_errors_stay_one_line():
    ok = subprocess.run([sys.executable, "-c", SCRIPT, "noisy"], capture_output=True, text=True, env=ENV,
                        timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stderr.splitlines() == ["warning: the same thing", "warning: library says so"]
    assert ok.stdout.strip() == "result"
    bad = subprocess.run([sys.executable, "-c", SCRIPT, "noisy", "--fail"], capture_output=True, text=True,
                         env=ENV, timeout=120)
    assert bad.returncode == 2 and bad.stderr.splitlines() == ["hcrbench: error: --x: bad"]


def test_swapped_qrels_and_run_get_a_hint(files, tmp_path, capsys):
    for args in ([files["a"], files["qrels"]], [files["a"], files["a"]], [files["qrels"], files["qrels"]]):
        with pytest.raises(SystemExit) as e:
            main(["evaluate", *map(str, args)])
        err = capsys.readouterr().err.strip()
        assert e.value.code == 2 and len(err.splitlines()) == 1, err
        assert "did you swap them?" in err and "hcrbench evaluate QRELS RUN" in err, err
    # a well-formed call gets no hint
    assert main(["evaluate", str(files["qrels"]), str(files["a"])]) == 0
    assert "swap" not in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--json"])
def test_evaluate_output_creates_one_missing_folder_at_most(files, tmp_path, capsys, flag):
    ok = tmp_path / "new" / "eval.json"
    assert main(["evaluate", str(files["qrels"]), str(files["a"]), flag, str(ok)]) == 0
    assert ok.is_file()
    capsys.readouterr()
    deep = tmp_path / "no" / "such" / "eval.json"
    with pytest.raises(SystemExit) as e:
        main(["evaluate", str(files["qrels"]), str(files["a"]), flag, str(deep)])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and err.splitlines()[-1].startswith("hcrbench: error: ")
    assert len(err.splitlines()) == 1 and f"{tmp_path / 'no'} does not exist" in err
    assert not (tmp_path / "no").exists()


def test_retrieve_out_is_checked_before_indexing(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["retrieve", "--dataset", str(tmp_path / "none"), "--system", "bm25",
              "--out", str(tmp_path / "a" / "b" / "x.trec")])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and "--out" in err and "does not exist" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "a").exists()
