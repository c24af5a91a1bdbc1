"""Small helpers shared by the built-in retrievers: top-k arrays to a Run, and timing a stage into Costs."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from hcrbench.data.types import Costs, Run
from hcrbench.errors import InputError


def _real(v: Any, field: str, need: str) -> float:
    """``v`` as a finite float (ints, floats, numpy numbers, numeric strings), else a one-line InputError."""
    if isinstance(v, bool):
        raise InputError(f"{field} must be {need}, got {v!r}", field=field)
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise InputError(f"{field} must be {need}, got {v!r}", field=field) from None
    if not math.isfinite(x):
        raise InputError(f"{field} must be {need}, got {v!r}", field=field)
    return x


def finite_nonneg(v: Any, field: str) -> float:
    """``v`` as a finite float >= 0 (NaN and inf rejected: they would silently poison every score)."""
    x = _real(v, field, "a finite number >= 0")
    if x < 0:
        raise InputError(f"{field} must be a finite number >= 0, got {v!r}", field=field)
    return x


def finite_pos(v: Any, field: str) -> float:
    """``v`` as a finite float > 0."""
    x = _real(v, field, "a finite number > 0")
    if x <= 0:
        raise InputError(f"{field} must be a finite number > 0, got {v!r}", field=field)
    return x


def finite_float(v: Any, field: str) -> float:
    """``v`` as a finite float of any sign (fusion weights)."""
    return _real(v, field, "a finite number")


def int_at_least(v: Any, field: str, lo: int) -> int:
    """``v`` as an int >= ``lo``: ints, integral floats and digit strings; anything else is an InputError."""
    need = f"an integer >= {lo}"
    if isinstance(v, bool):
        raise InputError(f"{field} must be {need}, got {v!r}", field=field)
    if isinstance(v, str):
        s = v.strip()
        if not s.lstrip("+-").isdecimal():
            raise InputError(f"{field} must be {need}, got {v!r}", field=field)
        n = int(s)
    else:
        x = _real(v, field, need)
        if x != int(x):
            raise InputError(f"{field} must be {need}, got {v!r}", field=field)
        n = int(x)
    if n < lo:
        raise InputError(f"{field} must be {need}, got {v!r}", field=field)
    return n


def run_from_topk(
    query_ids: Sequence[str],
    indices: np.ndarray,
    scores: np.ndarray,
    doc_ids: list[str],
    *,
    name: str,
    drop_nonpositive: bool = False,
) -> Run:
    """Build a Run from ``(n_queries, k)`` arrays of corpus positions and scores, without a dict per query.

    ``drop_nonpositive`` leaves out entries with score <= 0 (BM25: documents sharing no term with the query are
    not retrieved, as in Lucene/Pyserini). Negative positions (faiss's "no result") are always dropped.
    """
    indices = np.asarray(indices)
    scores = np.asarray(scores, dtype=np.float64)
    keep = indices >= 0
    if drop_nonpositive:
        keep &= scores > 0
    lengths = keep.sum(axis=1)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return Run(list(query_ids), offsets, indices[keep].astype(np.int32), scores[keep], doc_ids, name=name)


#: what a job's progress line says while a retriever's stage runs (others: the stage's name, "_" as spaces)
STAGE_WORDS = {"tree": "building the tree", "build_tree": "building the tree", "route": "routing the queries",
               "rerank": "reranking", "search": "searching", "index": "indexing", "lexical": "lexical index",
               "entities": "entity links", "chunk": "chunking", "fusion": "fusing"}


@contextlib.contextmanager
def timed(costs: Costs, stage: str) -> Iterator[None]:
    """Add the wall time of the ``with`` body to ``costs.stage_seconds[stage]``; a job's progress line names the
    stage meanwhile (:func:`hcrbench.retrieve.progress.report`), so a long one that reports nothing itself (a tree
    build, routing) is not a silent one."""
    from hcrbench.retrieve.progress import report

    report(STAGE_WORDS.get(stage, stage.replace("_", " ")), 0, None)
    t0 = time.perf_counter()
    try:
        yield
    finally:
        costs.add_time(stage, time.perf_counter() - t0)


def prefixed_costs(c: Costs, prefix: str) -> Costs:
    """A sub-system's costs inside a composite: counters summed as they are (an embedding call is one whoever
    makes it; the composite counts its own ``queries``), stage times kept apart as ``<prefix>.<stage>``."""
    return Costs({k: v for k, v in c.counters.items() if k != "queries"},
                 {f"{prefix}.{k}": v for k, v in c.stage_seconds.items()})
