"""Fault injection, output over input (issue 38): an output path that resolves (as written, through a symlink or a
hard link) to an input file, or into an input dataset folder, is refused with one line and exit 2 by every
command that writes, and the input is left byte for byte as it was."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from faultkit import config_text, hcrbench, in_process, one_error_line, snapshot


def test_fuse_out_over_one_of_its_runs_is_refused_and_the_run_kept(root: Path):
    before = (root / "good.trec").read_bytes()
    p = hcrbench("fuse", "good.trec", "poor.trec", "--out", "good.trec", cwd=root)
    assert p.returncode == 2, p.stderr
    err = one_error_line(p)
    assert re.search(r"--out: .*good\.trec.* is an input of this command \(RUNS\)", err), err
    assert (root / "good.trec").read_bytes() == before


def test_retrieve_out_into_its_dataset_folder_is_refused(root: Path):
    before = snapshot(root / "data")
    p = hcrbench("retrieve", "--dataset", "data", "--system", "bm25", "--k", "5", "--out", "data/qrels/test.tsv",
                 cwd=root)
    assert p.returncode == 2, p.stderr
    assert "inside the input dataset folder" in one_error_line(p)
    assert snapshot(root / "data") == before


def test_evaluate_json_over_its_run_is_refused(root: Path):
    before = (root / "good.trec").read_bytes()
    p = hcrbench("evaluate", "data/qrels/test.tsv", "good.trec", "--json", "good.trec", cwd=root)
    assert p.returncode == 2, p.stderr
    assert "--json" in one_error_line(p)
    assert (root / "good.trec").read_bytes() == before


@pytest.mark.parametrize("how", ["symlink", "hardlink", "dotdot", "symlinked-folder"])
def test_every_spelling_of_the_same_file_is_refused(root: Path, capsys, how: str):
    if how == "symlink":
        (root / "alias.trec").symlink_to(root / "good.trec")
        out = root / "alias.trec"
    elif how == "hardlink":
        os.link(root / "good.trec", root / "alias.trec")
        out = root / "alias.trec"
    elif how == "dotdot":
        out = root / "data" / ".." / "good.trec"
    else:
        (root / "linkdir").symlink_to(root / "data", target_is_directory=True)
        out = root / "linkdir" / "run.trec"  # a new file, but inside the dataset folder
    before = snapshot(root / "data") | {"good": (root / "good.trec").read_bytes()}
    if how == "symlinked-folder":
        code, _, err = in_process(capsys, "retrieve", "--dataset", str(root / "data"), "--system", "bm25",
                                  "--k", "5", "--out", str(out))
    else:
        code, _, err = in_process(capsys, "fuse", str(root / "good.trec"), str(root / "poor.trec"),
                                  "--out", str(out))
    assert code == 2, err
    assert snapshot(root / "data") | {"good": (root / "good.trec").read_bytes()} == before


@pytest.mark.parametrize("args", [
    ("validate", "good.trec", "--qrels", "data/qrels/test.tsv", "--k", "5"),  # reads only: allowed
])
def test_commands_that_only_read_are_not_affected(root: Path, capsys, args):
    code, _, err = in_process(capsys, *[str(root / a) if a.endswith((".trec", ".tsv")) else a for a in args])
    assert code in (0, 1), err


@pytest.mark.parametrize("argv", [
    lambda r: ("fuse", r / "good.trec", r / "poor.trec", "--tune-qrels", r / "data/qrels/test.tsv",
               "--out", r / "data/qrels/test.tsv"),
    lambda r: ("retrieve", "--dataset", r / "data", "--system", "bm25", "--out", r / "x.trec",
               "--costs-json", r / "data" / "qrels" / "test.tsv"),
    lambda r: ("retrieve", "--dataset", r / "data", "--system", "bm25", "--out", r / "x.trec",
               "--costs-json", r / "x.trec"),
    lambda r: ("audit", r / "data", "--json", r / "data" / "audit.json"),
    lambda r: ("gate", r / "good.trec", "--dataset", r / "data", "--json", r / "good.trec"),
    lambda r: ("freeze", r / "a.toml", "--out", r / "a.toml"),
    lambda r: ("convert", "smart", "--collection", "cranfield", "--in", r / "data", "--out", r / "data",
               "--overwrite"),
    lambda r: ("convert", "smart", "--collection", "cranfield", "--in", r / "data", "--out", r / "data" / "beir"),
    lambda r: ("tree-metrics", r / "good.trec", "--dataset", r / "data", "--json", r / "data" / "x.json"),
])
def test_every_writing_command_refuses_an_output_over_an_input(root: Path, capsys, argv):
    before = snapshot(root)
    code, _, err = in_process(capsys, *[str(a) for a in argv(root)])
    assert code == 2, err
    assert re.search(r"is an input of this command|is the input (dataset )?folder|inside the input (dataset )?folder|holds the input|also the output of", err), err
    assert "Traceback" not in err
    assert snapshot(root) == before


def test_run_refuses_an_output_folder_inside_its_dataset_even_with_force(root: Path, capsys):
    (root / "b.toml").write_text(config_text("exp-b", root, output_dir="data/results"))
    before = snapshot(root / "data")
    p = hcrbench("run", "b.toml", "--force", cwd=root)
    assert p.returncode == 2, p.stderr
    err = one_error_line(p)
    assert re.search(r"b\.toml:2: output_dir: .*inside the input dataset folder", err), err
    assert snapshot(root / "data") == before
    (root / "c.toml").write_text(config_text("exp-c", root, output_dir="data"))
    code, _, err = in_process(capsys, "run", str(root / "c.toml"), "--force")
    assert code == 2 and "is the input dataset folder" in err, err
    assert snapshot(root / "data") == before


def test_run_refuses_a_run_file_inside_its_own_runs_folder(root: Path, capsys):
    """hcrbench rewrites runs/ (and a takeover deletes the old experiment's runs): a run file read from there
    would change under the experiment that reads it."""
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    text = (root / "a.toml").read_text().replace(str(root / "poor.trec"), str(root / "out" / "runs" / "good.trec"))
    (root / "b.toml").write_text(text.replace('name = "exp-a"', 'name = "exp-b"'))
    before = snapshot(root / "out")
    code, _, err = in_process(capsys, "run", str(root / "b.toml"), "--force")
    assert code == 2 and re.search(r"b\.toml:\d+: systems\[1\]\.params\.path: run file .* lies in the output "
                                   r"folder's runs/", err), err
    assert snapshot(root / "out") == before
