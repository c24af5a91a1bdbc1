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
    r = subprocess.run(["hcrbench", "quickstart", "--worlds", "1", "--out", str(out), "--encoder", "hash", "--seed", "3", "--quiet"],
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
    import hcrbench.protocol.quickstart_config as qc
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

    monkeypatch.setattr(qc, "write_config", fake_write_config)
    monkeypatch.setattr(qp, "plan", fake_plan)
    with pytest.raises(InputError, match="already scored 1 time, last by 'an earlier look'"):
        qs.run_quickstart(out, sizes=["small"], seed=3, encoder="hash", progress=False)
    assert tuned == [None]  # the design's suite was tuned (before the plan), the plan's suite was not


def _ended_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def _claims(key: str) -> list[dict[str, Any]]:
    return json.loads(registry_path().read_text())["worlds"][key]["claims"]


def test_a_world_claim_that_scored_nothing_is_dropped_one_that_scored_refuses(tmp_path):
    """A quickstart stopped while generating or tuning looked at nothing: its claim gives way (and is dropped); one
    whose folder recorded a scoring refuses another folder, and this folder itself goes on (a resume)."""
    import socket

    import pytest

    from hcrbench.data.splitlock import changing
    from hcrbench.errors import InputError
    from hcrbench.protocol.looks import claim_worlds, world_key

    key = world_key("small", 4)
    stale, scored = str((tmp_path / "stale").resolve()), str((tmp_path / "scored").resolve())
    with changing("test") as reg:
        reg["worlds"] = {key: {"claims": [{"output_dir": stale, "pid": _ended_pid(), "host": socket.gethostname()}]}}
    claim_worlds(tmp_path / "a", [("small", 4)], relook=False)
    assert [c["output_dir"] for c in _claims(key)] == [str((tmp_path / "a").resolve())]
    record_scoring("k", split="test", dataset="d", files={}, experiment="quickstart-small",
                   output_dir=str((tmp_path / "a").resolve()), systems=["hcr"], forced=True)
    claim_worlds(tmp_path / "a", [("small", 4)], relook=False)  # the same folder again: its own look
    with pytest.raises(InputError, match=r"Meridian small seed 4's test split was already scored by the quickstart"):
        claim_worlds(tmp_path / "b", [("small", 4)], relook=False)
    claim_worlds(tmp_path / "b", [("small", 4)], relook=True)
    assert [c["relook"] for c in _claims(key)] == [False, True]
    claim_worlds(tmp_path / "c", [("small", 5), ("medium", 4)], relook=False)  # other worlds are free
    other = world_key("large", 4)
    with changing("test") as reg:  # another host's claim: whether it still runs cannot be told, so it holds
        reg["worlds"][other] = {"claims": [{"output_dir": scored, "pid": 1, "host": "another-host"}]}
    with pytest.raises(InputError, match=r"running now in .*scored"):
        claim_worlds(tmp_path / "d", [("large", 4)], relook=False)
    assert world_key("small", 4) != world_key("small", 4, grow=True) != world_key("small", 5)


def test_a_running_quickstart_holds_its_world_and_its_folder(tmp_path):
    """A live process's claim: another folder is refused as 'running now', and the same folder too (two processes
    would write one folder)."""
    import socket

    import pytest

    from hcrbench.data.splitlock import changing
    from hcrbench.errors import InputError
    from hcrbench.protocol.looks import claim_worlds, world_key

    live = subprocess.Popen(["sleep", "60"])
    try:
        busy = str((tmp_path / "busy").resolve())
        with changing("test") as reg:
            reg["worlds"] = {world_key("small", 4): {"claims": [
                {"output_dir": busy, "pid": live.pid, "host": socket.gethostname(), "time": "t0"}]}}
        with pytest.raises(InputError, match=r"is claimed by the quickstart running now in .*busy"):
            claim_worlds(tmp_path / "other", [("small", 4)], relook=False)
        with pytest.raises(InputError, match=rf"a quickstart is running in .*busy now \(process {live.pid}"):
            claim_worlds(tmp_path / "busy", [("small", 4)], relook=False)
    finally:
        live.kill()
        live.wait()
    claim_worlds(tmp_path / "other", [("small", 4)], relook=False)  # it ended before scoring: no look


def test_a_quickstart_killed_after_claiming_its_look_resumes_it(tmp_path):
    """The runner records a look pending before any work; a kill leaves it so. Re-running the same folder resumes
    that look: the guard does not count it (it refused the resume, asking for --relook); another folder's counts."""
    import os
    import socket

    from hcrbench.data.splitlock import changing, claim_look, interrupted
    from hcrbench.protocol.looks import guard

    root = tmp_path / "qs" / "data" / "meridian-small-s3"
    key = _scored_elsewhere(root, tmp_path / "elsewhere")
    with changing("test") as reg:
        reg["splits"][key]["scorings"] = [{"experiment": "quickstart-small", "output_dir": str((tmp_path / "qs")
                                           .resolve()), "systems": [], "forced": True, "time": "t0", "pending": True,
                                           "claim": "feed", "pid": _ended_pid(), "host": socket.gethostname()}]
    (pending,) = scorings(key)
    assert interrupted(pending, (tmp_path / "qs").resolve()) and not interrupted(pending, tmp_path / "other")
    assert guard(tmp_path / "qs" / "quickstart.toml", root, relook=False)["looks_before"] == 0
    claim_look(key, split="test", dataset=str(root), files={}, experiment="quickstart-small",
               output_dir=(tmp_path / "qs").resolve(), force=True, config_path=tmp_path / "qs" / "quickstart.toml")
    (look,) = json.loads(registry_path().read_text())["splits"][key]["scorings"]
    assert look["resumes"] == "t0" and look["pending"] and look["pid"] == os.getpid()


def test_a_relook_of_several_worlds_counts_the_looks_taken_before(tmp_path, monkeypatch):
    """Look 1 + every other folder that scored (or runs now), and this folder's own earlier scoring: the test
    worlds a relook draws are never the ones scored before."""
    import json as _json
    import socket

    from hcrbench.protocol.looks import prior_looks, world_key

    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    a, b, c = (str((tmp_path / n).resolve()) for n in "abc")
    dead = {"host": socket.gethostname(), "pid": 2**22 + 12345}
    reg = {"version": 1,
           "splits": {"k": {"scorings": [{"output_dir": a}]}},
           "worlds": {world_key("small (worlds)", 9): {"claims": [{"output_dir": a, **dead},
                                                                   {"output_dir": b, **dead}]}}}
    (tmp_path / "home" / "scored-splits.json").write_text(_json.dumps(reg))
    assert prior_looks(tmp_path / "c", "small (worlds)", 9) == 1  # a scored; b stopped before scoring: no look
    assert prior_looks(tmp_path / "a", "small (worlds)", 9) == 1  # a's own scoring
    assert prior_looks(tmp_path / "b", "small (worlds)", 9) == 1
    assert prior_looks(tmp_path / "c", "small (worlds)", 10) == 0
    assert c
