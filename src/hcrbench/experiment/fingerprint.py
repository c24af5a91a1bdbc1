"""What decides a system's run in an experiment: its fingerprint (type, params, chunking, k, seed, dataset, and what
its type declares: code versions, a replayed file's content, an LLM summarizer's identity), and whether a finished
run on disk still answers to it (resume)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hcrbench.data.hashing import sha256_file
from hcrbench.errors import InputError
from hcrbench.experiment.config import ExperimentConfig, SystemConfig
from hcrbench.experiment.manifest import sha256_json
from hcrbench.retrieve.system_traits import traits


def system_fingerprint(system: SystemConfig, cfg: ExperimentConfig, data_key: str) -> str:
    """What decides a system's run: if any of it changes, the run is recomputed."""
    return sha256_json({
        "type": system.type,
        "params": system.params,
        "chunking": system.chunking.model_dump() if system.chunking else None,
        "k": cfg.k,
        "seed": cfg.seed,
        "dataset": data_key,
        **({"system_seed": system.seed} if system.seed is not None else {}),
        **({"policy": system.policy} if system.policy is not None else {}),  # absent: old fingerprints hold
        **_code_version(system.type),
        **_input_file(system),
        **_summarizer_identity(system),
    })


def world_data_keys(data: Any) -> dict[str, str]:
    """Per world of a dataset of several: what decides a system's run on that world (the world's files, by the
    SHA-256 of its manifest, and its queries in this split), so a world's run is reused when worlds are added."""
    if not data.worlds:
        return {}
    listed = data.world_manifests
    return {w: sha256_json({"world": listed.get(w), "split": data.split, "queries": list(q.query_ids)})
            for w, (_, q) in data.worlds.items()}


def _input_file(system: SystemConfig) -> dict[str, Any]:
    """A replayed run (``runfile``: ``path``, or ``paths`` per split) is its file: a changed file is a changed
    input (absent for other systems)."""
    replay = traits(system.type).stage == "replay"
    path = system.params.get("path") if replay else None
    paths = system.params.get("paths") if replay else None
    if isinstance(paths, dict):  # one file per split: each file is an input
        return {"input_sha256": {s: sha256_file(p) for s, p in sorted(paths.items())
                                 if isinstance(p, str) and Path(p).expanduser().is_file()}}
    return {"input_sha256": sha256_file(path)} if isinstance(path, str) and Path(path).is_file() else {}


def _summarizer_identity(system: SystemConfig) -> dict[str, Any]:
    """A tree system summarised by an LLM: the served model and prompt version (absent for the extractive one)."""
    if not traits(system.type).tree:  # only trees summarise (their nodes)
        return {}
    from hcrbench.retrieve.summarize_llm import summarizer_fingerprint

    try:
        return summarizer_fingerprint(system.params)
    except InputError as e:  # name the system: the config may have several tree systems
        raise InputError(f"system {system.name!r}: {e.problem}", field=e.field) from None


def _code_version(kind: str) -> dict[str, Any]:
    """Fixes to a system's own code that change its runs, as its type declares them (absent at version 1: old
    fingerprints hold)."""
    return traits(kind).fingerprint()


def reusable(entry: dict[str, Any] | None, fingerprint: str, run_path: Path) -> bool:
    """Is the run at ``run_path`` the one ``entry`` (its manifest entry) recorded, for this ``fingerprint``?"""
    return bool(
        entry
        and entry.get("fingerprint") == fingerprint
        and run_path.is_file()
        and entry.get("run_sha256") == sha256_file(run_path)
    )
