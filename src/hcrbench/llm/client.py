"""One small OpenAI-compatible chat-completions client for everything that asks an LLM (judge, summarizer).

``LLMClient(LLMConfig.from_env())`` posts to ``{base_url}/chat/completions`` with temperature 0 and returns an
:class:`LLMResponse`; it never raises for a failed call. Every answer is cached on disk under the SHA-256 of
(endpoint, served model identity, model, messages, max_tokens, temperature, variant, and the SHA-256 of a local
model file when one is named), so a repeated prompt costs no call, a rerun is reproducible, and another endpoint
or another model file behind the same name is another key. The served identity is what ``GET /models`` says
(name and size; ``hcrbench llm serve`` serves a model as ``<stem>@<file hash>``). ``variant`` lets a caller ask
the same prompt again on purpose (judge hygiene: each judgement twice). Every call (and cache hit) is appended
to a JSONL log with a UTC timestamp and the caller's prompt id. Transient failures (connection errors, timeouts,
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
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


#: CPU-sized defaults (a small local model on a few cores): override by flag or by the matching variable.
DEFAULTS = {"timeout": 120.0, "max_tokens": 160, "max_retries": 1, "concurrency": 2}
#: ``HCRBENCH_LLM_*`` variables for the settings above.
ENV = {"timeout": "HCRBENCH_LLM_TIMEOUT", "max_tokens": "HCRBENCH_LLM_MAX_TOKENS",
       "max_retries": "HCRBENCH_LLM_RETRIES", "concurrency": "HCRBENCH_LLM_CONCURRENCY"}


def _env_number(name: str, kind: type, low: float) -> float | int | None:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return None
    try:
        v = kind(raw)
    except ValueError:
        raise InputError(f"must be a {'number' if kind is float else 'whole number'}, got {raw!r}",
                         field=name) from None
    if v < low:
        raise InputError(f"must be at least {low:g}, got {raw!r}", field=name)
    return v


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to call the model. ``from_env`` reads ``HCRBENCH_LLM_*`` (falling back to ``OPENAI_*``)."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = DEFAULTS["timeout"]
    max_retries: int = DEFAULTS["max_retries"]
    backoff: float = 0.5  # seconds before the first retry; doubled each time, capped at 30 s
    requests_per_second: float | None = None  # rate limit (None: unlimited)
    cache_dir: str | None = None  # default: $HCRBENCH_CACHE/llm or ~/.cache/hcrbench/llm
    max_tokens: int = DEFAULTS["max_tokens"]
    concurrency: int = DEFAULTS["concurrency"]  # items judged at once (match the server's slots)
    model_file: str | None = None  # a local model file behind the endpoint: its SHA-256 joins the cache key

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        """Settings from ``overrides`` (flags; ``None`` = not given), else the ``HCRBENCH_LLM_*`` variables, else
        :data:`DEFAULTS`."""
        env = os.environ
        overrides = {k: v for k, v in overrides.items() if v is not None}
        base = overrides.pop("base_url", None) or env.get("HCRBENCH_LLM_BASE_URL") or env.get("OPENAI_BASE_URL")
        model = overrides.pop("model", None) or env.get("HCRBENCH_LLM_MODEL")
        if not base:
            raise InputError("no LLM endpoint: set HCRBENCH_LLM_BASE_URL (an OpenAI-compatible /v1 URL; "
                             "`hcrbench llm serve` starts one)", field="base_url")
        if not model:
            raise InputError("no LLM model: set HCRBENCH_LLM_MODEL (the name `hcrbench llm serve` prints)",
                             field="model")
        key = overrides.pop("api_key", None) or env.get("HCRBENCH_LLM_API_KEY") or env.get("OPENAI_API_KEY")
        rps = env.get("HCRBENCH_LLM_RPS")
        if rps and "requests_per_second" not in overrides:
            overrides["requests_per_second"] = _env_number("HCRBENCH_LLM_RPS", float, 0.0)
        for name, kind, low in (("timeout", float, 0.001), ("max_tokens", int, 1), ("max_retries", int, 0),
                                ("concurrency", int, 1)):
            if name not in overrides:
                v = _env_number(ENV[name], kind, low)
                if v is not None:
                    overrides[name] = v
        if "model_file" not in overrides and env.get("HCRBENCH_LLM_MODEL_FILE"):
            overrides["model_file"] = env["HCRBENCH_LLM_MODEL_FILE"]
        return cls(base_url=base, model=model, api_key=key, **overrides)

    def manifest(self) -> dict[str, Any]:
        """What goes into a manifest (never the key)."""
        return {"base_url": self.base_url, "model": self.model, "temperature": 0.0, "max_tokens": self.max_tokens,
                "timeout": self.timeout, "max_retries": self.max_retries, "concurrency": self.concurrency,
                **({"model_file": self.model_file} if self.model_file else {})}


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


def cache_key(model: str, messages: list[dict[str, str]], max_tokens: int, variant: int = 0, *,
              endpoint: str = "", identity: str | None = None, file_sha256: str | None = None) -> str:
    """SHA-256 of the canonical JSON of everything that decides the answer: the endpoint, the model as the server
    identifies it (and the hash of a local model file), the model name asked for, the messages, the settings."""
    blob = json.dumps({"model": model, "messages": messages, "max_tokens": max_tokens, "temperature": 0.0,
                       "variant": variant, "endpoint": endpoint.rstrip("/"), "identity": identity,
                       "file_sha256": file_sha256}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def prompt_hash(messages: list[dict[str, str]]) -> str:
    """A short id of a prompt's text (the first 12 hex of its SHA-256), for the log when a caller names none."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8")).hexdigest()[:12]


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
    _identity: tuple[str | None, dict[str, Any] | None] | None = field(default=None, repr=False)
    _file_sha: str | None = field(default=None, repr=False)

    @property
    def cache_dir(self) -> Path:
        return Path(self.config.cache_dir) if self.config.cache_dir else _default_cache_dir()

    def _path(self, key: str) -> Path:
        return self.cache_dir / key[:2] / f"{key}.json"

    def _log(self, record: dict[str, Any]) -> None:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        record = {"time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
                  "endpoint": self.config.base_url, **record}
        with self._lock, open(self.cache_dir / "log.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")

    def served_identity(self) -> str | None:
        """The model as the server identifies it (``GET /models``: name and size), asked once; ``None`` when the
        server does not say (the key then holds the endpoint and the model name asked for)."""
        if self._identity is None:
            ident, meta = None, None
            try:
                req = urllib.request.Request(self.config.base_url.rstrip("/") + "/models", headers=self._headers())
                with urllib.request.urlopen(req, timeout=min(self.config.timeout, 10.0)) as resp:
                    data = json.loads(resp.read().decode("utf-8")).get("data") or []
                pick = next((m for m in data if m.get("id") == self.config.model), data[0] if len(data) == 1
                            else None)
                if pick is not None:
                    meta = {k: pick.get(k) for k in ("id", "aliases", "meta", "owned_by") if pick.get(k)}
                    ident = json.dumps(meta, sort_keys=True, ensure_ascii=False)
            except (urllib.error.URLError, OSError, ValueError, AttributeError, TypeError):
                pass
            self._identity = (ident, meta)
        return self._identity[0]

    def served_model(self) -> dict[str, Any] | None:
        """What ``GET /models`` said about the model (``None`` when it said nothing)."""
        self.served_identity()
        return self._identity[1] if self._identity else None

    def file_sha256(self) -> str | None:
        if self.config.model_file and self._file_sha is None:
            from hcrbench.llm.serve import file_sha256

            p = Path(self.config.model_file).expanduser()
            if not p.is_file():
                raise InputError("model file not found", path=p, field="HCRBENCH_LLM_MODEL_FILE")
            self._file_sha = file_sha256(p)
        return self._file_sha

    def key(self, messages: list[dict[str, str]], max_tokens: int, variant: int = 0) -> str:
        return cache_key(self.config.model, messages, max_tokens, variant, endpoint=self.config.base_url,
                         identity=self.served_identity(), file_sha256=self.file_sha256())

    def cached(self, messages: list[dict[str, str]], *, max_tokens: int | None = None,
               variant: int = 0) -> LLMResponse | None:
        """The stored answer for this prompt, or ``None`` (never calls the chat endpoint)."""
        mt = max_tokens or self.config.max_tokens
        key = self.key(messages, mt, variant)
        p = self._path(key)
        if not p.is_file():
            return None
        try:
            rec = read_json(p)
        except (OSError, ValueError):
            return None  # a damaged entry is asked again
        return LLMResponse(rec["answer"], key, self.config.model, cached=True,
                           model_reported=rec.get("model_reported"))

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        return headers

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
        req = urllib.request.Request(url, data=json.dumps(payload).encode("utf-8"), headers=self._headers(),
                                     method="POST")
        with urllib.request.urlopen(req, timeout=self.config.timeout) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def chat(self, messages: list[dict[str, str]], *, max_tokens: int | None = None,
             variant: int = 0, prompt_id: str | None = None) -> LLMResponse:
        """The answer to ``messages`` (from the cache when stored); a failure comes back with ``error`` set.
        ``prompt_id`` names the prompt in the log (default: a hash of its text)."""
        mt = max_tokens or self.config.max_tokens
        hit = self.cached(messages, max_tokens=mt, variant=variant)
        key = self.key(messages, mt, variant)
        pid = prompt_id or prompt_hash(messages)
        if hit is not None:
            self._log({"key": key, "model": self.config.model, "status": "cached", "prompt_id": pid})
            return hit
        payload = {"model": self.config.model, "messages": messages, "temperature": 0.0, "max_tokens": mt,
                   "seed": 0}
        error = None
        attempts = 0
        t0 = time.perf_counter()
        for attempt in range(self.config.max_retries + 1):
            attempts = attempt + 1
            self._wait_rate()
            with self._lock:
                self.calls += 1
            retry_after = None
            try:
                body = self._post(payload)
                text = body["choices"][0]["message"]["content"]
                if not isinstance(text, str):
                    raise ValueError("no text in the answer")
                reported = body.get("model")
                rec = {"model": self.config.model, "model_reported": reported, "messages": messages,
                       "max_tokens": mt, "variant": variant, "answer": text, "endpoint": self.config.base_url,
                       "served": self.served_model(), "file_sha256": self.file_sha256()}
                p = self._path(key)
                p.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(p, json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
                self._log({"key": key, "model": self.config.model, "status": "ok", "attempts": attempts,
                           "seconds": round(time.perf_counter() - t0, 3), "prompt_id": pid})
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
        with self._lock:
            self.failures += 1
        self._log({"key": key, "model": self.config.model, "status": "failed", "attempts": attempts,
                   "error": error, "seconds": round(time.perf_counter() - t0, 3), "prompt_id": pid})
        return LLMResponse(None, key, self.config.model, cached=False, attempts=attempts, error=error)

    def complete(self, prompt: str, *, system: str | None = None, max_tokens: int | None = None,
                 variant: int = 0, prompt_id: str | None = None) -> LLMResponse:
        """:meth:`chat` with one user message (and an optional system message)."""
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user",
                                                                                     "content": prompt}]
        return self.chat(messages, max_tokens=max_tokens, variant=variant, prompt_id=prompt_id)
