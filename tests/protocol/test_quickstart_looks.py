"""The quickstart's looks at test worlds: a batch more while a rule is undecided for want of queries, each look at
the sequential design's level, a forecast beside what the batch took, and the stops (decided, max worlds, budget)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from hcrbench.protocol import batches, sequential
from hcrbench.protocol import look_loop as ll
from hcrbench.protocol import quickstart as qs
from hcrbench.protocol import quickstart_config as qc

UNDECIDED = {"id": "toy_rule", "name": "toy rule", "status": "not decidable",
             "text": "not decidable at n = 300 (needs ~ 450)"}
DECIDED = {"id": "toy_rule", "name": "toy rule", "status": "pass", "text": "passes"}


@pytest.fixture
def fake(monkeypatch):
    """The quickstart's steps replaced by records: which worlds each look asked for, at which level, and a
    verdict that stays undecided for ``state.undecided_looks`` looks."""
    state = SimpleNamespace(worlds=[], levels=[], undecided_looks=1, world_seconds=20.0, written=None,
                            decided_at=None, fail_at=None)

    def write_config(folder, size, **kw):
        state.levels.append(kw.get("confidence"))
        return Path(folder) / "quickstart.toml", {"chosen": {}}

    def run_experiment(cfg, **kw):
        look = len(state.worlds)
        k = state.worlds[-1] if state.worlds else 3
        if k == state.fail_at:  # the run is stopped in the middle of this look
            raise KeyboardInterrupt
        row = dict(UNDECIDED if (look <= state.undecided_looks if state.decided_at is None else k < state.decided_at)
                   else DECIDED)
        return SimpleNamespace(verdicts={"overall": "go", "checkpoints": [row], "hypotheses": []},
                               manifest={"dataset": {"n_queries": 300 * (k - 2)},
                                         "stages": {"scoring": {"wall_s": 30.0}},
                                         "systems": {"hcr": {"worlds": {f"w{k - 1:02d}": {
                                             "seconds": state.world_seconds, "reused": False}}}}})

    monkeypatch.setattr(qc, "write_config", write_config)
    monkeypatch.setattr("hcrbench.experiment.runner.run_experiment", run_experiment)
    monkeypatch.setattr("hcrbench.synth.worlds.ensure_worlds", lambda root, **kw: state.worlds.append(kw["worlds"]))
    monkeypatch.setattr(ll.looks, "guard", lambda cfg, root, relook=False: None)
    monkeypatch.setattr(ll.looks, "record", lambda look, folder, v: v)
    monkeypatch.setattr(ll, "with_best_simple", lambda v, res, cfg: v)
    monkeypatch.setattr("hcrbench.protocol.verdicts.with_tuning", lambda v, t: v)

    def write_verdicts(folder, v):
        state.written = v

    monkeypatch.setattr("hcrbench.protocol.verdicts.write_verdicts", write_verdicts)
    return state


def _run(tmp_path, **kw):
    opts = dict(largest=True, seed=5, data_root=tmp_path / "data", worlds=3, max_worlds=6, budget_s=3600.0,
                max_queries=0, relook=False, console=SimpleNamespace(print=lambda *a, **k: None), sizes=["small"])
    opts.update(kw)
    return ll.run_looks(tmp_path, "small", **opts)


def test_a_batch_more_while_undecided_each_look_at_its_level(fake, tmp_path):
    fake.undecided_looks = 2
    res = _run(tmp_path)
    assert fake.worlds == [3, 4, 5]  # one test world more per look, until decided
    max_looks = 1 + (6 - 3) // batches.BATCH_WORLDS
    assert fake.levels == [sequential.level(k, max_looks) for k in (1, 2, 3)]
    seq = res.verdicts["sequential"]
    assert seq["stopped"] == "decided" and [look["worlds"] for look in seq["looks"]] == [3, 4, 5]
    assert "forecast_s" not in seq["looks"][0] and all("forecast_s" in look for look in seq["looks"][1:])
    assert seq["looks"][0]["undecided"] == ["toy_rule"] and seq["looks"][-1]["undecided"] == []
    assert fake.written is res.verdicts


def test_the_run_stops_at_max_worlds_and_says_so(fake, tmp_path):
    fake.undecided_looks = 99
    res = _run(tmp_path, max_worlds=4)
    assert fake.worlds == [3, 4]
    assert res.verdicts["sequential"]["stopped"] == "max worlds (4) reached"
    assert res.verdicts["sequential"]["undecided"] == ["toy_rule"]


def test_no_batch_is_added_past_the_budget(fake, tmp_path):
    fake.undecided_looks = 99
    fake.world_seconds = 10_000.0  # the forecast of the next batch alone overruns the budget
    res = _run(tmp_path, budget_s=600.0)
    assert fake.worlds == [3]
    assert res.verdicts["sequential"]["stopped"].startswith("budget: the next batch would take")


def test_a_budget_stop_with_rules_undecided_says_so_and_a_larger_budget_goes_on(fake, tmp_path):
    """The block says what stopped the looks, the next look's forecast and the command; that command's --budget
    fits the recorded looks and the forecast, and re-running with it goes on after look 1 (no look 1 again)."""
    import re

    from hcrbench.protocol.look_resume import read_record
    from hcrbench.report.verdict_block import block_lines

    fake.undecided_looks = 99
    fake.world_seconds = 2_000.0  # ~33 min of the next batch: over a 10-minute budget
    res = _run(tmp_path, budget_s=600.0)
    assert fake.worlds == [3]
    seq = res.verdicts["sequential"]
    nxt = seq["next_look"]
    assert (nxt["look"], nxt["worlds"], nxt["test_worlds"], nxt["queries"]) == (2, 4, 2, 600)
    assert nxt["forecast_s"] > 600.0 and nxt["budget_s"] == 600.0 and seq["loop_args"]["budget_s"] == 600.0
    text = "\n".join(t for _, t in block_lines(res.verdicts, report=f"{tmp_path}/report.html"))
    assert "looks stopped by the time budget (--budget) after look 1 (1 test world, 300 queries) with 1 rule " \
           "undecided (toy rule)" in text, text
    assert f"next: look 2 (2 test worlds, ~600 queries) forecast ~{nxt['forecast_s'] / 60:.1f} min" in text
    cmd = re.search(r"to go on: run (hcrbench quickstart [^(]*?) \(it resumes from (\S+)\)", text)
    assert cmd and cmd.group(2) == f"{tmp_path}/looks.json" and f"--out {tmp_path} " in cmd.group(1), text
    assert "--seed 5" in cmd.group(1) and "--max-worlds 6" in cmd.group(1)
    minutes = int(re.search(r"--budget (\d+)$", cmd.group(1)).group(1))
    assert minutes * 60 >= nxt["spent_s"] + nxt["forecast_s"]
    assert read_record(tmp_path)["stopped"].startswith("budget")
    fake.undecided_looks = 2  # (the fake counts calls: look 1 again stays undecided) look 2 decides it
    res = _run(tmp_path, budget_s=minutes * 60.0)
    assert fake.worlds == [3, 3, 4]  # look 1 reused (its worlds kept), then look 2: one test world more
    seq = res.verdicts["sequential"]
    assert seq["stopped"] == "decided" and [look["look"] for look in seq["looks"]] == [1, 2]
    assert "next_look" not in seq
    assert not any(t.startswith(("looks stopped", "next:")) for _, t in block_lines(res.verdicts))


def test_a_smaller_budget_or_other_settings_do_not_go_on(fake, tmp_path):
    from hcrbench.protocol.look_resume import loop_args, read_record, resume_point

    fake.undecided_looks = 99
    fake.world_seconds = 2_000.0
    _run(tmp_path, budget_s=600.0)
    rec = read_record(tmp_path)
    args = loop_args(size="small", seed=5, worlds=3, cap=6, budget_s=1200.0, look=1)
    assert not resume_point(rec, args).complete and resume_point(rec, args).line.startswith("going on after")
    for other in ({**args, "budget_s": 300.0}, {**args, "max_worlds": 7}, {**args, "seed": 6}):
        r = resume_point(rec, other)
        assert r.line is None or not r.line.startswith("going on"), other


def test_one_world_is_one_look_at_the_fixed_level(fake, tmp_path):
    res = _run(tmp_path, worlds=1)
    assert fake.worlds == [] and fake.levels == [None]  # one world: no worlds to add, the config's own level
    assert "sequential" not in res.verdicts


def _said():
    lines: list[str] = []
    return lines, SimpleNamespace(print=lambda *a, **k: lines.append(str(a[0])))


def test_a_re_run_of_complete_looks_reuses_the_last_one_and_its_recorded_verdicts(fake, tmp_path):
    """Three looks (3, 4, 5 worlds), then the same run again: only the last look is taken, warm, with its own
    worlds and level; no new test world, the recorded verdicts written back as they were, the record untouched."""
    import json

    fake.undecided_looks = 2
    first = _run(tmp_path)
    assert fake.worlds == [3, 4, 5] and (tmp_path / "looks.json").is_file()
    record = (tmp_path / "looks.json").read_bytes()
    written = json.dumps(fake.written, sort_keys=True)
    fake.worlds.clear()
    fake.levels.clear()
    fake.written = None
    said, console = _said()
    again = _run(tmp_path, console=console)
    max_looks = 1 + (6 - 3) // batches.BATCH_WORLDS
    assert fake.worlds == [5] and fake.levels == [sequential.level(3, max_looks)]  # the last look, nothing new
    # the fake's look-1 verdict would be "undecided": what was written is the recorded one
    assert json.dumps(again.verdicts, sort_keys=True) == written == json.dumps(fake.written, sort_keys=True)
    assert again.verdicts["sequential"]["stopped"] == "decided" and first.verdicts["sequential"]["stopped"] == "decided"
    assert (tmp_path / "looks.json").read_bytes() == record
    assert any("reusing the recorded look 3" in s for s in said) and any("reused the recorded look 3" in s
                                                                         for s in said), said


def test_a_run_stopped_in_the_middle_of_a_look_resumes_at_that_look(fake, tmp_path):
    """Killed during look 2: the re-run starts at look 2 (4 worlds) with look 1 as recorded, and goes on as the
    first run would have (look 3 at 5 worlds decides); the looks in verdicts.json are 1, 2, 3."""
    fake.decided_at, fake.fail_at = 5, 4
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path)
    assert fake.worlds == [3, 4]
    fake.worlds.clear()
    fake.levels.clear()
    fake.fail_at = None
    said, console = _said()
    res = _run(tmp_path, console=console)
    max_looks = 1 + (6 - 3) // batches.BATCH_WORLDS
    assert fake.worlds == [4, 5] and fake.levels == [sequential.level(k, max_looks) for k in (2, 3)]
    seq = res.verdicts["sequential"]
    assert [(lk["look"], lk["worlds"]) for lk in seq["looks"]] == [(1, 3), (2, 4), (3, 5)]
    assert "forecast_s" in seq["looks"][1]  # look 2 keeps the forecast made after look 1
    assert seq["stopped"] == "decided" and any("resuming look 2 (4 worlds)" in s for s in said), said


def test_other_settings_on_a_folder_of_several_looks_are_refused_before_any_work(fake, tmp_path):
    """Starting again at look 1 would score the first test world again (and remove the later ones from the data
    folder): refused in one line naming what differs, nothing generated; one look with other settings is look 1."""
    from hcrbench.errors import InputError

    fake.undecided_looks = 1
    _run(tmp_path)
    assert fake.worlds == [3, 4]
    fake.worlds.clear()
    with pytest.raises(InputError, match=r"--max-worlds 6 then, 5 now") as e:
        _run(tmp_path, max_worlds=5)
    assert e.value.field == "--relook" and fake.worlds == []
    one = tmp_path / "one"
    fake.undecided_looks = 0
    _run(one, max_worlds=4)
    fake.worlds.clear()
    _run(one, max_worlds=5)
    assert fake.worlds[0] == 3  # a folder of one look: look 1 again (the look guard decides if it is warm)


def test_the_forecast_scales_the_query_bound_stages_and_adds_a_world():
    man = {"stages": {"scoring": {"wall_s": 40.0}, "gate+tree+verdicts": {"wall_s": 20.0}, "load": {"wall_s": 9.0}},
           "systems": {"a": {"worlds": {"w02": {"seconds": 30.0, "reused": False},
                                        "w03": {"seconds": 50.0, "reused": False},
                                        "w01": {"seconds": 99.0, "reused": True}}},
                       "b": {"worlds": {"w02": {"seconds": 10.0, "reused": False}}}}}
    f = batches.forecast(man, n_test=600, n_next=900, batch=1, generate_s=2.0)
    assert f["systems_per_world_s"] == 45.0  # (30 + 10 + 50) / 2 worlds computed; reused worlds cost nothing
    assert f["scaled_stages_s"] == 90.0 and f["seconds"] == 45.0 + 2.0 + 90.0


def test_the_forecast_prices_embeddings_cached_before_the_look_at_their_cold_cost_and_repeats_the_fixed_work():
    """A world whose vectors were cached before the look ran faster than a fresh world will: its prior hits are
    priced at the seconds per text the look measured where it did encode; the look's other work recurs."""
    man = {"stages": {"scoring": {"wall_s": 10.0}, "gate+tree+verdicts": {"wall_s": 20.0}},
           "systems": {"dense": {"worlds": {"w02": {"seconds": 5.0, "reused": False, "texts_encoded": 0,
                                                    "cache_hits_prior": 1000, "stage_seconds": {"encode_corpus": 0.5}},
                                            "w01": {"seconds": 80.0, "reused": True}}},
                       "hcr": {"worlds": {"w02": {"seconds": 40.0, "reused": False, "texts_encoded": 2000,
                                                  "cache_hits_prior": 0,
                                                  "stage_seconds": {"encode_chunks": 16.0, "hcr.encode_queries": 4.0,
                                                                    "tree": 9.0}}}}}}
    assert batches.encode_rate(man) == 0.01  # (16 + 4) s over 2,000 texts; the cached part encoded nothing
    f = batches.forecast(man, n_test=300, n_next=600, batch=1, generate_s=3.0, look_s=100.0)
    assert f["systems_per_world_s"] == 5.0 + 40.0 + 1000 * 0.01 and f["cached_before_look"] == 1000
    assert f["scaled_stages_s"] == 60.0 and f["other_s"] == 100.0 - 45.0 - 30.0
    assert f["seconds"] == 55.0 + 3.0 + 60.0 + 25.0
    warm = {**man, "systems": {"dense": man["systems"]["dense"]}}  # nothing encoded: the last look's rate
    assert batches.forecast(warm, n_test=300, n_next=600, batch=1, generate_s=0.0,
                            rate=0.02)["systems_per_world_s"] == 5.0 + 1000 * 0.02
    assert batches.forecast_line(2, 72.0, 80.0) == "look 2 took 80 s; forecast 72 s (-10%)"
    assert f["indexes_cached_before_look"] == 0 and batches.eta_words(f) == "~2.4 min"
    man["systems"]["hcr"]["worlds"]["w02"]["index_hits_prior"] = 1  # its tree came from the cache: a lower bound
    assert batches.eta_words(batches.forecast(man, n_test=300, n_next=600, batch=1, generate_s=3.0, look_s=100.0)) \
        == "at least ~2.4 min: 1 tree or index cached from before this look"


def test_the_forecast_divides_the_systems_seconds_by_the_cells_run_side_by_side():
    """Two cells of 60 s each that ran at once in a 60 s systems phase: a new world's systems take 60 s of wall
    time, not 120; the fixed work is what the look took beside them."""
    man = {"stages": {"system:a": {"wall_s": 30.0}, "system:b": {"wall_s": 30.0}, "scoring": {"wall_s": 10.0}},
           "systems": {"a": {"worlds": {"w02": {"seconds": 60.0, "reused": False}}},
                       "b": {"worlds": {"w02": {"seconds": 60.0, "reused": False}}}}}
    assert batches.parallelism(man) == 2.0
    f = batches.forecast(man, n_test=300, n_next=600, batch=1, generate_s=0.0, look_s=100.0)
    assert f["systems_per_world_s"] == 60.0 and f["parallelism"] == 2.0
    assert f["other_s"] == 100.0 - 60.0 - 10.0 and f["seconds"] == 60.0 + 20.0 + 30.0
    one = {**man, "stages": {"system:a": {"wall_s": 60.0}, "system:b": {"wall_s": 70.0}}}  # one after another
    assert batches.parallelism(one) == 1.0 and batches.parallelism({"systems": man["systems"]}) == 1.0


def test_undecided_rows_are_those_more_queries_can_decide():
    v = {"checkpoints": [
        {"id": "a", "status": "not decidable", "text": "not decidable at n = 300 (needs ~ 1,200)"},
        {"id": "b", "status": "not decidable", "text": "not decidable at n = 5 conditions (needs ~ 81 conditions)"},
        {"id": "c", "status": "not decidable", "text": "not decidable across delivery modes: x"},
        {"id": "d", "status": "pass", "text": "passes"}],
        "hypotheses": [{"id": "e", "verdict": "not decidable", "text": "not decidable at n = 300 (no n in reach "
                                                                         "decides it)"},
                       {"id": "f", "verdict": "not decidable", "text": "not decidable at n = 300 (power 0.8 at the "
                                                                         "margin is reached at n ~ 200: near)"}]}
    und = batches.undecided_for_queries(v)
    assert [(u["id"], u["needs"]) for u in und] == [("a", 1200), ("f", None)]
    assert batches.worlds_to_decide(und[:1], 300.0) == 3


def test_a_run_file_subject_gets_the_worlds_its_test_run_names(tmp_path):
    from hcrbench.protocol.bring import SubjectSpec

    run = tmp_path / "test.trec"
    run.write_text("w02-MQ001 Q0 w02-MER-000001 1 1.0 r\nw05-MQ007 Q0 w05-MER-000003 1 1.0 r\n")
    spec = SubjectSpec("mine", "runfile", {"path": str(run)})
    assert qs.runfile_worlds(spec, 3) == 6  # w00..w05: tune, dev and the four test worlds it was made for
    run.write_text("w02-MQ001 Q0 w02-MER-000001 1 1.0 r\n")
    assert qs.runfile_worlds(spec, 3) == 3


@pytest.mark.parametrize("args, flag", [(["--worlds", "2"], "--worlds"), (["--max-worlds", "2"], "--max-worlds"),
                                        (["--budget", "0"], "--budget"), (["--worlds", "101"], "--worlds")])
def test_bad_world_flags_are_one_line_before_any_work(args, flag, tmp_path):
    import subprocess

    out = tmp_path / "qs"
    res = subprocess.run(["hcrbench", "quickstart", "--encoder", "hash", "--out", str(out), *args],
                         capture_output=True, text=True, env={**__import__("os").environ,
                                                              "HCRBENCH_HOME": str(tmp_path / "home")})
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0], res.stderr
    assert not out.exists()


@pytest.mark.slow  # generates four small worlds and runs two looks of HCR (hash) and BM25 (minutes on 2 cores)
def test_the_forecast_of_a_look_is_within_30_percent_of_what_it_then_took(monkeypatch, tmp_path):
    """The quickstart's look loop for real on a small hash-encoder field (HCR and BM25 over Meridian worlds):
    the forecast made after look 1 against the time look 2 then took, both in verdicts.json. In the quickstart
    look 1 follows the tuning runs in the same process; here a tiny run of the same systems stands in for them, so
    look 1's times do not carry the process's first imports."""
    import json

    from hcrbench.experiment.runner import run_experiment

    warm = tmp_path / "warm"
    (warm / "data" / "qrels").mkdir(parents=True)
    docs = {f"d{i}": f"note {i} on the {('billing', 'signing', 'laptop')[i % 3]} service and its owner" for i in range(12)}
    (warm / "data" / "corpus.jsonl").write_text("".join(json.dumps({"_id": d, "title": "", "text": t}) + "\n"
                                                        for d, t in docs.items()))
    (warm / "data" / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "billing owner"}) + "\n"
                                                 + json.dumps({"_id": "q2", "text": "laptop service"}) + "\n")
    (warm / "data" / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td0\t1\nq2\td2\t1\n")
    (warm / "warm.toml").write_text('name = "warm"\noutput_dir = "out"\nmetrics = ["nDCG@10"]\nn_resamples = 50\n'
                                    '[dataset]\npath = "data"\nsplit = "test"\n'
                                    '[[systems]]\nname = "bm25"\ntype = "bm25"\n'
                                    '[[systems]]\nname = "hcr"\ntype = "hcr"\nparams = { backend = "hash" }\n')
    monkeypatch.setenv("HCRBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
    said: list[str] = []

    def write_config(folder, size, *, seed, data_root, worlds, **kw):
        root = Path(data_root) / qs.data_folder(size, seed, worlds=worlds)
        cfg = Path(folder) / "quickstart.toml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text(f'name = "looks"\noutput_dir = "."\nmetrics = ["nDCG@10"]\nn_resamples = 200\n'
                       f'[dataset]\npath = "{root}"\nsplit = "test"\n'
                       '[[systems]]\nname = "bm25"\ntype = "bm25"\n'
                       '[[systems]]\nname = "hcr"\ntype = "hcr"\nparams = { backend = "hash" }\n')
        return cfg, {"chosen": {}}

    looks_seen: list[int] = []

    def undecided(verdicts):  # look 1 leaves a rule undecided for want of queries; look 2 decides it
        looks_seen.append(1)
        return [{"id": "toy", "name": "toy", "n": 300, "needs": 450}] if len(looks_seen) == 1 else []

    from hcrbench.synth import worlds as synth_worlds

    ensure = synth_worlds.ensure_worlds  # the design's 500 documents per world, 40 queries (not 300): a short test
    monkeypatch.setattr(synth_worlds, "ensure_worlds", lambda root, **kw: ensure(root, n_queries=40, **kw))
    monkeypatch.setattr(qc, "write_config", write_config)
    monkeypatch.setattr(batches, "undecided_for_queries", undecided)
    monkeypatch.setattr(batches, "any_within_reach", lambda v, u: True)
    monkeypatch.setattr(ll.looks, "guard", lambda cfg, root, relook=False: {})
    monkeypatch.setattr(ll.looks, "record", lambda look, folder, v: {"overall": "go", "checkpoints": [],
                                                                      "hypotheses": []})
    monkeypatch.setattr(ll, "with_best_simple", lambda v, res, cfg: v)
    monkeypatch.setattr(ll, "variance_of", lambda folder, v: {})
    monkeypatch.setattr("hcrbench.protocol.verdicts.with_tuning", lambda v, t: v)
    written = {}
    monkeypatch.setattr("hcrbench.protocol.verdicts.write_verdicts", lambda folder, v: written.update(v))
    run_experiment(warm / "warm.toml", progress=False)
    _run(tmp_path / "qs", data_root=tmp_path / "data", max_worlds=4, largest=False, progress=False,
         fail_fast=False, console=SimpleNamespace(print=lambda *a, **k: said.append(str(a[0]))))
    first, second = written["sequential"]["looks"]
    assert (first["worlds"], second["worlds"]) == (3, 4) and second["forecast"]["systems_per_world_s"] > 0
    err = second["forecast_s"] / second["experiment_s"] - 1
    assert abs(err) <= 0.30, (second, first)
    assert second["forecast_error"] == pytest.approx(err, abs=1e-3)
    assert any(s.startswith("look 2 took ") and "; forecast " in s for s in said), said
    assert sum(s.startswith("world w0") for s in said) == 4  # a line per world generated
