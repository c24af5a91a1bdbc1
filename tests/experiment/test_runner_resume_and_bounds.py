"""Runner: stale scores removed before recomputing, fresh == resumed scores, output_dir errors,
seed / resample bounds in the config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hcrbench.data import Run, RunResult
from hcrbench.errors import InputError
from hcrbench.experiment import load_config, read_manifest, run_experiment
from hcrbench.gate import lock_experiment
from hcrbench.retrieve import register_retriever

from .conftest import FAIL_SALTS, FakeRetriever


@register_retriever("fake_gaps")
class GappyRetriever(FakeRetriever):
    """Like ``fake`` but returns an empty ranking for q2 (and keeps the query in the run)."""

    name = "fake_gaps"

    def search(self, queries, k: int = 100) -> RunResult:
        res = super().search(queries, k)
        d = res.run.to_dict()
        d["q2"] = {}
        return RunResult(Run.from_dict(d), res.costs)


def _run(cfg: Path, **kw):
    return run_experiment(cfg, progress=False, **kw)


def test_failed_rerun_removes_stale_scores_and_cannot_be_locked(experiment: Path):
    _run(experiment)
    out = experiment.parent / "out"
    assert (out / "eval.json").is_file() and (out / "per_query.parquet").is_file()
    experiment.write_text(experiment.read_text().replace("params = { bias = 2.5 }", "params = { bias = 1.0, salt = 7 }"))
    FAIL_SALTS.add(7)
    with pytest.raises(RuntimeError, match="simulated crash"):
        _run(experiment)
    assert not (out / "eval.json").exists() and not (out / "per_query.parquet").exists()
    assert read_manifest(out)["status"] == "partial"
    with pytest.raises(InputError, match="not complete"):
        lock_experiment(out)
    FAIL_SALTS.clear()
    _run(experiment)
    assert (out / "eval.json").is_file() and read_manifest(out)["status"] == "complete"
    lock_experiment(out)


def test_reused_systems_keep_scores_when_nothing_is_recomputed(experiment: Path):
    _run(experiment)
    out = experiment.parent / "out"
    before = (out / "eval.json").read_bytes()
    _run(experiment)  # all reused: nothing is recomputed, so the scores stay (and are rewritten identically)
    assert (out / "eval.json").read_bytes() == before


def test_fresh_and_resumed_scores_are_identical_with_empty_rankings(experiment: Path):
    experiment.write_text(experiment.read_text().replace('type = "fake"\nparams', 'type = "fake_gaps"\nparams'))
    fresh = _run(experiment)
    out = experiment.parent / "out"
    assert fresh.computed == ["a", "b"]
    assert "q2" not in (out / "runs/b.trec").read_text().split()
    first = (out / "eval.json").read_bytes()
    first_pq = (out / "per_query.parquet").read_bytes()
    resumed = _run(experiment)
    assert resumed.reused == ["a", "b"]
    assert (out / "eval.json").read_bytes() == first
    assert (out / "per_query.parquet").read_bytes() == first_pq
    doc = json.loads(first)
    assert "q2" in json.dumps(doc)  # the query with the empty ranking is still scored (as 0)


@pytest.mark.parametrize("where", ["afile/out", "afile"])
def test_output_dir_that_cannot_be_created_is_an_input_error(experiment: Path, where):
    (experiment.parent / "afile").write_text("x")
    experiment.write_text(experiment.read_text().replace('output_dir = "out"', f'output_dir = "{where}"'))
    with pytest.raises(InputError) as ei:
        _run(experiment)
    msg = str(ei.value)
    assert msg.startswith(f"{experiment}:2: output_dir: ") and "\n" not in msg


def test_output_dir_without_permission_is_an_input_error(experiment: Path, monkeypatch):
    # Tests run as root (which ignores directory modes), so make creating the folder fail the way it does
    # for an ordinary user without write permission.
    real_mkdir = Path.mkdir

    def denied(self, *args, **kwargs):
        if self.name == "out":
            raise PermissionError(13, "Permission denied", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", denied)
    with pytest.raises(InputError) as ei:
        _run(experiment)
    msg = str(ei.value)
    assert msg.startswith(f"{experiment}:2: output_dir: ") and "\n" not in msg and "ermission" in msg


@pytest.mark.parametrize(("line", "ok"), [("seed = 4294967295", True), ("seed = 4294967296", False),
                                          ("n_resamples = 10000000", True), ("n_resamples = 10000001", False)])
def test_seed_and_resample_bounds(experiment: Path, line, ok):
    key = line.split()[0]
    text = experiment.read_text()
    text = text.replace("seed = 0", line) if key == "seed" else text.replace("n_resamples = 200", line)
    experiment.write_text(text)
    if ok:
        cfg, _ = load_config(experiment)
        assert getattr(cfg, key) == int(line.split()[-1])
    else:
        with pytest.raises(InputError, match=rf"exp\.toml:\d+: {key}: .*less than or equal"):
            load_config(experiment)


def test_a_fix_to_tree_summaries_recomputes_tree_systems_only(monkeypatch):
    """A finished run is reused while its fingerprint holds; a fix to HCR's and RAPTOR's summaries (the
    summarizer's version) must change their fingerprints, and nobody else's."""
    from hcrbench.experiment.config import parse_config
    from hcrbench.experiment.runner import system_fingerprint
    from hcrbench.retrieve.summarize import ExtractiveSummarizer

    cfg = parse_config('name = "x"\n[dataset]\npath = "d"\n'
                       '[[systems]]\nname = "h"\ntype = "hcr"\n[[systems]]\nname = "r"\ntype = "raptor"\n'
                       '[[systems]]\nname = "b"\ntype = "bm25"\n')
    now = {s.name: system_fingerprint(s, cfg, "data") for s in cfg.systems}
    monkeypatch.setattr(ExtractiveSummarizer, "version", 1)
    before = {s.name: system_fingerprint(s, cfg, "data") for s in cfg.systems}
    assert now["h"] != before["h"] and now["r"] != before["r"] and now["b"] == before["b"]
