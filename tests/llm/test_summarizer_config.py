"""``summarizer = "llm"`` chosen from parameters (``hcrbench retrieve --param``, an experiment's TOML) for HCR and
RAPTOR, against a real local HTTP server: the summaries come from the model, the tree cache and the experiment
fingerprint follow the served model's identity, and a bad endpoint or a failed call is one line, exit 2, and
nothing is cached."""

from __future__ import annotations

import json
import os
import socket
import subprocess

import pytest

from hcrbench.data import Corpus, Qrels, Queries, write_beir_qrels, write_corpus, write_queries

TOPIC = ["alpha", "beta", "gamma", "delta"]
POLICY = ["rotation", "backups", "invoices", "laptops"]
DOCS = {f"d{i}": f"Document {i} talks about topic {i % 3}: {TOPIC[i % 4]} systems and {POLICY[i % 4]} policies. "
        "It has a second sentence." for i in range(12)}
SUMMARY = "LLM-SUMMARY of policies"


@pytest.fixture
def beir_dir(tmp_path):
    d = tmp_path / "tiny"
    write_corpus(Corpus(list(DOCS), list(DOCS.values()), [""] * len(DOCS)), d / "corpus.jsonl")
    write_queries(Queries.from_dict({"q1": "rotation policies", "q2": "backups alpha"}), d / "queries.jsonl")
    write_beir_qrels(Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}}), d / "qrels" / "test.tsv")
    return d


def _env(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HCRBENCH_LLM_", "OPENAI_"))}
    return {**env, "HCRBENCH_PROGRESS": "0", "HCRBENCH_CACHE": str(tmp_path / "cache"), "HCRBENCH_LLM_RETRIES": "0"}


def _retrieve(beir_dir, tmp_path, url, summarizer="llm"):
    out = tmp_path / "hcr.trec"
    return subprocess.run(
        ["hcrbench", "retrieve", "--dataset", str(beir_dir), "--system", "hcr", "--param", "backend=hash",
         "--param", "chunk_tokens=0", "--param", "depth=2", "--param", "branching=3", "--param",
         f"summarizer={summarizer}", "--param", f"llm_endpoint={url}", "--param", "llm_model=m", "--k", "5", "--out", str(out)],
        capture_output=True, text=True, env=_env(tmp_path), timeout=600)


def _summary_requests(server):
    return [r for r in server.requests if "Summary:" in r["messages"][-1]["content"]]


def test_hcr_retrieve_with_llm_summaries_follows_the_served_model(server, beir_dir, tmp_path):
    server.models = [{"id": "m", "meta": {"size": 1}}]
    server.replies = lambda body: (200, SUMMARY)
    p = _retrieve(beir_dir, tmp_path, server.url)
    assert p.returncode == 0, p.stderr
    first = len(_summary_requests(server))
    assert first >= 3  # one per tree node (3 clusters + the root at least)
    tree = [json.loads(x) for x in (tmp_path / "hcr.tree.jsonl").read_text().splitlines()]
    summaries = [n["summary"] for n in tree if n.get("summary")]
    assert summaries and all(s == SUMMARY for s in summaries)
    # the same served model: the cached tree is reused, no call is made
    p = _retrieve(beir_dir, tmp_path, server.url)
    assert p.returncode == 0, p.stderr
    assert len(_summary_requests(server)) == first
    # another model behind the same name (the server says so): another tree, asked again
    server.models = [{"id": "m", "meta": {"size": 2}}]
    p = _retrieve(beir_dir, tmp_path, server.url)
    assert p.returncode == 0, p.stderr
    assert len(_summary_requests(server)) == 2 * first


def test_failed_summaries_are_one_line_exit_2_and_never_cached(server, beir_dir, tmp_path):
    server.models = [{"id": "m"}]
    server.replies = lambda body: (500, "model crashed")
    p = _retrieve(beir_dir, tmp_path, server.url)
    assert p.returncode == 2, p.stderr
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in p.stderr
    assert "LLM summarizer" in err[0] and "HTTP 500" in err[0] and "nothing was cached" in err[0]
    assert not list((tmp_path / "cache").rglob("tree.jsonl"))  # no tree of fallback summaries was stored
    asked = len(server.requests)
    server.replies = lambda body: (200, SUMMARY)  # the server recovers: the tree is built, from new calls
    p = _retrieve(beir_dir, tmp_path, server.url)
    assert p.returncode == 0, p.stderr
    assert len(server.requests) > asked


def test_bad_endpoint_and_bad_summarizer_are_one_line_exit_2(beir_dir, tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = _retrieve(beir_dir, tmp_path, f"http://127.0.0.1:{port}/v1")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "cannot reach the LLM endpoint" in p.stderr
    p = _retrieve(beir_dir, tmp_path, "http://127.0.0.1:1/v1", summarizer="gpt")
    assert p.returncode == 2 and "summarizer must be one of extractive, llm" in p.stderr
    assert "Traceback" not in p.stderr


def test_experiment_fingerprint_holds_the_served_model(server, beir_dir, tmp_path, monkeypatch):
    """An experiment's HCR system with ``summarizer = "llm"`` runs through the console script; its fingerprint holds
    while the server serves the same model and changes when the same name is served by another model file."""
    from hcrbench.experiment.config import load_config
    from hcrbench.experiment.runner import system_fingerprint

    server.models = [{"id": "m", "meta": {"sha": "aaa"}}]
    server.replies = lambda body: (200, SUMMARY)
    cfg = tmp_path / "e.toml"
    cfg.write_text(f'name = "e"\noutput_dir = "e"\nmetrics = ["nDCG@10"]\nk = 5\nn_resamples = 100\n'
                   f'[dataset]\npath = "{beir_dir}"\n[[systems]]\nname = "hcr"\ntype = "hcr"\n'
                   f'params = {{ backend = "hash", chunk_tokens = 0, depth = 2, branching = 3, summarizer = "llm", '
                   f'llm_endpoint = "{server.url}", llm_model = "m" }}\n')
    p = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True, env=_env(tmp_path),
                       timeout=600)
    assert p.returncode == 0, p.stderr
    man = json.loads((tmp_path / "e" / "manifest.json").read_text())
    assert man["systems"]["hcr"]["params"]["summarizer"] == "llm:m" and _summary_requests(server)
    monkeypatch.setenv("HCRBENCH_LLM_RETRIES", "0")
    parsed, _ = load_config(cfg)
    hcr = parsed.systems[0]

    def fp():
        return system_fingerprint(hcr, parsed, "data")

    first = fp()
    assert fp() == first  # the same served model: the finished run would be reused
    server.models = [{"id": "m", "meta": {"sha": "bbb"}}]
    assert fp() != first  # another model file behind the same name: the system is run again
    asked = len(server.requests)
    server.stop()  # an extractive tree system's fingerprint never asks the server
    plain = hcr.model_copy(update={"params": {"backend": "hash"}})
    assert system_fingerprint(plain, parsed, "data") != first and len(server.requests) == asked


def test_raptor_takes_the_llm_summarizer_from_parameters(server, tmp_path, monkeypatch):
    pytest.importorskip("umap")
    import numpy as np

    from hcrbench.retrieve import make_retriever
    from hcrbench.retrieve.summarize_llm import LLMSummarizer

    monkeypatch.setenv("HCRBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HCRBENCH_LLM_RETRIES", "0")

    class Enc:
        model_id = "bow-llm"

        def encode(self, texts):
            out = np.asarray([[t.count(w) + 0.01 for w in ("alpha", "beta", "gamma", "delta", "LLM")]
                              for t in texts], dtype=np.float32)
            return out / np.linalg.norm(out, axis=1, keepdims=True)

    corpus = Corpus(list(DOCS), list(DOCS.values()), [""] * len(DOCS))
    server.models = [{"id": "m", "meta": {"sha": "aaa"}}]
    server.replies = lambda body: (200, SUMMARY)

    def build():
        r = make_retriever("raptor", encoder=Enc(), chunk_tokens=8, max_clusters=4, reduction_dimension=2,
                           summarizer="llm", llm_endpoint=server.url, llm_model="m")
        r.index(corpus)
        return r

    r = build()
    assert isinstance(r.summarizer, LLMSummarizer) and r.params["summarizer"] == "llm:m"
    assert r.tree.num_layers >= 1 and all(t == SUMMARY for t in r.tree.texts[r.tree.n_leaves:])
    asked = len(server.requests)
    assert asked > 0 and build().index_costs.to_dict()["counters"].get("index_cache_hits") == 1
    server.models = [{"id": "m", "meta": {"sha": "bbb"}}]
    build()
    assert len(server.requests) > asked  # another served model: the tree is summarised again


def test_experiment_with_an_unreachable_summarizer_endpoint_is_one_line_exit_2(beir_dir, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = tmp_path / "e.toml"
    cfg.write_text(f'name = "e"\noutput_dir = "e"\nmetrics = ["nDCG@10"]\nk = 5\nn_resamples = 100\n'
                   f'[dataset]\npath = "{beir_dir}"\n[[systems]]\nname = "tree"\ntype = "raptor"\n'
                   f'params = {{ summarizer = "llm", llm_endpoint = "http://127.0.0.1:{port}/v1", llm_model = "m" }}\n')
    p = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True, env=_env(tmp_path),
                       timeout=600)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert "system 'tree'" in last and "cannot reach the LLM endpoint" in last
