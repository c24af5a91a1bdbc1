"""Fault injection, numeric options (issue 38): every number is checked when the command line is parsed (finite,
in its range), one line naming the option, exit 2, before any file is read or written."""

from __future__ import annotations

from pathlib import Path

import pytest
from faultkit import hcrbench, in_process, one_error_line, snapshot

from hcrbench.commands._guard import COMMAND_RANGES, RANGES

FUSE = ("fuse", "good.trec", "poor.trec", "--method", "wsum", "--tune-qrels", "data/qrels/test.tsv",
        "--out", "f.trec")


@pytest.mark.parametrize("step", ["0", "nan"])
def test_fuse_step_zero_or_nan_is_one_line_not_a_traceback(root: Path, step: str):
    p = hcrbench(*FUSE, "--step", step, cwd=root)
    assert p.returncode == 2, p.stderr
    assert one_error_line(p).startswith("hcrbench: error: --step: must be ")
    assert not (root / "f.trec").exists()


@pytest.mark.parametrize("args", [
    ("fuse", "good.trec", "poor.trec", "--out", "f.trec", "--k", "-1"),
    ("fuse", "good.trec", "poor.trec", "--out", "f.trec", "--k", "inf"),
    ("fuse", "good.trec", "poor.trec", "--method", "rbc", "--out", "f.trec", "--phi", "1.5"),
    ("fuse", "good.trec", "poor.trec", "--method", "rbc", "--out", "f.trec", "--phi", "nan"),
    (*FUSE, "--step", "-0.1"),
    (*FUSE, "--step", "1.5"),
    ("evaluate", "data/qrels/test.tsv", "good.trec", "--resamples", "0"),
    ("gate", "good.trec", "--dataset", "data", "--alpha", "nan"),
    ("gate", "good.trec", "--dataset", "data", "--alpha", "1"),
    ("gate", "good.trec", "--dataset", "data", "--tau", "-inf"),
    ("gate", "good.trec", "--dataset", "data", "--n-trials", "0"),
    ("check", "--baseline", "b.json", "--max-drop", "nan"),
    ("retrieve", "--dataset", "data", "--system", "bm25", "--k", "0", "--out", "r.trec"),
    ("validate", "good.trec", "--k", "0"),
    ("policy-compare", "--dataset", "data", "--system", "bm25", "--multi-budget", "nan"),
])
def test_out_of_range_numbers_are_refused_at_parse_time(root: Path, capsys, monkeypatch, args):
    monkeypatch.chdir(root)
    before = snapshot(root)
    code, _, err = in_process(capsys, *args)
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.startswith("hcrbench: error:")]
    assert len(lines) == 1 and "must be" in lines[0] and "Traceback" not in err, err
    assert snapshot(root) == before


def test_every_ranged_option_exists_on_its_command():
    """The range table names real options (a renamed flag would silently lose its check)."""
    from hcrbench.cli import command

    tree = command()

    def options(path: str) -> set[str]:
        cmd = tree
        for part in path.split():
            cmd = cmd.commands[part]
        return {o for p in cmd.params for o in getattr(p, "opts", [])}

    for cmd, opt in COMMAND_RANGES:
        assert opt in options(cmd), (cmd, opt)
    every = set()
    stack = [tree]
    while stack:
        c = stack.pop()
        stack.extend(getattr(c, "commands", {}).values())
        every |= {o for p in getattr(c, "params", []) for o in getattr(p, "opts", [])}
    assert set(RANGES) <= every


def test_numbers_in_range_still_run(root: Path, capsys, monkeypatch):
    monkeypatch.chdir(root)
    code, _, err = in_process(capsys, *FUSE, "--step", "0.5")
    assert code == 0, err
    assert (root / "f.trec").is_file()


@pytest.mark.parametrize(("extra", "field"), [
    ("[gate]\ntau = inf\n", "gate.tau"),
    ("[gate]\nalpha = nan\n", "gate.alpha"),
])
def test_config_numbers_must_be_finite(root: Path, capsys, extra: str, field: str):
    (root / "n.toml").write_text((root / "a.toml").read_text() + extra)
    code, _, err = in_process(capsys, "run", str(root / "n.toml"))
    assert code == 2 and "n.toml:" in err and field in err and "finite" in err, err
    assert not (root / "out").exists()


def test_a_system_parameter_of_nan_is_refused_with_its_line(root: Path, capsys):
    text = (root / "a.toml").read_text() + '[[systems]]\nname = "bm"\ntype = "bm25"\nparams = { k1 = nan }\n'
    (root / "n.toml").write_text(text)
    code, _, err = in_process(capsys, "run", str(root / "n.toml"))
    line = text.splitlines().index("params = { k1 = nan }") + 1
    assert code == 2 and f"n.toml:{line}: systems[2].params.k1: must be a finite number" in err, err
