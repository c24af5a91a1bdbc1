"""One progress line for a whole job (``hcrbench run``, ``hcrbench quickstart``), and its per-stage clock.

The line reads ``[3/16 steps] hcr-seed1: encoding 3,750 chunks with MiniLM, first run only (cached) · batch
12/15 (~20s left) · elapsed 1m12s · ETA ~2m``: the job's steps (every
system of every experiment the job runs, plus each experiment's scoring and its gate / tree metrics /
checkpoints), the step under way, the inner stage a lower layer reports (:func:`hcrbench.retrieve.progress.
progress`, which draws no bar of its own while a job line is up), the time since the job started and an
estimate of what is left. It is drawn on stderr, redrawn in place at most a few times a second, only where
someone sees it: stderr is a terminal and ``HCRBENCH_PROGRESS`` is not ``0`` (``HCRBENCH_PROGRESS=1`` forces it,
e.g. under a pipe). Otherwise nothing is drawn and the runner's own plain lines (one per system) are all there
is. Lines the runner prints go through :meth:`JobProgress.stream`, which clears the job line first, so the two
never mix.

The ETA is ``elapsed / done * left`` in steps, where the step under way counts with half the fraction its
inner stage reports; steps differ in cost (RAPTOR's tree vs BM25), so it is an estimate (``~``), refined as steps end.

:class:`StageClock` records wall and CPU seconds per stage (``manifest.json`` ``"stages"``). CPU seconds are
this process's user + system time, its reaped children's, and its live children's (worker processes such as
RAPTOR's joblib pool, read from ``/proc`` on Linux).
"""

from __future__ import annotations

import functools
import math
import os
import resource
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from hcrbench.data.structured import parse_toml
from hcrbench.retrieve import progress as inner

PLAIN_EVERY = 15.0  # seconds between two plain lines of one step's inner stage (stderr not a terminal)
HEARTBEAT = 10.0  # a logged job's line again after this long without one (well inside 15 s on a busy machine)
POST_STEPS = 2  # per experiment: scoring (+ context), then gate / tree metrics / checkpoints

_CURRENT: JobProgress | None = None


def cpu_seconds() -> float:
    """User + system CPU seconds of this process, its reaped children and its live children (Linux /proc)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime + _live_children_cpu()


def _live_children_cpu() -> float:
    pid, total = os.getpid(), 0.0
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        names = os.listdir("/proc")
    except (OSError, ValueError, AttributeError):
        return 0.0
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 12 and fields[1] == str(pid):  # ppid; utime, stime are fields 14, 15 of stat
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


class StageClock:
    """Wall and CPU seconds per named stage: ``{"load": {"wall_s": 1.2, "cpu_s": 1.1}, ...}``."""

    def __init__(self) -> None:
        self.stages: dict[str, dict[str, float]] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        w0, c0 = time.perf_counter(), cpu_seconds()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - w0, cpu_seconds() - c0)

    @staticmethod
    def mark() -> tuple[float, float]:
        """Now, as (wall, CPU) seconds: pass it to :meth:`since`."""
        return time.perf_counter(), cpu_seconds()

    def since(self, name: str, mark: tuple[float, float]) -> tuple[float, float]:
        """Add the time from ``mark`` to now to stage ``name``; returns a new mark (now)."""
        now = self.mark()
        self.add(name, now[0] - mark[0], now[1] - mark[1])
        return now

    def add(self, name: str, wall: float, cpu: float) -> None:
        got = self.stages.setdefault(name, {"wall_s": 0.0, "cpu_s": 0.0})
        got["wall_s"] = round(got["wall_s"] + wall, 3)
        got["cpu_s"] = round(got["cpu_s"] + max(cpu, 0.0), 3)


def fmt_seconds(s: float) -> str:
    """``45s``, ``1m12s``, ``2h03m``."""
    s = max(0, round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


def fmt_eta(s: float) -> str:
    """Rounded, as an estimate should be: ``~40s``, ``~3m``, ``~1h20m``."""
    if s < 60:
        return f"~{max(5, math.ceil(s / 5.0) * 5)}s"
    if s < 3600:
        return f"~{round(s / 60)}m"
    return f"~{int(s // 3600)}h{round((s % 3600) / 60):02d}m"


def line_wanted() -> bool:
    """True when a live line would be seen: stderr is a terminal (or ``HCRBENCH_PROGRESS=1``), not ``=0``."""
    return inner.terminal_wanted()


def plain_wanted() -> bool:
    """Plain progress lines where no live line is drawn: unless ``HCRBENCH_PROGRESS=0``."""
    return os.environ.get("HCRBENCH_PROGRESS", "").strip().lower() not in ("0", "false", "no", "off")


class _Stream:
    """A file for the job's console: clears the job line before each write and redraws it after a newline."""

    def __init__(self, job: JobProgress, base: TextIO) -> None:
        self.job, self.base = job, base

    def write(self, s: str) -> int:
        with self.job._lock:
            self.job._erase()
            n = self.base.write(s)
            if s.endswith("\n"):
                self.job._draw_locked()
            return n

    def flush(self) -> None:
        self.base.flush()

    def isatty(self) -> bool:  # no spinners or live displays of rich's own under the job line
        return False

    @property
    def encoding(self) -> str:
        return getattr(self.base, "encoding", "utf-8")


class JobProgress:
    """The job-wide line: :meth:`expect` / :meth:`reserve` steps, :meth:`begin` one, :meth:`advance` when done;
    lower layers report inner stages through :meth:`update`. Drawn only when ``live``."""

    def __init__(self, *, live: bool, stream: TextIO | None = None, unit: str = "steps",
                 clock: Callable[[], float] = time.monotonic, tick: float = 1.0, plain: bool = False,
                 plain_every: float = PLAIN_EVERY, heartbeat: float = 0.0) -> None:
        self.live, self.unit, self.clock = live, unit, clock
        #: not live but wanted (stderr is a pipe or a file): one plain line per step begun, and an inner stage's
        #: line at most every ``plain_every`` seconds, so a log shows what is being done from the first second
        self.plain, self.plain_every, self._plain_last = plain and not live, plain_every, -math.inf
        self.base = stream if stream is not None else sys.stderr
        self.total = self.done = 0
        self.label = ""
        self.inner: tuple[str, int, int | None] | None = None
        self.inner_t0: float | None = None  # when the inner stage under way began (its own ETA)
        self.t0 = self.step_t0 = clock()
        self._lock = threading.RLock()
        self._shown = False
        self._last = 0.0
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if live and tick > 0:  # redraw now and then so elapsed time moves during a long step
            self._ticker = threading.Thread(target=self._tick, args=(tick,), daemon=True)
            self._ticker.start()
        #: plain lines only: after this many seconds without one, the line is written again (a stage that reports
        #: nothing, such as a tree build or the gate's replays, still shows the job is alive and where it is)
        self.heartbeat = heartbeat if self.plain else 0.0
        if self.heartbeat > 0:
            self._plain_last = clock()
            self._ticker = threading.Thread(target=self._beat, daemon=True)
            self._ticker.start()

    # ---- the plan
    def expect(self, n: int) -> None:
        """Add ``n`` steps to the plan (a caller that knows the whole job up front)."""
        with self._lock:
            self.total += max(0, int(n))

    def reserve(self, n: int) -> None:
        """``n`` steps start now: grow the plan if it held fewer than that many still to do."""
        with self._lock:
            self.total = max(self.total, self.done + max(0, int(n)))

    # ---- the work
    def begin(self, label: str) -> None:
        with self._lock:
            self.label, self.inner, self.step_t0 = label, None, self.clock()
            self._draw_locked(force=True)
            self._plain_line(force=True)

    def update(self, desc: str, done: int, total: int | None) -> None:
        """An inner stage of the step under way (``encoding 12/15``)."""
        with self._lock:
            new = self.inner is None or self.inner[0] != desc or int(done) < self.inner[1]
            if new:  # its start: now when it reports 0 done, else (first heard of midway) the step's start
                self.inner_t0 = self.clock() if int(done) <= 0 else self.step_t0
            self.inner = (desc, int(done), total)
            self._draw_locked(force=new)
            self._plain_line(force=new and bool(total))  # a new stage is said at once (a log from the first second)

    def say(self, text: str) -> None:
        """A plain line about what the job is doing (live or not), with the job's elapsed time."""
        if not (self.live or self.plain):
            return
        with self._lock:
            self._erase()
            self.base.write(f"{text} · elapsed {fmt_seconds(self.clock() - self.t0)}\n")
            self.base.flush()
            self._plain_last = self.clock() if self.plain else self._plain_last
            self._draw_locked(force=True)

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self.heartbeat / 4)):
            with self._lock:
                if self.clock() - self._plain_last >= self.heartbeat:
                    self._plain_line(force=True)

    def _plain_line(self, force: bool = False) -> None:
        if not self.plain:
            return
        now = self.clock()
        if not force and now - self._plain_last < self.plain_every:
            return
        self.base.write(self.text() + "\n")
        self.base.flush()
        self._plain_last = now

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            self.total = max(self.total, self.done)
            self.inner = None
            self._draw_locked(force=True)

    # ---- rendering
    def fraction(self) -> float:
        """Steps done, the step under way counted as half its inner stage's fraction (an inner stage, such as
        encoding, is one part of a step: a finished one does not mean the step is)."""
        part = 0.0
        if self.inner is not None and self.inner[2]:
            part = 0.5 * min(1.0, self.inner[1] / self.inner[2])
        return self.done + part

    def inner_eta(self) -> float | None:
        """Seconds the inner stage under way still needs at its rate so far (None before its first step)."""
        if self.inner is None or not self.inner[2] or self.inner_t0 is None:
            return None
        _d, done, total = self.inner
        if done <= 0 or done >= total:
            return None
        return (self.clock() - self.inner_t0) / done * (total - done)

    def eta(self) -> float | None:
        f, left = self.fraction(), self.total - self.fraction()
        if f <= 0 or left <= 0:
            return None if left > 0 else 0.0
        return (self.clock() - self.t0) / f * left

    def text(self) -> str:
        elapsed = self.clock() - self.t0
        cur = self.done + 1 if self.done < self.total else self.done  # the step under way
        head = f"[{cur}/{self.total} {self.unit}]"
        what = self.label or "starting"
        if self.inner is not None:
            desc, done, total = self.inner
            what += f": {desc} {done}/{total}" if total else (f": {desc} {done}" if done else f": {desc}")
            left = self.inner_eta()
            if left is not None:
                what += f" ({fmt_eta(left)} left)"
        eta = self.eta()
        tail = f"elapsed {fmt_seconds(elapsed)} · ETA " + ("--" if eta is None else fmt_eta(eta))
        return " · ".join(p for p in (f"{head} {what}".rstrip(), tail) if p)

    def _erase(self) -> None:
        if self._shown:
            self.base.write("\r\x1b[2K")
            self._shown = False

    def _draw_locked(self, force: bool = False) -> None:
        if not self.live or self._stop.is_set():
            return
        now = self.clock()
        if not force and self._shown and now - self._last < 0.2:
            return
        width = shutil.get_terminal_size((120, 24)).columns - 1
        text = self.text()
        if len(text) > width > 20:
            text = text[: width - 1] + "…"
        self.base.write("\r\x1b[2K" + text)
        self.base.flush()
        self._shown, self._last = True, now

    def _tick(self, every: float) -> None:
        while not self._stop.wait(every):
            with self._lock:
                self._draw_locked(force=True)

    def stream(self) -> TextIO:
        """Where the job's plain lines go: through the line-clearing wrapper when live, else stderr itself."""
        return _Stream(self, self.base) if self.live else self.base  # type: ignore[return-value]

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2)
        with self._lock:
            self._erase()
            self.base.flush()


def current_job() -> JobProgress | None:
    """The job line of the job under way (None outside :func:`job_progress`)."""
    return _CURRENT


@contextmanager
def job_progress(enabled: bool = True, *, stream: TextIO | None = None, plain: bool = False
                 ) -> Iterator[JobProgress]:
    """The job under way, or a new one for the duration (live when ``enabled`` and :func:`line_wanted`).

    Nested calls (the runner inside the quickstart) share the outer job; only the outermost closes it. ``plain``:
    where no live line is drawn, plain lines with the ETA (a long job's log: the quickstart)."""
    global _CURRENT
    if _CURRENT is not None:
        yield _CURRENT
        return
    live = enabled and line_wanted()
    logged = plain and enabled and not live and plain_wanted()
    job = JobProgress(live=live, stream=stream, plain=logged, heartbeat=HEARTBEAT if logged else 0.0)
    previous = inner.set_sink(job.update if job.live or job.plain else None)
    _CURRENT = job
    try:
        yield job
    finally:
        _CURRENT = None
        inner.set_sink(previous)
        job.close()


def with_job_progress(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``fn`` inside :func:`job_progress`, live unless it is called with ``progress=False``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kw: Any) -> Any:
        with job_progress(kw.get("progress", True)):
            return fn(*args, **kw)

    return wrapper


def with_logged_job_progress(fn: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`with_job_progress` that, under a pipe or into a file, writes a plain line per step with the ETA
    (and an inner stage's every :data:`PLAIN_EVERY` seconds, and the line again after that long without one): a
    long job says what it does from the first second and is never silent longer than :data:`HEARTBEAT`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kw: Any) -> Any:
        with job_progress(kw.get("progress", True), plain=True):
            return fn(*args, **kw)

    return wrapper


def plan_units(config_text: str) -> int:
    """The steps one experiment config makes (its systems + :data:`POST_STEPS`), plus those of its tune
    experiment (``[protocol] tune``: one system per grid point, + :data:`POST_STEPS`)."""
    doc = parse_toml(config_text)
    n = len(doc.get("systems", [])) + POST_STEPS
    grids = (doc.get("protocol") or {}).get("tune") or {}
    points = sum(math.prod(len(v) if isinstance(v, list) else 1 for v in g.values())
                 for g in grids.values() if isinstance(g, dict))
    return n + (points + POST_STEPS if points else 0)
