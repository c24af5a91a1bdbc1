"""The job-wide progress line (experiment.progress): its text, done/total and ETA, its sink for lower layers'
progress, the stream that keeps plain lines apart from it, the plan of a quickstart, and through the real
``hcrbench run`` console script: on a terminal (a pty, and forced by ``HCRBENCH_PROGRESS=1``) the line shows,
under a pipe nothing but plain lines."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import threading
from pathlib import Path

import pytest

from hcrbench.experiment.progress import (
    JobProgress,
    StageClock,
    fmt_eta,
    fmt_seconds,
    job_progress,
    plan_units,
)
from hcrbench.retrieve import progress as inner

from .conftest import write_beir

SRC = str(Path(__file__).resolve().parents[2] / "src")


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_line_counts_steps_shows_the_inner_stage_and_estimates_what_is_left():
    clock, buf = Clock(), io.StringIO()
    job = JobProgress(live=True, stream=buf, clock=clock, tick=0)
    job.expect(4)
    job.begin("hcr-seed1")
    clock.t = 10.0
    job.update("encoding", 1, 2)  # half the inner stage = a quarter step in 10 s -> 3.75 left at 40 s each
    assert job.text() == "[1/4 steps] hcr-seed1: encoding 1/2 (~10s left) · elapsed 10s · ETA ~2m"
    job.advance()
    job.begin("bm25")
    clock.t = 20.0
    assert job.text().startswith("[2/4 steps] bm25 · elapsed 20s · ETA ~1m")  # 20 s per step, 3 left
    job.advance(3)
    assert "ETA ~5s" in job.text()  # nothing left
    job.close()
    assert buf.getvalue().endswith("\r\x1b[2K")  # the line is gone when the job ends


def test_no_estimate_before_any_work_and_a_plan_that_grows_when_a_caller_reserves_more():
    clock = Clock()
    job = JobProgress(live=False, stream=io.StringIO(), clock=clock, tick=0)
    job.reserve(3)
    assert job.total == 3 and job.eta() is None and job.text().startswith("[1/3 steps] starting · elapsed")
    assert "ETA --" in job.text()
    job.advance(2)
    job.reserve(5)  # 5 more from here: 2 + 5
    assert job.total == 7
    job.reserve(1)  # fewer than planned: the plan stays
    assert job.total == 7


def test_time_formats():
    assert [fmt_seconds(s) for s in (4, 72, 7380)] == ["4s", "1m12s", "2h03m"]
    assert [fmt_eta(s) for s in (1, 41, 150, 4000)] == ["~5s", "~45s", "~2m", "~1h07m"]


def test_a_job_that_is_not_live_writes_nothing():
    buf = io.StringIO()
    job = JobProgress(live=False, stream=buf, tick=0)
    job.expect(2)
    job.begin("a")
    job.update("encoding", 1, 2)
    job.advance()
    job.close()
    assert buf.getvalue() == ""
    assert job.stream() is buf


def test_plain_lines_clear_the_job_line_first_and_redraw_it_after():
    buf = io.StringIO()
    job = JobProgress(live=True, stream=buf, tick=0)
    job.expect(2)
    job.begin("a")
    job.stream().write("[1/2] a: done in 1.00s\n")
    out = buf.getvalue()
    first = out.index("[1/2 steps] a")
    plain = out.index("[1/2] a: done")
    assert first < plain and out[plain - 5: plain] == "\r\x1b[2K"  # erased before the plain line
    assert out.rindex("[1/2 steps] a") > plain  # and drawn again below it
    assert job.stream().isatty() is False  # so rich draws no spinner of its own under the line
    job.close()


def test_inner_progress_reports_to_the_job_and_draws_no_bar_of_its_own(monkeypatch):
    monkeypatch.setenv("HCRBENCH_PROGRESS", "1")
    buf = io.StringIO()
    with job_progress(True, stream=buf) as job:
        job.expect(1)
        job.begin("dense")
        assert inner.progress_enabled() is False  # no bar, no tqdm, no layer lines under the job line
        seen = []
        for x in inner.progress(range(3), total=3, desc="encoding"):
            seen.append(x)
            assert job.inner == ("encoding", x, 3)  # reported after each item is done
        assert seen == [0, 1, 2] and job.inner == ("encoding", 3, 3)
        assert job.text().startswith("[1/1 steps] dense: encoding 3/3 · elapsed")
        with job_progress(True) as again:  # nested (the runner inside the quickstart): the same job
            assert again is job
    assert inner.set_sink(None) is None  # uninstalled at the end
    assert inner.progress_enabled() is True  # forced on again without a job line
    assert "[1/1 steps] dense" in buf.getvalue()  # drawn (inner updates are throttled to a few a second)


def test_without_a_job_progress_iterates_plainly(monkeypatch):
    monkeypatch.setenv("HCRBENCH_PROGRESS", "0")
    assert list(inner.progress(iter("abc"), total=3, desc="x")) == ["a", "b", "c"]
    inner.report("x", 1, 3)  # no job: nothing to tell, no error


def test_stage_clock_counts_wall_and_cpu_seconds():
    clock = StageClock()
    with clock.stage("busy"):
        sum(i * i for i in range(2_000_000))
    got = clock.stages["busy"]
    assert got["cpu_s"] > 0.02 and got["wall_s"] > 0.02
    m = clock.mark()
    clock.since("busy", m)
    assert clock.stages["busy"]["wall_s"] >= got["wall_s"]


def test_the_quickstart_plan_is_every_system_of_tune_and_test_plus_their_scoring_steps():
    from hcrbench.experiment.config import parse_config
    from hcrbench.protocol.quickstart import render_config
    from hcrbench.protocol.tuning import points

    text = render_config(size="small", seed=0, seeds=3)
    cfg = parse_config(text, Path("/tmp/quickstart.toml"))
    tune_points = sum(len(points(g)) for g in cfg.protocol.tune.values())
    assert tune_points >= 2  # at least HCR's beam widths; RAPTOR and hybrid grids add theirs
    assert plan_units(text) == len(cfg.systems) + 2 + tune_points + 2
    assert plan_units('name = "x"\n[[systems]]\nname = "a"\n') == 3


CONFIG = """name = "tiny"
output_dir = "out"
seed = 0
metrics = ["nDCG@10"]
baseline = "a"
k = 10
n_resamples = 200

[dataset]
path = "data"
split = "test"

[[systems]]
name = "a"
type = "bm25"

[[systems]]
name = "b"
type = "bm25"
params = { k1 = 0.5 }

[[systems]]
name = "c"
type = "bm25"
params = { k1 = 2.0 }
"""


@pytest.fixture
def tiny_config(tmp_path: Path) -> Path:
    write_beir(tmp_path / "data")
    cfg = tmp_path / "exp.toml"
    cfg.write_text(CONFIG)
    return cfg


def _env(progress: str) -> dict[str, str]:
    return {**os.environ, "HCRBENCH_PROGRESS": progress, "HCRBENCH_HOME": os.environ.get("HCRBENCH_HOME", ""),
            "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


JOB_LINE = re.compile(r"\[(\d)/5 steps\] [^\r\n]*· elapsed \d+s · ETA (--|~\d+s)")


def test_run_forced_by_the_environment_shows_the_job_line_with_done_total_and_eta(tiny_config):
    r = subprocess.run(["hcrbench", "run", str(tiny_config)], capture_output=True, text=True,
                       env=_env("1"), timeout=300, cwd=tiny_config.parent)
    assert r.returncode == 0, r.stderr
    lines = JOB_LINE.findall(r.stderr)
    steps = {int(n) for n, _ in lines}
    assert steps == {1, 2, 3, 4, 5}  # 3 systems + scoring + gate/tree/checkpoints
    assert any(eta.startswith("~") for _, eta in lines)  # an estimate once a step is done
    assert "[3/3] c: done in" in r.stderr  # the plain lines are still there, each on its own line
    stages = json.loads((tiny_config.parent / "out" / "manifest.json").read_text())["stages"]
    assert {"load", "system:a", "system:b", "system:c", "scoring", "gate+tree+verdicts"} <= set(stages)
    assert all(set(v) == {"wall_s", "cpu_s"} for v in stages.values())


def test_run_on_a_real_terminal_shows_the_job_line(tiny_config):
    master, slave = os.openpty()
    env = _env("")
    env.pop("HCRBENCH_PROGRESS")
    p = subprocess.Popen(["hcrbench", "run", str(tiny_config)], stdout=subprocess.PIPE, stderr=slave, env=env,
                         cwd=tiny_config.parent)
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                b = os.read(master, 4096)
            except OSError:
                return
            if not b:
                return
            chunks.append(b)

    t = threading.Thread(target=drain, daemon=True)
    t.start()
    assert p.wait(timeout=300) == 0
    t.join(timeout=10)
    os.close(master)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert JOB_LINE.search(text), text


def test_run_under_a_pipe_prints_only_plain_lines(tiny_config):
    env = _env("")
    env.pop("HCRBENCH_PROGRESS")
    r = subprocess.run(["hcrbench", "run", str(tiny_config)], capture_output=True, text=True, env=env,
                       timeout=300, cwd=tiny_config.parent)
    assert r.returncode == 0, r.stderr
    assert "\r" not in r.stderr and "\x1b" not in r.stderr and "ETA" not in r.stderr
    done = [ln for ln in r.stderr.splitlines() if " done in " in ln]
    assert [ln.split(":")[0] for ln in done] == ["[1/3] a", "[2/3] b", "[3/3] c"]
    assert len(r.stderr.splitlines()) <= 9  # header, one line per system, a few more (the small-n warning)


def test_a_logged_job_writes_a_plain_line_per_step_and_its_inner_stage_at_most_every_few_seconds():
    clock = Clock()
    buf = io.StringIO()
    job = JobProgress(live=False, plain=True, stream=buf, clock=clock, plain_every=15.0)
    job.expect(4)
    job.say("quickstart: tfidf against the field")
    job.begin("hcr")
    for t in range(1, 40):
        clock.t = float(t)
        job.update("encoding", t, 40)
    job.advance()
    clock.t = 50.0
    job.begin("bm25")
    lines = buf.getvalue().splitlines()
    assert lines[0] == "quickstart: tfidf against the field · elapsed 0s"
    assert lines[1].startswith("[1/4 steps] hcr · elapsed 0s")
    # a new inner stage is logged at once, then at most every 15 s (with the stage's own estimate)
    assert [ln.split(" · ")[0] for ln in lines[2:5]] == ["[1/4 steps] hcr: encoding 1/40 (~40s left)",
                                                          "[1/4 steps] hcr: encoding 16/40 (~25s left)",
                                                          "[1/4 steps] hcr: encoding 31/40 (~10s left)"]
    assert lines[-1].startswith("[2/4 steps] bm25 · elapsed 50s · ETA ~") and len(lines) == 6
    assert "\r" not in buf.getvalue() and "\x1b" not in buf.getvalue()


def test_a_job_that_is_neither_live_nor_logged_says_nothing():
    buf = io.StringIO()
    job = JobProgress(live=False, stream=buf)
    job.say("quickstart")
    job.begin("hcr")
    assert buf.getvalue() == ""


def test_a_logged_job_says_its_line_again_when_a_stage_reports_nothing():
    """A stage that reports nothing (a tree build, the gate's replays) still leaves a line in the log at least
    every ``heartbeat`` seconds, naming the step and the last stage heard of; none when lines come anyway."""
    import time

    buf = io.StringIO()
    job = JobProgress(live=False, plain=True, stream=buf, heartbeat=0.3)
    try:
        job.expect(2)
        job.begin("raptor")
        job.update("clustering", 0, None)
        time.sleep(1.15)
        silent = buf.getvalue().splitlines()
        assert 3 <= len(silent) <= 6, silent  # begin, then the line again every ~0.3 s
        assert all(ln.startswith("[1/2 steps] raptor") for ln in silent)
        assert silent[-1].startswith("[1/2 steps] raptor: clustering · elapsed")
    finally:
        job.close()
    quiet = io.StringIO()
    JobProgress(live=False, plain=False, stream=quiet, heartbeat=0.3).begin("raptor")  # not logged: no beat
    time.sleep(0.5)
    assert quiet.getvalue() == ""


def test_a_retrievers_timed_stage_names_itself_on_the_job_line():
    from hcrbench.data.types import Costs
    from hcrbench.retrieve import progress as inner
    from hcrbench.retrieve.util import timed

    heard: list[tuple[str, int, int | None]] = []
    previous = inner.set_sink(lambda d, n, t: heard.append((d, n, t)))
    try:
        costs = Costs()
        with timed(costs, "tree"):
            pass
        with timed(costs, "encode_summaries"):
            pass
    finally:
        inner.set_sink(previous)
    assert heard == [("building the tree", 0, None), ("encode summaries", 0, None)]
    assert set(costs.stage_seconds) == {"tree", "encode_summaries"}
