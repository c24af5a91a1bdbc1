"""On-disk caches: embeddings keyed by (model id, sha256 of text), and built indexes keyed by their inputs.

Why: encoding a corpus is the slow step of every dense baseline (minutes on a laptop); a second run with the same
model and texts must re-encode nothing, and an interrupted encode must resume where it stopped.

Layout under :func:`cache_root` (``$HCRBENCH_CACHE`` or ``~/.cache/hcrbench``)::

    embeddings/<model-slug>-<hash>/model.json         the model id this folder belongs to
    embeddings/<model-slug>-<hash>/<shard>.vec.npy    rows of all texts of the shard, concatenated
    embeddings/<model-slug>-<hash>/<shard>.off.npy    int64 offsets: text i owns rows off[i]:off[i+1]
    embeddings/<model-slug>-<hash>/<shard>.keys.npy   uint8 (n, 32): sha256 of each text (written last)
    indexes/<kind>/<hash>/...                          whatever a retriever saved, plus key.json

Every file is written atomically (temp file + rename) and a shard counts only once its ``.keys.npy`` exists, so a
crash mid-write leaves no half shard. A shard holds either one vector per text (offsets ``0,1,2,...``) or a
variable number of rows per text (token vectors for late interaction).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data.atomic import atomic_write_bytes, atomic_write_text


def cache_root(root: str | Path | None = None) -> Path:
    """The cache folder: ``root`` if given, else ``$HCRBENCH_CACHE``, else ``~/.cache/hcrbench``."""
    if root is not None:
        return Path(root)
    env = os.environ.get("HCRBENCH_CACHE")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "hcrbench"


def text_digest(text: str) -> bytes:
    """The 32-byte sha256 of a text's UTF-8 bytes: the cache key of one text."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def key_hash(obj: Any) -> str:
    """A stable hex hash of a JSON-able object (sorted keys): names index folders."""
    blob = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def corpus_fingerprint(doc_ids: Sequence[str], texts: Sequence[str]) -> str:
    """sha256 over (doc id, text) pairs in order: two corpora share an index only if this matches."""
    h = hashlib.sha256()
    for d, t in zip(doc_ids, texts):
        h.update(d.encode("utf-8"))
        h.update(b"\x00")
        h.update(t.encode("utf-8"))
        h.update(b"\x01")
    return h.hexdigest()


def _slug(s: str) -> str:
    tail = re.sub(r"[^A-Za-z0-9._-]+", "_", s.rstrip("/").split("/")[-1])[:40]
    return tail or "model"


def _npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


class EmbeddingCache:
    """Vectors of texts under one model id, stored in append-only shards.

    ``get(texts)`` returns what is cached; ``put(texts, arrays)`` writes one new shard. ``arrays[i]`` is either a
    1-D vector or a 2-D ``(rows, dim)`` block (token vectors); ``get`` gives back the same shape.
    """

    def __init__(self, model_id: str, root: str | Path | None = None, *, dtype: str = "float32") -> None:
        self.model_id = model_id
        self.dtype = np.dtype(dtype)
        digest = hashlib.sha256(f"{model_id}|{self.dtype.str}".encode()).hexdigest()[:16]
        self.path = cache_root(root) / "embeddings" / f"{_slug(model_id)}-{digest}"
        self._index: dict[bytes, tuple[str, int]] = {}
        self._shards: dict[str, tuple[np.ndarray, np.ndarray, bool]] = {}
        self._scanned: set[str] = set()
        self.refresh()

    # -- reading -----------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Pick up shards written since the last scan (e.g. by another process)."""
        if not self.path.is_dir():
            return
        for keys_file in sorted(self.path.glob("*.keys.npy")):
            shard = keys_file.name[: -len(".keys.npy")]
            if shard in self._scanned:
                continue
            try:
                keys = np.load(keys_file, allow_pickle=False)
            except (OSError, ValueError):
                continue  # unreadable shard: ignored, its texts are simply encoded again
            for row, k in enumerate(keys):
                self._index.setdefault(bytes(k), (shard, row))
            self._scanned.add(shard)

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, text: str) -> bool:
        return text_digest(text) in self._index

    def _load_shard(self, shard: str) -> tuple[np.ndarray, np.ndarray, bool]:
        got = self._shards.get(shard)
        if got is None:
            vec = np.load(self.path / f"{shard}.vec.npy", mmap_mode="r", allow_pickle=False)
            off = np.load(self.path / f"{shard}.off.npy", allow_pickle=False)
            single = (self.path / f"{shard}.single").exists()
            got = self._shards[shard] = (vec, off, single)
        return got

    def lookup(self, digest: bytes) -> np.ndarray | None:
        """The cached array of one text digest, or None."""
        loc = self._index.get(digest)
        if loc is None:
            return None
        shard, row = loc
        vec, off, single = self._load_shard(shard)
        block = np.asarray(vec[int(off[row]) : int(off[row + 1])])
        return block[0] if single else block

    def get(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """For each text, its cached array or None."""
        return [self.lookup(text_digest(t)) for t in texts]

    # -- writing -----------------------------------------------------------------------------------------
    def put(self, texts: Sequence[str], arrays: Sequence[np.ndarray]) -> None:
        """Store ``arrays[i]`` as the vectors of ``texts[i]`` (one new shard, written atomically)."""
        if len(texts) != len(arrays):
            raise ValueError("put: texts and arrays differ in length")
        if not texts:
            return
        digests = [text_digest(t) for t in texts]
        single = all(np.asarray(a).ndim == 1 for a in arrays)
        blocks = [np.atleast_2d(np.asarray(a, dtype=self.dtype)) for a in arrays]
        lengths = [b.shape[0] for b in blocks]
        off = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        vec = np.concatenate(blocks, axis=0) if blocks else np.zeros((0, 0), dtype=self.dtype)
        keys = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(digests), 32)
        shard = hashlib.sha256(keys.tobytes()).hexdigest()[:24]
        self.path.mkdir(parents=True, exist_ok=True)
        if not (self.path / "model.json").exists():
            atomic_write_text(self.path / "model.json",
                              json.dumps({"model_id": self.model_id, "dtype": self.dtype.str}) + "\n")
        atomic_write_bytes(self.path / f"{shard}.vec.npy", _npy_bytes(vec))
        atomic_write_bytes(self.path / f"{shard}.off.npy", _npy_bytes(off))
        if single:
            atomic_write_bytes(self.path / f"{shard}.single", b"")
        atomic_write_bytes(self.path / f"{shard}.keys.npy", _npy_bytes(keys))  # the commit marker: last
        for row, d in enumerate(digests):
            self._index.setdefault(d, (shard, row))
        self._scanned.add(shard)

    def clear(self) -> None:
        """Delete every shard of this model id."""
        shutil.rmtree(self.path, ignore_errors=True)
        self._index.clear()
        self._shards.clear()
        self._scanned.clear()


def index_dir(kind: str, key: Any, root: str | Path | None = None) -> Path:
    """The folder a built index of ``kind`` with inputs ``key`` lives in (it may not exist yet)."""
    return cache_root(root) / "indexes" / _slug(kind) / key_hash(key)[:32]


def index_ready(kind: str, key: Any, root: str | Path | None = None) -> Path | None:
    """The folder of a complete cached index, or None when it must be built."""
    d = index_dir(kind, key, root)
    return d if (d / "key.json").is_file() else None


def save_index(kind: str, key: Any, writer, root: str | Path | None = None) -> Path:
    """Build a cached index atomically: ``writer(tmp_dir)`` fills a temp folder, which is then renamed.

    The folder only appears complete (with ``key.json``) or not at all, so an interrupted save is rebuilt.
    """
    final = index_dir(kind, key, root)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
    try:
        writer(tmp)
        (tmp / "key.json").write_text(json.dumps(key, sort_keys=True, default=str) + "\n", encoding="utf-8")
        if final.exists():
            shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def missing_positions(cached: Iterable[np.ndarray | None]) -> list[int]:
    """Positions whose cache lookup came back empty."""
    return [i for i, a in enumerate(cached) if a is None]
