"""The verdict step's runs on dev and tune, computed in a second process beside the test split's systems
(hcrbench.protocol.prefetch): the same files the verdict step would write, byte for byte; none started when
they are all fresh, when cells run one by one, or when turned off."""

from __future__ import annotations

from pathlib import Path

import pytest

from hcrbench.experiment.config import parse_config
from hcrbench.experiment.dataset import load_data
from hcrbench.protocol import field as fld
from hcrbench.protocol import prefetch
from hcrbench.protocol.devselect import dry_run

CONFIG = """
name = "prefetch"
output_dir = "out"
metrics = ["nDCG@10"]

[dataset]
path = "{bench}"
split = "test"

[execution]
workers = {workers}

[protocol]
system = "bm25-chunks"
kill_baseline = "bm25"
flat = "auto"

[[systems]]
name = "bm25"
type = "bm25"

[[systems]]
name = "bm25-chunks"
type = "bm25"
chunking = {{ max_tokens = 32, overlap = 8 }}
"""


def _load(bench: Path, tmp_path: Path, workers: int = 2):
    path = tmp_path / "exp.toml"
    path.write_text(CONFIG.format(bench=bench, workers=workers))
    cfg = parse_config(path.read_text(), path)
    return cfg, load_data(cfg.dataset, tmp_path, path, path.read_text())


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_prefetch_child_writes_what_the_verdict_step_would_and_is_then_not_needed(bench, tmp_path, monkeypatch):
    from hcrbench.retrieve.runtime import CELL_CORES_VAR

    for var in (CELL_CORES_VAR, "HCRBENCH_PROGRESS"):  # the child's body sets them: restored after this test
        monkeypatch.delenv(var, raising=False)
    cfg, data = _load(bench, tmp_path)
    ahead, inline = tmp_path / "ahead", tmp_path / "inline"
    assert prefetch.needed(cfg, data, ahead)
    prefetch._child(cfg, data, ahead)  # the process's body, here
    with dry_run():  # the verdict step's calls now compute nothing
        fld.power_plan(cfg, data, ahead, len(data.queries))
    prefetch.other_splits(cfg, data, inline)
    got, want = _files(ahead / "logs"), _files(inline / "logs")
    assert any(k.endswith(".trec") for k in want) and got == want
    assert not prefetch.needed(cfg, data, ahead)
    (ahead / "logs" / "tune" / "bm25.trec").unlink()  # one run gone: needed again
    assert prefetch.needed(cfg, data, ahead)


@pytest.mark.slow
def test_the_prefetch_process_writes_what_the_verdict_step_would(bench, tmp_path, monkeypatch):
    monkeypatch.setattr("hcrbench.retrieve.runtime.usable_cores", lambda: 2)
    cfg, data = _load(bench, tmp_path)
    ahead, inline = tmp_path / "ahead", tmp_path / "inline"
    assert prefetch.needed(cfg, data, ahead)
    pre = prefetch.start(cfg, data, ahead)
    assert pre.started
    pre.join()
    prefetch.other_splits(cfg, data, inline)  # what the verdict step computes in its own process
    got, want = _files(ahead / "logs"), _files(inline / "logs")
    assert want and any(k.endswith(".trec") for k in want)
    assert got == want
    assert not prefetch.needed(cfg, data, ahead)  # a warm re-run starts nothing
    assert not prefetch.start(cfg, data, ahead).started


def test_no_prefetch_when_cells_run_one_by_one_or_it_is_turned_off(bench, tmp_path, monkeypatch):
    monkeypatch.setattr("hcrbench.retrieve.runtime.usable_cores", lambda: 2)
    cfg, data = _load(bench, tmp_path, workers=1)
    assert not prefetch.wanted(cfg)
    cfg, data = _load(bench, tmp_path, workers=0)
    assert prefetch.wanted(cfg)
    monkeypatch.setenv("HCRBENCH_PREFETCH", "0")
    assert not prefetch.wanted(cfg) and not prefetch.start(cfg, data, tmp_path / "o").started
