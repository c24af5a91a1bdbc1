"""Fault-injection helpers (a module of its own, not conftest: test folders each have a conftest): a tiny BEIR folder (16 docs, 8 queries), two run files, a config, and a way to run the
real ``hcrbench`` console script in a subprocess, optionally on a fake full or read-only disk (fakefs/)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

FAKEFS = Path(__file__).resolve().parent / "fakefs"
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


def make_dataset(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": f"d{i}", "text": f"{WORDS[i % 8]} doc {i}"}) + "\n" for i in range(16)))
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": f"q{i}", "text": WORDS[i]}) + "\n" for i in range(8)))
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(8)))
    return folder


def config_text(name: str, root: Path, *, output_dir: str = "out", systems: tuple[str, ...] = ("good", "poor")) -> str:
    text = (f'name = "{name}"\noutput_dir = "{output_dir}"\nmetrics = ["nDCG@10", "RR"]\nn_resamples = 200\n'
            f'[dataset]\npath = "data"\n')
    for s in systems:
        text += f'[[systems]]\nname = "{s}"\ntype = "runfile"\nparams = {{ path = "{root / (s + ".trec")}" }}\n'
    return text


def hcrbench(*args: str, cwd: Path, fault: str | None = None, env: dict[str, str] | None = None,
             timeout: int = 300) -> subprocess.CompletedProcess:
    """Run the console script; ``fault="ENOSPC:/dir"`` or ``"EROFS:/dir"`` fakes a full / read-only disk there."""
    e = {**os.environ, "HCRBENCH_PROGRESS": "0", **(env or {})}
    if fault is not None:
        e["PYTHONPATH"] = os.pathsep.join([str(FAKEFS), e.get("PYTHONPATH", "")])
        e["HCRBENCH_FAKE_FAULT"] = fault
    return subprocess.run(["hcrbench", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=e)


def one_error_line(p: subprocess.CompletedProcess) -> str:
    """The single ``hcrbench: error:`` line of a failed command (asserting there is exactly one, no traceback)."""
    assert "Traceback" not in p.stderr, p.stderr
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("hcrbench: error:")]
    assert len(errors) == 1, p.stderr
    return errors[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> bytes), to assert a refused command changed nothing."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def in_process(capsys, *args: str) -> tuple[int, str, str]:
    """The same command through :func:`hcrbench.cli.main` in this process (for the many variants of one class
    whose console-script path a subprocess test already covers): (exit code, stdout, stderr)."""
    from hcrbench.cli import main

    try:
        code = main(list(args))
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
