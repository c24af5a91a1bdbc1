"""Integrity: bind an experiment's scores to SHA-256 hashes of what they were measured on, and check them later.

``lock_experiment(DIR)`` writes ``DIR/hcrbench.lock`` (JSON, no timestamp, so the same directory gives the same
bytes): the SHA-256 of every dataset file named in ``manifest.json`` (``dataset.files``, paths relative to the
dataset folder) and of every file in DIR that hcrbench wrote (lock version 2: config, manifest, scores, runs,
``per_query.parquet``, ``gate.json``, ``verdicts.json``, ``tree_metrics.json``, logs, the report, ...; not the lock
itself, the folder's busy file, the dataset's own folder when it lives inside DIR, nor the entries the ownership
marker lists as not hcrbench's); the stored means; the hcrbench version and git commit. A version-1 lock (older
hcrbench: config, manifest, eval.json and runs only) is still verified on its own list, with a note. ``verify_experiment(DIR)`` recomputes every hash *and* re-evaluates every
run against the dataset qrels with the manifest's metrics, comparing with ``eval.json`` (tolerance 1e-12).
Each drift is one line naming the file; an empty list means the experiment is intact. Exit codes of ``hcrbench
verify``: 1 for any drift, a damaged (unparseable) manifest or lock included; 2 only when DIR is not a folder or
holds no lock. Code drift (another hcrbench version or
commit) is reported as a note, not a failure, unless ``strict_code`` — the re-evaluation is what guards scores.

Test-split lock: ``declare_test_locked`` records a dataset split (fingerprint: SHA-256 of its qrels file) in a
registry (``$HCRBENCH_HOME/locked_tests.json``, default ``~/.hcrbench``); ``check_test_split`` raises
:class:`InputError` when a runner is about to score a locked split again without ``force_test``.
Threat model as falsify-eval's: this catches accidental drift, not an adversary who rewrites the lock too.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.display import ResultDisplay
from hcrbench.data.hashing import sha256_file
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError

LOCK_NAME = "hcrbench.lock"
LOCK_VERSION = 2
TOLERANCE = 1e-12


def git_commit(path: str | Path | None = None) -> str | None:
    """HEAD commit of the git checkout holding ``path`` (default: the hcrbench package), or None."""
    where = Path(path) if path is not None else Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("hcrbench")
    except Exception:  # pragma: no cover - not installed
        import hcrbench

        return getattr(hcrbench, "__version__", "unknown")


def _read_json(path: Path, field: str | None = None) -> dict[str, Any]:
    if not path.is_file():
        raise InputError("file not found", path=path, field=field)
    try:
        obj = read_json(path)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON ({e.msg})", path=path, line=e.lineno) from None
    if not isinstance(obj, dict):
        raise InputError("expected a JSON object", path=path, line=1)
    return obj


def dataset_dir(exp_dir: Path, manifest: dict[str, Any]) -> Path:
    """The dataset folder of the manifest, wherever the experiment folder now lives.

    Candidates, in order: ``dataset.path_from_output`` (the dataset relative to the experiment folder, so a folder
    moved or copied together with its dataset, or holding it, finds it), ``dataset.path`` relative to the folder,
    ``dataset.path`` as written (absolute, or relative to the cwd). When several exist and differ, the dataset is
    identified by content: the first whose files all have the manifest's SHA-256; else the first that exists
    (its differences are then reported as drift)."""
    ds = manifest.get("dataset")
    if not isinstance(ds, dict) or not isinstance(ds.get("path"), str):
        raise InputError("missing dataset.path", path=exp_dir / "manifest.json", field="dataset.path")
    p = Path(ds["path"])
    rel = ds.get("path_from_output")
    if not isinstance(rel, str) or not rel:
        rel = _path_from_old_output(manifest, p)
    candidates = [exp_dir / rel] if rel else []
    if not p.is_absolute():
        candidates.append(exp_dir / p)
    candidates.append(p)
    found: list[Path] = []
    for c in candidates:
        if c.is_dir() and all(c.resolve() != f.resolve() for f in found):
            found.append(c)
    if len(found) > 1:
        files = ds.get("files") if isinstance(ds.get("files"), dict) else {}
        for c in found:
            if files and all((c / rel).is_file() and sha256_file(c / rel) == h for rel, h in files.items()):
                return c
    return found[0] if found else p


def _path_from_old_output(manifest: dict[str, Any], ds: Path) -> str | None:
    """For a manifest without ``path_from_output`` (older hcrbench): the dataset relative to where the output
    folder was (the config's folder and ``output_dir``), when both are absolute."""
    import os

    conf = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
    config_path = manifest.get("config_path")
    if not isinstance(config_path, str) or not Path(config_path).is_absolute() or not ds.is_absolute():
        return None
    out = Path(str(conf.get("output_dir") or f"runs/{manifest.get('name')}")).expanduser()
    out = out if out.is_absolute() else Path(config_path).parent / out
    try:
        return os.path.relpath(os.path.normpath(ds), os.path.normpath(out))
    except ValueError:
        return None


def _experiment_files(exp_dir: Path, version: int, ds: Path | None) -> list[str]:
    """The files of the experiment folder a lock of ``version`` covers, as paths relative to it."""
    if version < 2:
        return ["config.toml", "manifest.json", "eval.json",
                *sorted(p.relative_to(exp_dir).as_posix() for p in (exp_dir / "runs").glob("*.trec"))]
    from hcrbench.data.outputs import BUSY, read_marker

    foreign = set((read_marker(exp_dir) or {}).get("foreign") or [])
    ds_real = ds.resolve() if ds is not None else None
    out = []
    for p in sorted(exp_dir.rglob("*")):
        rel = p.relative_to(exp_dir)
        if not p.is_file() or rel.parts[0] in foreign or p.name in (LOCK_NAME, BUSY):
            continue
        if p.name.startswith(".") and p.name.endswith(".tmp"):  # an atomic write in progress
            continue
        if ds_real is not None and ds_real in p.resolve().parents:  # hashed as dataset files
            continue
        out.append(rel.as_posix())
    return out


def _tracked(exp_dir: Path, manifest: dict[str, Any], version: int = LOCK_VERSION,
             extra: tuple[str, ...] = ()) -> tuple[dict[str, str], dict[str, str]]:
    """(experiment files -> sha256, dataset files -> sha256) as found on disk now ('' when missing).

    ``extra``: paths to hash as well (those the lock names, so a deleted file is reported as missing)."""
    ds = dataset_dir(exp_dir, manifest)
    files: dict[str, str] = {}
    for rel in sorted({*_experiment_files(exp_dir, version, ds), *extra}):
        p = exp_dir / rel
        files[rel] = sha256_file(p) if p.is_file() else ""
    data: dict[str, str] = {}
    for rel in sorted((manifest.get("dataset") or {}).get("files") or {}):
        p = ds / rel
        data[rel] = sha256_file(p) if p.is_file() else ""
    return files, data


def _stored_means(exp_dir: Path) -> dict[str, dict[str, float]]:
    ev = _read_json(exp_dir / "eval.json")
    runs = ev.get("runs")
    if not isinstance(runs, dict):
        raise InputError("missing 'runs'", path=exp_dir / "eval.json", field="runs")
    return {name: dict((r or {}).get("means") or {}) for name, r in runs.items()}


@contextlib.contextmanager
def _run_lock(d: Path, *, required: bool):
    """Hold the folder's run lock (``.hcrbench-busy``, :class:`~hcrbench.data.outputs.FolderLock`): a run writing
    the folder makes ``lock`` / ``verify`` stop at once naming it, instead of hashing a half-rewritten folder.
    ``required=False`` (verify): a folder where the lock file cannot be created (read-only) is read unlocked."""
    from hcrbench.data.outputs import FolderBusy, FolderLock

    lock = FolderLock(d, field="DIR")
    try:
        lock.acquire()
    except FolderBusy:
        raise
    except OSError:  # WriteError included: cannot create the lock file
        if required:
            raise
        yield
        return
    try:
        yield
    finally:
        lock.release()


def lock_experiment(exp_dir: str | Path, *, lock_test: bool = False,
                    derived_check: Callable[[Path], list[str]] | None = None) -> dict[str, Any]:
    """Write ``DIR/hcrbench.lock`` and return it; with ``lock_test`` also declare the dataset split locked.

    Refused (one line, exit 2) when a stored number does not re-derive from the runs (:mod:`hcrbench.gate.
    rederive`), when ``derived_check(DIR)`` (a higher stage's: the report) names a file, and while a run holds
    the folder."""
    d = Path(exp_dir)
    if not d.is_dir():
        raise InputError("not a directory", path=d)
    with _run_lock(d, required=True):
        return _lock(d, lock_test, derived_check)


def _lock(d: Path, lock_test: bool, derived_check: Callable[[Path], list[str]] | None) -> dict[str, Any]:
    manifest = _read_json(d / "manifest.json")
    status = manifest.get("status") if isinstance(manifest, dict) else None
    if status != "complete":
        raise InputError(f"the experiment is not complete (status {status!r}); finish it with 'hcrbench run' "
                         "before locking", path=d / "manifest.json", field="status")
    files, data = _tracked(d, manifest)
    for rel, h in {**files, **{f"dataset:{k}": v for k, v in data.items()}}.items():
        if not h:
            raise InputError("file named by the experiment is missing", path=d / rel if ":" not in rel else rel)
    from hcrbench.gate.rederive import rederive

    wrong = rederive(d, manifest, dataset_dir(d, manifest))
    if wrong:
        raise InputError(f"{len(wrong)} stored value(s) do not match a re-evaluation of the runs: "
                         f"{'; '.join(wrong[:3])}{'; ...' if len(wrong) > 3 else ''}; "
                         "a lock would vouch for them: run 'hcrbench run' again to rewrite them, then lock",
                         path=d)
    edited = derived_check(d) if derived_check is not None else []
    if edited:
        how = "'hcrbench run' again" if "eval.json" in edited[0].split(":", 1)[0] else f"'hcrbench report {d}'"
        raise InputError(f"{edited[0]}; a lock would vouch for it: run {how} to rewrite it, then lock")
    ds = manifest["dataset"]
    lock = {"version": LOCK_VERSION, "hcrbench_version": _version(), "git_commit": git_commit(),
            "dataset": {"path": ds.get("path"), "split": ds.get("split"), "files": data},
            "files": files, "means": _stored_means(d), "test_locked": bool(lock_test)}
    from hcrbench.data import atomic_write_text

    atomic_write_text(d / LOCK_NAME, json.dumps(lock, indent=2, sort_keys=True) + "\n")
    if lock_test:
        declare_test_locked(d)
    return lock


@dataclass
class VerifyReport(ResultDisplay):
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_experiment(exp_dir: str | Path, *, strict_code: bool = False, reevaluate: bool = True,
                      derived_check: Callable[[Path], list[str]] | None = None) -> VerifyReport:
    """Recompute hashes and re-evaluate stored scores; one line per drift in ``problems``.

    Raises :class:`InputError` (exit 2) only when ``exp_dir`` is not a folder or holds no lock; a damaged lock or
    manifest is a drift like any other (exit 1).
    """
    d = Path(exp_dir)
    if not d.is_dir():
        raise InputError("not a directory", path=d)
    if not (d / LOCK_NAME).is_file():
        raise InputError("no lock here; run 'hcrbench lock DIR' first", path=d / LOCK_NAME)
    with _run_lock(d, required=False):
        rep = _verify(d, strict_code, reevaluate)
        if reevaluate and derived_check is not None:
            rep.problems.extend(p for p in derived_check(d) if p not in rep.problems)
        return rep


def _verify(d: Path, strict_code: bool, reevaluate: bool) -> VerifyReport:
    rep = VerifyReport()
    try:
        lock = _read_json(d / LOCK_NAME)
    except InputError as e:
        rep.problems.append(f"{e} (the lock itself is damaged)")
        return rep
    version = lock.get("version", 1) if isinstance(lock.get("version", 1), int) else 1
    if version < 2:
        rep.notes.append("the lock was written by an older hcrbench and covers config.toml, manifest.json, "
                         "eval.json and runs/*.trec only; run 'hcrbench lock' again to cover every file")
    locked_files = lock.get("files") if isinstance(lock.get("files"), dict) else {}
    try:
        manifest = _read_json(d / "manifest.json")
        files, data = _tracked(d, manifest, version, tuple(locked_files))
    except InputError as e:
        rep.problems.append(str(e))
        for rel in sorted(locked_files):  # still name every file that changed
            p = d / rel
            _compare(rep, str(p), locked_files.get(rel), sha256_file(p) if p.is_file() else "")
        return rep
    status = manifest.get("status")
    if status != "complete":  # a run stopped before it finished (its report, say) left this folder
        rep.problems.append(f"{d / 'manifest.json'}: status {status!r}, not 'complete': a run into this folder "
                            "did not finish; run 'hcrbench run' again to finish it")
    for rel in sorted(set(locked_files) | set(files)):
        _compare(rep, str(d / rel), locked_files.get(rel), files.get(rel))
    ds = dataset_dir(d, manifest)
    locked_data = (lock.get("dataset") or {}).get("files") or {}
    for rel in sorted(set(locked_data) | set(data)):
        _compare(rep, str(ds / rel), locked_data.get(rel), data.get(rel))
    for key, now in (("hcrbench_version", _version()), ("git_commit", git_commit())):
        if lock.get(key) != now:
            msg = f"{key}: locked {lock.get(key)}, now {now}"
            (rep.problems if strict_code else rep.notes).append(msg)
    try:
        stored = _stored_means(d)
    except InputError as e:
        rep.problems.append(str(e))
        return rep
    for run, means in (lock.get("means") or {}).items():
        for m, v in means.items():
            now = stored.get(run, {}).get(m)
            if now is None or abs(float(now) - float(v)) > TOLERANCE:
                rep.problems.append(f"{d / 'eval.json'}: {run} {m}: locked mean {v!r}, stored now {now!r}")
    if reevaluate:
        _reevaluate(rep, d, manifest, ds, stored)
        if version >= 2:  # per-query values, intervals, p values, per-query tables (gate.rederive)
            from hcrbench.gate.rederive import rederive

            rep.problems.extend(rederive(d, manifest, ds, means=False))
    return rep


def _compare(rep: VerifyReport, where: str, locked: str | None, now: str | None) -> None:
    if locked is None:
        rep.problems.append(f"{where}: not in the lock (added after locking)")
    elif not now:
        rep.problems.append(f"{where}: missing (locked sha256 {locked[:12]})")
    elif locked != now:
        rep.problems.append(f"{where}: sha256 changed (locked {locked[:12]}, now {now[:12]})")


def _reevaluate(rep: VerifyReport, d: Path, manifest: dict[str, Any], ds: Path,
                stored: dict[str, dict[str, float]]) -> None:
    from hcrbench.data import read_qrels, read_run
    from hcrbench.metrics import evaluate

    split = str((manifest.get("dataset") or {}).get("split") or "test")
    qpath = ds / "qrels" / f"{split}.tsv"
    metrics = manifest.get("metrics") or []
    systems = manifest.get("systems") or {}
    if not qpath.is_file() or not metrics or not systems:
        rep.problems.append(f"{d / 'manifest.json'}: cannot re-evaluate (qrels {qpath} / metrics / systems missing)")
        return
    try:
        qrels = read_qrels(qpath)
        for name, info in systems.items():
            run = read_run(d / info["run"], name=name)
            res = evaluate(qrels, {name: run}, metrics, rel_threshold=int(manifest.get("rel_threshold", 1)),
                           missing="zero")
            for m, v in res.means[name].items():
                old = stored.get(name, {}).get(m)
                if old is None or abs(float(old) - float(v)) > TOLERANCE:
                    rep.problems.append(f"{d / 'eval.json'}: {name} {m}: stored {old!r}, re-evaluated {v!r}")
    except (InputError, KeyError, TypeError, ValueError, OSError) as e:
        rep.problems.append(f"{d}: re-evaluation failed: {e}")


# ------------------------------------------------------------------------------------------ test-split lock
# One registry for every way a split gets locked: hcrbench.data.splitlock (the runner reads the same one).


def declare_test_locked(exp_dir: str | Path) -> str:
    """Declare the experiment's dataset split locked (its scoring so far counts as the one look); returns the key."""
    from hcrbench.data import splitlock

    d = Path(exp_dir)
    manifest = _read_json(d / "manifest.json")
    ds = manifest.get("dataset") or {}
    files = dict(ds.get("files") or {})
    split = str(ds.get("split") or "test")
    if not files:
        raise InputError("manifest names no dataset files", path=d / "manifest.json", field="dataset.files")
    key = splitlock.split_key(files, split)
    splitlock.declare_locked(key, split=split, dataset=str(ds.get("path")), files=files, experiment=str(d))
    return key


def check_test_split(exp_dir: str | Path, *, force_test: bool = False) -> None:
    """Raise :class:`InputError` if the experiment's split is locked and was scored, unless ``force_test``."""
    from hcrbench.data import splitlock

    d = Path(exp_dir)
    manifest = _read_json(d / "manifest.json")
    ds = manifest.get("dataset") or {}
    split = str(ds.get("split") or "test")
    key = splitlock.split_key(dict(ds.get("files") or {}), split)
    if splitlock.is_locked(key):
        splitlock.check_unlocked(key, split=split, dataset=str(ds.get("path")), force=force_test,
                                 config_path=d / "manifest.json")
