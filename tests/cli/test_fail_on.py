"""``--fail-on LEVEL`` (quickstart, run): exit 1 exactly when the overall verdict is at or past the level."""

from __future__ import annotations

import subprocess

import pytest

from hcrbench.commands._failon import LEVELS, SEVERITY, check_level, fails
from hcrbench.errors import InputError


@pytest.mark.parametrize("overall", list(SEVERITY))
@pytest.mark.parametrize("flag", list(LEVELS))
def test_fail_on_fires_at_or_past_its_level(flag, overall):
    level = check_level(flag)
    line = fails({"overall": overall}, level)
    assert (line is not None) == (SEVERITY[overall] >= SEVERITY[level])
    if line:
        assert overall in line and "exit 1" in line


def test_kill_means_invalidated_and_no_verdicts_never_fail():
    assert check_level("kill") == "invalidated"
    assert fails({"overall": "no-go"}, check_level("kill")) is None
    assert fails({"overall": "invalidated"}, check_level("kill"))
    assert fails(None, check_level("no-go")) is None and fails({"overall": "kill"}, None) is None
    with pytest.raises(InputError, match="--fail-on"):
        check_level("maybe")


@pytest.mark.parametrize("command", ["quickstart", "run"])
def test_an_unknown_level_is_one_line_and_exit_2(command, tmp_path):
    args = ["hcrbench", command, "--fail-on", "maybe"] + ([str(tmp_path / "c.toml")] if command == "run" else
                                                          ["--out", str(tmp_path / "o")])
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "--fail-on" in r.stderr and "no-go" in r.stderr


def test_the_verdict_blocks_words_are_levels_too():
    """The console says UNDECIDED / STOP / KILL: the same words are accepted by --fail-on (old ones kept)."""
    assert check_level("undecided") == check_level("inconclusive") == "inconclusive"
    assert check_level("stop") == check_level("diagnose") == "stop and diagnose"
    line = fails({"overall": "inconclusive"}, check_level("undecided"))
    assert line is not None and "undecided" in line and fails({"overall": "go"}, check_level("undecided")) is None
