"""``irds:<id>`` through ir_datasets: a dataset registered from local files, SciFact's qrels from a prepared
ir_datasets cache, and the one-line errors for an unknown id and for data neither cached nor reachable."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import hcrbench
from hcrbench.data import load_beir, read_qrels
from hcrbench.data.irds import irds_folder, irds_qrels
from hcrbench.errors import InputError

SCIFACT = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "scifact"
_ids = itertools.count()


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A dataset registered with ir_datasets from local JSONL / TREC files; its id."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import GenericQuery, JsonlDocs, JsonlQueries, TrecQrels
    from ir_datasets.util import LocalDownload

    monkeypatch.setenv("HCRBENCH_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "src"
    src.mkdir()
    (src / "docs.jsonl").write_text("".join(json.dumps({"doc_id": f"d{i}", "text": f"text {i}"}) + "\n"
                                            for i in range(5)))
    (src / "queries.jsonl").write_text("".join(json.dumps({"query_id": f"q{i}", "text": f"query {i}"}) + "\n"
                                               for i in range(2)))
    (src / "qrels").write_text("q0 0 d1 1\nq0 0 d2 0\nq1 0 d3 2\n")
    name = f"hcrbench-test/tiny-{next(_ids)}-{os.getpid()}"
    ir_datasets.registry.register(name, Dataset(
        JsonlDocs(LocalDownload(src / "docs.jsonl")),
        JsonlQueries(LocalDownload(src / "queries.jsonl"), GenericQuery),
        TrecQrels(LocalDownload(src / "qrels"), {0: "no", 1: "yes", 2: "very"}),
    ))
    return name


def test_a_registered_dataset_is_qrels_and_a_dataset_folder(tiny):
    qrels = irds_qrels(f"irds:{tiny}")
    assert qrels.to_dict() == {"q0": {"d1": 1, "d2": 0}, "q1": {"d3": 2}}
    res = hcrbench.evaluate(f"irds:{tiny}", {"q0": {"d1": 2.0, "d2": 1.0}, "q1": {"d0": 1.0}}, "P@1")
    assert res.means["run"]["P@1"] == 0.5
    ds = load_beir(f"irds:{tiny}", "test")
    assert ds.corpus.doc_ids == [f"d{i}" for i in range(5)] and ds.corpus.texts[3] == "text 3"
    assert ds.queries.query_ids == ["q0", "q1"] and ds.queries["q1"] == "query 1"
    assert ds.qrels.to_dict() == qrels.to_dict()
    assert irds_folder(tiny, "dev") == ds.path and (ds.path / "qrels" / "dev.tsv").is_file()  # written once


def test_an_experiment_reads_an_irds_dataset(tiny, tmp_path):
    from hcrbench.experiment.config import parse_config
    from hcrbench.experiment.dataset import load_data

    text = f'name = "x"\n[dataset]\npath = "irds:{tiny}"\n\n[[systems]]\nname = "bm25"\ntype = "bm25"\n'
    cfg = parse_config(text, tmp_path / "x.toml")
    data = load_data(cfg.dataset, tmp_path, tmp_path / "x.toml", text)
    assert data.qrels.to_dict() == {"q0": {"d1": 1, "d2": 0}, "q1": {"d3": 2}}
    assert set(data.files) == {"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"}  # hashed like any folder


def test_unknown_and_unreachable_ids_are_one_line_errors(tmp_path, tiny):
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import Cache, RequestsDownload

    with pytest.raises(InputError, match=rf"knows no dataset '{tiny}x' \(did you mean 'irds:{tiny}'"):
        hcrbench.evaluate(f"irds:{tiny}x", {"q": {"d": 1.0}})
    name = f"{tiny}-offline"  # nothing cached, and its URL refuses connections: no network
    ir_datasets.registry.register(name, Dataset(TrecQrels(Cache(RequestsDownload("http://127.0.0.1:9/qrels"),
                                                                tmp_path / "never" / "qrels"), {})))
    with pytest.raises(InputError) as e:
        hcrbench.evaluate(f"irds:{name}", {"q": {"d": 1.0}})
    msg = str(e.value)
    assert f"irds:{name}" in msg and "not in ir_datasets' cache under" in msg and "\n" not in msg
    with pytest.raises(InputError, match="has no docs and no queries"):
        load_beir(f"irds:{name}")


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "IR_DATASETS_HOME": str(home), "HCRBENCH_PROGRESS": "0", **extra}


def test_evaluate_cli_reads_scifact_qrels_from_the_ir_datasets_cache(tmp_path):
    """ir_datasets keeps beir/scifact/test's qrels as <home>/beir/scifact/test.qrels: put SciFact's there."""
    home = tmp_path / "irds"
    (home / "beir" / "scifact").mkdir(parents=True)
    shutil.copy(SCIFACT / "qrels" / "test.tsv", home / "beir" / "scifact" / "test.qrels")
    qrels = read_qrels(SCIFACT / "qrels" / "test.tsv")
    q0, q1 = qrels.query_ids[:2]
    run = tmp_path / "r.trec"
    run.write_text("".join(f"{q} Q0 {d} 1 1.0 r\n" for q in (q0, q1) for d in qrels[q]))  # perfect on 2 queries
    out = subprocess.run(["hcrbench", "evaluate", "irds:beir/scifact/test", str(run), "-m", "P@1",
                          "--missing", "skip", "--json", str(tmp_path / "e.json")],
                         capture_output=True, text=True, env=_env(home))
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "e.json").read_text())
    assert doc["runs"]["r"]["means"]["P@1"] == 1.0 and doc["runs"]["r"]["ledger"]["n_qrels_queries"] == 300


def test_evaluate_cli_without_cache_or_network_names_the_id_and_the_cache(tmp_path):
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 d 1 1.0 r\n")
    proxy = "http://127.0.0.1:9"  # every download fails at once, as with no network
    out = subprocess.run(["hcrbench", "evaluate", "irds:beir/scifact/test", str(run)], capture_output=True,
                         text=True, env=_env(tmp_path / "empty", HTTP_PROXY=proxy, HTTPS_PROXY=proxy,
                                             http_proxy=proxy, https_proxy=proxy), timeout=300)
    lines = out.stderr.strip().splitlines()
    last = lines[-1]
    assert out.returncode == 2 and len(lines) == 1, out.stderr  # ir_datasets' own retry lines silenced
    assert "irds:beir/scifact/test" in last and str(tmp_path / "empty") in last


@pytest.mark.slow  # two BM25 indexes of SciFact and a CLI start: ~10 s on 2 busy cores
def test_retrieve_cli_on_irds_scifact_equals_the_beir_folder(tmp_path):
    """beir/scifact/test from a prepared ir_datasets cache (its source.zip, no network): the same corpus, queries
    and qrels as ../shared's BEIR folder, so `hcrbench retrieve --dataset irds:...` gives the same run."""
    import zipfile

    from hcrbench.data import read_run
    from hcrbench.retrieve import make_retriever

    home = tmp_path / "irds"
    (home / "beir" / "scifact").mkdir(parents=True)
    with zipfile.ZipFile(home / "beir" / "scifact" / "source.zip", "w") as z:
        for rel in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv"):
            z.write(SCIFACT / rel, f"scifact/{rel}")
    proxy = "http://127.0.0.1:9"
    out = subprocess.run(["hcrbench", "retrieve", "--dataset", "irds:beir/scifact/test", "--system", "bm25",
                          "--k", "10", "--out", str(tmp_path / "r.trec")], capture_output=True, text=True,
                         env=_env(home, HCRBENCH_CACHE=str(tmp_path / "cache"), HTTPS_PROXY=proxy,
                                  https_proxy=proxy))
    assert out.returncode == 0, out.stderr
    ds = load_beir(SCIFACT, "test")
    r = make_retriever("bm25")
    r.index(ds.corpus)
    assert read_run(tmp_path / "r.trec").to_dict() == r.search(ds.queries, 10).run.to_dict()
