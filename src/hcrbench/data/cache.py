"""On-disk caches: embeddings keyed by (model id, sha256 of text), and built indexes keyed by their inputs.

Why: encoding a corpus is the slow step of every dense baseline (minutes on a laptop); a second run with the same
model and texts must re-encode nothing, and an interrupted encode must resume where it stopped.

Layout under :func:`cache_root` (``$HCRBENCH_CACHE`` or ``~/.cache/hcrbench``)::

    embeddings/<model-slug>-<hash>/model.json         the model id this folder belongs to
    embeddings/<model-slug>-<hash>/<shard>.vec.npy    rows of all texts of the shard, concatenated
    embeddings/<model-slug>-<hash>/<shard>.off.npy    int64 offsets: text i owns rows off[i]:off[i+1]
    embeddings/<model-slug>-<hash>/<shard>.sum.json   checksums, shapes and dtype of the three files below
    embeddings/<model-slug>-<hash>/<shard>.keys.npy   uint8 (n, 32): sha256 of each text (written last)
    indexes/<kind>/<hash>/...                          whatever a retriever saved, plus checksums.json, key.json

Every file is written atomically (temp file + rename) and a shard counts only once its ``.keys.npy`` exists, so a
crash mid-write leaves no half shard. A shard holds either one vector per text (offsets ``0,1,2,...``) or a
variable number of rows per text (token vectors for late interaction).

**Verified on read.** A disk error, a killed copy or a careless edit must never turn into a silently wrong number.
Every shard and every index folder records a BLAKE2b checksum, size, shape and dtype of its files when written;
a shard is checked the first time a process uses it (and its vectors must be finite; checked again when its files
change: renamed over, edited, truncated), an index every time it is opened.
A mismatch, a truncated or unreadable file, or a shard without checksums (written by an older hcrbench) is not
used: one :class:`~hcrbench.errors.HcrbenchWarning` names it, its files are removed, and the caller recomputes
and rewrites it. :func:`verify_cache` checks a whole cache folder (``hcrbench cache verify``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import xxhash

from hcrbench.data.atomic import atomic_write_bytes, atomic_write_text
from hcrbench.data.structured import read_json
from hcrbench.errors import HcrbenchWarning, InputError, WriteError

#: Checksum algorithm recorded beside every cached file: XXH3-128 (~15 GB/s; it detects damage, not tampering).
#: Entries written with BLAKE2b-128 (hcrbench before XXH3) are still verified with the algorithm they record.
CHECKSUM = "xxh3-128"
_HASHERS = {"xxh3-128": xxhash.xxh3_128, "blake2b-128": lambda: hashlib.blake2b(digest_size=16)}
_CHUNK = 1 << 22


def cache_root(root: str | Path | None = None) -> Path:
    """The cache folder: ``root`` if given, else ``$HCRBENCH_CACHE``, else ``~/.cache/hcrbench``.

    A path that exists and is not a folder is a user mistake: :class:`InputError` naming it (exit 2).
    """
    field = "cache_dir"
    if root is not None:
        p = Path(root)
    elif os.environ.get("HCRBENCH_CACHE"):
        p, field = Path(os.environ["HCRBENCH_CACHE"]), "HCRBENCH_CACHE"
    else:
        p = Path.home() / ".cache" / "hcrbench"
    if p.exists() and not p.is_dir():
        raise InputError("the cache must be a folder, and this is a file; point it at a folder (or unset it)",
                         path=p, field=field)
    return p


def warn_unwritable(where: str | Path, e: BaseException) -> None:
    """The one warning for a cache write the machine refused (disk full, read-only): the run goes on uncached."""
    reason = getattr(e, "strerror", None) or getattr(e, "problem", None) or str(e)
    warnings.warn(f"cache: cannot write {where} ({reason}); continuing without caching it", HcrbenchWarning,
                  stacklevel=3)


def text_digest(text: str) -> bytes:
    """The 32-byte sha256 of a text's UTF-8 bytes: the cache key of one text."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def key_hash(obj: Any) -> str:
    """A stable hex hash of a JSON-able object (sorted keys): names index folders.

    JSON is an unambiguous encoding (strings are quoted and escaped), so two different keys never share a blob.
    """
    blob = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


#: Bumped when the encoding of index keys changes (2: length-prefixed corpus fingerprints, versions in the key).
INDEX_KEY_SCHEMA = 2


def _key_versions() -> dict[str, str]:
    """hcrbench's and numpy's versions: part of every index key, so another release never reads an old index."""
    global _VERSIONS
    if _VERSIONS is None:
        from importlib import metadata

        try:
            hv = metadata.version("hcrbench")
        except metadata.PackageNotFoundError:  # pragma: no cover - not installed
            import hcrbench

            hv = getattr(hcrbench, "__version__", "unknown")
        _VERSIONS = {"hcrbench": hv, "numpy": np.__version__}
    return _VERSIONS


_VERSIONS: dict[str, str] | None = None


def corpus_fingerprint(doc_ids: Sequence[str], texts: Sequence[str]) -> str:
    """sha256 over (doc id, text) pairs in order: two corpora share an index only if this matches.

    Each field is length-prefixed (8 bytes, then its UTF-8 bytes), and the count of documents closes it, so no
    text can pass for a document boundary: a one-document corpus whose text holds ``\\x00`` / ``\\x01`` never
    collides with an honest two-document corpus (it did when fields were only joined by separators).
    """
    h = hashlib.sha256(b"hcrbench.corpus/2\n")
    n = 0
    for d, t in zip(doc_ids, texts):
        for field in (d.encode("utf-8", "surrogatepass"), t.encode("utf-8", "surrogatepass")):
            h.update(len(field).to_bytes(8, "little"))
            h.update(field)
        n += 1
    h.update(n.to_bytes(8, "little"))
    return h.hexdigest()


def _hasher(algorithm: str):
    try:
        return _HASHERS[algorithm]()
    except KeyError:
        raise ValueError(f"unknown checksum algorithm {algorithm!r}") from None


def bytes_digest(data: bytes | memoryview, algorithm: str = CHECKSUM) -> str:
    """Hex checksum of bytes (:data:`CHECKSUM` unless the entry records another algorithm)."""
    h = _hasher(algorithm)
    h.update(data)
    return h.hexdigest()


def file_digest(path: str | Path, algorithm: str = CHECKSUM) -> str:
    """Hex checksum of a file's bytes, read in 4 MiB pieces."""
    h = _hasher(algorithm)
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def warn_damaged(what: str | Path, reason: str) -> None:
    """The one warning line for a damaged cache entry that will be recomputed."""
    warnings.warn(f"cache: {what} is damaged ({reason}); not using it, recomputing", HcrbenchWarning, stacklevel=3)


def _remove(paths: Iterable[Path]) -> None:
    for p in paths:
        try:
            p.unlink()
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            shutil.rmtree(p, ignore_errors=True)


def _slug(s: str) -> str:
    tail = re.sub(r"[^A-Za-z0-9._-]+", "_", s.rstrip("/").split("/")[-1])[:40]
    return tail or "model"


def _npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


_SHARD_SUFFIXES = (".keys.npy", ".sum.json", ".vec.npy", ".off.npy", ".single")  # keys first: uncommit first


@dataclass
class Damage:
    """One damaged cache entry found by :func:`verify_cache`: where, what kind, and why."""

    path: Path
    kind: str
    reason: str


#: Epoch seconds since which the running computation counts as one piece of work (a look of the quickstart, one
#: ``hcrbench run``): a cache hit on a shard stored before it is work done earlier (``cache_hits_prior``), which a
#: cold world would have to do; a hit on one stored since is sharing inside the work, which recurs.
_PRIOR_BEFORE: float | None = None


@contextlib.contextmanager
def counting_prior_hits(since: float | None) -> Any:
    """Within the ``with`` body, :func:`~hcrbench.retrieve.encoders.encode_cached` counts the hits on shards
    stored before ``since`` as ``cache_hits_prior`` (None: counts none)."""
    global _PRIOR_BEFORE
    before, _PRIOR_BEFORE = _PRIOR_BEFORE, since
    try:
        yield
    finally:
        _PRIOR_BEFORE = before


def prior_before() -> float | None:
    """The ``since`` of the innermost :func:`counting_prior_hits` (None outside one)."""
    return _PRIOR_BEFORE


#: kinds of the cached indexes (trees, BM25 and vector indexes) :func:`index_ready` found stored before the
#: ``since`` of :func:`counting_prior_hits`, in this process, until :func:`take_prior_indexes` reads them
_PRIOR_INDEXES: list[str] = []


def take_prior_indexes() -> list[str]:
    """The kinds of the indexes found cached from before the measured work since the last call (and forget them):
    work a cold world would have done, whose cold cost this process did not see."""
    out = list(_PRIOR_INDEXES)
    _PRIOR_INDEXES.clear()
    return out


#: Shards this process verified, by (folder, shard, dtype): the identity of their files then (see
#: :func:`_shard_signature`) and the arrays loaded. Verifying reads and hashes every byte of a shard; a process
#: that opens the same cache for each system and variant of an experiment would redo it on every search. A shard
#: is content-addressed (its name is the hash of its keys) and written by atomic renames, so files with the
#: identity they had when verified hold the bytes verified; any rename over them (another process rewriting the
#: shard), truncation or edit changes that identity and the shard is verified again.
_VERIFIED: dict[tuple[str, str, str], tuple[tuple, tuple[np.ndarray, np.ndarray, bool]]] = {}

#: Seconds a shard's files must have stood unchanged before a verification is remembered: an edit within the
#: file system's timestamp granularity (a few ms, coarser on some) of the last write would keep the mtime.
_SETTLE_S = 2.0


def _shard_signature(folder: Path, shard: str) -> tuple | None:
    """(device, inode, size, mtime_ns, ctime_ns) of each of a shard's files, None when one cannot be read."""
    out = []
    for sfx in (".keys.npy", ".sum.json", ".vec.npy", ".off.npy"):
        try:
            st = os.stat(folder / f"{shard}{sfx}")
        except OSError:
            return None
        out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


def _settled(sig: tuple) -> bool:
    """Whether every file of a signature was last changed at least :data:`_SETTLE_S` ago (by this clock)."""
    newest = max(max(f[3], f[4]) for f in sig) / 1e9
    return time.time() - newest >= _SETTLE_S


class EmbeddingCache:
    """Vectors of texts under one model id, stored in append-only, checksummed shards.

    ``get(texts)`` returns what is cached; ``put(texts, arrays)`` writes one new shard. ``arrays[i]`` is either a
    1-D vector or a 2-D ``(rows, dim)`` block (token vectors); ``get`` gives back the same shape. A shard is
    verified against its ``.sum.json`` the first time one of its texts is looked up in this process (any instance: a
verification is remembered while the shard's files keep their identity); a damaged shard is dropped
    (a warning names it) and its texts look uncached, so callers recompute them.
    """

    #: ``path`` opens an existing folder directly (``hcrbench cache verify``); ``scan=False`` reads nothing yet.
    def __init__(self, model_id: str, root: str | Path | None = None, *, dtype: str = "float32",
                 path: str | Path | None = None, scan: bool = True) -> None:
        self.model_id = model_id
        self.dtype = np.dtype(dtype)
        digest = hashlib.sha256(f"{model_id}|{self.dtype.str}".encode()).hexdigest()[:16]
        default = cache_root(root) / "embeddings" / f"{_slug(model_id)}-{digest}"
        self.path = Path(path) if path is not None else default
        self.unwritable = False  # set when a write failed (disk full, read-only): later puts are skipped
        self._index: dict[bytes, tuple[str, int]] = {}
        self._shards: dict[str, tuple[np.ndarray, np.ndarray, bool] | None] = {}
        self._scanned: set[str] = set()
        self._stored_at: dict[str, float] = {}
        if scan:
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
            self._scanned.add(shard)
            try:
                keys = np.load(keys_file, allow_pickle=False)
                if keys.ndim != 2 or keys.shape[1] != 32 or keys.dtype != np.uint8:
                    raise ValueError(f"keys have shape {keys.shape} and dtype {keys.dtype}")
            except (OSError, ValueError, EOFError) as e:
                self._drop(shard, f"unreadable keys: {e}")
                continue
            for row, k in enumerate(keys):
                self._index.setdefault(bytes(k), (shard, row))

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, text: str) -> bool:
        return text_digest(text) in self._index

    def shard_names(self) -> list[str]:
        """Names of the committed shards on disk (those with a ``.keys.npy``)."""
        if not self.path.is_dir():
            return []
        return sorted(f.name[: -len(".keys.npy")] for f in self.path.glob("*.keys.npy"))

    def check_shard(self, shard: str) -> str | None:
        """Why ``shard`` cannot be trusted, or None when its files match their checksums, shapes and dtype."""
        base = self.path / shard
        try:
            meta = read_json(self.path / f"{shard}.sum.json")
        except FileNotFoundError:
            return "no checksum file (written by an older hcrbench, or half copied)"
        except (OSError, ValueError) as e:
            return f"unreadable checksum file: {e}"
        try:
            for part in ("vec", "off", "keys"):
                f = Path(f"{base}.{part}.npy")
                want = meta["files"][part]
                if not f.is_file():
                    return f"{f.name} is missing"
                size = f.stat().st_size
                if size != want["size"]:
                    return f"{f.name} has {size} bytes, {want['size']} were written"
                if file_digest(f, meta.get("checksum", "blake2b-128")) != want["digest"]:
                    return f"{f.name} does not match its checksum"
            vec = np.load(f"{base}.vec.npy", mmap_mode="r", allow_pickle=False)
            off = np.load(f"{base}.off.npy", allow_pickle=False)
            if vec.dtype != self.dtype or list(vec.shape) != meta["shape"] or meta["dtype"] != self.dtype.str:
                return f"vectors are {vec.dtype} {list(vec.shape)}, expected {self.dtype} {meta['shape']}"
            n = meta["n_texts"]
            if off.shape != (n + 1,) or (n and (off[0] != 0 or off[-1] != vec.shape[0] or np.any(np.diff(off) < 0))):
                return "offsets do not match the vectors"
            if vec.size and not np.isfinite(vec).all():
                return "non-finite values in the vectors"
        except (KeyError, TypeError) as e:
            return f"checksum file lacks {e}"
        except (OSError, ValueError, EOFError) as e:
            return f"unreadable: {e}"
        return None

    def _drop(self, shard: str, reason: str) -> None:
        warn_damaged(self.path / shard, reason)
        self.remove_shard(shard)

    def remove_shard(self, shard: str) -> None:
        """Delete a shard's files (keys first, so no reader sees it as committed) and forget its texts."""
        _VERIFIED.pop((str(self.path), shard, self.dtype.str), None)
        _remove(self.path / f"{shard}{sfx}" for sfx in _SHARD_SUFFIXES)
        self._index = {k: v for k, v in self._index.items() if v[0] != shard}
        self._shards[shard] = None

    def _load_shard(self, shard: str) -> tuple[np.ndarray, np.ndarray, bool] | None:
        if shard in self._shards:
            return self._shards[shard]
        key = (str(self.path), shard, self.dtype.str)
        sig = _shard_signature(self.path, shard)
        seen = _VERIFIED.get(key)
        if sig is not None and seen is not None and seen[0] == sig:
            got = self._shards[shard] = seen[1]
            return got
        _VERIFIED.pop(key, None)
        reason = self.check_shard(shard)
        if reason is not None:
            self._drop(shard, reason)
            return None
        vec = np.load(self.path / f"{shard}.vec.npy", mmap_mode="r", allow_pickle=False)
        off = np.load(self.path / f"{shard}.off.npy", allow_pickle=False)
        single = (self.path / f"{shard}.single").exists()
        got = self._shards[shard] = (vec, off, single)
        if sig is not None and sig == _shard_signature(self.path, shard) and _settled(sig):
            _VERIFIED[key] = (sig, got)
        return got

    def lookup(self, digest: bytes) -> np.ndarray | None:
        """The cached array of one text digest, or None (also when its shard turned out damaged)."""
        loc = self._index.get(digest)
        if loc is None:
            return None
        shard, row = loc
        got = self._load_shard(shard)
        if got is None:
            return None
        vec, off, single = got
        block = np.asarray(vec[int(off[row]) : int(off[row + 1])])
        return block[0] if single else block

    def stored_before(self, digest: bytes, since: float) -> bool:
        """Whether the shard that holds ``digest`` was committed before ``since`` (epoch seconds)."""
        loc = self._index.get(digest)
        if loc is None:
            return False
        shard = loc[0]
        if shard not in self._stored_at:
            try:
                self._stored_at[shard] = (self.path / f"{shard}.keys.npy").stat().st_mtime
            except OSError:
                self._stored_at[shard] = float("inf")
        return self._stored_at[shard] < since

    def get(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """For each text, its cached array or None."""
        return [self.lookup(text_digest(t)) for t in texts]

    # -- writing -----------------------------------------------------------------------------------------
    def put(self, texts: Sequence[str], arrays: Sequence[np.ndarray]) -> None:
        """Store ``arrays[i]`` as the vectors of ``texts[i]`` (one new shard, written atomically).

        Arrays with non-finite values are not stored (a warning says how many): they would poison every later run.
        """
        if len(texts) != len(arrays):
            raise ValueError("put: texts and arrays differ in length")
        blocks = [np.atleast_2d(np.asarray(a, dtype=self.dtype)) for a in arrays]
        keep = [i for i, b in enumerate(blocks) if np.isfinite(b).all()]
        if len(keep) < len(blocks):
            warnings.warn(f"cache: {len(blocks) - len(keep)} of {len(blocks)} arrays from {self.model_id} have "
                          "non-finite values; not caching them", HcrbenchWarning, stacklevel=2)
        if not keep:
            return
        texts = [texts[i] for i in keep]
        single = all(np.asarray(arrays[i]).ndim == 1 for i in keep)
        blocks = [blocks[i] for i in keep]
        digests = [text_digest(t) for t in texts]
        lengths = [b.shape[0] for b in blocks]
        off = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        vec = np.concatenate(blocks, axis=0)
        keys = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(digests), 32)
        shard = hashlib.sha256(keys.tobytes()).hexdigest()[:24]
        files = {"vec": _npy_bytes(vec), "off": _npy_bytes(off), "keys": _npy_bytes(keys)}
        meta = {"checksum": CHECKSUM, "n_texts": len(texts), "shape": list(vec.shape), "dtype": self.dtype.str,
                "files": {k: {"size": len(b), "digest": bytes_digest(b)} for k, b in files.items()}}
        if self.unwritable:
            return
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            if not (self.path / "model.json").exists():
                atomic_write_text(self.path / "model.json",
                                  json.dumps({"model_id": self.model_id, "dtype": self.dtype.str}) + "\n")
            atomic_write_bytes(self.path / f"{shard}.vec.npy", files["vec"])
            atomic_write_bytes(self.path / f"{shard}.off.npy", files["off"])
            if single:
                atomic_write_bytes(self.path / f"{shard}.single", b"")
            atomic_write_text(self.path / f"{shard}.sum.json", json.dumps(meta, sort_keys=True) + "\n")
            atomic_write_bytes(self.path / f"{shard}.keys.npy", files["keys"])  # the commit marker: last
        except (OSError, InputError) as e:  # disk full, read-only: keep computing, stop caching
            with contextlib.suppress(OSError):
                _remove(self.path / f"{shard}{sfx}" for sfx in _SHARD_SUFFIXES)
            self.unwritable = True
            warn_unwritable(self.path, e)
            return
        self._shards.pop(shard, None)
        for row, d in enumerate(digests):
            self._index.setdefault(d, (shard, row))
        self._scanned.add(shard)

    def clear(self) -> None:
        """Delete every shard of this model id."""
        shutil.rmtree(self.path, ignore_errors=True)
        for key in [k for k in _VERIFIED if k[0] == str(self.path)]:
            del _VERIFIED[key]
        self._index.clear()
        self._shards.clear()
        self._scanned.clear()


def index_dir(kind: str, key: Any, root: str | Path | None = None) -> Path:
    """The folder a built index of ``kind`` with inputs ``key`` lives in (it may not exist yet)."""
    full = {"key": key, "schema": INDEX_KEY_SCHEMA, "versions": _key_versions()}
    return cache_root(root) / "indexes" / _slug(kind) / key_hash(full)[:32]


def _index_files(folder: Path) -> list[Path]:
    skip = {"key.json", "checksums.json"}
    return sorted(p for p in folder.rglob("*") if p.is_file() and not (p.parent == folder and p.name in skip))


def check_index(folder: str | Path) -> str | None:
    """Why the index in ``folder`` cannot be trusted, or None when every file matches ``checksums.json``."""
    folder = Path(folder)
    try:
        meta = read_json(folder / "checksums.json")
        want = meta["files"]
    except FileNotFoundError:
        return "no checksum file (written by an older hcrbench, or half copied)"
    except (OSError, ValueError, KeyError, TypeError) as e:
        return f"unreadable checksum file: {e}"
    have = {p.relative_to(folder).as_posix(): p for p in _index_files(folder)}
    for name in sorted(set(want) - set(have)):
        return f"{name} is missing"
    for name in sorted(set(have) - set(want)):
        return f"{name} was not written with the index"
    for name, p in sorted(have.items()):
        try:
            size = p.stat().st_size
            if size != want[name]["size"]:
                return f"{name} has {size} bytes, {want[name]['size']} were written"
            if file_digest(p, meta.get("checksum", "blake2b-128")) != want[name]["digest"]:
                return f"{name} does not match its checksum"
        except (OSError, KeyError, TypeError, ValueError) as e:
            return f"{name}: {e}"
    return None


def index_ready(kind: str, key: Any, root: str | Path | None = None) -> Path | None:
    """The folder of a complete, verified cached index, or None when it must be (re)built.

    A folder whose files do not match their checksums is removed with a warning, so the caller rebuilds it.
    """
    d = index_dir(kind, key, root)
    if not (d / "key.json").is_file():
        return None
    reason = check_index(d)
    if reason is not None:
        warn_damaged(d, reason)
        shutil.rmtree(d, ignore_errors=True)
        return None
    if _PRIOR_BEFORE is not None:
        with contextlib.suppress(OSError):
            if (d / "key.json").stat().st_mtime < _PRIOR_BEFORE:
                _PRIOR_INDEXES.append(kind)
    return d


def save_index(kind: str, key: Any, writer, root: str | Path | None = None) -> Path:
    """Build a cached index atomically: ``writer(tmp_dir)`` fills a temp folder, which is then renamed.

    The folder only appears complete (with ``checksums.json`` of every file, then ``key.json``) or not at all, so
    an interrupted save is rebuilt and a damaged one is detected by :func:`index_ready`. The rename happens under
    an exclusive lock on the entry (:func:`entry_lock`): when another process finished the same entry
    first and it verifies, that one is kept and this copy dropped, so a reader never sees a folder being
    replaced. A write the machine refuses (disk full, read-only cache) leaves nothing behind and only warns:
    the caller has the index in memory and goes on uncached (the returned folder then does not exist).
    """
    final = index_dir(kind, key, root)
    tmp: Path | None = None
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
        writer(tmp)
        files = {p.relative_to(tmp).as_posix(): {"size": p.stat().st_size, "digest": file_digest(p)}
                 for p in _index_files(tmp)}
        (tmp / "checksums.json").write_text(json.dumps({"checksum": CHECKSUM, "files": files}, sort_keys=True)
                                            + "\n", encoding="utf-8")
        (tmp / "key.json").write_text(json.dumps(key, sort_keys=True, default=str) + "\n", encoding="utf-8")
        with entry_lock(final):
            if (final / "key.json").is_file() and check_index(final) is None:
                shutil.rmtree(tmp, ignore_errors=True)  # another process saved the same entry first
                return final
            if final.exists():
                shutil.rmtree(final, ignore_errors=True)
            os.replace(tmp, final)
    except (OSError, RuntimeError, WriteError) as e:  # faiss reports a failed write as RuntimeError
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        # Every OSError here is the cache's: the writer writes only into tmp. numpy reports a short write (a disk
        # that filled up mid-file) as a bare OSError("N requested and M written") with no errno.
        if isinstance(e, RuntimeError) and not _looks_like_disk(str(e)):
            raise
        warn_unwritable(final, e)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


#: errno values of a write the machine refused (the run goes on without caching).
_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO, errno.EFBIG,
                errno.ENOTDIR}


def _looks_like_disk(message: str) -> bool:
    m = message.lower()
    return any(w in m for w in ("no space", "read-only", "permission denied", "disk", "write", "fwrite"))


@contextlib.contextmanager
def entry_lock(folder: Path):
    """An exclusive lock on one index entry (``<cache>/.locks/<kind>-<name>.lock``), held while it is replaced.

    ``flock`` is released by the kernel when the process dies, so a killed writer never leaves it locked.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock (the rename below is still atomic)
        yield
        return
    locks = folder.parents[2] / ".locks"
    locks.mkdir(exist_ok=True)
    fd = os.open(locks / f"{folder.parent.name}-{folder.name}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def missing_positions(cached: Iterable[np.ndarray | None]) -> list[int]:
    """Positions whose cache lookup came back empty."""
    return [i for i, a in enumerate(cached) if a is None]
