"""One small OpenAI-compatible chat-completions client for everything that asks an LLM (judge, summarizer).

``LLMClient(LLMConfig.from_env())`` posts to ``{base_url}/chat/completions`` with temperature 0 and returns an
:class:`LLMResponse`; it never raises for a failed call. Every answer is cached on disk under the SHA-256 of
(model, messages, max_tokens, temperature, variant), so a repeated prompt costs no call and a rerun is
reproducible; ``variant`` lets a caller ask the same prompt again on purpose (judge hygiene: each judgement
twice). Every call (and cache hit) is appended to a JSONL log. Transient failures (connection errors, timeouts,
HTTP 429 and 5xx) are retried with exponential backoff (``Retry-After`` honoured); calls are spaced to a rate
limit. A call that still fails is returned with ``error`` set and never cached: callers record it as a failure,
never as a score. Only the standard library is used (``urllib``).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.errors import InputError

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to call the model. ``from_env`` reads ``HCRBENCH_LLM_*`` (falling back to ``OPENAI_*``)."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    max_retries: int = 4
    backoff: float = 0.5  # seconds before the first retry; doubled each time, capped at 30 s
    requests_per_second: float | None = None  # rate limit (None: unlimited)
    cache_dir: str | None = None  # default: $HCRBENCH_CACHE/llm or ~/.cache/hcrbench/llm
    max_tokens: int = 256

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        env = os.environ
        base = overrides.pop("base_url", None) or env.get("HCRBENCH_LLM_BASE_URL") or env.get("OPENAI_BASE_URL")
        model = overrides.pop("model", None) or env.get("HCRBENCH_LLM_MODEL")
        if not base:
            raise InputError("no LLM endpoint: set HCRBENCH_LLM_BASE_URL (an OpenAI-compatible /v1 URL)",
                             field="base_url")
        if not model:
            raise InputError("no LLM model: set HCRBENCH_LLM_MODEL", field="model")
        key = overrides.pop("api_key", None) or env.get("HCRBENCH_LLM_API_KEY") or env.get("OPENAI_API_KEY")
        rps = env.get("HCRBENCH_LLM_RPS")
        if rps and "requests_per_second" not in overrides:
            overrides["requests_per_second"] = float(rps)
        return cls(base_url=base, model=model, api_key=key, **overrides)

    def manifest(self) -> dict[str, Any]:
        """What goes into a manifest (never the key)."""
        return {"base_url": self.base_url, "model": self.model, "temperature": 0.0, "max_tokens": self.max_tokens}


@dataclass
class LLMResponse:
    """One answer (``text``) or one recorded failure (``error``); ``cached`` says whether a call was made."""

    text: str | None
    key: str
    model: str
    cached: bool = False
    attempts: int = 0
    error: str | None = None
    model_reported: str | None = None  # the model name the server returned (its version, where it says)

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None


def cache_key(model: str, messages: list[dict[str, str]], max_tokens: int, variant: int = 0) -> str:
    """SHA-256 of the canonical JSON of everything that decides the answer."""
    blob = json.dumps({"model": model, "messages": messages, "max_tokens": max_tokens, "temperature": 0.0,
                       "variant": variant}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _default_cache_dir() -> Path:
    root = os.environ.get("HCRBENCH_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "hcrbench") / "llm"


@dataclass
class LLMClient:
    """Chat completions with a disk cache, a log, retries and a rate limit (see the module docstring)."""

    config: LLMConfig
    calls: int = 0  # HTTP requests actually sent (retries included)
    failures: int = 0
    _last: float = field(default=0.0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def cache_dir(self) -> Path:
        return Path(self.config.cache_dir) if self.config.cache_dir else _default_cache_dir()

    def _path(self, key: str) -> Path:
        return self.cache_dir / key[:2] / f"{key}.json"

    def _log(self, record: dict[str, Any]) -> None:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        with self._lock, open(self.cache_dir / "log.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")

    def cached(self, messages: list[dict[str, str]], *, max_tokens: int | None = None,
               variant: int = 0) -> LLMResponse | None:
        """The stored answer for this prompt, or ``None`` (never calls)."""
        mt = max_tokens or self.config.max_tokens
        key = cache_key(self.config.model, messages, mt, variant)
        p = self._path(key)
        if not p.is_file():
            return None
        try:
            rec = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # a damaged entry is asked again
        return LLMResponse(rec["answer"], key, self.config.model, cached=True,
                           model_reported=rec.get("model_reported"))

    def _wait_rate(self) -> None:
        rps = self.config.requests_per_second
        if not rps:
            return
        with self._lock:
            gap = 1.0 / rps - (time.monotonic() - self._last)
            if gap > 0:
                time.sleep(gap)
            self._last = time.monotonic()

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        url = self.config.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        req = urllib.request.Request(url, data=json.dumps(payload).encode("utf-8"), headers=headers,
                                     method="POST")
        with urllib.request.urlopen(req, timeout=self.config.timeout) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def chat(self, messages: list[dict[str, str]], *, max_tokens: int | None = None,
             variant: int = 0) -> LLMResponse:
        """The answer to ``messages`` (from the cache when stored); a failure comes back with ``error`` set."""
        mt = max_tokens or self.config.max_tokens
        hit = self.cached(messages, max_tokens=mt, variant=variant)
        key = cache_key(self.config.model, messages, mt, variant)
        if hit is not None:
            self._log({"key": key, "model": self.config.model, "status": "cached"})
            return hit
        payload = {"model": self.config.model, "messages": messages, "temperature": 0.0, "max_tokens": mt,
                   "seed": 0}
        error = None
        attempts = 0
        t0 = time.perf_counter()
        for attempt in range(self.config.max_retries + 1):
            attempts = attempt + 1
            self._wait_rate()
            self.calls += 1
            retry_after = None
            try:
                body = self._post(payload)
                text = body["choices"][0]["message"]["content"]
                if not isinstance(text, str):
                    raise ValueError("no text in the answer")
                reported = body.get("model")
                rec = {"model": self.config.model, "model_reported": reported, "messages": messages,
                       "max_tokens": mt, "variant": variant, "answer": text}
                p = self._path(key)
                p.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(p, json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
                self._log({"key": key, "model": self.config.model, "status": "ok", "attempts": attempts,
                           "seconds": round(time.perf_counter() - t0, 3)})
                return LLMResponse(text, key, self.config.model, cached=False, attempts=attempts,
                                   model_reported=reported)
            except urllib.error.HTTPError as e:
                error = f"HTTP {e.code}: {e.reason}"
                if e.code not in _RETRY_STATUS:
                    break
                retry_after = e.headers.get("Retry-After") if e.headers else None
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as e:
                error = f"{type(e).__name__}: {getattr(e, 'reason', e)}"
            except (ValueError, KeyError, IndexError, TypeError) as e:
                error = f"malformed answer: {e}"
                break
            if attempt < self.config.max_retries:
                delay = min(30.0, self.config.backoff * 2 ** attempt)
                if retry_after is not None and retry_after.strip().replace(".", "", 1).isdigit():
                    delay = min(60.0, max(delay, float(retry_after)))
                time.sleep(delay)
        self.failures += 1
        self._log({"key": key, "model": self.config.model, "status": "failed", "attempts": attempts,
                   "error": error, "seconds": round(time.perf_counter() - t0, 3)})
        return LLMResponse(None, key, self.config.model, cached=False, attempts=attempts, error=error)

    def complete(self, prompt: str, *, system: str | None = None, max_tokens: int | None = None,
                 variant: int = 0) -> LLMResponse:
        """:meth:`chat` with one user message (and an optional system message)."""
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user",
                                                                                     "content": prompt}]
        return self.chat(messages, max_tokens=max_tokens, variant=variant)
