"""Whose output folder is it: an experiment writes only into a folder it owns, one process at a time.

Ownership is a marker (:data:`hcrbench.data.outputs.MARKER`) written first into every folder the runner creates:
the experiment's name, its config file, the hcrbench version, and the entries that were there before and are not
hcrbench's. A folder without the marker is hcrbench's only when it holds an hcrbench ``manifest.json`` (written by
an older hcrbench; the marker is added on the re-run), or nothing but the config being run, its dataset and
hcrbench folders. Anything else in it is refused unless ``--force``; ``--force`` then writes beside those files
and keeps them, and refuses when one of them has a name hcrbench would overwrite (``config.toml``, ``eval.json``).
Taking over another experiment's folder with ``--force`` deletes only what that experiment wrote (its lock, its
derived results and the runs its manifest names).

While :func:`claim_output_dir`'s caller runs, the folder's exclusive lock (:class:`~hcrbench.data.outputs.
FolderLock`) is held, so a second ``hcrbench run`` on the same folder stops at once with one line naming the
holder, before it writes anything: the manifest and ``eval.json`` always describe the same config.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from hcrbench.data.outputs import BUSY, MARKER, FolderLock, ensure_parent, hold, read_marker, write_marker
from hcrbench.errors import InputError
from hcrbench.experiment.config import ExperimentConfig, locate
from hcrbench.experiment.manifest import read_manifest, sha256_json

#: Files derived from the runs: removed before any run changes and rewritten once every system is done (a report
#: left from another run would show that run's numbers).
DERIVED = ("eval.json", "per_query.csv", "per_query.parquet", "gate.json", "tree_metrics.json", "verdicts.json", "report.html",
           "report.md", "tables.tex", "report_files")

#: Names hcrbench writes into an experiment folder (a foreign file by one of these names would be overwritten).
OWN_ENTRIES = {"config.toml", "manifest.json", "runs", "hcrbench.lock", "logs", "contexts", "curves", *DERIVED,
               "memo",  # results reused by a warm re-run (experiment.memo)
               # hcrbench quickstart's folder: its config, generated data, smaller sizes, growth, its looks' record
               "quickstart.toml", "data", "sizes", "growth.json", "looks.json", MARKER, BUSY}


def drop_stale_results(out: Path) -> None:
    """Delete every file derived from the runs (scores, gate, verdicts, report) before any run changes, so a run
    that fails midway never leaves results that disagree with runs/ (they are rewritten once every system is
    done; the manifest says "partial" meanwhile, which ``hcrbench lock`` refuses)."""
    _remove(out, DERIVED)


#: The report files (``hcrbench report``, or ``hcrbench run`` on a protocol config): rendered from the files of
#: :data:`_REPORT_INPUTS`, so they are dropped whenever one of those changed.
REPORT_FILES = ("report.html", "report.md", "tables.tex", "report_files")
_REPORT_INPUTS = ("config.toml", "eval.json", "per_query.csv", "per_query.parquet", "gate.json", "tree_metrics.json", "verdicts.json",
                  "growth.json")


def derived_state(out: Path) -> str:
    """A digest of what the report is rendered from (see :data:`_REPORT_INPUTS`); '' for a missing file."""
    import hashlib

    from hcrbench.data.hashing import sha256_file

    h = hashlib.sha256()
    for name in _REPORT_INPUTS:
        p = out / name
        h.update(f"{name}={sha256_file(p) if p.is_file() else ''};".encode())
    return h.hexdigest()


def drop_reports(out: Path) -> None:
    """Delete the report files (a re-run whose scores moved must not leave a report of the old ones)."""
    _remove(out, REPORT_FILES)


def _remove(out: Path, names: tuple[str, ...]) -> None:
    """Delete ``out/name`` for each name: a folder (not a link) with its contents, else the file or link."""
    for fname in names:
        p = out / fname
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


def _is_hcrbench_manifest(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("name"), str) and "config_sha256" in obj \
        and isinstance(obj.get("systems"), dict)


def _inputs(cfg: ExperimentConfig, config_path: Path) -> list[Path]:
    """The config file and every dataset path it names, resolved: these may live inside the output folder."""
    base = config_path.parent
    out = [config_path.resolve()]
    ds = cfg.dataset
    for value in (getattr(ds, k, None) for k in ("path", "corpus", "queries", "qrels")):
        if isinstance(value, str) and value:
            p = Path(value).expanduser()
            out.append((p if p.is_absolute() else base / p).resolve())
    return out


def _ours(entry: Path, inputs: list[Path], depth: int = 0) -> bool:
    """Whether ``entry`` may sit in an unmarked folder hcrbench is about to claim: the config or dataset being
    used (or a folder holding them), or a folder of hcrbench experiments (every entry marked or ours)."""
    r = entry.resolve()
    if any(r == p or r in p.parents for p in inputs):
        return True
    if not entry.is_dir() or entry.is_symlink() or depth > 3:
        return False
    if read_marker(entry) is not None:
        return True
    try:
        return _is_hcrbench_manifest(read_manifest(entry)) or (
            any(entry.iterdir()) and all(_ours(e, inputs, depth + 1) for e in entry.iterdir()))
    except InputError:
        return False


def _reserved_not_ours(out: Path) -> list[str]:
    """hcrbench's reserved names (the marker, the run lock file) present in a folder it does not own yet, and
    not written by hcrbench: a user's files that ``--force`` must never overwrite (like ``hcrbench.lock``)."""
    from hcrbench.data.outputs import is_our_busy_file

    names = [MARKER] if (out / MARKER).exists() else []  # a marker of ours would have made the folder ours
    if (out / BUSY).exists() and not is_our_busy_file(out / BUSY):
        names.append(BUSY)
    return names


def check_output_dir(out: Path, cfg: ExperimentConfig, config_path: Path, text: str, *, force: bool) -> None:
    """Refuse a folder this experiment may not write into, touching nothing (before any slow work)."""
    where = dict(path=config_path, line=locate(text, ("output_dir",)), field="output_dir")
    _decide(out, cfg, config_path, text, force=force, where=where, act=False)


def claim_output_dir(out: Path, cfg: ExperimentConfig, config_path: Path, text: str, *, force: bool) -> dict:
    """Make ``out`` this experiment's folder and hold its lock until the caller (decorated with
    :func:`hcrbench.data.outputs.releasing`) returns; see the module docstring.

    Returns the old manifest to resume from: empty when the folder is new or was taken over with ``force`` (then
    the other experiment's lock and runs are removed, so nothing stale is left beside the new results).
    """
    where = dict(path=config_path, line=locate(text, ("output_dir",)), field="output_dir")
    _decide(out, cfg, config_path, text, force=force, where=where, act=False)  # refuse before touching anything
    try:
        ensure_parent(out, field="output_dir")
        out.mkdir(exist_ok=True)
    except (NotADirectoryError, PermissionError, FileExistsError) as e:
        raise InputError(f"cannot create the output folder {out} ({e.strerror or e})", **where) from None
    except InputError as e:
        raise InputError(e.problem, **where) from None
    except OSError as e:
        from hcrbench.errors import WriteError

        raise WriteError.from_os(e, out, "the output folder") from None
    hold(FolderLock(out, field="output_dir"))
    old = _decide(out, cfg, config_path, text, force=force, where=where, act=True)  # again, under the lock
    from hcrbench.data.atomic import remove_stale_temps

    # A write killed midway left .NAME.XXXXXXXX.tmp; under the lock no other hcrbench writes here: remove them.
    remove_stale_temps(out, [e for e in OWN_ENTRIES if e not in ("data", "sizes")])
    return old


def _not_in_the_dataset(out: Path, cfg: ExperimentConfig, config_path: Path, where: dict[str, Any]) -> None:
    """An output folder that is, or lies inside, the dataset folder is refused even with ``--force``: the
    results would be written among the dataset's files (:mod:`hcrbench.data.outpaths`)."""
    from hcrbench.data.outpaths import Input, Output, check_outputs

    ds = _inputs(cfg, config_path)[1:]
    try:
        # folder=False: a dataset *inside* the output folder is allowed (hcrbench quickstart's layout)
        check_outputs([Output("output_dir", out, folder=False)],
                      [Input("dataset", p, dataset=True) for p in ds if p.is_dir()])
    except InputError as e:
        raise InputError(e.problem, **where) from None


def _no_run_file_in_runs(out: Path, cfg: ExperimentConfig, config_path: Path, text: str) -> None:
    """A runfile system may not read its run from the output folder's ``runs/``: hcrbench rewrites the files
    there (each system's run) and deletes those of a replaced experiment, so the input would change under it."""
    from hcrbench.data.outpaths import real
    from hcrbench.retrieve import traits

    runs = real(out / "runs")
    for i, s in enumerate(cfg.systems):
        path = (s.params or {}).get("path") if traits(s.type).stage == "replay" else None
        if isinstance(path, str) and path and runs in real(path).parents:
            raise InputError(f"run file {path} lies in the output folder's runs/, which hcrbench rewrites: copy it "
                             "elsewhere, or set another output_dir", path=config_path,
                             line=locate(text, ("systems", i, "params")), field=f"systems[{i}].params.path")


def _decide(out: Path, cfg: ExperimentConfig, config_path: Path, text: str, *, force: bool,
            where: dict[str, Any], act: bool) -> dict:
    _not_in_the_dataset(out, cfg, config_path, where)
    _no_run_file_in_runs(out, cfg, config_path, text)
    if not out.is_dir():
        return {}
    entries = sorted(p for p in out.iterdir() if p.name not in (MARKER, BUSY))
    marker = read_marker(out)
    old = read_manifest(out)
    config_abs = str(config_path.resolve())
    if marker is None and not _is_hcrbench_manifest(old):
        inputs = _inputs(cfg, config_path)
        foreign = [p.name for p in entries if not _ours(p, inputs)]
        if foreign and not force:
            raise InputError(f"the output folder {out} holds files hcrbench did not write ({_names(foreign)}); "
                             "hcrbench writes only into a folder it created: pass --force to write beside them "
                             "(they are kept), or set another output_dir", **where)
        clash = [n for n in foreign if n in OWN_ENTRIES] + ([] if act else _reserved_not_ours(out))
        if clash:
            raise InputError(f"the output folder {out} holds files hcrbench did not write by names it would "
                             f"overwrite ({_names(clash)}); --force never deletes them: move them, or set another "
                             "output_dir", **where)
        if act:
            write_marker(out, name=cfg.name, config_path=config_abs, foreign=foreign)
        return {}
    # The marker says whose folder it is; without one (an older hcrbench), the manifest does.
    manifest = old if _is_hcrbench_manifest(old) else None
    ident = marker or manifest or {}
    same_name = ident.get("name") == cfg.name
    same_file = ident.get("config_path") in (None, config_abs)
    same_text = manifest is not None and manifest.get("name") == cfg.name \
        and manifest.get("config_sha256") == sha256_json(text)
    if same_name and (same_file or same_text):
        if act and marker is None:
            write_marker(out, name=cfg.name, config_path=config_abs)
        # Resume from the manifest only when it is this experiment's (a takeover may have died before its first)
        return old if manifest is not None and manifest.get("name") == cfg.name else {}
    if not force:
        other = f"experiment {ident.get('name')!r}" + (f" (config {ident['config_path']})"
                                                        if ident.get("config_path") else "")
        raise InputError(f"the output folder {out} holds the results of {other}, not of this config; pass --force "
                         "to replace them, or set another output_dir", **where)
    if not act:
        return {}
    (out / "hcrbench.lock").unlink(missing_ok=True)
    drop_stale_results(out)
    keep = {s.name for s in cfg.systems}
    old_systems = (old.get("systems") or {}) if isinstance(old, dict) else {}
    runs = (out / "runs").resolve()
    for name, entry in old_systems.items():
        if name not in keep and isinstance(entry, dict) and isinstance(entry.get("run"), str):
            run = (out / entry["run"]).resolve()
            if run.parent == runs:  # only a run file hcrbench wrote, whatever the old manifest says
                run.unlink(missing_ok=True)
    write_marker(out, name=cfg.name, config_path=config_abs, foreign=(marker or {}).get("foreign"))
    return {"systems": {k: v for k, v in old_systems.items() if k in keep}}


def _names(names: list[str]) -> str:
    return ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
