"""A system that reads another system's output of the same experiment: the kill baseline's fairness rule.

``params.top_n_from = "<system name>"`` on a ``rerank`` system (instead of a path) means "rerank, per query, as
many candidates as that system's cascade considered", read from that system's routing log in this output folder
(``logs/<name>.routing.jsonl``; :mod:`hcrbench.retrieve.rerank`). The runner then

- gives the cell the log's absolute path (:func:`resolved`),
- folds the read system's fingerprint into the reader's (:func:`fingerprint_with_reads`): the log is a
  deterministic output of that fingerprint, so a changed HCR (a new tuned beam width) recomputes the baseline,
  an unchanged one reuses it, cold or warm alike,
- computes readers after the systems they read (:func:`batches`), and records the log's SHA-256 in the
  reader's manifest entry (``reads``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hcrbench.data.hashing import sha256_file
from hcrbench.experiment.manifest import sha256_json
from hcrbench.experiment.tree_step import log_rel

READ_PARAMS = ("top_n_from",)


def reads_of(system: Any, names: list[str]) -> str | None:
    """The system of this experiment that ``system`` reads (None when it reads none or a path)."""
    for key in READ_PARAMS:
        v = (system.params or {}).get(key)
        if isinstance(v, str) and v in names and v != system.name:
            return v
    return None


def resolved(system: Any, source: str, out: Path) -> Any:
    """``system`` with the source's routing log (absolute) in place of its name."""
    params = dict(system.params)
    for key in READ_PARAMS:
        if params.get(key) == source:
            params[key] = str((out / log_rel(source)).resolve())
    return system.model_copy(update={"params": params})


def fingerprint_with_reads(fp: str, source: str | None, fps: dict[str, str]) -> str:
    """``fp`` extended by the fingerprint of the system it reads (unchanged when it reads none)."""
    if source is None:
        return fp
    return sha256_json({"fingerprint": fp, "reads": {source: fps.get(source)}})


def reads_entry(source: str, out: Path) -> dict[str, Any]:
    """What the reader read: the log's path (relative to the output folder) and its SHA-256."""
    p = out / log_rel(source)
    return {source: {"path": log_rel(source), "sha256": sha256_file(p) if p.is_file() else None}}


def batches(cells: list[Any], names_read: dict[str, str]) -> list[list[Any]]:
    """The cells in config order, those that read another cell of this batch in a second batch."""
    pending = {c.name for c in cells}
    first = [c for c in cells if names_read.get(c.name) not in pending]
    second = [c for c in cells if names_read.get(c.name) in pending]
    return [b for b in (first, second) if b]


def with_readers_of_the_first(batches_: list[list[Any]], names_read: dict[str, str]) -> list[list[Any]]:
    """One batch instead of two when every cell of the second reads the first batch's first cell, for an engine
    that finishes a batch's first cell before it starts any other (``first_alone``): the readers then run beside
    the rest of the first batch, right after its first cell, instead of after all of it."""
    if len(batches_) != 2 or not batches_[0]:
        return batches_
    first, second = batches_
    if any(names_read.get(c.name) != first[0].name for c in second):
        return batches_
    return [[first[0], *second, *first[1:]]]

