"""Comments and docstrings say why, not which issue asked: the history lives in git and docs/."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "hcrbench"
ISSUE = re.compile(r"\bissue\s*#?\d+", re.IGNORECASE)


def test_no_source_file_names_an_issue_number():
    found = [f"{p.relative_to(SRC)}:{i}" for p in sorted(SRC.rglob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1) if ISSUE.search(line)]
    assert found == []


def test_the_check_finds_an_issue_number():
    assert ISSUE.search("# kept for the old readers (issue #33)") and ISSUE.search("(issue 35 build 2)")
    assert not ISSUE.search("# an issue with the reader")
