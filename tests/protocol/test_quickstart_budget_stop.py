"""A quickstart whose time budget stops its looks with a rule undecided, through the console script: the verdict
block says what stopped the looks, the next look's forecast and the command that goes on; that command (a larger
``--budget``) goes on from ``looks.json`` to look 2 instead of starting again. The hash field, 40-query worlds and a
rule left undecided after look 1 (as tests/protocol/test_quickstart_resume.py does)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hcrbench.protocol import batches


def _quickstart(out: Path, budget: str, capsys) -> tuple[int, str]:
    from hcrbench.cli import main

    try:
        rc = main(["quickstart", "--encoder", "hash", "--seed", "5", "--worlds", "3", "--max-worlds", "4",
                   "--budget", budget, "--seeds", "1", "--n-trials", "40", "--resamples", "500", "--out", str(out)])
    except SystemExit as e:
        rc = int(e.code or 0)
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


@pytest.mark.slow  # generates four small worlds and runs two looks of the hash field (minutes)
def test_a_budget_stop_says_so_and_its_command_goes_on(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HCRBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HCRBENCH_PROGRESS", "0")
    monkeypatch.setenv("COLUMNS", "400")
    from hcrbench.synth import worlds as synth_worlds

    ensure = synth_worlds.ensure_worlds
    monkeypatch.setattr(synth_worlds, "ensure_worlds", lambda root, **kw: ensure(root, **{**kw, "n_queries": 40}))
    undecided = batches.undecided_for_queries

    def one_test_world_is_not_enough(verdicts):  # look 1 leaves a rule undecided for want of queries
        seq = (verdicts or {}).get("sequential") or {}
        if seq.get("worlds") == 1 and ("looks" not in seq or len(seq["looks"]) == 1):
            return [{"id": "kill", "name": "kill", "n": 40, "needs": 80}]
        return undecided(verdicts)

    monkeypatch.setattr(batches, "undecided_for_queries", one_test_world_is_not_enough)
    monkeypatch.setattr(batches, "any_within_reach", lambda v, u: True)
    out = tmp_path / "qs"
    rc, said = _quickstart(out, "0.05", capsys)  # 3 seconds: no second look fits
    assert rc == 0, said[-3000:]
    v = json.loads((out / "verdicts.json").read_text())
    assert v["sequential"]["stopped"].startswith("budget") and v["sequential"]["next_look"]["look"] == 2
    text = " ".join(said.split())
    assert "looks stopped by the time budget (--budget) after look 1" in text and "kill criterion" in text, text[-3000:]
    m = re.search(r"next: look 2 \(2 test worlds, ~[\d,]+ queries\) forecast ~[\d.]+ min after [\d.]+ min spent; "
                  r"to go on: run hcrbench quickstart --out (\S+) --seed 5 --max-worlds 4 --budget (\d+) "
                  r"\(it resumes from (\S+)\)", text)
    assert m and m.group(1) == str(out) and m.group(3) == f"{out}/looks.json", text[-3000:]
    rc, said = _quickstart(out, m.group(2), capsys)
    assert rc == 0, said[-3000:]
    assert "going on after the recorded look 1" in said, said[-3000:]
    v = json.loads((out / "verdicts.json").read_text())
    assert [look["look"] for look in v["sequential"]["looks"]] == [1, 2], v["sequential"]
