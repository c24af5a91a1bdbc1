"""Each run the verdict step makes on the tune and dev splits is computed once: the easy-routing checkpoint reads
the protocol system's tune and dev runs (the power plan's and the field's, with their trees) instead of running
it again on its queries, with the same routing log, trees and eps byte for byte; a system that is the same
computation as one already run on a split is that one's run, copied (hcrbench.protocol.checkpoints,
hcrbench.protocol.devselect.split_runs)."""

from __future__ import annotations

from pathlib import Path

from hcrbench.experiment import cell
from hcrbench.experiment.config import parse_config
from hcrbench.experiment.dataset import load_data
from hcrbench.protocol import checkpoints as cp
from hcrbench.protocol import field as fld
from hcrbench.protocol.devselect import split_data, split_runs

CONFIG = """
name = "reuse"
output_dir = "out"
metrics = ["nDCG@10"]

[dataset]
path = "{bench}"
split = "test"

[protocol]
system = "hcr"
kill_baseline = "bm25"
flat = "auto"

[[systems]]
name = "hcr"
type = "hcr"
params = {{ backend = "hash", seed = 0, chunk_tokens = 64, chunk_overlap = 8 }}

[[systems]]
name = "hcr-greedy"
type = "hcr"
params = {{ backend = "hash", seed = 0, chunk_tokens = 64, chunk_overlap = 8 }}
selection = "greedy"

[[systems]]
name = "bm25"
type = "bm25"
"""


def _setup(tmp_path: Path):
    from protocol_bench import write_bench

    bench = write_bench(tmp_path / "bench")
    lines = (bench / "qrels" / "tune.tsv").read_text().splitlines()
    head, rows = lines[0], lines[1:]
    half = len(rows) // 2  # tune and dev: two disjoint halves of the tune queries
    (bench / "qrels" / "tune.tsv").write_text("\n".join([head, *rows[:half]]) + "\n")
    (bench / "qrels" / "dev.tsv").write_text("\n".join([head, *rows[half:]]) + "\n")
    path = tmp_path / "exp.toml"
    path.write_text(CONFIG.format(bench=bench))
    cfg = parse_config(path.read_text(), path)
    return cfg, load_data(cfg.dataset, tmp_path, path, path.read_text())


def _counting(monkeypatch) -> list[tuple[str, str]]:
    calls: list[tuple[str, str]] = []
    real = cell.run_system

    def counted(system, data, *a, **kw):
        calls.append((system.name, data.split))
        return real(system, data, *a, **kw)

    monkeypatch.setattr(cell, "run_system", counted)
    return calls


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_the_checkpoint_reads_the_split_runs_and_matches_its_own_run_byte_for_byte(tmp_path, monkeypatch):
    cfg, data = _setup(tmp_path)
    calls = _counting(monkeypatch)
    shared, own = tmp_path / "shared", tmp_path / "own"
    cdata, log, why = cp.checkpoint_routing_log(cfg, data, shared)
    # the protocol system ran once per split (its tree built once for each), none for the checkpoint's queries
    assert sorted(calls) == [("hcr", "dev"), ("hcr", "tune")] and log is not None and why == ""
    fld.power_plan(cfg, data, shared, len(data.queries))  # its pilot reuses hcr's runs: only the kill baseline's
    assert sorted(calls[2:]) == [("bm25", "dev"), ("bm25", "tune")]
    # the checkpoint's own run of its queries (what it computed before) writes the same bytes
    monkeypatch.setattr(cp, "_split_logs", lambda *a: None)
    cdata2, log2, _ = cp.checkpoint_routing_log(cfg, data, own)
    assert ("hcr", "tune+dev") in calls
    got, want = _files(log.parent), _files(log2.parent)
    assert {"hcr.routing.jsonl", "hcr.tree.jsonl"} <= set(got)
    assert {k: v for k, v in want.items() if k in got} == got and set(got) >= set(want) - {"hcr.units.jsonl"}
    eps = cp.easy_single_branch(log, cdata, cfg.rel_threshold)
    assert eps == cp.easy_single_branch(log2, cdata2, cfg.rel_threshold) and eps[2] > 0


def test_a_system_that_is_the_same_computation_copies_the_run_on_the_split(tmp_path, monkeypatch):
    cfg, data = _setup(tmp_path)
    calls = _counting(monkeypatch)
    dev = split_data(data, "dev")
    both = split_runs(cfg, dev, tmp_path / "both", ["hcr", "hcr-greedy"], logs=("hcr", "hcr-greedy"))
    assert [c[0] for c in calls] == ["hcr"]  # hcr-greedy differs only in its context selection
    alone = split_runs(cfg, dev, tmp_path / "alone", ["hcr-greedy"], logs=("hcr-greedy",))
    assert both["hcr-greedy"].name == "hcr-greedy"
    got = {k: v for k, v in _files(tmp_path / "both").items() if k.startswith("hcr-greedy.")}
    assert got and got == _files(tmp_path / "alone")  # the same bytes as its own computation
    assert alone["hcr-greedy"].query_ids == both["hcr-greedy"].query_ids
