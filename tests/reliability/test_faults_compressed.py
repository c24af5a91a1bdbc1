"""Fault injection, compressed input (issue 38): a gzip / bzip2 / xz bomb or an endless line is refused with one
line, in seconds and without filling memory; honest compressed files read exactly as plain ones."""

from __future__ import annotations

import bz2
import gzip
import lzma
import time
from pathlib import Path

import pytest
from faultkit import hcrbench, in_process, one_error_line

import hcrbench.data.compressed as compressed
from hcrbench.data import read_run

OPENERS = {"gz": gzip.open, "bz2": bz2.open, "xz": lzma.open}


def _bomb(path: Path, mib: int, opener=gzip.open) -> Path:
    block = b" " * 1023 + b"\n"
    with opener(path, "wb") as fh:
        for _ in range(mib):
            fh.write(block * 1024)
    return path


def test_a_gzip_bomb_is_refused_in_seconds(root: Path):
    _bomb(root / "bomb.trec.gz", 96)  # 96 MiB of blank lines in about 100 kB
    t0 = time.perf_counter()
    p = hcrbench("evaluate", "data/qrels/test.tsv", "bomb.trec.gz", cwd=root)
    took = time.perf_counter() - t0
    assert p.returncode == 2, p.stderr
    assert "gzip file expands to more than" in one_error_line(p)
    assert took < 60, took


@pytest.mark.parametrize("kind", ["gz", "bz2", "xz"])
def test_every_compression_is_capped(root: Path, capsys, monkeypatch, kind: str):
    monkeypatch.setattr(compressed, "MIN_CAP", 1 << 20)
    _bomb(root / f"bomb.trec.{kind}", 4, OPENERS[kind])
    code, _, err = in_process(capsys, "evaluate", str(root / "data/qrels/test.tsv"), str(root / f"bomb.trec.{kind}"))
    assert code == 2 and "expands to more than" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("kind", ["plain", "gz"])
def test_an_endless_line_is_refused_before_it_fills_memory(root: Path, capsys, kind: str):
    data = b"q1 Q0 d1 1 1.0 " + b"x" * (compressed.MAX_LINE + 10)
    path = root / ("long.trec" + ("" if kind == "plain" else ".gz"))
    path.write_bytes(data if kind == "plain" else gzip.compress(data))
    code, _, err = in_process(capsys, "evaluate", str(root / "data/qrels/test.tsv"), str(path))
    assert code == 2 and "line longer than" in err, err


@pytest.mark.parametrize("kind", ["gz", "bz2", "xz"])
def test_honest_compressed_runs_read_as_plain(root: Path, kind: str):
    plain = (root / "good.trec").read_bytes()
    with OPENERS[kind](root / f"good.trec.{kind}", "wb") as fh:
        fh.write(plain)
    a, b = read_run(root / "good.trec"), read_run(root / f"good.trec.{kind}")
    assert a.to_dict() == b.to_dict()
