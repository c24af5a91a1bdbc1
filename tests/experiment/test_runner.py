"""The experiment runner: output layout, agreement with trec_eval, resume, determinism, --only."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import pytrec_eval

from hcrbench.data import read_qrels, read_run
from hcrbench.errors import HcrbenchWarning
from hcrbench.experiment import read_manifest, run_experiment, sha256_file

from .conftest import CALLS, FAIL_SALTS


def _run(cfg: Path, **kw):
    return run_experiment(cfg, progress=False, **kw)


def test_output_layout_and_scores_match_pytrec_eval(experiment: Path):
    res = _run(experiment)
    out = experiment.parent / "out"
    assert res.output_dir == out
    for rel in ("config.toml", "manifest.json", "runs/a.trec", "runs/b.trec", "eval.json", "per_query.parquet"):
        assert (out / rel).is_file(), rel
    assert (out / "config.toml").read_bytes() == experiment.read_bytes()
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "complete"
    assert set(man["dataset"]["files"]) == {"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"}
    assert man["dataset"]["files"]["corpus.jsonl"] == sha256_file(experiment.parent / "data" / "corpus.jsonl")
    assert man["systems"]["b"]["run"] == "runs/b.trec"
    assert man["systems"]["b"]["params"] == {"bias": 2.5, "fail": False, "salt": 0}
    assert man["systems"]["b"]["costs"]["counters"] == {"queries": 4}
    assert man["metrics"] == ["nDCG@10", "R@100", "RR", "AP"] and man["seed"] == 0 and man["rel_threshold"] == 1
    assert "numpy" in man["versions"] and "python" in man["versions"]
    assert "git_commit" in man

    # eval.json means agree with pytrec_eval on the written run files.
    doc = json.loads((out / "eval.json").read_text())
    qrels = read_qrels(experiment.parent / "data" / "qrels" / "test.tsv").to_dict()
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "recip_rank", "map"})
    for name in ("a", "b"):
        per_q = ev.evaluate(read_run(out / f"runs/{name}.trec").to_dict())
        for ours, theirs in (("nDCG@10", "ndcg_cut_10"), ("RR", "recip_rank"), ("AP", "map")):
            expect = sum(v[theirs] for v in per_q.values()) / len(qrels)
            assert doc["runs"][name]["means"][ours] == pytest.approx(expect, abs=1e-12)
    assert doc["runs"]["a"]["means"]["nDCG@10"] != doc["runs"]["b"]["means"]["nDCG@10"]
    (cmp_b,) = [c for c in doc["comparisons"] if c["metric"] == "nDCG@10"]
    assert cmp_b["run"] == "b" and cmp_b["baseline"] == "a"

    pq = pd.read_parquet(out / "per_query.parquet")
    assert list(pq.columns[:2]) == ["run", "query_id"] and "category" in pq.columns
    assert len(pq) == 8
    assert dict(zip(pq.query_id, pq.category)) == {"q1": "security", "q2": "data", "q3": "it", "q4": "security"}
    b = pq[pq.run == "b"].set_index("query_id")["nDCG@10"]
    assert b.to_dict() == pytest.approx(doc["runs"]["b"]["per_query"]["nDCG@10"])


def test_second_run_reuses_everything_and_is_byte_identical(experiment: Path):
    _run(experiment)
    out = experiment.parent / "out"
    before = {p: (out / p).read_bytes() for p in ("runs/a.trec", "runs/b.trec", "eval.json", "per_query.parquet")}
    assert CALLS["index"] == 2
    res = _run(experiment)
    assert CALLS["index"] == 2 and CALLS["search"] == 2  # nothing recomputed
    assert res.reused == ["a", "b"] and res.computed == []
    for p, data in before.items():
        assert (out / p).read_bytes() == data, p


def test_fresh_runs_are_byte_identical(experiment: Path, tmp_path: Path):
    _run(experiment)
    text = experiment.read_text().replace('output_dir = "out"', 'output_dir = "out2"')
    other = experiment.with_name("exp2.toml")
    other.write_text(text)
    _run(other)
    for p in ("runs/a.trec", "runs/b.trec", "eval.json", "per_query.parquet"):
        assert (tmp_path / "out" / p).read_bytes() == (tmp_path / "out2" / p).read_bytes(), p


def test_resume_after_crash_recomputes_only_unfinished_system(experiment: Path):
    text = experiment.read_text().replace("params = { bias = 2.5 }", "params = { bias = 2.5, salt = 7 }")
    experiment.write_text(text)
    FAIL_SALTS.add(7)  # system b crashes half-way through its queries
    with pytest.raises(RuntimeError, match="simulated crash"):
        _run(experiment)
    out = experiment.parent / "out"
    man = read_manifest(out)
    assert man["status"] == "partial" and list(man["systems"]) == ["a"]
    assert (out / "runs/a.trec").is_file() and not (out / "runs/b.trec").exists()
    assert not (out / "eval.json").exists()
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]  # no half-written files
    a_bytes = (out / "runs/a.trec").read_bytes()
    assert CALLS["index"] == 2

    FAIL_SALTS.clear()  # the "machine" is back; same config
    res = _run(experiment)
    assert res.reused == ["a"] and res.computed == ["b"]
    assert CALLS["index"] == 3  # only b indexed again
    assert (out / "runs/a.trec").read_bytes() == a_bytes
    assert read_manifest(out)["status"] == "complete"


def test_changed_params_or_tampered_run_recompute_only_that_system(experiment: Path):
    _run(experiment)
    experiment.write_text(experiment.read_text().replace("bias = 2.5", "bias = 1.25"))
    res = _run(experiment)
    assert res.computed == ["b"] and res.reused == ["a"]
    out = experiment.parent / "out"
    with open(out / "runs/a.trec", "a") as fh:  # someone edits a finished run by hand
        fh.write("q1 Q0 d2 99 -5.0 a\n")
    res = _run(experiment)
    assert res.computed == ["a"] and res.reused == ["b"]


def test_dataset_change_recomputes_all(experiment: Path):
    _run(experiment)
    corpus = experiment.parent / "data" / "corpus.jsonl"
    corpus.write_text(corpus.read_text() + '{"_id": "d7", "title": "Extra", "text": "signing key notes"}\n')
    res = _run(experiment)
    assert res.computed == ["a", "b"]


def test_only_computes_the_named_system(experiment: Path):
    with pytest.warns(HcrbenchWarning, match="baseline .a. has no run"):
        res = _run(experiment, only=["b"])
    assert res.computed == ["b"] and res.skipped == ["a"]
    assert list(res.evaluation.runs) == ["b"]
    assert read_manifest(res.output_dir)["status"] == "partial"
    res = _run(experiment)
    assert res.computed == ["a"] and res.reused == ["b"]
    assert read_manifest(res.output_dir)["status"] == "complete"


def test_chunked_system_is_scored_at_document_level(experiment: Path):
    experiment.write_text(experiment.read_text() + """
[[systems]]
name = "chunks"
type = "fake"
chunking = { max_tokens = 8, overlap = 2 }
""")
    res = _run(experiment)
    run = read_run(res.output_dir / "runs/chunks.trec")
    docs = {d for q in run.query_ids for d in run[q]}
    assert docs <= {f"d{i}" for i in range(1, 7)}  # no chunk ids leak into the run
    entry = res.manifest["systems"]["chunks"]
    assert entry["chunking"]["token_counter"] == "cl100k"
    assert entry["costs"]["counters"]["chunks_indexed"] > 6  # some docs were cut into several chunks
    assert "chunks" in json.loads((res.output_dir / "eval.json").read_text())["runs"]
