"""One vocabulary across commands, through the console script: the same flag for the same thing (old names kept
as aliases), tables that survive 80 columns, errors that name the flag typed and suggest the command to run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"


def _hcrbench(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**os.environ, "HCRBENCH_PROGRESS": "0", **env})


@pytest.fixture
def bench(tmp_path: Path) -> dict[str, Path]:
    """Two runs whose names share a long prefix, one relevant doc per query."""
    qrels = "".join(f"q{i} 0 d{i * 5} 1\n" for i in range(30))
    paths = {"qrels": tmp_path / "q.qrels", "pool": tmp_path / "pool.txt"}
    paths["qrels"].write_text(qrels)
    paths["pool"].write_text("".join(f"d{i}\n" for i in range(200)))
    for name, shift in (("baseline-system-a", 0), ("hcr-seed1-variant", 1), ("hcr-seed2-variant", 2)):
        lines = "".join(f"q{i} Q0 d{i * 5 + (j + shift) % 10} {j + 1} {10 - j} {name}\n"
                        for i in range(30) for j in range(10))
        paths[name] = tmp_path / f"{name}.trec"
        paths[name].write_text(lines)
    return paths


def _in_a_terminal(args: list[str], columns: int) -> str:
    """stdout of ``hcrbench ARGS`` run in a pseudo-terminal ``columns`` wide (what a person at a shell sees)."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    p = subprocess.Popen(["hcrbench", *args], stdout=follower, stderr=subprocess.DEVNULL,
                         env={**env, "HCRBENCH_PROGRESS": "0", "TERM": "dumb", "NO_COLOR": "1"})
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert p.wait(timeout=300) == 0
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def test_tables_at_80_columns_keep_every_name_and_interval_whole(bench):
    out = _in_a_terminal(["evaluate", str(bench["qrels"]), str(bench["baseline-system-a"]),
                          str(bench["hcr-seed1-variant"]), str(bench["hcr-seed2-variant"]), "-m", "nDCG@10,RR",
                          "--resamples", "500"], 80)
    r = subprocess.CompletedProcess([], 0, out, "")
    assert "…" not in r.stdout and "..." not in r.stdout  # nothing cut to a shared prefix
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    names = []  # the run column of the comparison table, its folded lines joined back
    for line in r.stdout.split("Against baseline")[1].splitlines():
        cells = line.split("│")
        if len(cells) < 3:
            continue
        if cells[2].strip():  # a metric: a new row
            names.append(cells[1].strip())
        elif names:
            names[-1] += cells[1].strip()
    assert set(names) == {"hcr-seed1-variant", "hcr-seed2-variant"}, names


def test_gate_takes_the_same_resamples_and_metrics_flags_as_evaluate(bench):
    common = [str(bench["baseline-system-a"]), str(bench["hcr-seed1-variant"]), "--qrels", str(bench["qrels"]),
              "--item-pool", str(bench["pool"]), "--n-trials", "80", "--no-strict", "--baseline",
              "baseline-system-a"]
    new = _hcrbench("gate", *common, "-m", "RR", "--resamples", "200", "--json", str(bench["qrels"].parent / "a.json"))
    old = _hcrbench("gate", *common, "--metric", "RR", "--n-resamples", "200",
                    "--json", str(bench["qrels"].parent / "b.json"))
    assert new.returncode == old.returncode and new.returncode in (0, 1), new.stderr
    a = (bench["qrels"].parent / "a.json").read_text()
    assert a == (bench["qrels"].parent / "b.json").read_text()  # aliases, the same computation
    two = _hcrbench("gate", *common, "--metrics", "nDCG@10,RR")
    assert two.returncode == 2
    assert two.stderr.count("\n") == 1 and "--metrics" in two.stderr and "one graded metric" in two.stderr


def test_quickstart_names_the_size_flag_it_was_given():
    r = _hcrbench("quickstart", "--worlds", "1", "--size", "tiny", "--out", "unused")
    assert r.returncode == 2
    assert r.stderr.startswith("hcrbench: error: --size: unknown size 'tiny'"), r.stderr


def test_a_smart_collection_given_as_a_dataset_suggests_converting_it():
    if not (SHARED / "datasets" / "cranfield").is_dir():
        pytest.fail("../shared/datasets/cranfield is missing (CI puts ../shared beside the repository)")
    r = _hcrbench("retrieve", "--dataset", str(SHARED / "datasets" / "cranfield"), "--system", "bm25",
                  "--out", "unused.trec")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "hcrbench convert smart --collection cranfield" in r.stderr


def test_chunker_none_is_named_no_chunking():
    from hcrbench.experiment.policy_compare import _chunker_label

    assert _chunker_label("none") == "no chunking"
    assert _chunker_label("sentences") == "chunker sentences"
