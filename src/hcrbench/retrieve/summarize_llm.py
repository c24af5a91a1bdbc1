"""An LLM routing summarizer for tree retrievers (HCR, RAPTOR), behind the same ``Summarizer`` protocol.

Each group of texts becomes one prompt ("summarise these passages in at most N tokens ...") sent through
:class:`hcrbench.llm.LLMClient` (temperature 0, cached on disk, retried), and the answer is cut to ``max_tokens``
tokens of the shared counter at a token boundary. A group whose call fails falls back to the offline
:class:`~hcrbench.retrieve.summarize.ExtractiveSummarizer` summary, and the failure is recorded in
:attr:`LLMSummarizer.failures` (never silently: the tree's manifest should carry it).
"""

from __future__ import annotations

from collections.abc import Sequence

from hcrbench.data.tokens import TokenCounter, default_counter
from hcrbench.llm.client import LLMClient
from hcrbench.retrieve.summarize import ExtractiveSummarizer

PROMPT = ("Write a short summary of the passages below, at most {max_tokens} tokens, naming the main topics, "
          "entities and facts they share, so that someone searching for any of them would find this group. "
          "Reply with the summary only.\n\n{passages}\n\nSummary:")


class LLMSummarizer:
    """``Summarizer`` that asks an LLM; ``failures`` lists ``(group index, error)`` of groups that fell back."""

    def __init__(self, client: LLMClient, counter: TokenCounter | None = None,
                 max_input_tokens: int = 3000) -> None:
        self.client = client
        self.counter = counter or default_counter()
        self.max_input_tokens = max_input_tokens
        self.name = f"llm:{client.config.model}"
        self.failures: list[tuple[int, str]] = []
        self._fallback = ExtractiveSummarizer(counter=self.counter)

    def _cut(self, text: str, max_tokens: int) -> str:
        text = text.strip()
        starts = self.counter.token_starts(text)
        return text if len(starts) <= max_tokens else text[: starts[max_tokens]].rstrip()

    def summarize_many(self, groups: Sequence[Sequence[str]], max_tokens: int) -> list[str]:
        out: list[str] = []
        fallback: list[int] = []
        for i, group in enumerate(groups):
            passages = self._cut("\n\n".join(f"- {t}" for t in group), self.max_input_tokens)
            r = self.client.complete(PROMPT.format(max_tokens=max_tokens, passages=passages),
                                     max_tokens=max(16, max_tokens))
            if r.ok and r.text and r.text.strip():
                out.append(self._cut(r.text, max_tokens))
            else:
                self.failures.append((i, r.error or "empty answer"))
                fallback.append(i)
                out.append("")
        if fallback:
            backup = self._fallback.summarize_many([groups[i] for i in fallback], max_tokens)
            for i, s in zip(fallback, backup):
                out[i] = s
        return out
