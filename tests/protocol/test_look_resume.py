"""Which look a quickstart re-run starts at, from the folder's record of its looks (``looks.json``): the last one,
reused, when they are complete; the one under way when a run was stopped; look 1 without a record or when a single
look was taken with other settings; refused when two or more were."""

from __future__ import annotations

import pytest

from hcrbench.errors import InputError
from hcrbench.protocol.look_resume import loop_args, read_record, resume_point, write_record

ARGS = loop_args(size="small", seed=5, worlds=3, cap=6, budget_s=1800.0, look=1)


def _look(n: int, worlds: int, seconds: float = 10.0, **kw) -> dict:
    return {"look": n, "worlds": worlds, "test_worlds": worlds - 2, "n_test": 300 * (worlds - 2),
            "seconds": seconds, **kw}


def test_no_record_is_a_first_run():
    r = resume_point(None, ARGS)
    assert (r.look, r.worlds, r.history, r.complete, r.line) == (1, 3, [], False, None)


def test_complete_looks_resume_at_the_last_one_with_its_verdicts(tmp_path):
    looks = [_look(1, 3, 30.0), _look(2, 4, 40.0, forecast={"seconds": 35.0}), _look(3, 5, 50.0)]
    v = {"overall": "go", "sequential": {"looks": looks, "stopped": "decided"}}
    write_record(tmp_path, ARGS, looks, stopped="decided", verdicts=v)
    r = resume_point(read_record(tmp_path), ARGS, folder=tmp_path)
    assert (r.look, r.worlds, r.complete, r.stopped) == (3, 5, True, "decided")
    assert r.history == looks[:2] and r.verdicts == v and r.spent_s == 70.0
    assert "reusing the recorded look 3" in r.line and "no new test world" in r.line


def test_a_look_under_way_is_resumed_after_the_recorded_ones(tmp_path):
    looks = [_look(1, 3, 30.0)]
    eta = {"seconds": 42.0}
    write_record(tmp_path, ARGS, looks, next_look={"look": 2, "worlds": 4, "eta": eta, "rate": 0.01})
    r = resume_point(read_record(tmp_path), ARGS)
    assert (r.look, r.worlds, r.eta, r.rate, r.spent_s, r.complete) == (2, 4, eta, 0.01, 30.0, False)
    assert r.history == looks and r.line.startswith("resuming look 2 (4 worlds)")


def test_a_finished_look_whose_sequel_was_not_recorded_is_taken_again():
    rec = {"version": 1, "args": ARGS, "looks": [_look(1, 3), _look(2, 4)]}
    r = resume_point(rec, ARGS)
    assert (r.look, r.worlds, len(r.history), r.complete) == (2, 4, 1, False)


def test_other_settings_refuse_a_folder_of_several_looks_and_restart_one_of_a_single_look():
    two = {"version": 1, "args": ARGS, "looks": [_look(1, 3)], "next": {"look": 2, "worlds": 4}}
    other = {**ARGS, "max_worlds": 8, "budget_s": 600.0}
    with pytest.raises(InputError) as e:
        resume_point(two, other, folder="/x/qs")
    assert e.value.field == "--relook"
    assert "--max-worlds 6 then, 8 now" in e.value.problem and "--budget 30 min then, 10 min now" in e.value.problem
    assert resume_point(two, other, relook=True).look == 1  # a relook draws fresh test worlds: look 1 of those
    one = {"version": 1, "args": ARGS, "looks": [_look(1, 3)], "stopped": "decided", "verdicts": {}}
    assert resume_point(one, other).look == 1  # look 1 again: the look guard says whether it is the same look


def test_an_unreadable_or_foreign_record_is_a_first_run(tmp_path):
    (tmp_path / "looks.json").write_text("{not json")
    assert read_record(tmp_path) is None
    (tmp_path / "looks.json").write_text('{"version": 99, "looks": []}')
    assert read_record(tmp_path) is None
    assert resume_point(read_record(tmp_path), ARGS).look == 1


def test_a_folder_from_before_the_record_resumes_from_its_verdicts(tmp_path):
    """Complete looks written before looks.json: read from verdicts.json["sequential"] when its first look and cap
    are this run's and the run ended; a relook or other worlds are a first run."""
    import json

    from hcrbench.protocol.look_resume import legacy_record

    looks = [_look(1, 3), _look(2, 4)]
    v = {"overall": "go", "sequential": {"looks": looks, "stopped": "max worlds (4) reached", "max_worlds": 6}}
    (tmp_path / "verdicts.json").write_text(json.dumps(v))
    (tmp_path / "manifest.json").write_text(json.dumps({"status": "running"}))
    assert legacy_record(tmp_path, ARGS) is None  # the run did not end
    (tmp_path / "manifest.json").write_text(json.dumps({"status": "complete"}))
    r = resume_point(legacy_record(tmp_path, ARGS), ARGS)
    assert (r.look, r.worlds, r.complete, r.verdicts) == (2, 4, True, v)
    assert legacy_record(tmp_path, {**ARGS, "worlds": 4}) is None
    assert legacy_record(tmp_path, {**ARGS, "max_worlds": 8}) is None
    assert legacy_record(tmp_path, {**ARGS, "relook_look": 2}) is None


def test_the_quickstart_refuses_other_settings_over_several_looks_before_any_work(tmp_path, monkeypatch):
    """--max-worlds changed on a folder of two looks: one line naming it (--relook), nothing generated or tuned."""
    from hcrbench.protocol.quickstart import run_quickstart

    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
    out = tmp_path / "qs"
    args = loop_args(size="small", seed=5, worlds=3, cap=4, budget_s=1800.0, look=1)
    write_record(out, args, [_look(1, 3), _look(2, 4)], stopped="max worlds (4) reached", verdicts={"overall": "go"})
    with pytest.raises(InputError, match="--max-worlds 4 then, 6 now") as e:
        run_quickstart(out, sizes=["small"], seed=5, encoder="hash", progress=False, worlds=3, max_worlds=6)
    assert e.value.field == "--relook" and sorted(p.name for p in out.iterdir()) == ["looks.json"]
