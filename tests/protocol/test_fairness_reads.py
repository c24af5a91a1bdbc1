"""The kill baseline reads HCR's routing log (fairness): ``top_n_from = "<system>"`` names a system of the same
experiment; the runner resolves the log, folds the read system's fingerprint into the reader's and computes the
reader after it (hcrbench.experiment.reads)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from hcrbench.experiment.config import SystemConfig
from hcrbench.experiment.reads import batches, fingerprint_with_reads, reads_entry, reads_of, resolved


def _rerank(top_n_from: str) -> SystemConfig:
    return SystemConfig(name="rerank", type="rerank", params={"top_n": 100, "top_n_from": top_n_from})


def test_a_system_name_is_read_a_path_is_not():
    assert reads_of(_rerank("hcr"), ["hcr", "bm25"]) == "hcr"
    assert reads_of(_rerank("runs/x/logs/hcr.routing.jsonl"), ["hcr"]) is None
    assert reads_of(_rerank("hcr"), ["bm25"]) is None  # not an earlier system: taken as a path (clear error later)
    assert reads_of(SystemConfig(name="bm25", type="bm25"), ["hcr"]) is None


def test_the_reader_gets_the_logs_absolute_path_and_the_read_systems_fingerprint(tmp_path: Path):
    r = resolved(_rerank("hcr"), "hcr", tmp_path)
    assert r.params["top_n_from"] == str((tmp_path / "logs" / "hcr.routing.jsonl").resolve())
    assert r.params["top_n"] == 100 and r.name == "rerank"
    a = fingerprint_with_reads("fp", "hcr", {"hcr": "h1"})
    assert a == fingerprint_with_reads("fp", "hcr", {"hcr": "h1"})  # stable: cold and warm alike
    assert a != fingerprint_with_reads("fp", "hcr", {"hcr": "h2"})  # a changed HCR recomputes the baseline
    assert fingerprint_with_reads("fp", None, {"hcr": "h1"}) == "fp"  # a system that reads none is unchanged
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "hcr.routing.jsonl").write_text("{}\n")
    e = reads_entry("hcr", tmp_path)["hcr"]
    assert e["path"] == "logs/hcr.routing.jsonl" and len(e["sha256"]) == 64


def test_readers_run_after_what_they_read():
    cells = [SimpleNamespace(name=n) for n in ("hcr", "rerank", "bm25")]
    assert [[c.name for c in b] for b in batches(cells, {"rerank": "hcr"})] == [["hcr", "bm25"], ["rerank"]]
    # hcr reused (not in this batch): the reader goes with the rest
    assert [[c.name for c in b] for b in batches(cells[1:], {"rerank": "hcr"})] == [["rerank", "bm25"]]
    assert [[c.name for c in b] for b in batches(cells, {})] == [["hcr", "rerank", "bm25"]]
