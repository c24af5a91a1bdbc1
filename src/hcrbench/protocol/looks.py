"""Fresh data for the final word: the quickstart's verdict seed, and one look at a locked test split.

- ``VERDICT_SEED``: the corpus seed ``hcrbench quickstart`` states its verdict on by default. Seeds 0-2 (and
  others) are the development seeds: docs, tests and tuning rounds looked at their test splits again and again,
  so a verdict there is not on fresh data. No doc or test names this seed as a corpus they score
  (``tests/protocol/test_looks.py`` checks); ``--seed`` still picks any other.
- **One look**: a quickstart's test split is locked. A run that would score it again (another folder, or this
  folder with anything recomputed) after any recorded scoring is refused before any work, unless ``--relook``;
  a warm re-run of the same folder that reuses every score is the same look, not a second one. A relook is
  recorded: the lock registry's scoring entry says ``"relook": true`` and ``verdicts.json["discipline"]`` carries
  ``relook`` and ``looks_before``.
- **Claimed before any work, atomically**: a quickstart claims each Meridian world it will score (generator
  version, size, seed) in the lock registry before it generates, tunes or runs anything (:func:`claim_worlds`),
  checking and recording in one step under the registry's file lock. A world another folder's quickstart is
  scoring now, or scored, is refused at once (exit 2) unless ``--relook``; of several concurrent quickstarts on one
  world exactly one proceeds. A claim whose process is gone and which scored nothing (stopped while generating or
  tuning) is no look and is dropped. A registry that cannot be written (read-only ``HCRBENCH_HOME``) is refused
  then, in one line, rather than scoring with the look unrecorded.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from hcrbench.data.splitlock import process_alive
from hcrbench.errors import InputError

VERDICT_SEED = 8128
#: The quickstart's defaults for its test-world loop (``hcrbench quickstart --size --worlds --max-worlds --budget``):
#: the command's options and the line that prints how to go on (hcrbench.report.look_stop) read them here.
DEFAULT_SIZE = "small"
DEFAULT_WORLDS = 3
DEFAULT_MAX_WORLDS = 8
DEFAULT_BUDGET_MINUTES = 30.0
RELOOK_FLAG = "--relook"


def split_key_of(root: Path, split: str = "test") -> str | None:
    """The lock registry's key of ``root``'s split (as :class:`~hcrbench.experiment.dataset.ExperimentData`
    computes it), None when the folder is not there yet."""
    from hcrbench.data.hashing import sha256_file
    from hcrbench.data.splitlock import split_key
    from hcrbench.synth.worlds import is_multiworld

    if is_multiworld(root):  # the split's judgments and its worlds' manifests (ExperimentData.key)
        from hcrbench.data.structured import read_json

        man = read_json(root / "manifest.json")
        qrels = root / "qrels" / f"{split}.tsv"
        if not qrels.is_file():
            return None
        from hcrbench.synth.worlds import world_manifest_hashes

        listed = world_manifest_hashes(root)
        return split_key({f"qrels/{split}.tsv": sha256_file(qrels),
                          **{f"worlds/{w}": listed.get(w) for w in (man.get("world_splits") or {}).get(split, [])}},
                         split)
    files = {"corpus.jsonl": root / "corpus.jsonl", "queries.jsonl": root / "queries.jsonl",
             f"qrels/{split}.tsv": root / "qrels" / f"{split}.tsv"}
    if not all(p.is_file() for p in files.values()):
        return None
    return split_key({k: sha256_file(p) for k, p in sorted(files.items())}, split)


def _refuse(prior: list[dict[str, Any]], root: Path, split: str) -> InputError:
    from hcrbench.data.splitlock import registry_path

    last = prior[-1]
    return InputError(f"the {split} split of {root} was already scored {_times(len(prior))}, last by "
                      f"{last.get('experiment')!r} in {last.get('output_dir')} at {last.get('time')} (registry "
                      f"{registry_path()}); a second look needs {RELOOK_FLAG} (recorded), or take fresh data "
                      "with another --seed", field=RELOOK_FLAG)


def _times(n: int) -> str:
    return f"{n} time" if n == 1 else f"{n} times"


def early_check(root: Path, folder: Path, *, relook: bool, split: str = "test") -> None:
    """Before any work: refuse when the split was scored and never by this folder (a new folder is a new look)."""
    from hcrbench.data.splitlock import scorings

    key = split_key_of(root, split)
    if relook or key is None:
        return
    prior = scorings(key)
    mine = str(folder.resolve())
    if prior and not any(s.get("output_dir") == mine for s in prior):
        raise _refuse(prior, root, split)


def world_key(size: str | int, seed: int, *, grow: bool = False) -> str:
    """The lock registry's key of the Meridian world ``size`` / ``seed`` (this generator's version, ``grow``):
    known before the world is generated, so a look at it can be claimed before any work."""
    import hashlib

    from hcrbench.synth.generate import GENERATOR_VERSION

    blob = json.dumps({"generator": "meridian", "generator_version": GENERATOR_VERSION, "grow": bool(grow),
                       "seed": int(seed), "size": str(size).strip().lower()}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _running(claim: dict[str, Any]) -> bool:
    """Is the claim's quickstart still running? Another host's cannot be told: taken as running."""
    if claim.get("host") != socket.gethostname():
        return True
    return claim.get("pid") != os.getpid() and process_alive(claim.get("pid"))


def _scored(folder: str, reg: dict[str, Any]) -> bool:
    """Did the experiment in ``folder`` (or a size below it) record a scoring of any split?"""
    inside = folder.rstrip("/") + "/"
    return any(s.get("output_dir") == folder or str(s.get("output_dir", "")).startswith(inside)
               for e in reg.get("splits", {}).values() if isinstance(e, dict) for s in e.get("scorings", []))


def _counts(claim: dict[str, Any], reg: dict[str, Any]) -> bool:
    """A claim is a look when its quickstart runs now or scored; one that stopped before scoring looked at
    nothing."""
    return _running(claim) or _scored(str(claim.get("output_dir")), reg)


def prior_looks(out: Path, size: str | int, seed: int, *, grow: bool = False) -> int:
    """How many other output folders' quickstarts looked at Meridian ``size`` / ``seed`` (the registry's claims
    that count as looks): a relook of a dataset of several worlds draws the test worlds of look ``1 + this``."""
    from hcrbench.data.splitlock import _load, registry_path

    mine = str(out.expanduser().resolve())
    reg = _load(registry_path())
    entry = (reg.get("worlds") or {}).get(world_key(size, seed, grow=grow)) or {}
    # this folder's own earlier scoring counts too: a relook never scores the same test worlds again
    return len({c.get("output_dir") for c in entry.get("claims", []) if isinstance(c, dict)
                and (_counts(c, reg) if c.get("output_dir") != mine else _scored(mine, reg))})


def claim_worlds(out: Path, worlds: list[tuple[str | int, int]], *, relook: bool, grow: bool = False) -> None:
    """Before any work: claim each Meridian world ``(size, seed)`` a quickstart into ``out`` will score, checked
    and recorded in one step under the registry's lock. Refused (InputError, exit 2) when another folder's
    quickstart runs on the world now or scored it (unless ``relook``), or when another process runs a quickstart
    in ``out`` itself; a registry that cannot be written is a one-line WriteError."""
    from datetime import datetime, timezone

    from hcrbench.data.splitlock import changing, registry_path

    mine = str(out.expanduser().resolve())
    with changing("a quickstart's look is recorded before any work") as reg:
        table = reg.setdefault("worlds", {})
        for size, seed in worlds:
            entry = table.setdefault(world_key(size, seed, grow=grow), {
                "generator": "meridian", "size": str(size), "seed": int(seed), "grow": bool(grow), "claims": []})
            claims = [c for c in entry.get("claims", []) if isinstance(c, dict)]
            here = [c for c in claims if c.get("output_dir") == mine and c.get("host") == socket.gethostname()
                    and c.get("pid") != os.getpid() and process_alive(c.get("pid"))]
            if here:
                raise InputError(f"a quickstart is running in {mine} now (process {here[-1].get('pid')}, since "
                                 f"{here[-1].get('time')}); wait for it to end (the same command then resumes it)",
                                 field="--out")
            others = [c for c in claims if c.get("output_dir") != mine and _counts(c, reg)]
            if others and not relook:
                last = others[-1]
                doing = ("was already scored by the quickstart in" if _scored(str(last.get("output_dir")), reg)
                         else "is claimed by the quickstart running now in")
                raise InputError(f"Meridian {size} seed {seed}'s test split {doing} {last.get('output_dir')} "
                                 f"(started {last.get('time')}, registry {registry_path()}); a second look needs "
                                 f"{RELOOK_FLAG} (recorded), or take fresh data with another --seed",
                                 field=RELOOK_FLAG)
            entry["claims"] = [c for c in claims if c.get("output_dir") != mine and c in others] + [{
                "output_dir": mine, "pid": os.getpid(), "host": socket.gethostname(),
                "time": datetime.now(timezone.utc).isoformat(timespec="seconds"), "relook": bool(others)}]


def reuses_everything(config_path: Path) -> bool:
    """Would ``hcrbench run`` of ``config_path`` reuse every system's run from its folder (a warm re-run)?"""
    from hcrbench.experiment.config import load_config
    from hcrbench.experiment.dataset import load_data
    from hcrbench.experiment.fingerprint import reusable, system_fingerprint
    from hcrbench.experiment.reads import fingerprint_with_reads, reads_of
    from hcrbench.experiment.runner import output_dir_of

    cfg, text = load_config(config_path)
    out = output_dir_of(cfg, config_path)
    man = out / "manifest.json"
    if not man.is_file():
        return False
    old = json.loads(man.read_text(encoding="utf-8")).get("systems") or {}
    data = load_data(cfg.dataset, config_path.parent, config_path, text)
    fps: dict[str, str] = {}
    for i, system in enumerate(cfg.systems):
        src = reads_of(system, [s.name for s in cfg.systems[:i]])
        fp = fps[system.name] = fingerprint_with_reads(system_fingerprint(system, cfg, data.key), src, fps)
        if not reusable(old.get(system.name), fp, out / f"runs/{system.name}.trec"):
            return False
    return True


def guard(config_path: Path, root: Path, *, relook: bool, split: str = "test") -> dict[str, Any]:
    """Before the test split is scored: ``{"looks_before", "relook", "warm"}``; raises when this would be a
    second look without ``relook``."""
    from hcrbench.data.splitlock import interrupted, scorings

    key = split_key_of(root, split)
    folder = str(config_path.parent.resolve())
    # this folder's look that a kill left pending is resumed, not looked at again (the runner takes it over)
    prior = [s for s in scorings(key) if not interrupted(s, folder)] if key is not None else []
    if not prior:
        return {"looks_before": 0, "relook": False, "warm": False, "key": key}
    warm = reuses_everything(config_path)
    if not warm and not relook:
        raise _refuse(prior, root, split)
    # a warm re-run is the look that produced the folder's numbers: the looks before it are the others' (its
    # verdicts.json then says what the first run said, byte for byte)
    before = [s for s in prior if s.get("output_dir") != folder] if warm else prior
    return {"looks_before": len(before), "relook": bool(relook and not warm), "warm": warm, "key": key}


def record(look: dict[str, Any], folder: Path, verdicts: dict[str, Any] | None) -> dict[str, Any] | None:
    """After the run: mark this folder's newest registry scoring as a relook, and put the look into
    ``verdicts["discipline"]``."""
    if look.get("relook") and look.get("key"):
        from hcrbench.data.splitlock import annotate_last

        annotate_last(look["key"], str(folder.resolve()), relook=True)
    if verdicts is None:
        return None
    disc = {**(verdicts.get("discipline") or {}), "relook": bool(look.get("relook")),
            "looks_before": int(look.get("looks_before") or 0)}
    if look.get("relook"):
        disc["relook_text"] = (f"a second look at a locked test split ({_times(look['looks_before']).replace('time', 'earlier scoring')}), "
                               f"asked for with {RELOOK_FLAG}: the verdict is not on fresh data")
    return {**verdicts, "discipline": disc}
