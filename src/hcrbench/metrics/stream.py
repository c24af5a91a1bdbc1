"""``evaluate_stream(qrels, run_path, metrics)``: a TREC run scored a batch of whole queries at a time.

The same numbers as :func:`hcrbench.metrics.evaluate` (same parser, same per-query kernels, the same ledger and
warnings), in memory bounded by a batch (:data:`~hcrbench.data.trec_stream.BATCH_BYTES` of run text, or one query
if a query is larger) plus the qrels and one value per qrels query and measure, never by the run. Why it is
exact: every measure of a query is a function of that query's lines and the qrels only
(:func:`~hcrbench.metrics.evaluate.score_run` computes them per query, with no sum or maximum running across
queries), and each batch holds all lines of its queries (:mod:`hcrbench.data.trec_stream`: grouped runs in one
read; a run whose queries are scattered, such as concatenated shard runs, is spilled to bucket files by query
first). Query order in the ledger (ignored ids, the run's query count) is the file's, as when read whole.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data.pages import small_pages
from hcrbench.data.trec import _stem
from hcrbench.data.trec_stream import BATCH_BYTES, RunNotGrouped, iter_run_batches
from hcrbench.errors import InputError
from hcrbench.metrics.coerce import as_qrels
from hcrbench.metrics.encode import QrelsIndex
from hcrbench.metrics.evaluate import (
    EvaluationResult,
    RunEvaluation,
    ScoredRun,
    _subtopics,
    check_options,
    finish_run,
    score_run,
)
from hcrbench.metrics.measures import Measure


def evaluate_stream(
    qrels: Any,
    runs: str | os.PathLike | Iterable[str | os.PathLike],
    metrics: Any = "nDCG@10",
    *,
    rel_threshold: int = 1,
    missing: str = "zero",
    max_docs: int | None = None,
    judged_only: bool = False,
    subtopics: Any = None,
    dedupe: bool = False,
    names: list[str] | None = None,
    batch_bytes: int = BATCH_BYTES,
    tmp_dir: str | os.PathLike | None = None,
) -> EvaluationResult:
    """Score TREC run files like :func:`~hcrbench.metrics.evaluate` does, reading each a batch at a time.

    ``runs``: one path or several (run names: ``names``, else the file stems). The other options are
    :func:`~hcrbench.metrics.evaluate`'s, plus ``dedupe`` (keep the first of duplicate lines, as
    :func:`~hcrbench.data.read_run`), ``batch_bytes`` (run text per batch) and ``tmp_dir`` (where a run whose
    queries are not grouped is spilled; default: the system's temporary folder).
    """
    measures = check_options(metrics, rel_threshold, missing, max_docs)
    sub = _subtopics(subtopics, qrels) if any(m.kind == "alpha_nDCG" for m in measures) else None
    paths = [Path(runs)] if isinstance(runs, (str, os.PathLike)) else [Path(p) for p in runs]
    if not paths:
        raise InputError("no runs given", field="runs")
    names = list(names) if names is not None else [_stem(p) for p in paths]
    if len(names) != len(paths) or len(set(names)) != len(names):
        raise InputError(f"run names must be unique, one per file; got {names}", field="runs")
    rel = int(rel_threshold)
    out: dict[str, RunEvaluation] = {}
    with small_pages():  # a batch's arrays live for one batch
        index = QrelsIndex.build(as_qrels(qrels))
        for path, name in zip(paths, names):
            args = (path, name, index, measures, rel, max_docs, bool(judged_only), sub, dedupe, batch_bytes)
            try:
                scored = _score_file(*args, spill=False, tmp_dir=None)
            except RunNotGrouped:  # a query's lines are in several places: every batch so far is void
                scored = _score_file(*args, spill=True, tmp_dir=tmp_dir)
            out[name] = finish_run(name, scored, index, measures, rel, missing, max_docs, bool(judged_only))
    return EvaluationResult([m.name for m in measures], out, rel, missing)


def _score_file(path: Path, name: str, index: QrelsIndex, measures: list[Measure], rel: int,
                max_docs: int | None, judged_only: bool, sub: Any, dedupe: bool, batch_bytes: int, *,
                spill: bool, tmp_dir: Any) -> ScoredRun:
    """One run file's :class:`ScoredRun`, merged from its batches (each query's row from the batch holding it)."""
    total: ScoredRun | None = None
    firsts: list[np.ndarray] = []
    qids: list[str] = []
    ignored_at: dict[str, int] = {}
    for batch in iter_run_batches(path, batch_bytes=batch_bytes, dedupe=dedupe, name=name, spill=spill,
                                  tmp_dir=tmp_dir):
        part = score_run(batch.run, name, index, measures, rel, max_docs, judged_only, sub)
        first = dict(zip(batch.run.query_ids, batch.first_entry.tolist()))
        firsts.append(batch.first_entry)
        qids.extend(batch.run.query_ids)
        ignored_at.update((q, first[q]) for q in part.ignored)
        if total is None:
            part.computed = {m: v.astype(np.float64) for m, v in part.computed.items()}  # ints when nothing hit
            total = part
            continue
        rows = part.present
        for m, v in part.computed.items():
            total.computed[m][rows] = v[rows]
        for k, v in part.unjudged.items():
            total.unjudged[k] += v  # zero for the queries a batch lacks
        total.present |= rows
    if total is None:  # only comments: read_run's error would have come first; score an empty run to say so
        raise InputError("the run holds no ranked documents", path=path)
    order = np.argsort(np.concatenate(firsts), kind="stable")  # the file's query order, as read whole
    total.run_qids = [qids[i] for i in order.tolist()]
    total.ignored = sorted(ignored_at, key=ignored_at.__getitem__)
    return total
