"""LLMSummarizer through a real local HTTP server: cut to the token cap, failures fall back and are recorded."""

from __future__ import annotations

from hcrbench.llm import LLMClient, LLMConfig
from hcrbench.retrieve.summarize import Summarizer
from hcrbench.retrieve.summarize_llm import LLMSummarizer


def test_summaries_are_capped_and_failures_fall_back(server, tmp_path):
    def reply(body):
        text = body["messages"][-1]["content"]
        if "FAILME" in text:
            return 500, "down"
        return 200, "Backups and retention of the billing database. " * 20

    server.replies = reply
    c = LLMClient(LLMConfig(base_url=server.url, model="m", cache_dir=str(tmp_path / "c"), max_retries=0))
    s = LLMSummarizer(c)
    assert isinstance(s, Summarizer) and s.name == "llm:m"
    out = s.summarize_many([["Backups run nightly.", "Kept 30 days."], ["FAILME laptops refresh every three years."]],
                           max_tokens=20)
    assert s.counter.count(out[0]) <= 20 and out[0].startswith("Backups and retention")
    assert out[1] and "laptops" in out[1].lower()  # the extractive fallback
    assert s.failures == [(1, "HTTP 500: Internal Server Error")]
