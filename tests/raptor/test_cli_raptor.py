"""``hcrbench retrieve --system raptor`` through the real console script (offline MiniLM ONNX, tiny corpus)."""

from __future__ import annotations

import json
import subprocess

import pytest

from hcrbench.data import Corpus, Qrels, Queries, read_run, write_beir_qrels, write_corpus, write_queries

DOCS = {
    "d1": "Cats purr when they are content. A kitten drinks milk.",
    "d2": "The bond market fell as interest rates rose. Traders sold equities.",
    "d3": "Python is a programming language. Its compiler reports syntax errors.",
    "d4": "A storm will hit the coast tomorrow. Thunder and rain are forecast.",
}


@pytest.fixture
def beir_dir(tmp_path):
    d = tmp_path / "tiny"
    write_corpus(Corpus(list(DOCS), list(DOCS.values()), [""] * len(DOCS)), d / "corpus.jsonl")
    write_queries(Queries.from_dict({"q1": "why do cats purr", "q2": "weather forecast storm"}), d / "queries.jsonl")
    write_beir_qrels(Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d4": 1}}), d / "qrels" / "test.tsv")
    return d


def test_retrieve_raptor_writes_a_run_and_node_log(beir_dir, tmp_path):
    out = tmp_path / "raptor.trec"
    log = tmp_path / "raptor.nodes.jsonl"
    costs = tmp_path / "costs.json"
    p = subprocess.run(["hcrbench", "retrieve", "--dataset", str(beir_dir), "--system", "raptor",
                        "--param", "backend=onnx", "--param", f"log_path={log}", "--k", "3",
                        "--out", str(out), "--costs-json", str(costs)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    run = read_run(out)
    assert run.ranked("q1")[0][0] == "d1" and run.ranked("q2")[0][0] == "d4"
    assert all(len(run[q]) == 3 for q in ("q1", "q2"))
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["query_id"] for r in rows] == ["q1", "q2"]
    assert all(r["context_tokens"] <= 3500 and len(r["nodes"]) <= 10 for r in rows)
    doc = json.loads(costs.read_text())
    assert doc["params"]["mode"] == "collapsed" and doc["params"]["top_k"] == 10
    assert doc["index_costs"]["counters"]["chunks_indexed"] == 4


def test_retrieve_raptor_bad_param_is_one_line_exit_2(beir_dir, tmp_path):
    p = subprocess.run(["hcrbench", "retrieve", "--dataset", str(beir_dir), "--system", "raptor",
                        "--param", "mode=beam", "--out", str(tmp_path / "x.trec")], capture_output=True, text=True)
    assert p.returncode == 2
    assert "unknown mode 'beam'" in p.stderr and "Traceback" not in p.stderr
