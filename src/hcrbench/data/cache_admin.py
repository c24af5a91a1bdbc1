"""Look after a cache folder as a whole: what is in it, is every entry intact, and clear what is not wanted.

The per-entry checks live with the entries (:meth:`EmbeddingCache.check_shard`, :func:`check_index`); this
module walks the folder layout of :mod:`hcrbench.data.cache` and applies them to everything, for
``hcrbench cache info | verify | clear``.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from hcrbench.data.cache import Damage, EmbeddingCache, cache_root, check_index
from hcrbench.data.structured import read_json


@dataclass
class Entry:
    """One cached item: an embedding folder (one model id) or one built index."""

    kind: str  # "embeddings" or the index kind ("bm25", "faiss-flat", "hcr-tree", ...)
    name: str  # model id, or the index's folder name
    path: Path
    size_bytes: int
    items: int  # shards for embeddings, files for an index
    mtime: float
    detail: dict = field(default_factory=dict)


def _size(path: Path) -> tuple[int, int, float]:
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else []
    size = sum(p.stat().st_size for p in files)
    mtime = max((p.stat().st_mtime for p in files), default=path.stat().st_mtime if path.exists() else 0.0)
    return size, len(files), mtime


def _model_of(folder: Path) -> tuple[str, str] | None:
    try:
        meta = read_json(folder / "model.json")
        return str(meta["model_id"]), str(meta.get("dtype", "<f4"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def list_entries(root: str | Path | None = None) -> list[Entry]:
    """Every embedding folder and index folder under the cache root, sorted by kind and name."""
    base = cache_root(root)
    out: list[Entry] = []
    emb = base / "embeddings"
    if emb.is_dir():
        for folder in sorted(p for p in emb.iterdir() if p.is_dir()):
            model = _model_of(folder)
            size, _, mtime = _size(folder)
            shards = len(list(folder.glob("*.keys.npy")))
            out.append(Entry("embeddings", model[0] if model else folder.name, folder, size, shards, mtime,
                             {"dtype": model[1] if model else None}))
    idx = base / "indexes"
    if idx.is_dir():
        for kind_dir in sorted(p for p in idx.iterdir() if p.is_dir()):
            for folder in sorted(p for p in kind_dir.iterdir() if p.is_dir()):
                size, n, mtime = _size(folder)
                out.append(Entry(kind_dir.name, folder.name, folder, size, n, mtime,
                                 {"complete": (folder / "key.json").is_file()}))
    return out


def verify_cache(root: str | Path | None = None, *, repair: bool = False) -> tuple[int, list[Damage]]:
    """Check every shard and index under the cache root; return (entries checked, damage found).

    With ``repair`` the damaged shards and index folders (and half-written temp folders) are deleted, so the
    next run recomputes them.
    """
    damage: list[Damage] = []
    checked = 0
    for e in list_entries(root):
        if e.kind == "embeddings":
            model = _model_of(e.path)
            if model is None:
                damage.append(Damage(e.path, "embeddings", "model.json is missing or unreadable"))
                if repair:
                    shutil.rmtree(e.path, ignore_errors=True)
                continue
            cache = EmbeddingCache(model[0], dtype=model[1], path=e.path, scan=False)
            for orphan in orphaned_files(e.path):
                damage.append(Damage(orphan, "embedding shard", "orphaned partial file (a write that never "
                                     "committed: no .keys.npy beside it, or a temp file)"))
                if repair:
                    orphan.unlink(missing_ok=True)
            for shard in cache.shard_names():
                checked += 1
                reason = cache.check_shard(shard)
                if reason is not None:
                    damage.append(Damage(e.path / shard, "embedding shard", reason))
                    if repair:
                        cache.remove_shard(shard)
            continue
        checked += 1
        if e.name.startswith(".") or not e.detail.get("complete"):
            damage.append(Damage(e.path, f"index {e.kind}", "incomplete (an interrupted build)"))
        else:
            reason = check_index(e.path)
            if reason is None:
                continue
            damage.append(Damage(e.path, f"index {e.kind}", reason))
        if repair:
            shutil.rmtree(e.path, ignore_errors=True)
    return checked, damage


def orphaned_files(folder: Path) -> list[Path]:
    """Files of an embedding folder that belong to no committed shard: a shard's ``.vec.npy`` / ``.off.npy`` /
    ``.sum.json`` / ``.single`` without its ``.keys.npy`` (a put interrupted by a full disk or a kill) and left-over
    temp files (``.NAME.XXXX.tmp``). Runs never read them; ``cache verify`` reports them and ``--repair`` deletes
    them."""
    committed = {p.name[: -len(".keys.npy")] for p in folder.glob("*.keys.npy")}
    out = []
    for p in sorted(folder.iterdir()):
        if not p.is_file() or p.name == "model.json" or p.name.endswith(".keys.npy"):
            continue
        if p.name.startswith(".") and p.name.endswith(".tmp"):
            out.append(p)
            continue
        for sfx in (".vec.npy", ".off.npy", ".sum.json", ".single"):
            if p.name.endswith(sfx) and p.name[: -len(sfx)] not in committed:
                out.append(p)
                break
    return out


def parse_age(text: str) -> float:
    """``"30d"``, ``"12h"``, ``"45m"``, ``"90s"`` or a plain number of days -> seconds."""
    t = text.strip().lower()
    units = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
    mult = units.get(t[-1:])
    num = t[:-1] if mult is not None else t
    try:
        value = float(num)
    except ValueError:
        raise ValueError(f"expected an age like 30d, 12h, 45m or 90s, got {text!r}") from None
    if value < 0:
        raise ValueError(f"age must be >= 0, got {text!r}")
    return value * (mult if mult is not None else 86400.0)


def clear_cache(root: str | Path | None = None, *, model: str | None = None, kind: str | None = None,
                older_than: float | None = None, dry_run: bool = False) -> list[Entry]:
    """Delete entries matching every given filter (all entries when none is given); return what was deleted.

    ``model``: a substring of the embedding model id; ``kind``: ``embeddings`` or an index kind;
    ``older_than``: seconds since the entry was last written.
    """
    now = time.time()
    gone: list[Entry] = []
    for e in list_entries(root):
        if model is not None and (e.kind != "embeddings" or model not in e.name):
            continue
        if kind is not None and e.kind != kind:
            continue
        if older_than is not None and now - e.mtime < older_than:
            continue
        if not dry_run:
            shutil.rmtree(e.path, ignore_errors=True)
        gone.append(e)
    return gone
