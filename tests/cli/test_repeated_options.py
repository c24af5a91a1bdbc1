"""A repeated option adds up (comma-list options, as trec_eval's ``-m``) or is refused in one line, for every
option of every command; never silently the last value only (click's default)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hcrbench import _clickcompat as cc
from hcrbench.cli import command

REPO = Path(__file__).resolve().parents[2]
QRELS, RUN = str(REPO / "examples" / "cranfield.qrels"), str(REPO / "examples" / "bm25.trec")


def _leaves(cmd, path=()):
    subs = getattr(cmd, "commands", None)
    if subs:
        for name, sub in subs.items():
            yield from _leaves(sub, (*path, name))
    else:
        yield " ".join(path), cmd


def _value_options():
    for name, cmd in _leaves(command()):
        for p in cmd.params:
            if getattr(p, "param_type_name", "") == "option" and not p.is_flag and not p.multiple and not p.count:
                yield name, cmd, p


OPTIONS = list(_value_options())


def test_every_value_option_of_every_command_adds_up_or_refuses():
    """In-process over the whole command tree (so options added later are covered): the parser either joins the
    two values (list options) or raises a usage error naming the option."""
    lists = []
    for name, cmd, p in OPTIONS:
        # the CLI's help names: click caches a command's help option on first use, and one built here with
        # click's default names would drop "-h" from every later in-process call of that command
        ctx = cmd.context_class(cmd, info_name=name, help_option_names=["-h", "--help"])
        flag = p.opts[0]
        if cc.is_list_option(p):
            opts, _, _ = cmd.make_parser(ctx).parse_args([flag, "a", flag, "b"])
            assert opts[p.name] == "a,b", (name, flag)
            lists.append(f"{name} {flag}")
        else:
            with pytest.raises(cc.USAGE_ERROR) as e:
                cmd.make_parser(ctx).parse_args([flag, "1", flag, "2"])
            assert "given twice" in str(e.value.format_message()) and flag.lstrip("-") in str(e.value.message)
    assert {"evaluate --metrics", "gate --metric", "fuse --weights"} <= set(lists)
    assert len(OPTIONS) > 100  # the sweep really saw the command tree


def _hcrbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *args], capture_output=True, text=True, check=False)


def test_evaluate_repeated_m_scores_every_measure(tmp_path):
    out = tmp_path / "e.json"
    r = _hcrbench("evaluate", QRELS, RUN, "-m", "nDCG@10", "-m", "AP", "--metrics", "ndcg_cut.5,20", "--json",
                  str(out))
    assert r.returncode == 0, r.stderr
    means = json.loads(out.read_text())["runs"]["bm25"]["means"]
    assert {"nDCG@10", "AP", "nDCG@5", "nDCG@20"} <= set(means)
    single = tmp_path / "s.json"
    assert _hcrbench("evaluate", QRELS, RUN, "-m", "AP", "--json", str(single)).returncode == 0
    assert json.loads(single.read_text())["runs"]["bm25"]["means"]["AP"] == means["AP"]


@pytest.mark.parametrize("argv,needle", [
    (["gate", RUN, "--qrels", QRELS, "--metric", "nDCG@10", "--metric", "AP"], "the gate judges one graded metric"),
    (["fuse", RUN, RUN, "--k", "5", "--k", "6", "--out", "x.trec"], "'--k' given twice"),
    (["evaluate", QRELS, RUN, "--seed", "1", "--seed", "2"], "'--seed' given twice"),
    (["retrieve", "--dataset", "d", "--system", "bm25", "--system", "dense", "--out", "o"], "'--system' given twice"),
])
def test_repeats_refused_in_one_line_through_the_console_script(argv, needle, tmp_path):
    r = subprocess.run(["hcrbench", *argv], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert needle in r.stderr and r.stderr.startswith("hcrbench: error:"), r.stderr
    assert not (tmp_path / "x.trec").exists()


def test_every_command_refuses_a_repeated_single_value_option_through_the_console_script():
    """One real subprocess per command (in parallel): its first single-value option given twice is one line,
    exit 2, before anything runs."""
    from concurrent.futures import ThreadPoolExecutor

    cases = {}
    for name, _, p in OPTIONS:
        if name not in cases and not cc.is_list_option(p):
            cases[name] = p.opts[0]
    assert len(cases) >= 20

    def run(item):
        name, flag = item
        return name, flag, _hcrbench(*name.split(), flag, "1", flag, "2")

    with ThreadPoolExecutor(max_workers=4) as pool:
        for name, flag, r in pool.map(run, sorted(cases.items())):
            assert r.returncode == 2 and r.stderr.count("\n") == 1, (name, r.stderr)
            assert f"'{flag}" in r.stderr and "given twice" in r.stderr, (name, r.stderr)
