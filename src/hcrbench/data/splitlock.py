"""Locked test splits: score a held-out split once, and make every further look explicit.

A split is declared locked by a config with ``[dataset] locked = true`` or by ``hcrbench lock DIR --lock-test``
(which marks the experiment's split locked in the registry, so every later config sees it locked). The first time ``hcrbench run``
scores it, the scoring is recorded in a small JSON registry, ``$HCRBENCH_HOME/scored-splits.json`` (default
``~/.hcrbench/scored-splits.json``), keyed by the SHA-256 of the dataset files plus the split name. Any later
attempt to score the same split (same files, any experiment) is refused with a one-line error unless
``--force-test`` is given; forced scorings are recorded too, so the registry tells how often a test split was
looked at. The key is content-based: copying or renaming the dataset folder does not reset the lock.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError

REGISTRY_NAME = "scored-splits.json"


def registry_path() -> Path:
    """``$HCRBENCH_HOME/scored-splits.json``, else ``~/.hcrbench/scored-splits.json``."""
    home = os.environ.get("HCRBENCH_HOME")
    base = Path(home) if home else Path.home() / ".hcrbench"
    return base / REGISTRY_NAME


def split_key(files: dict[str, str], split: str) -> str:
    """Registry key of a split: SHA-256 over the dataset files' hashes (relative path -> sha256) and the split."""
    blob = json.dumps({"files": dict(sorted(files.items())), "split": split}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {"version": 1, "splits": {}}
    try:
        obj = read_json(path)
    except InputError as e:  # syntax, nesting, size, encoding (data.structured)
        raise InputError(f"lock registry is not valid JSON ({e.problem})", path=path, line=e.line) from None
    if not isinstance(obj, dict) or not isinstance(obj.get("splits"), dict):
        raise InputError("lock registry has no 'splits' object", path=path, field="splits")
    return obj


def scorings(key: str) -> list[dict[str, Any]]:
    """Earlier scorings of the split ``key`` (oldest first)."""
    entry = _load(registry_path())["splits"].get(key) or {}
    return list(entry.get("scorings", []))


def is_locked(key: str) -> bool:
    """Whether split ``key`` was declared locked in the registry (``hcrbench lock --lock-test``)."""
    entry = _load(registry_path())["splits"].get(key) or {}
    return bool(entry.get("locked"))


def declare_locked(key: str, *, split: str, dataset: str, files: dict[str, str], experiment: str) -> None:
    """Mark split ``key`` locked; if ``experiment`` scored it, that counts as its one scoring."""
    path = registry_path()
    reg = _load(path)
    entry = reg["splits"].setdefault(key, {"dataset": dataset, "split": split, "files": files, "scorings": []})
    entry["locked"] = True
    if not entry.get("scorings"):
        entry["scorings"] = [{"experiment": experiment, "output_dir": experiment, "systems": [], "forced": False,
                              "time": datetime.now(timezone.utc).isoformat(timespec="seconds")}]
    atomic_write_text(path, json.dumps(reg, indent=2, ensure_ascii=False) + "\n")


def check_unlocked(key: str, *, split: str, dataset: str, force: bool, config_path: str | Path,
                   line: int | None = None) -> None:
    """Refuse (InputError) to score a locked split that was scored before, unless ``force``."""
    if force:
        return
    prior = scorings(key)
    if prior:
        last = prior[-1]
        raise InputError(
            f"split {split!r} of {dataset} is locked and was already scored {len(prior)} time(s), last by "
            f"experiment {last.get('experiment')!r} at {last.get('time')} (registry {registry_path()}); "
            "rerun with --force-test to score it again",
            path=config_path, line=line, field="dataset.locked",
        )


def record_scoring(key: str, *, split: str, dataset: str, files: dict[str, str], experiment: str,
                   output_dir: str | Path, systems: list[str], forced: bool) -> None:
    """Append one scoring of split ``key`` to the registry (atomic rewrite)."""
    path = registry_path()
    reg = _load(path)
    entry = reg["splits"].setdefault(key, {"dataset": dataset, "split": split, "files": files, "scorings": []})
    entry.setdefault("scorings", []).append({
        "experiment": experiment,
        "output_dir": str(output_dir),
        "systems": list(systems),
        "forced": bool(forced),
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    })
    atomic_write_text(path, json.dumps(reg, indent=2, ensure_ascii=False) + "\n")


def annotate_last(key: str, output_dir: str, **fields: Any) -> bool:
    """Add ``fields`` to the newest scoring of split ``key`` by ``output_dir`` (e.g. ``relook=True``: the
    quickstart's ``--relook``); True when one was found (atomic rewrite)."""
    path = registry_path()
    reg = _load(path)
    entry = reg["splits"].get(key) or {}
    mine = [s for s in entry.get("scorings", []) if s.get("output_dir") == str(output_dir)]
    if not mine:
        return False
    mine[-1].update(fields)
    atomic_write_text(path, json.dumps(reg, indent=2, ensure_ascii=False) + "\n")
    return True
