"""A quickstart of several looks, re-run: the same command on the same folder reuses its last look (exit 0, the
same verdicts.json bytes, no new test world, nothing new in the lock registry's scorings), and a run stopped in the
middle of its second look resumes at that look. The console script in this process, on the hash field, with two
looks forced (a rule left undecided for want of queries after look 1) and a 40-query suite per world."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hcrbench.protocol import batches


def _quickstart(out: Path, capsys) -> tuple[int, str, float]:
    from hcrbench.cli import main

    t0 = time.perf_counter()
    try:
        rc = main(["quickstart", "--encoder", "hash", "--seed", "5", "--worlds", "3", "--max-worlds", "4",
                   "--budget", "600", "--seeds", "1", "--n-trials", "40", "--resamples", "500", "--out", str(out)])
    except SystemExit as e:
        rc = int(e.code or 0)
    return rc, capsys.readouterr().err, time.perf_counter() - t0


def _scorings(home: Path) -> list:
    reg = json.loads((home / "scored-splits.json").read_text())
    return sorted(json.dumps(s, sort_keys=True) for e in reg["splits"].values() for s in e["scorings"])


def _worlds(out: Path) -> list:
    man = json.loads((out / "data" / "meridian-small-s5-worlds" / "manifest.json").read_text())
    return [(e["name"], e["manifest"]) for e in man["world_list"]]


@pytest.mark.slow  # generates four small worlds, runs two looks of the hash field, then two re-runs (minutes)
def test_a_re_run_of_several_looks_reuses_the_last_and_one_stopped_mid_look_resumes_it(tmp_path, monkeypatch,
                                                                                      capsys):
    home = tmp_path / "home"
    monkeypatch.setenv("HCRBENCH_HOME", str(home))
    monkeypatch.setenv("HCRBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HCRBENCH_PROGRESS", "0")
    from hcrbench.synth import worlds as synth_worlds

    ensure = synth_worlds.ensure_worlds  # the design's 500 documents per world, 40 queries (not 300): a short test
    monkeypatch.setattr(synth_worlds, "ensure_worlds", lambda root, **kw: ensure(root, **{**kw, "n_queries": 40}))
    undecided = batches.undecided_for_queries

    def one_test_world_is_not_enough(verdicts):  # look 1 leaves a rule undecided for want of queries
        seq = (verdicts or {}).get("sequential") or {}
        if seq.get("worlds") == 1 and "looks" not in seq:
            return [{"id": "toy", "name": "toy", "n": 40, "needs": 80}]
        return undecided(verdicts)

    monkeypatch.setattr(batches, "undecided_for_queries", one_test_world_is_not_enough)
    monkeypatch.setattr(batches, "any_within_reach", lambda v, u: True)
    out = tmp_path / "qs"
    rc, err, cold_s = _quickstart(out, capsys)
    assert rc == 0, err[-3000:]
    v = json.loads((out / "verdicts.json").read_text())
    assert [look["worlds"] for look in v["sequential"]["looks"]] == [3, 4], v["sequential"]
    verdicts, record = (out / "verdicts.json").read_bytes(), (out / "looks.json").read_bytes()
    scorings, worlds = _scorings(home), _worlds(out)
    assert len(scorings) == 2 and len(worlds) == 4  # one scoring per look, tune + dev + two test worlds

    rc, err, warm_s = _quickstart(out, capsys)
    assert rc == 0, err[-3000:]
    assert "reused the recorded look 2" in err and "computed 0," in err, err[-3000:]
    assert (out / "verdicts.json").read_bytes() == verdicts and (out / "looks.json").read_bytes() == record
    assert _scorings(home) == scorings and _worlds(out) == worlds  # no new look, no new test world
    assert warm_s < cold_s / 3, (warm_s, cold_s)

    # stopped in the middle of look 2: the record as it stood after look 1, verdicts.json not yet written
    doc = json.loads(record)
    first, second = doc["looks"]
    (out / "looks.json").write_text(json.dumps({"version": doc["version"], "args": doc["args"], "looks": [first],
                                                "next": {"look": 2, "worlds": 4, "eta": second.get("forecast"),
                                                         "rate": None}}))
    (out / "verdicts.json").unlink()
    rc, err, _ = _quickstart(out, capsys)
    assert rc == 0, err[-3000:]
    assert "resuming look 2 (4 worlds)" in err, err[-3000:]
    again = json.loads((out / "verdicts.json").read_text())
    assert [(look["look"], look["worlds"]) for look in again["sequential"]["looks"]] == [(1, 3), (2, 4)]
    assert again["sequential"]["looks"][0] == first and again["overall"] == v["overall"]
    assert {h["id"]: h.get("verdict") for h in again["hypotheses"]} == {h["id"]: h.get("verdict")
                                                                       for h in v["hypotheses"]}
    assert _scorings(home) == scorings and _worlds(out) == worlds
