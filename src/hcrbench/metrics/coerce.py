"""Turn what users pass (hcrbench types, pytrec_eval dicts, paths, ranx / ir_measures / pandas objects: see
:mod:`hcrbench.data.interop`) into encoded inputs.

Dict-of-dict runs are flattened without building a :class:`~hcrbench.data.Run` (one dict lookup per entry
against the qrels' doc ids), so evaluating the in-memory dicts pytrec_eval users already hold stays fast.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from operator import methodcaller
from typing import Any

import numpy as np

from hcrbench.data import Qrels, Run, RunResult, interop, trec_score_key
from hcrbench.errors import InputError
from hcrbench.metrics.encode import (
    UNJUDGED,
    EncodedRun,
    QrelsIndex,
    map_bytes_docs,
    map_docs,
    rows_from_lengths,
)

RunLike = Any  # Run | RunResult | {qid: {doc: score}} | path


def as_qrels(qrels: Any) -> Qrels:
    """A :class:`Qrels` from anything :func:`hcrbench.data.interop.as_qrels` accepts (paths, ``irds:<id>``,
    pytrec_eval dicts, ranx, ir_measures records, DataFrames)."""
    out = interop.as_qrels(qrels)
    if len(out.query_ids) == 0:
        raise InputError("qrels hold no queries", field="qrels")
    return out


def _is_single_run_mapping(d: Mapping) -> bool:
    """True for ``{qid: {doc: score}}``, False for ``{name: run}``."""
    for v in d.values():
        if isinstance(v, (Run, RunResult)):
            return False
        if isinstance(v, Mapping):
            for inner in v.values():
                return not isinstance(inner, (Mapping, Run, RunResult))
            continue  # an empty ranking: look further
        return False
    return True


def named_runs(run_or_runs: Any) -> list[tuple[str, RunLike]]:
    """``[(name, run)]`` from one run, a list of runs or ``{name: run}``; names made unique."""
    if isinstance(run_or_runs, (Run, RunResult, str, os.PathLike)) or interop.is_foreign_run(run_or_runs):
        items = [(None, run_or_runs)]
    elif isinstance(run_or_runs, Mapping):
        if _is_single_run_mapping(run_or_runs):
            items = [(None, run_or_runs)]
        else:
            items = [(str(k), v) for k, v in run_or_runs.items()]
    elif isinstance(run_or_runs, Sequence):
        items = [(None, r) for r in run_or_runs]
    else:
        raise InputError(f"runs must be one run ({interop.RUN_ACCEPTED}), a list of runs or {{name: run}}; "
                         f"got {type(run_or_runs).__name__}", field="runs")
    if not items:
        raise InputError("no runs given", field="runs")
    out: list[tuple[str, RunLike]] = []
    seen: set[str] = set()
    for i, (name, run) in enumerate(items):
        if isinstance(run, RunResult):
            run = run.run
        if isinstance(run, (str, os.PathLike)) or interop.is_foreign_run(run):
            run = interop.as_run(run)
        if not isinstance(run, (Run, Mapping)):
            raise InputError(f"run {i + 1} is a {type(run).__name__}; a run must be {interop.RUN_ACCEPTED}",
                             field="runs")
        if name is None:
            name = run.name if isinstance(run, Run) else ("run" if len(items) == 1 else f"run{i + 1}")
        base, j = name, 2
        while name in seen:
            name, j = f"{base}-{j}", j + 1
        seen.add(name)
        out.append((name, run))
    return out


def _check_scores(scores: np.ndarray, name: str) -> None:
    if not np.isfinite(scores).all():
        raise InputError(f"run {name!r} has a score that is not a finite number", field="score")


def encode_run(run: Run | Mapping, index: QrelsIndex, name: str) -> tuple[EncodedRun, list[str], list[str]]:
    """Encode ``run`` against ``index``; also return its query ids and those absent from the qrels."""
    if isinstance(run, Run):
        return _encode_run_object(run, index, name)
    return _encode_mapping(run, index, name)


def _encode_run_object(run: Run, index: QrelsIndex, name: str) -> tuple[EncodedRun, list[str], list[str]]:
    qpos = np.fromiter(map(index.query_pos.get, run.query_ids, repeat(-1)), dtype=np.int64,
                       count=len(run.query_ids))
    keep_row = qpos >= 0
    ignored = [q for q, k in zip(run.query_ids, keep_row.tolist()) if not k]
    lengths_all = run.lengths()
    if keep_row.all():
        doc_index, scores, lengths = run.doc_index, run.scores, lengths_all
    else:
        entries = np.flatnonzero(np.repeat(keep_row, lengths_all))
        doc_index, scores, lengths = run.doc_index[entries], run.scores[entries], lengths_all[keep_row]
    row_query = qpos[keep_row]
    _check_scores(scores, name)
    # One dict lookup per distinct doc of the run, then integer work per entry.
    if run.vocab_bytes is not None:  # ids read from a file: the qrels' ids looked up among them, no str per id
        codes = map_bytes_docs(index, run.vocab_bytes)[doc_index]
    elif run.doc_vocab is index.qrels.doc_vocab:
        codes = doc_index.astype(np.int64)
    else:
        codes = map_docs(index, run.doc_vocab)[doc_index]
    rows = rows_from_lengths(lengths)
    grades = index.lookup(row_query[rows], codes)
    hits = np.flatnonzero(grades != UNJUDGED)
    neg = -trec_score_key(scores)  # trec_eval ranks on float32 scores
    def doc_string(idx: np.ndarray) -> list[str]:  # ids compared in ties holding a judged doc: only those decoded
        vocab = run.vocab_bytes if run.vocab_bytes is not None else run.doc_vocab
        return [vocab[c] for c in doc_index[idx].tolist()]

    enc = EncodedRun(
        row_query=row_query, offsets=_offsets(lengths), neg_scores=neg, hit_row=rows[hits], hit_neg=neg[hits],
        hit_grade=grades[hits], hit_doc=lambda idx: doc_string(hits[idx]), doc_string=doc_string,
    )
    return enc, list(run.query_ids), ignored


def _offsets(lengths: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _encode_mapping(run: Mapping, index: QrelsIndex, name: str) -> tuple[EncodedRun, list[str], list[str]]:
    """Only the judged docs are looked up (in each query's dict), never every retrieved doc."""
    qids = [str(q) for q in run]
    qpos = [index.query_pos.get(q, -1) for q in qids]
    ignored = [q for q, p in zip(qids, qpos) if p < 0]
    kept = [r for r, p in zip(run.values(), qpos) if p >= 0]
    row_pos = [p for p in qpos if p >= 0]
    if not all(isinstance(r, Mapping) for r in kept):
        raise InputError(f"run {name!r}: each query must map to a {{doc: score}} dict", field="runs")
    flat_docs = list(chain.from_iterable(kept))  # every doc id once (also the tie-break strings below)
    try:
        "".join(flat_docs)  # the fastest all-keys-are-str check: a non-str key raises TypeError
    except TypeError:  # mixed or non-str doc ids: compare as strings, like Run.from_dict does
        kept = [r if all(type(k) is str for k in r) else {str(k): v for k, v in r.items()} for r in kept]
        flat_docs = list(chain.from_iterable(kept))
    lengths = np.fromiter(map(len, kept), dtype=np.int64, count=len(kept))
    try:
        scores = np.fromiter(chain.from_iterable(map(methodcaller("values"), kept)), dtype=np.float64,
                             count=int(lengths.sum()))
    except (TypeError, ValueError) as e:
        raise InputError(f"run {name!r}: a score is not a number ({e})", field="score") from None
    _check_scores(scores, name)
    judged = index.judged()
    hit_row: list[int] = []
    hit_score: list[float] = []
    hit_grade: list[int] = []
    hit_docs: list[str] = []
    for r, (p, ranking) in enumerate(zip(row_pos, kept)):
        get = ranking.get
        for d, g in judged[p]:
            s = get(d)
            if s is not None:
                hit_row.append(r)
                hit_score.append(s)
                hit_grade.append(g)
                hit_docs.append(d)
    def doc_string(idx: np.ndarray) -> list[str]:
        return [flat_docs[i] for i in idx.tolist()]

    enc = EncodedRun(
        row_query=np.array(row_pos, dtype=np.int64), offsets=_offsets(lengths), neg_scores=-trec_score_key(scores),
        hit_row=np.array(hit_row, dtype=np.int64), hit_neg=-trec_score_key(np.array(hit_score, dtype=np.float64)),
        hit_grade=np.array(hit_grade, dtype=np.int64), hit_doc=lambda idx: [hit_docs[i] for i in idx.tolist()],
        doc_string=doc_string,
    )
    return enc, qids, ignored
