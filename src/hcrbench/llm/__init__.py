"""LLM access for the optional parts of hcrbench: one OpenAI-compatible client (cache, log, retries, rate limit)
shared by the sufficiency judge (:mod:`hcrbench.llm.judge`) and the LLM summarizer of tree retrievers.
Nothing here runs unless a user points ``HCRBENCH_LLM_BASE_URL`` / ``HCRBENCH_LLM_MODEL`` at a server."""

from hcrbench.llm.client import LLMClient, LLMConfig, LLMResponse, cache_key

__all__ = ["LLMClient", "LLMConfig", "LLMResponse", "cache_key"]
