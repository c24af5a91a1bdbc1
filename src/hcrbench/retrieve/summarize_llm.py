"""An LLM routing summarizer for tree retrievers (HCR, RAPTOR), behind the same ``Summarizer`` protocol.

Each group of texts becomes one prompt ("summarise these passages in at most N tokens ...") sent through
:class:`hcrbench.llm.LLMClient` (temperature 0, cached on disk, retried), and the answer is cut to ``max_tokens``
tokens of the shared counter at a token boundary.

Two ways to meet a failed call. Built in code (``strict=False``), a group whose call fails falls back to the
offline :class:`~hcrbench.retrieve.summarize.ExtractiveSummarizer` summary, and the failure is recorded in
:attr:`LLMSummarizer.failures`. Chosen from a config (``params.summarizer = "llm"``, :func:`make_summarizer`),
it is strict: the first failed call stops the build with a one-line :class:`~hcrbench.errors.InputError`, so no
tree of mixed summaries is ever cached (and the client never caches a failed answer).

A tree built with LLM summaries is cached under :attr:`LLMSummarizer.key`: the endpoint, the model asked for, the
model as the server identifies it (``GET /models``; ``hcrbench llm serve`` names it ``<stem>@<file hash>``), the
hash of ``HCRBENCH_LLM_MODEL_FILE`` when set, and :data:`PROMPT_VERSION`; another model behind the same name is
another tree.
"""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hcrbench.data.tokens import TokenCounter, default_counter
from hcrbench.errors import InputError
from hcrbench.llm.client import LLMClient, LLMConfig
from hcrbench.retrieve.summarize import ExtractiveSummarizer, Summarizer

PROMPT = ("Write a short summary of the passages below, at most {max_tokens} tokens, naming the main topics, "
          "entities and facts they share, so that someone searching for any of them would find this group. "
          "Reply with the summary only.\n\n{passages}\n\nSummary:")
#: Bumped whenever :data:`PROMPT` or the way answers are cut changes: trees summarised by the old one are rebuilt.
PROMPT_VERSION = 1
#: ``params.summarizer`` values a tree retriever accepts.
SUMMARIZERS = ("extractive", "llm")


class LLMSummarizer:
    """``Summarizer`` that asks an LLM; ``failures`` lists ``(group index, error)`` of groups that fell back."""

    version = PROMPT_VERSION

    def __init__(self, client: LLMClient, counter: TokenCounter | None = None,
                 max_input_tokens: int = 3000, strict: bool = False) -> None:
        self.client = client
        self.counter = counter or default_counter()
        self.max_input_tokens = max_input_tokens
        self.strict = strict
        self.name = f"llm:{client.config.model}"
        self.failures: list[tuple[int, str]] = []
        self._fallback = ExtractiveSummarizer(counter=self.counter)
        self._key: str | None = None

    def _cut(self, text: str, max_tokens: int) -> str:
        text = text.strip()
        starts = self.counter.token_starts(text)
        return text if len(starts) <= max_tokens else text[: starts[max_tokens]].rstrip()

    def identity(self) -> dict[str, Any]:
        """What decides this summarizer's answers (no secrets): endpoint, model, served identity, file hash,
        prompt version. A strict summarizer whose endpoint cannot be reached raises a one-line InputError."""
        if self.strict:
            probe(self.client.config)
        cfg = self.client.config
        return {"kind": "llm", "endpoint": cfg.base_url.rstrip("/"), "model": cfg.model,
                "served": self.client.served_identity(), "file_sha256": self.client.file_sha256(),
                "prompt_version": PROMPT_VERSION, "input_tokens": self.max_input_tokens}

    @property
    def key(self) -> str:
        """``llm:<model>@<sha12 of identity()>``: what tree caches and fingerprints hold for this summarizer."""
        if self._key is None:
            blob = json.dumps(self.identity(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            self._key = f"{self.name}@{hashlib.sha256(blob.encode('utf-8')).hexdigest()[:12]}"
        return self._key

    def _ask(self, group: Sequence[str], max_tokens: int) -> tuple[str | None, str | None]:
        passages = self._cut("\n\n".join(f"- {t}" for t in group), self.max_input_tokens)
        r = self.client.complete(PROMPT.format(max_tokens=max_tokens, passages=passages),
                                 max_tokens=max(16, max_tokens), prompt_id=f"summarize-v{PROMPT_VERSION}")
        if r.ok and r.text and r.text.strip():
            return self._cut(r.text, max_tokens), None
        return None, r.error or "empty answer"

    def summarize_many(self, groups: Sequence[Sequence[str]], max_tokens: int) -> list[str]:
        workers = max(1, min(int(self.client.config.concurrency), len(groups)))
        if workers > 1:
            with ThreadPoolExecutor(workers) as pool:  # answers keep the groups' order
                answers = list(pool.map(lambda g: self._ask(g, max_tokens), groups))
        else:
            answers = [self._ask(g, max_tokens) for g in groups]
        out: list[str] = []
        fallback: list[int] = []
        for i, (text, error) in enumerate(answers):
            if text is not None:
                out.append(text)
                continue
            if self.strict:
                bad = sum(1 for t, _ in answers if t is None)
                raise InputError(f"LLM summarizer: {bad} of {len(groups)} summaries failed at "
                                 f"{self.client.config.base_url} (model {self.client.config.model}): {error}; "
                                 "nothing was cached", field="summarizer")
            self.failures.append((i, error or "empty answer"))
            fallback.append(i)
            out.append("")
        if fallback:
            backup = self._fallback.summarize_many([groups[i] for i in fallback], max_tokens)
            for i, s in zip(fallback, backup):
                out[i] = s
        return out


def probe(config: LLMConfig) -> None:
    """Raise a one-line InputError when nothing answers at ``config.base_url`` (an HTTP error is an answer)."""
    url = config.base_url.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(urllib.request.Request(url), timeout=min(config.timeout, 10.0)):
            pass
    except urllib.error.HTTPError:
        return
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise InputError(f"cannot reach the LLM endpoint {config.base_url} ({getattr(e, 'reason', e)}); start "
                         "one with `hcrbench llm serve` or set llm_endpoint", field="llm_endpoint") from None


def make_summarizer(kind: Any = "extractive", *, endpoint: str | None = None, model: str | None = None,
                    counter: TokenCounter | None = None) -> Summarizer:
    """The summarizer a tree retriever's ``summarizer`` parameter names: ``"extractive"`` (default, offline) or
    ``"llm"`` (strict :class:`LLMSummarizer`; ``endpoint``/``model`` else ``HCRBENCH_LLM_BASE_URL`` /
    ``HCRBENCH_LLM_MODEL``; timeout, retries, max tokens, concurrency from the ``HCRBENCH_LLM_*`` variables)."""
    if kind not in SUMMARIZERS:
        raise InputError(f"summarizer must be one of {', '.join(SUMMARIZERS)}, got {kind!r}", field="summarizer")
    if kind == "extractive":
        if endpoint or model:
            raise InputError("llm_endpoint / llm_model need summarizer = \"llm\"", field="summarizer")
        return ExtractiveSummarizer(counter=counter)
    try:
        config = LLMConfig.from_env(base_url=endpoint, model=model)
    except InputError as e:
        raise InputError(f"summarizer = \"llm\": {e.problem}", field="llm_endpoint" if e.field == "base_url"
                         else "llm_model") from None
    return LLMSummarizer(LLMClient(config), counter=counter, strict=True)


def summarizer_key(summarizer: Summarizer) -> str:
    """What a tree cache key holds for ``summarizer``: its ``key`` when it has one (LLM: the served model and
    prompt version), else its ``name`` (so extractive trees keep their old keys)."""
    return str(getattr(summarizer, "key", summarizer.name))


def summarizer_fingerprint(params: dict[str, Any]) -> dict[str, Any]:
    """For an experiment system's fingerprint: ``{"summarizer_identity": key}`` when ``params`` choose the LLM
    summarizer (asks the endpoint who it is, so another model behind the same URL never reuses a run), else {}."""
    if params.get("summarizer", "extractive") != "llm":
        return {}
    s = make_summarizer("llm", endpoint=params.get("llm_endpoint"), model=params.get("llm_model"))
    return {"summarizer_identity": summarizer_key(s)}
