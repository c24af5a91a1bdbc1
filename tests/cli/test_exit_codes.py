"""Exit codes through the console script: 0 pass, 1 a check failed (gate FAIL), 2 bad input; bottom lines."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

N_QUERIES, N_DOCS = 40, 200


@pytest.fixture
def bench(tmp_path: Path) -> dict[str, Path]:
    """One relevant doc per query; 'good' ranks it first, 'constant' returns the same 10 docs for every query."""
    qrels = "".join(f"q{i} 0 d{i * 5} 1\n" for i in range(N_QUERIES))
    good = "".join(f"q{i} Q0 d{i * 5 + j} {j + 1} {10 - j} good\n" for i in range(N_QUERIES) for j in range(10))
    const = "".join(f"q{i} Q0 d{j} {j + 1} {10 - j} constant\n" for i in range(N_QUERIES) for j in range(10))
    paths = {"qrels": tmp_path / "q.qrels", "good": tmp_path / "good.trec", "constant": tmp_path / "constant.trec",
             "pool": tmp_path / "pool.txt"}
    paths["qrels"].write_text(qrels)
    paths["good"].write_text(good)
    paths["constant"].write_text(const)
    paths["pool"].write_text("".join(f"d{i}\n" for i in range(N_DOCS)))
    return paths


def _gate(bench: dict[str, Path], *runs: str) -> subprocess.CompletedProcess:
    args = ["hcrbench", "gate", *(str(bench[r]) for r in runs), "--qrels", str(bench["qrels"]),
            "--item-pool", str(bench["pool"]), "--n-trials", "100", "--no-strict"]
    return subprocess.run(args, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HCRBENCH_PROGRESS": "0"})


def test_gate_pass_is_0_and_fail_is_1_with_a_bottom_line(bench):
    ok = _gate(bench, "good")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.rstrip().splitlines()[-1] == "gate: PASS — 1 of 1 runs pass the gate"
    failed = _gate(bench, "good", "constant")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    last = failed.stdout.rstrip().splitlines()[-1]
    assert last.startswith("gate: FAIL — 1 of 2 runs pass the gate; FAIL: constant (nDCG@10)"), last
    assert "Traceback" not in failed.stderr and "warning" not in failed.stdout.lower()
