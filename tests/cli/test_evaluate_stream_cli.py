"""``hcrbench evaluate --stream`` through the console script: the same JSON as reading the runs whole."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

from hcrbench.commands._evaluate_scale import AUTO_STREAM_BYTES, stream_wanted

HCRBENCH = shutil.which("hcrbench")
CLI = [HCRBENCH] if HCRBENCH else [sys.executable, "-m", "hcrbench.cli"]
REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def _json(tmp: Path, name: str, *args) -> dict:
    out = tmp / f"{name}.json"
    proc = subprocess.run([*CLI, "evaluate", *map(str, args), "--json", str(out), "--resamples", "500"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def test_stream_gives_the_same_json_as_in_memory(tmp_path):
    args = [EXAMPLES / "cranfield.qrels", EXAMPLES / "bm25.trec", EXAMPLES / "bm25_stemmed.trec",
            "-m", "nDCG@10,AP,P@5,RR,Bpref,R@100"]
    assert _json(tmp_path, "stream", *args, "--stream") == _json(tmp_path, "whole", *args, "--no-stream")


def test_stream_on_a_scattered_run(tmp_path):
    lines = (EXAMPLES / "bm25.trec").read_text().splitlines(keepends=True)
    random.Random(0).shuffle(lines)
    scattered = tmp_path / "bm25.trec"
    scattered.write_text("".join(lines))
    args = [EXAMPLES / "cranfield.qrels", scattered, "-m", "nDCG@10,AP", "--missing", "skip"]
    assert _json(tmp_path, "stream", *args, "--stream") == _json(tmp_path, "whole", *args)


def test_automatic_above_the_size(tmp_path):
    small = tmp_path / "r.trec"
    small.write_text("q Q0 d 1 1 t\n")
    assert not stream_wanted(None, [small]) and stream_wanted(True, [small])
    big = tmp_path / "big.trec"
    with big.open("wb") as fh:  # sparse: no disk used
        fh.truncate(AUTO_STREAM_BYTES + 1)
    assert stream_wanted(None, [big]) and not stream_wanted(False, [big])
