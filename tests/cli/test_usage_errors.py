"""Every usage mistake is one line ``hcrbench: error: ...`` and exit 2, never a traceback; help, version and Ctrl-C.

Driven through the real console script in subprocesses, in the full install and in a core-only one (no extras,
no separately installed click: see ``core_venv.py``), plus an in-process sweep over every registered command so
commands added later are covered without editing this file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from core_venv import build_core_venv, core_venv_from_env, venv_env

from hcrbench.cli import COMMAND_ORDER, command, main

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
QRELS, RUN = str(EXAMPLES / "cranfield.qrels"), str(EXAMPLES / "bm25.trec")

# (argv, substrings the single error line must contain)
USAGE_ERRORS: list[tuple[list[str], list[str]]] = [
    (["evalute"], ["no such command 'evalute'", "Did you mean 'evaluate'"]),
    (["genrate", "meridian"], ["Did you mean 'generate'"]),
    (["generate", "meridan"], ["generate:", "Did you mean 'meridian'"]),
    (["evaluate"], ["evaluate:", "missing argument 'QRELS'"]),
    (["evaluate", QRELS], ["missing argument 'RUNS...'"]),
    (["evaluate", QRELS, RUN, "--metric", "AP"], ["no such option: --metric", "--metrics"]),
    (["evaluate", QRELS, RUN, "--missing"], ["evaluate:", "'--missing' requires an argument"]),
    (["evaluate", QRELS, RUN, "--per-query=yes"], ["'--per-query' does not take a value"]),
    (["evaluate", QRELS, RUN, "--seed", "x1"], ["'--seed'", "expected an integer, got 'x1'"]),
    (["retrieve", "--dataset", "d", "--system", "bm25", "--out", "o", "--k", "abc"],
     ["retrieve:", "'--k'", "expected an integer, got 'abc'"]),
    (["gate", RUN, "--tau", "high"], ["gate:", "'--tau'", "expected a number, got 'high'"]),
    (["convert", "smart"], ["convert smart:", "missing option '--collection'"]),
    (["-x"], ["no such option: -x"]),
    (["run", "/nonexistent/experiment.toml"], ["/nonexistent/experiment.toml", "config file not found"]),
]


def _check_error(proc: subprocess.CompletedProcess, needles: list[str]) -> None:
    where = f"{proc.args}: rc={proc.returncode} stdout={proc.stdout!r} stderr={proc.stderr!r}"
    assert proc.returncode == 2, where
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hcrbench: error: "), where
    assert "Traceback" not in proc.stderr + proc.stdout, where
    for needle in needles:
        assert needle in lines[0], (needle, where)


def _run_all(script: str, env: dict[str, str] | None, cases: list[list[str]]) -> list[subprocess.CompletedProcess]:
    def one(args: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run([script, *args], capture_output=True, text=True, env=env, timeout=120)

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, cases))


def _full_env() -> dict[str, str]:
    return {**os.environ, "HCRBENCH_PROGRESS": "0"}


def _help_and_version(procs: list[subprocess.CompletedProcess]) -> None:
    bare, version, short_help, sub_help, group = procs
    for p in procs:
        assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr, (p.args, p.stdout, p.stderr)
    assert "Usage: hcrbench" in bare.stdout and bare.stderr == ""
    assert version.stdout.strip().startswith("hcrbench ") and version.stdout.strip().split()[1][0].isdigit()
    assert short_help.stdout.strip() == bare.stdout.strip()
    assert "Exit codes: 0 ok / pass; 1 a check failed" in " ".join(bare.stdout.split())
    assert "Usage: hcrbench evaluate [OPTIONS] QRELS RUNS..." in sub_help.stdout
    assert "meridian" in group.stdout and "Usage: hcrbench generate" in group.stdout


HELP_CASES = [[], ["--version"], ["-h"], ["evaluate", "-h"], ["generate"]]


def _in_process(args: list[str], capsys) -> subprocess.CompletedProcess:
    try:
        rc = main(args)
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, rc, out, err)


def test_usage_errors_in_process(capsys):
    """The same cases through :func:`hcrbench.cli.main` (what the console script calls): cheap, so all of them."""
    for args, needles in USAGE_ERRORS:
        _check_error(_in_process(args, capsys), needles)
    _help_and_version([_in_process(args, capsys) for args in HELP_CASES])


def test_usage_errors_full_install():
    """The real console script of the full install: a few cases (each process costs ~0.5 s of CPU)."""
    picked = [USAGE_ERRORS[0], USAGE_ERRORS[3], USAGE_ERRORS[9]]
    procs = _run_all("hcrbench", _full_env(), [a for a, _ in picked] + HELP_CASES)
    for proc, (_, needles) in zip(procs, picked):
        _check_error(proc, needles)
    _help_and_version(procs[len(picked):])


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory) -> Path:
    given = core_venv_from_env()
    return given if given is not None else build_core_venv(tmp_path_factory.mktemp("core") / "venv")


def test_core_venv_has_no_extras(core_venv):
    """The environment is really core-only: no optional extra and, with a typer that bundles click, no click."""
    probe = ("import importlib.util as u, typer\n"
             "names = ['bm25s', 'torch', 'onnxruntime', 'statsmodels', 'matplotlib', 'tiktoken', 'faiss', 'pyarrow', "
             "'ir_datasets', 'spacy', 'sklearn', 'numba', 'ranx']\n"
             "bundled = u.find_spec('typer._click') is not None\n"
             "print(' '.join(n for n in names if u.find_spec(n)) or '-', bundled, bool(u.find_spec('click')))\n")
    out = subprocess.run([str(core_venv / "bin" / "python"), "-c", probe], capture_output=True, text=True,
                         env=venv_env(core_venv), check=True).stdout.split()
    assert out[0] == "-", f"extras present in the core venv: {out[0]}"
    if out[1] == "True":
        assert out[2] == "False", "click is installed in the core venv although typer bundles its own"


def test_usage_errors_core_only_install(core_venv, tmp_path):
    """Every case through the core-only install's console script, a missing extra, and the core job itself."""
    missing_extra = ["retrieve", "--dataset", str(REPO.parent / "shared" / "datasets" / "scifact"),
                     "--system", "bm25", "--out", str(tmp_path / "x.trec")]
    cases = [a for a, _ in USAGE_ERRORS] + HELP_CASES + [missing_extra, ["evaluate", QRELS, RUN]]
    procs = _run_all(str(core_venv / "bin" / "hcrbench"), venv_env(core_venv), cases)
    n = len(USAGE_ERRORS)
    for proc, (_, needles) in zip(procs, USAGE_ERRORS):
        _check_error(proc, needles)
    _help_and_version(procs[n:n + len(HELP_CASES)])
    extra, evaluate = procs[n + len(HELP_CASES):]
    _check_error(extra, ["pip install 'hcrbench[bm25]'"])
    assert not (tmp_path / "x.trec").exists()
    assert evaluate.returncode == 0 and "nDCG@10" in evaluate.stdout, evaluate.stderr  # the core job works


# ------------------------------------------------------------------------------------------------ every command


def _leaf_commands(cmd=None, prefix=()) -> list[tuple[str, ...]]:
    cmd = cmd or command()
    subs = getattr(cmd, "commands", None)
    if not subs:
        return [prefix]
    return [path for name, sub in subs.items() for path in _leaf_commands(sub, (*prefix, name))]


def _call(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        rc = main(args)
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def test_every_command_has_help_and_refuses_unknown_options(capsys):
    leaves = _leaf_commands()
    assert len(leaves) >= len(COMMAND_ORDER)
    for path in leaves:
        rc, out, err = _call([*path, "-h"], capsys)
        assert rc == 0 and f"Usage: hcrbench {' '.join(path)}" in out, (path, err)
        usage = next(ln for ln in out.splitlines() if "Usage:" in ln)
        assert "<bool>" not in out and "<list[" not in out and "{" not in usage, (path, out)
        rc, out, err = _call([*path, "--no-such-option"], capsys)
        assert rc == 2 and err.startswith("hcrbench: error: ") and len(err.strip().splitlines()) == 1, (path, err)
        assert "no such option: --no-such-option" in err, (path, err)


def test_help_lists_commands_in_workflow_order(capsys):
    rc, out, _ = _call(["--help"], capsys)
    assert rc == 0
    listed = [ln.strip("│ ").split()[0] for ln in out.splitlines()
              if ln.strip("│ ").split() and ln.strip("│ ").split()[0] in command().commands]
    expected = [n for n in COMMAND_ORDER if n in command().commands]
    assert listed[: len(expected)] == expected
    assert listed[len(expected):] == sorted(listed[len(expected):])


# ------------------------------------------------------------------------------------------------ Ctrl-C


# The second system of the experiment blocks in index() until interrupted; the first finishes normally.
SLOW_RUNNER = """
import sys, time
from hcrbench import cli
from hcrbench.retrieve.base import register_retriever
from hcrbench.retrieve.runfile import RunFileRetriever

@register_retriever("slow")
class Slow(RunFileRetriever):
    def index(self, corpus):
        sys.stderr.write("slow: indexing\\n"); sys.stderr.flush()
        time.sleep(60)

sys.exit(cli.main(sys.argv[1:]))
"""


def _user_sigint() -> None:
    """In the child: Ctrl-C's default disposition, as in a user's terminal. A shell that starts pytest in the
    background (``cmd &`` in a script) has SIGINT ignored, the child inherits SIG_IGN and Python then installs no
    KeyboardInterrupt handler, so the signal this test sends would be dropped."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(code: str, args: list[str], cwd: Path, wait_for: str) -> subprocess.CompletedProcess:
    """Start ``code`` (which calls hcrbench.cli.main), wait until ``wait_for`` shows on stderr, send SIGINT."""
    proc = subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd, env=_full_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_user_sigint)
    seen = ""
    deadline = time.monotonic() + 120
    while wait_for not in seen and time.monotonic() < deadline and proc.poll() is None:
        seen += proc.stderr.readline()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, seen + err)


def test_ctrl_c_during_run_says_resume_and_exits_130(tmp_path):
    """A run interrupted while it computes a system exits 130 with the resume hint; what finished is kept."""
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    (tmp_path / "corpus.jsonl").write_text("".join(f'{{"_id": "d{i}", "text": "{words[i % 8]} doc {i}"}}\n'
                                                   for i in range(40)))
    (tmp_path / "queries.jsonl").write_text("".join(f'{{"_id": "q{i}", "text": "{words[i]}"}}\n' for i in range(8)))
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(8)))
    (tmp_path / "first.trec").write_text("".join(f"q{i} Q0 d{i} 1 1.0 x\n" for i in range(8)))
    cfg = tmp_path / "exp.toml"
    cfg.write_text(
        'name = "ctrl-c"\noutput_dir = "out"\nmetrics = ["nDCG@10"]\nstrata = []\nn_resamples = 100\n'
        '[dataset]\ncorpus = "corpus.jsonl"\nqueries = "queries.jsonl"\nqrels = "qrels.tsv"\n'
        '[[systems]]\nname = "first"\ntype = "runfile"\nparams = { path = "first.trec" }\n'
        '[[systems]]\nname = "second"\ntype = "slow"\nparams = { path = "first.trec" }\n')
    proc = _interrupt(SLOW_RUNNER, ["run", str(cfg)], tmp_path, "slow: indexing")
    assert proc.returncode == 130, (proc.stdout, proc.stderr)
    assert proc.stderr.strip().splitlines()[-1] == "hcrbench: interrupted; run the same command again to resume"
    assert "Traceback" not in proc.stderr
    assert (tmp_path / "out" / "runs" / "first.trec").is_file()  # what finished is kept for the resume
    assert not (tmp_path / "out" / "runs" / "second.trec").exists()


def test_ctrl_c_elsewhere_exits_130_without_promising_a_resume(tmp_path):
    code = ("import sys, time\nfrom hcrbench import cli\n"
            "def slow(): sys.stderr.write('ready\\n'); sys.stderr.flush(); time.sleep(60)\n"
            "cli.app.command('sleep')(slow)\nsys.exit(cli.main(['sleep']))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=_full_env(), preexec_fn=_user_sigint)
    assert proc.stderr.readline().strip() == "ready"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip() == "hcrbench: interrupted", err
