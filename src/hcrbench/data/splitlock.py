"""Locked test splits: score a held-out split once, and make every further look explicit.

A split is declared locked by a config with ``[dataset] locked = true`` or by ``hcrbench lock DIR --lock-test``
(which marks the experiment's split locked in the registry, so every later config sees it locked). The first time ``hcrbench run``
scores it, the scoring is recorded in a small JSON registry, ``$HCRBENCH_HOME/scored-splits.json`` (default
``~/.hcrbench/scored-splits.json``), keyed by the SHA-256 of the dataset files plus the split name. Any later
attempt to score the same split (same files, any experiment) is refused with a one-line error unless
``--force-test`` is given; forced scorings are recorded too, so the registry tells how often a test split was
looked at. The key is content-based: copying or renaming the dataset folder does not reset the lock.

Every change of the registry is one read-modify-write under an exclusive ``flock`` on ``scored-splits.json.lock``
beside it, ending in an atomic rename (:func:`_changing`): concurrent runs never lose a look. A runner claims its
look *before any work* (:func:`claim_look`): the check and the record are one step, so of four concurrent runs on a
locked split exactly one scores and the others are refused at once; a home the registry cannot be written in
(read-only) is refused then too, in one line, rather than leaving a look unrecorded. The claim is confirmed
(:func:`confirm_look`) or withdrawn (:func:`withdraw_look`: the run failed, or reused every score) at the end.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import socket
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError, WriteError

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


@contextlib.contextmanager
def _changing(what: str) -> Iterator[dict[str, Any]]:
    """The registry, read and (when the block ends without an exception) rewritten under an exclusive lock."""
    path = registry_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path.with_name(REGISTRY_NAME + ".lock"), os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as e:
        raise WriteError.from_os(e, path, f"the lock registry ({what}; set HCRBENCH_HOME to a writable "
                                 "folder)") from None
    try:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock (the rename below is still atomic)
            fcntl = None  # type: ignore[assignment]
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        reg = _load(path)
        yield reg
        atomic_write_text(path, json.dumps(reg, indent=2, ensure_ascii=False) + "\n")
    finally:
        os.close(fd)  # closing the descriptor drops the flock


def changing(what: str) -> contextlib.AbstractContextManager[dict[str, Any]]:
    """The whole registry for one read-modify-write under its exclusive lock (``what``: named when it cannot be
    written); other tables than ``splits`` (the quickstart's ``worlds``) are kept as they are."""
    return _changing(what)


def _scoring(experiment: str, output_dir: str | Path, systems: list[str], forced: bool) -> dict[str, Any]:
    return {"experiment": experiment, "output_dir": str(output_dir), "systems": list(systems),
            "forced": bool(forced), "time": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def _refusal(prior: list[dict[str, Any]], split: str, dataset: str, config_path: str | Path,
             line: int | None) -> InputError:
    last = prior[-1]
    return InputError(
        f"split {split!r} of {dataset} is locked and was already scored {len(prior)} time(s), last by "
        f"experiment {last.get('experiment')!r} at {last.get('time')} (registry {registry_path()}); "
        "rerun with --force-test to score it again",
        path=config_path, line=line, field="dataset.locked",
    )


def claim_look(key: str, *, split: str, dataset: str, files: dict[str, str], experiment: str,
               output_dir: str | Path, force: bool, config_path: str | Path, line: int | None = None) -> str:
    """Before any work: refuse (InputError) a locked split scored before unless ``force``, else record this look
    at once (``"pending": true``), in one locked step; returns the claim's token for :func:`confirm_look` /
    :func:`withdraw_look`. A registry that cannot be written is a one-line WriteError now."""
    token = secrets.token_hex(8)
    with _changing("a look at a locked split is recorded before any work") as reg:
        entry = reg["splits"].setdefault(key, {"dataset": dataset, "split": split, "files": files,
                                               "scorings": []})
        # a killed run of this folder left its look pending: resuming the folder continues that look
        resumed = [s for s in entry.get("scorings", []) if interrupted(s, output_dir)]
        prior = [s for s in entry.get("scorings", []) if s not in resumed]
        if prior and not force:
            raise _refusal(prior, split, dataset, config_path, line)
        entry["scorings"] = [*prior, {**_scoring(experiment, output_dir, [], force), "pending": True, "claim": token,
                                      "pid": os.getpid(), "host": socket.gethostname(),
                                      **({"resumes": resumed[0]["time"]} if resumed else {})}]
    _ACTIVE.append({"key": key, "token": token, "scoring": False})
    return token


def process_alive(pid: Any) -> bool:
    """Does process ``pid`` (of this host) still run?"""
    if not isinstance(pid, int) or pid <= 0:
        return False
    if os.name == "nt":  # pragma: no cover - signal 0 is CTRL_C_EVENT there: cannot be asked, taken as running
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def interrupted(scoring: dict[str, Any], output_dir: str | Path) -> bool:
    """Is ``scoring`` a look of ``output_dir`` still pending whose process has ended (killed): a run of the same
    folder resumes it rather than taking a second look? Another host's, or one without a process id, is not."""
    return bool(scoring.get("pending")) and scoring.get("output_dir") == str(output_dir) \
        and scoring.get("host") == socket.gethostname() and scoring.get("pid") != os.getpid() \
        and not process_alive(scoring.get("pid"))


#: This process's claims not yet confirmed or withdrawn (its own pending look is not an earlier scoring).
_ACTIVE: list[dict[str, Any]] = []


def scoring_started(key: str) -> None:
    """The claimed look of ``key`` now computes scores: a failure from here on keeps the look recorded."""
    for c in _ACTIVE:
        if c["key"] == key:
            c["scoring"] = True


def finish_look(key: str, *, new_look: bool, systems: list[str]) -> None:
    """End this process's claim of ``key``: confirmed when the run was a new look, else withdrawn."""
    for c in [c for c in _ACTIVE if c["key"] == key]:
        _ACTIVE.remove(c)
        if new_look:
            confirm_look(key, c["token"], systems=systems)
        else:
            withdraw_look(key, c["token"])


def withdrawing(fn: Any) -> Any:
    """Decorate a runner: a claim it made is withdrawn when it fails before any score was computed (nothing was
    looked at), and kept, still pending, when it fails after (a kill -9 keeps it too)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        depth = len(_ACTIVE)
        try:
            return fn(*args, **kwargs)
        finally:
            for c in _ACTIVE[depth:]:
                if not c["scoring"]:
                    with contextlib.suppress(InputError, OSError):
                        withdraw_look(c["key"], c["token"])
            del _ACTIVE[depth:]
    return wrapper


def confirm_look(key: str, token: str, *, systems: list[str]) -> None:
    """The claimed look scored ``systems``: the entry is no longer pending."""
    with _changing("recording the look") as reg:
        for s in (reg["splits"].get(key) or {}).get("scorings", []):
            if s.get("claim") == token:
                s.pop("pending", None)
                s.pop("claim", None)
                s["systems"] = list(systems)


def withdraw_look(key: str, token: str) -> None:
    """The claimed look scored nothing new (the run failed before scoring, or reused every score): drop it."""
    with _changing("withdrawing a look") as reg:
        entry = reg["splits"].get(key) or {}
        entry["scorings"] = [s for s in entry.get("scorings", []) if s.get("claim") != token]


def scorings(key: str) -> list[dict[str, Any]]:
    """Earlier scorings of the split ``key`` (oldest first)."""
    entry = _load(registry_path())["splits"].get(key) or {}
    mine = {c["token"] for c in _ACTIVE}
    return [s for s in entry.get("scorings", []) if s.get("claim") is None or s["claim"] not in mine]


def is_locked(key: str) -> bool:
    """Whether split ``key`` was declared locked in the registry (``hcrbench lock --lock-test``)."""
    entry = _load(registry_path())["splits"].get(key) or {}
    return bool(entry.get("locked"))


def declare_locked(key: str, *, split: str, dataset: str, files: dict[str, str], experiment: str) -> None:
    """Mark split ``key`` locked; if ``experiment`` scored it, that counts as its one scoring."""
    with _changing("declaring the split locked") as reg:
        entry = reg["splits"].setdefault(key, {"dataset": dataset, "split": split, "files": files,
                                               "scorings": []})
        entry["locked"] = True
        if not entry.get("scorings"):
            entry["scorings"] = [_scoring(experiment, experiment, [], False)]


def check_unlocked(key: str, *, split: str, dataset: str, force: bool, config_path: str | Path,
                   line: int | None = None) -> None:
    """Refuse (InputError) to score a locked split that was scored before, unless ``force`` (a read: a runner
    claims its look with :func:`claim_look`, which checks and records in one step)."""
    if force:
        return
    prior = scorings(key)
    if prior:
        raise _refusal(prior, split, dataset, config_path, line)


def record_scoring(key: str, *, split: str, dataset: str, files: dict[str, str], experiment: str,
                   output_dir: str | Path, systems: list[str], forced: bool) -> None:
    """Append one scoring of split ``key`` to the registry (under the registry's lock, atomic rewrite)."""
    with _changing("recording the look") as reg:
        entry = reg["splits"].setdefault(key, {"dataset": dataset, "split": split, "files": files,
                                               "scorings": []})
        entry.setdefault("scorings", []).append(_scoring(experiment, output_dir, systems, forced))


def annotate_last(key: str, output_dir: str, **fields: Any) -> bool:
    """Add ``fields`` to the newest scoring of split ``key`` by ``output_dir`` (e.g. ``relook=True``: the
    quickstart's ``--relook``); True when one was found (under the registry's lock, atomic rewrite)."""
    found = False
    with _changing("annotating the look") as reg:
        entry = reg["splits"].get(key) or {}
        mine = [s for s in entry.get("scorings", []) if s.get("output_dir") == str(output_dir)]
        if mine:
            mine[-1].update(fields)
            found = True
    return found
