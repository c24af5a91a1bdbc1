"""A benchmark of K Meridian worlds: independent replicates of the whole benchmark in one dataset folder.

A world generated from a seed is an independent replicate: its own people, projects, documents and queries.
``generate_worlds(out, size, seed, worlds=K)`` writes world ``w`` from :func:`world_seed` ``(seed, w)`` into
``out/worlds/wNN/`` (a complete Meridian folder, byte for byte what ``generate_meridian(..., seed=world_seed(seed, w),
grow=False)`` writes, so a world is reproducible on its own), then pools the worlds into the folder's BEIR files:

- every id a world owns carries its world: ``w00-MER-000009`` (documents), ``w00-MQ001`` (queries), and the fact,
  entity and cluster ids of the metadata (``w00-sys:SYS-03:kind``, ``w00-SYS-03``, ``w00-T0001``); the prefix is
  ``w`` and the world index in at least two digits, then ``-`` (:func:`world_of` reads it back);
- a world belongs to one split (:func:`world_split`: world 0 tune, world 1 dev, every later world test): every
  query of a tune world is a tune query, and so on, so
  tune, dev and test share no document, entity, fact or topic by construction (each world's own in-world split is
  kept as ``split_in_world``);
- ``queries.meta.jsonl`` rows carry ``world`` and ``world_seed``; corpus metadata carries ``world``;
- the manifest lists each world (index, seed, split, documents, queries, its manifest's SHA-256).

Worlds never grow (a world's size is its size: ``small`` 500, ``medium`` 2,000, ``full`` 3,500 documents), and a
world's split, seed and bytes depend only on ``(seed, w, size, queries)``, never on K: asking for more worlds adds
worlds and leaves the ones already there untouched (they are kept, not rewritten).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hcrbench.data import Qrels, atomic_open, atomic_write_text, iter_jsonl, write_beir_qrels
from hcrbench.data.hashing import sha256_file
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError
from hcrbench.synth.generate import (
    GENERATOR_VERSION,
    SPLITS,
    _check_out,
    _check_queries,
    _check_seed,
    _manifest_size,
    ensure_meridian,
    resolve_size,
)
from hcrbench.synth.questions.suite import DESIGN_QUERIES
from hcrbench.synth.world_model.seeds import sub_seed

WORLDS_DIR = "worlds"
MAX_WORLDS = 100
#: the fewest worlds of a multi-world dataset: one each for tune, dev and test
MIN_WORLDS = len(SPLITS)
WORLD_ID = re.compile(r"^w(\d{2,})-")
POOLED_FILES = ["corpus.jsonl", "provenance.jsonl", "queries.jsonl", "queries.meta.jsonl", "evidence.jsonl",
                *(f"qrels/{s}.tsv" for s in SPLITS), *(f"qrels-topical/{s}.tsv" for s in SPLITS)]


def check_worlds(k: Any, field: str = "worlds") -> int:
    """``k`` as a world count: 1 (one world split by queries, today's layout) or 3..MAX_WORLDS (splits by world)."""
    if isinstance(k, bool) or not isinstance(k, int) or not (k == 1 or MIN_WORLDS <= k <= MAX_WORLDS):
        raise InputError(f"must be 1 (one world, its queries split 60/20/20) or {MIN_WORLDS}..{MAX_WORLDS} (tune, "
                         f"dev and test each get worlds of their own), got {k!r}", field=field)
    return k


def world_seed(seed: int, w: int) -> int:
    """The seed world ``w`` is generated from: SHA-256 of ``(seed, "world", w)``, in 0..2**32-1 (a seed the
    ``--seed`` flag accepts, so ``generate meridian --seed world_seed --fixed-size`` writes the same world)."""
    return sub_seed(_check_seed(seed), "world", w) >> 32


def look_world_seed(seed: int, w: int, look: int = 1) -> int:
    """The seed of world ``w`` in the dataset of look ``look`` at a verdict: tune and dev worlds (0, 1) and every
    world of the first look are :func:`world_seed`; a later look's test worlds are fresh ones (SHA-256 of ``(seed,
    "world", "w/look")``), so a second look at a verdict never scores a test world again."""
    if look == 1 or w < MIN_WORLDS - 1:
        return world_seed(seed, w)
    return sub_seed(_check_seed(seed), "world", f"{w}/look{int(look)}") >> 32


def world_name(w: int) -> str:
    """``w00``, ``w01``, ... (two digits at least, so the names of worlds 0-99 sort in world order)."""
    return f"w{w:02d}"


def world_prefix(w: int) -> str:
    return f"{world_name(w)}-"


def world_of(item_id: str) -> int | None:
    """The world an id of a multi-world dataset belongs to (``w03-MQ001`` -> 3), or None for an unprefixed id."""
    m = WORLD_ID.match(item_id)
    return int(m.group(1)) if m else None


def world_split(w: int) -> str:
    """The split world ``w`` belongs to: world 0 is tune, world 1 dev, every later world test. A world holds the
    whole suite (300 queries by default): one world is enough to choose parameters and the flat system, and the
    verdicts' evidence grows with independent test replicates, so adding worlds adds test worlds only. It depends
    on ``w`` only, so adding worlds never moves one from a split to another."""
    return SPLITS[w] if w < MIN_WORLDS else SPLITS[-1]


def world_splits(k: int) -> list[str]:
    """The split of each of ``k`` worlds (:func:`world_split`)."""
    return [world_split(w) for w in range(k)]


def generate_worlds(out: str | Path, size: str | int = "small", seed: int = 0, n_queries: int = DESIGN_QUERIES,
                    worlds: int = MIN_WORLDS, on_world: Callable[[dict[str, Any]], None] | None = None,
                    look: int = 1, workers: int = 1) -> dict[str, Any]:
    """Write ``worlds`` independent Meridian worlds of ``size`` documents into ``out`` (layout: module docstring);
    returns the manifest. A world already in ``out/worlds`` for the same generator, size, seed and suite is kept
    as it is; worlds past ``worlds`` left by an earlier, larger generation are removed. ``on_world`` is called
    after each world with its manifest entry plus ``done`` ("generated", "kept" or "regenerated: ...") and
    ``seconds`` (a world takes seconds to minutes: the caller can say so as each ends). ``workers`` > 1 generates
    that many worlds at once, each in a process of its own (a world depends only on its own seed and folder, so
    the bytes are the one-by-one run's); ``on_world`` is still called in world order."""
    n = resolve_size(size)
    seed = _check_seed(seed)
    n_queries = _check_queries(n_queries)
    k = check_worlds(worlds)
    if k < MIN_WORLDS:
        raise InputError(f"a multi-world dataset needs at least {MIN_WORLDS} worlds; one world is "
                         "generate_meridian's folder", field="worlds")
    out = Path(out)
    _check_out(out)
    root = out / WORLDS_DIR
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create folder ({e.strerror})", path=root, field="out") from None
    # until the pooled files and the new manifest are written, the folder says it is being regenerated (an
    # interrupted run is then regenerated, never trusted); a single world's world.json and an old describe.json
    # would describe something the folder no longer holds
    if (out / "manifest.json").is_file():
        atomic_write_text(out / "manifest.json", json.dumps({"name": "meridian", "generator_version": "regenerating"}))
    for stale in ("world.json", "describe.json"):
        (out / stale).unlink(missing_ok=True)
    entries = []
    jobs = [(root / world_name(w), look_world_seed(seed, w, look)) for w in range(k)]
    for w, ((folder, s), (done, seconds)) in enumerate(zip(jobs, _each_world(jobs, size, n_queries, workers))):
        man = read_json(folder / "manifest.json")
        entries.append({"world": w, "name": world_name(w), "seed": s, "split": world_split(w),
                        "n_docs": man["n_docs"], "n_queries": man["n_queries"],
                        "manifest": sha256_file(folder / "manifest.json")})
        if on_world is not None:
            on_world({**entries[-1], "done": done, "seconds": seconds})
    remove_worlds(out, keep=k)
    counter = read_json(root / world_name(0) / "manifest.json")["token_counter"]
    _pool(out, entries)
    manifest = {
        "name": "meridian", "generator_version": GENERATOR_VERSION, "seed": seed, "size": _manifest_size(size),
        "n_docs": sum(e["n_docs"] for e in entries), "n_queries": sum(e["n_queries"] for e in entries),
        "token_counter": counter, "size_docs": n, "grow": False,
        **({"look": look} if look != 1 else {}),
        "worlds": k, "world_splits": {s: [e["name"] for e in entries if e["split"] == s] for s in SPLITS},
        "world_list": entries,
        "files": {f: sha256_file(out / f) for f in POOLED_FILES},
    }
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    return manifest


def _one_world(folder: Path, size: str | int, seed: int, n_queries: int) -> tuple[str, float]:
    t0 = time.perf_counter()
    done = ensure_meridian(folder, size=size, seed=seed, n_queries=n_queries, grow=False)
    return done, time.perf_counter() - t0


def _each_world(jobs: list[tuple[Path, int]], size: str | int, n_queries: int,
                workers: int) -> Iterator[tuple[str, float]]:
    """``(done, seconds)`` of each world in order: one after another, or (``workers`` > 1 and more than one world
    to write) in that many spawned processes."""
    todo = [f for f, _ in jobs if not (f / "manifest.json").is_file()]  # kept worlds are read, not generated
    if workers <= 1 or len(todo) <= 1:
        for folder, s in jobs:
            yield _one_world(folder, size, s, n_queries)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn, not fork: the caller may hold thread pools (ONNX, BLAS) that a forked child would inherit locked
    with ProcessPoolExecutor(min(workers, len(todo)), mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_one_world, folder, size, s, n_queries) for folder, s in jobs]
        for (folder, s), fut in zip(jobs, futures):
            try:
                yield fut.result()
            except Exception:  # an error that does not cross the process boundary whole: this process names it
                yield _one_world(folder, size, s, n_queries)


def ensure_worlds(out: str | Path, size: str | int = "small", seed: int = 0, n_queries: int | None = None,
                  worlds: int = MIN_WORLDS, on_world: Callable[[dict[str, Any]], None] | None = None,
                  look: int = 1, workers: int = 1) -> str:
    """Make ``out`` hold this generator's ``worlds`` worlds for ``size``, ``seed`` and the suite (the design's when
    None): ``"kept"`` when its manifest already says so (nothing is read or written), else the worlds are
    generated (:func:`generate_worlds` keeps every world already there) and ``"generated"`` is returned."""
    out = Path(out)
    want_q = DESIGN_QUERIES if n_queries is None else n_queries
    try:
        man = read_json(out / "manifest.json")
    except (OSError, ValueError):
        man = None
    if isinstance(man, dict) and man.get("name") == "meridian" and man.get("worlds") == worlds \
            and man.get("generator_version") == GENERATOR_VERSION and man.get("seed") == _check_seed(seed) \
            and man.get("size") == _manifest_size(size) and man.get("n_queries") == want_q * worlds \
            and man.get("look", 1) == look:
        return "kept"
    if isinstance(man, dict) and man.get("name") not in ("meridian", None):
        raise InputError("holds a manifest.json that is not Meridian's; refusing to write into it (choose an empty "
                         "or new folder)", path=out, field="out")
    generate_worlds(out, size, seed, want_q, worlds=worlds, on_world=on_world, look=look, workers=workers)
    return "generated"


def remove_worlds(out: str | Path, keep: int = 0) -> list[str]:
    """Remove ``out/worlds/wNN`` folders with ``NN >= keep`` that this generator wrote (they hold a Meridian
    manifest; anything else is left alone), and the ``worlds`` folder itself once empty; returns the names removed.
    Regenerating a folder with fewer worlds (or as one world) so leaves no stale world beside the pooled files."""
    root = Path(out) / WORLDS_DIR
    if not root.is_dir():
        return []
    gone = []
    for p in sorted(root.iterdir()):
        m = re.fullmatch(r"w(\d{2,})", p.name)
        if m and int(m.group(1)) >= keep and p.is_dir() and _is_world(p):
            shutil.rmtree(p)
            gone.append(p.name)
    if not any(root.iterdir()):
        root.rmdir()
    return gone


def _is_world(folder: Path) -> bool:
    try:
        man = read_json(folder / "manifest.json")
    except (OSError, ValueError):
        return False
    return isinstance(man, dict) and man.get("name") == "meridian"


def world_manifest_hashes(folder: str | Path) -> dict[str, str | None]:
    """``{"w00": SHA-256 of its manifest.json, ...}`` as the folder's manifest lists its worlds (what a split's
    content key covers in place of the pooled files)."""
    man = read_json(Path(folder) / "manifest.json")
    return {e.get("name"): e.get("manifest") for e in (man.get("world_list") or []) if isinstance(e, dict)}


def is_multiworld(folder: str | Path) -> bool:
    """True when ``folder``'s manifest says it holds several worlds (written by :func:`generate_worlds`)."""
    try:
        man = read_json(Path(folder) / "manifest.json")
    except (OSError, ValueError):
        return False
    return isinstance(man, dict) and man.get("name") == "meridian" and isinstance(man.get("worlds"), int) \
        and man["worlds"] > 1


# --- pooling: each world's rows with its ids prefixed ------------------------------------------------------------

def _pid(p: str, value: Any) -> Any:
    return p + value if isinstance(value, str) else value


def _pids(p: str, values: Any) -> Any:
    return [_pid(p, v) for v in values] if isinstance(values, list) else values


def _pspan(p: str, span: dict[str, Any]) -> dict[str, Any]:
    out = dict(span)
    for key in ("doc_id", "fact_id"):
        if key in out:
            out[key] = _pid(p, out[key])
    return out


def _corpus_row(p: str, w: int, row: dict[str, Any]) -> dict[str, Any]:
    row = {**row, "_id": _pid(p, row["_id"])}
    meta = dict(row.get("metadata") or {})
    if "entities" in meta:
        meta["entities"] = _pids(p, meta["entities"])
    if meta.get("cluster"):
        meta["cluster"] = _pid(p, meta["cluster"])
    meta["world"] = w
    row["metadata"] = meta
    return row


def _meta_row(p: str, entry: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    row = dict(row)
    row["query_id"] = _pid(p, row["query_id"])
    row["split_in_world"], row["split"] = row.get("split"), entry["split"]
    row["world"], row["world_seed"] = entry["world"], entry["seed"]
    for key in ("qrels", "qrels_topical"):
        if isinstance(row.get(key), dict):
            row[key] = {_pid(p, d): g for d, g in row[key].items()}
    if isinstance(row.get("evidence"), list):
        row["evidence"] = [_pspan(p, s) for s in row["evidence"]]
    for key in ("facts", "expected_entities", "bridges", "chain"):
        if key in row:
            row[key] = _pids(p, row[key])
    if row.get("cluster"):
        row["cluster"] = _pid(p, row["cluster"])
    return row


def _evidence_row(p: str, row: dict[str, Any]) -> dict[str, Any]:
    row = {**row, "query_id": _pid(p, row["query_id"])}
    if "facts" in row:
        row["facts"] = _pids(p, row["facts"])
    for key in ("evidence", "minimal"):
        if isinstance(row.get(key), list):
            row[key] = [_pspan(p, s) for s in row[key]]
    return row


def _rows(out: Path, entries: list[dict[str, Any]], name: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    for e in entries:
        for _, row in iter_jsonl(out / WORLDS_DIR / e["name"] / name):
            yield e, row


def _write_rows(path: Path, rows) -> None:
    with atomic_open(path, "w") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _pool(out: Path, entries: list[dict[str, Any]]) -> None:
    """Write the pooled BEIR files from the world folders, world by world, ids prefixed with their world."""
    _write_rows(out / "corpus.jsonl",
                (_corpus_row(world_prefix(e["world"]), e["world"], r) for e, r in _rows(out, entries, "corpus.jsonl")))
    _write_rows(out / "provenance.jsonl",
                ({**r, "doc_id": _pid(world_prefix(e["world"]), r["doc_id"]),
                  "fact_id": _pid(world_prefix(e["world"]), r["fact_id"])}
                 for e, r in _rows(out, entries, "provenance.jsonl")))
    _write_rows(out / "queries.jsonl",
                ({**r, "_id": _pid(world_prefix(e["world"]), r["_id"])}
                 for e, r in _rows(out, entries, "queries.jsonl")))
    _write_rows(out / "evidence.jsonl",
                (_evidence_row(world_prefix(e["world"]), r) for e, r in _rows(out, entries, "evidence.jsonl")))
    metas = [_meta_row(world_prefix(e["world"]), e, r) for e, r in _rows(out, entries, "queries.meta.jsonl")]
    _write_rows(out / "queries.meta.jsonl", metas)
    for split in SPLITS:
        rows = {m["query_id"]: m["qrels"] for m in metas if m["split"] == split and m["qrels"]}
        write_beir_qrels(Qrels.from_dict(rows, name=split), out / "qrels" / f"{split}.tsv")
        topical = {m["query_id"]: {**m["qrels_topical"], **{d: g for d, g in m["qrels"].items() if g >= 2}}
                   for m in metas if m["split"] == split and m["qrels"]}
        write_beir_qrels(Qrels.from_dict(topical, name=f"{split}-topical"), out / "qrels-topical" / f"{split}.tsv")


__all__ = [
    "MAX_WORLDS",
    "MIN_WORLDS",
    "WORLDS_DIR",
    "check_worlds",
    "ensure_worlds",
    "generate_worlds",
    "is_multiworld",
    "remove_worlds",
    "world_manifest_hashes",
    "world_name",
    "world_of",
    "world_prefix",
    "world_seed",
    "world_split",
    "world_splits",
]
