"""A step's result kept in its output folder and reused when nothing it reads has changed (a warm re-run).

Context selection, the gate and the tree metrics are deterministic functions of what they read: the config, the
dataset, the runs, the files the systems left in ``logs/``, and hcrbench's own code. After computing one, the
runner writes ``OUT/memo/<step>.json``::

    {"schema": 1, "step": ..., "key": <sha256 of every input>, "doc": <the result>, "doc_sha256": ...,
     "timings": <seconds it took then>, "files": {<path in OUT>: <sha256>, ...}}

and the next run in the same folder uses ``doc`` instead of recomputing only when **all** of these hold: the key
is the one it computes now, ``doc`` still hashes to ``doc_sha256``, and every file the step wrote (``files``, e.g.
``contexts/<system>.jsonl``) is still there with its hash. The key is the SHA-256 of a canonical JSON of the step's
inputs (the parsed config, the dataset as loaded (:func:`data_digest`), a digest of every run's entries, the hashes of the files it
reads), the SHA-256 of every file of the installed hcrbench package (:func:`code_fingerprint`: any change to the
code, not only a new version, recomputes), and the versions of the packages that matter for results. Anything
else recomputes, and a memo that cannot be read or fails its hash is named in one warning and recomputed.

A computed result is handed on as its JSON round trip, exactly as a reused one is, so a warm run behaves as the cold
one did. ``HCRBENCH_MEMO=0`` turns reuse off (every step recomputes and rewrites its memo).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.hashing import sha256_file
from hcrbench.data.structured import read_json
from hcrbench.errors import HcrbenchWarning

MEMO_DIR = "memo"
MEMO_SCHEMA = 1


def memo_enabled() -> bool:
    """False when ``HCRBENCH_MEMO`` is ``0`` / ``false`` / ``no`` / ``off``."""
    return os.environ.get("HCRBENCH_MEMO", "1").strip().lower() not in {"0", "false", "no", "off"}


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 over every file of the installed hcrbench package (relative path and bytes; caches excluded)."""
    import hcrbench

    root = Path(hcrbench.__file__).resolve().parent
    h = hashlib.sha256(b"hcrbench.code/1\n")
    for p in sorted(root.rglob("*")):
        if not p.is_file() or "__pycache__" in p.parts or p.suffix in {".pyc", ".pyo"}:
            continue
        rel = p.relative_to(root).as_posix().encode("utf-8")
        data = p.read_bytes()
        h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def run_digest(run: Any) -> str:
    """SHA-256 of a run's (or qrels') content: name, query ids, offsets, doc codes, values, doc vocabulary."""
    import numpy as np

    h = hashlib.sha256(b"hcrbench.ragged/1\n")
    for text in (run.name, *run.query_ids, "\x00", *run.doc_vocab):
        b = str(text).encode("utf-8", "surrogatepass")
        h.update(len(b).to_bytes(8, "little") + b)
    values = run.scores if hasattr(run, "scores") else run.grades
    for arr in (run.offsets, run.doc_index, values):
        a = np.ascontiguousarray(arr)
        h.update(f"{a.dtype.str}{a.shape}".encode() + a.tobytes())
    return h.hexdigest()


def data_digest(data: Any) -> str:
    """SHA-256 of an experiment's data as held in memory: the split's content key (its files' hashes), the
    qrels' entries, and every document's and query's id, text, title and metadata (what a step may read)."""
    h = hashlib.sha256(b"hcrbench.data/1\n")
    h.update(f"{data.key}\n{run_digest(data.qrels)}\n".encode())
    c, q = (data.split_corpus() if hasattr(data, "split_corpus") else data.corpus), data.queries
    for part in (c.doc_ids, c.texts, c.titles, q.query_ids, q.texts):
        for text in part:
            b = str(text).encode("utf-8", "surrogatepass")
            h.update(len(b).to_bytes(8, "little") + b)
        h.update(b"\x00" + len(part).to_bytes(8, "little"))
    for meta in (c.metadata, q.metadata):
        h.update(json.dumps(meta, sort_keys=True, default=str, allow_nan=True).encode("utf-8"))
    return h.hexdigest()


def file_sha(path: Path) -> str | None:
    """SHA-256 of a file, None when it does not exist."""
    return sha256_file(path) if path.is_file() else None


#: Packages beyond the manifest's whose version can change a step's result (TF-IDF passage scores).
EXTRA_PACKAGES = ("scikit-learn",)


@functools.lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    """Python's and the result-relevant packages' versions (the manifest's list and :data:`EXTRA_PACKAGES`)."""
    from hcrbench.experiment.manifest import package_versions

    return package_versions(EXTRA_PACKAGES)


def memo_key(step: str, inputs: Any) -> str:
    """The key of ``step`` for ``inputs`` (JSON-able), the code and the package versions."""
    blob = json.dumps({"schema": MEMO_SCHEMA, "step": step, "inputs": inputs, "code": code_fingerprint(),
                       "versions": versions()}, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _doc_sha(doc: Any) -> str:
    return hashlib.sha256(json.dumps(doc, allow_nan=True).encode("utf-8")).hexdigest()


def round_trip(doc: Any) -> Any:
    """``doc`` as a reused memo gives it back (JSON round trip; order kept, NaN kept)."""
    return json.loads(json.dumps(doc, allow_nan=True))


def _path(out: Path, step: str) -> Path:
    return out / MEMO_DIR / f"{step.replace(':', '-').replace('/', '-')}.json"


#: Steps served from a memo in this process, per output folder (the runner records them in the manifest).
_REUSED: dict[str, list[str]] = {}


def take_reused(out: Path) -> list[str]:
    """The steps served from ``out``'s memo since the last call (and forget them)."""
    return _REUSED.pop(str(Path(out).resolve()), [])


def recall(out: Path, step: str, key: str) -> dict[str, Any] | None:
    """``{"doc", "timings"}`` of the memo of ``step`` in ``out`` when it may be reused for ``key``, else None.
    ``timings`` are the seconds the computation took when it ran."""
    hit = _recall(out, step, key)
    if hit is not None:
        _REUSED.setdefault(str(Path(out).resolve()), []).append(step)
    return hit


def _recall(out: Path, step: str, key: str) -> dict[str, Any] | None:
    p = _path(out, step)
    if not memo_enabled() or not p.is_file():
        return None
    try:
        entry = read_json(p)
        if entry.get("schema") != MEMO_SCHEMA or entry.get("key") != key:
            return None  # the inputs (or the code) changed: recompute, as expected
        if _doc_sha(entry["doc"]) != entry["doc_sha256"]:
            raise ValueError("its result does not match its hash")
        for rel, sha in entry["files"].items():
            f = out / rel
            if not f.is_file() or sha256_file(f) != sha:
                return None  # a file the step wrote is gone or changed: recompute and rewrite it
        return {"doc": entry["doc"], "timings": entry.get("timings", {})}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        warnings.warn(f"memo: {p} is damaged ({e}); not using it, recomputing", HcrbenchWarning, stacklevel=2)
        return None


def remember(out: Path, step: str, key: str, doc: Any, timings: dict[str, Any] | None = None,
             files: Iterable[Path] = ()) -> None:
    """Write the memo of ``step`` (after the files it lists: they are hashed as they are now)."""
    entry = {"schema": MEMO_SCHEMA, "step": step, "key": key, "doc": doc, "doc_sha256": _doc_sha(doc),
             "timings": timings or {},
             "files": {Path(f).relative_to(out).as_posix(): sha256_file(f) for f in sorted(files)}}
    p = _path(out, step)
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(p, json.dumps(entry, allow_nan=True) + "\n")


def forget(out: Path, step: str) -> None:
    """Remove the memo of ``step`` (its result is no longer what the folder holds)."""
    _path(out, step).unlink(missing_ok=True)
