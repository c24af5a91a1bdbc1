"""Fresh data for the final word (hcrbench.protocol.looks): the quickstart's verdict seed is scored by no doc or
test, and a second look at a locked test split is refused through the console script unless --relook."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from hcrbench.data.splitlock import annotate_last, record_scoring, registry_path, scorings
from hcrbench.protocol.looks import VERDICT_SEED, early_check, split_key_of

REPO = Path(__file__).resolve().parents[2]


def test_no_doc_or_test_scores_the_verdict_seed():
    """The verdict seed's corpus is fresh: no page or test names it as a seed it generates or scores."""
    pat = re.compile(rf"(meridian-\w+-s{VERDICT_SEED}\b|--seed[ =]{VERDICT_SEED}\b|seed\s*=\s*{VERDICT_SEED}\b|"
                     rf"seeds?\s+{VERDICT_SEED}\b)")
    hits = []
    for folder in ("docs", "tests", "examples", "benchmarks"):
        for p in (REPO / folder).rglob("*"):
            if p.is_file() and p.suffix in (".md", ".py", ".toml", ".txt", ".sh", ".json") and \
                    pat.search(p.read_text(encoding="utf-8", errors="replace")):
                hits.append(str(p.relative_to(REPO)))
    readme = REPO / "README.md"
    if readme.is_file() and pat.search(readme.read_text(encoding="utf-8")):
        hits.append("README.md")
    assert hits == []
    import inspect

    from hcrbench.commands.quickstart import quickstart_command

    assert inspect.signature(quickstart_command).parameters["seed"].default.default == VERDICT_SEED


def _scored_elsewhere(root: Path, elsewhere: Path) -> str:
    from hcrbench.synth import generate_meridian

    generate_meridian(root, size="small", seed=3, n_queries=60, grow=False)  # any Meridian folder will do
    key = split_key_of(root)
    assert key is not None
    record_scoring(key, split="test", dataset=str(root), files={}, experiment="an earlier look",
                   output_dir=str(elsewhere.resolve()), systems=["hcr"], forced=False)
    return key


def test_a_second_look_is_refused_before_any_work_without_relook(tmp_path, monkeypatch):
    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
    out = tmp_path / "qs"
    _scored_elsewhere(out / "data" / "meridian-small-s3", tmp_path / "earlier")
    r = subprocess.run(["hcrbench", "quickstart", "--out", str(out), "--encoder", "hash", "--seed", "3", "--quiet"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "--relook" in r.stderr and "already scored 1 time" in r.stderr
    assert not (out / "quickstart.toml").exists() and not (out / "data" / "tune").exists()  # nothing tuned or run


def test_the_early_check_lets_this_folder_and_a_relook_through(tmp_path, monkeypatch):
    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
    root = tmp_path / "qs" / "data" / "meridian-small-s3"
    key = _scored_elsewhere(root, tmp_path / "qs")
    early_check(root, tmp_path / "qs", relook=False)  # this folder's own look: the runner decides if it is warm
    early_check(root, tmp_path / "other", relook=True)
    early_check(tmp_path / "missing", tmp_path / "other", relook=False)  # not generated yet: nothing scored
    assert annotate_last(key, str((tmp_path / "qs").resolve()), relook=True)
    assert scorings(key)[-1]["relook"] is True
    assert json.loads(registry_path().read_text())["splits"][key]["scorings"][-1]["experiment"] == "an earlier look"
    assert not annotate_last(key, str(tmp_path / "nobody"), relook=True)


def test_a_second_look_at_the_power_plans_suite_is_refused_before_tuning_on_it(tmp_path, monkeypatch):
    """The power plan generates a larger suite (meridian-small-s3-q40) whose test split was scored elsewhere: the
    run stops right after the plan, not after tuning on it (minutes later, at the guard before the test split)."""
    import pytest

    import hcrbench.protocol.query_plan as qp
    import hcrbench.protocol.quickstart as qs
    from hcrbench.errors import InputError

    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
    out = tmp_path / "qs"
    suite = out / "data" / "meridian-small-s3-q40"
    tuned: list[Any] = []

    def fake_plan(cfg, root, size, seed, max_queries):  # generates the suite, as the real plan does
        (suite / "qrels").mkdir(parents=True)
        for name, text in (("corpus.jsonl", '{"_id": "d1", "text": "a"}'), ("queries.jsonl", '{"_id": "q1", '
                           '"text": "a"}'), ("qrels/test.tsv", "q1\td1\t1")):
            (suite / name).write_text(text + "\n", encoding="utf-8")
        key = split_key_of(suite)
        record_scoring(key, split="test", dataset=str(suite), files={}, experiment="an earlier look",
                       output_dir=str((tmp_path / "earlier").resolve()), systems=["hcr"], forced=False)
        return {"queries": 40, "text": "a 40-query suite"}

    def fake_write_config(folder, size, **opts):
        tuned.append(opts.get("queries"))
        return folder / "quickstart.toml", {}

    monkeypatch.setattr(qs, "write_config", fake_write_config)
    monkeypatch.setattr(qp, "plan", fake_plan)
    with pytest.raises(InputError, match="already scored 1 time, last by 'an earlier look'"):
        qs.run_quickstart(out, sizes=["small"], seed=3, encoder="hash", progress=False)
    assert tuned == [None]  # the design's suite was tuned (before the plan), the plan's suite was not
