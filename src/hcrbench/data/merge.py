"""Shard runs merged into one TREC run, in bounded memory: what TREC RAG's concatenated segment runs need.

A corpus split into shards (TREC RAG 2024: 113,520,750 segments) gives one run per shard, each holding every
query. :func:`merge_runs` reads them as their concatenation, a batch of whole queries at a time
(:func:`hcrbench.data.trec_stream.iter_run_batches`, spilled by query), and writes each query once, in trec_eval's
order: score descending (compared as 32-bit floats, as trec_eval stores them), ties by doc id descending in byte
order (``strcmp``), ranks 1..n; scores are written with ``repr`` so reading back gives the same numbers. So
evaluating the merged file gives the numbers of evaluating the concatenation, and with ``depth`` those of the
concatenation scored with trec_eval's ``-M depth``. A doc that two lines give for one query is refused (trec_eval
refuses it too), naming the file and line of the second; ``dedupe`` keeps the first, as ``read_run(dedupe=True)``
on the concatenation. The output is written atomically and may not be one of the inputs.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hcrbench.data.atomic import atomic_open
from hcrbench.data.ids import check_ids
from hcrbench.data.run_writers import check_run_path, write_any_run
from hcrbench.data.trec import read_run
from hcrbench.data.trec_stream import BATCH_BYTES, iter_run_batches
from hcrbench.data.types import Run, trec_score_key
from hcrbench.errors import InputError


@dataclass(frozen=True)
class MergeSummary:
    """What :func:`merge_runs` read and wrote."""

    files: int
    queries: int
    lines_read: int
    lines_written: int


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def ranked_order(run: Run) -> np.ndarray:
    """Entry indices of ``run`` in trec_eval order: by query (``run.query_ids`` order), score (float32) descending,
    doc id descending (code-point order, which is UTF-8 byte order: strcmp's)."""
    vocab = np.array(run.doc_vocab, dtype=object)
    doc_rank = np.empty(len(vocab), dtype=np.int64)
    doc_rank[np.argsort(vocab.astype(str), kind="stable")] = np.arange(len(vocab))
    return np.lexsort((-doc_rank[run.doc_index], -trec_score_key(run.scores), run.entry_query_index()))


def merge_runs(paths: list[str | os.PathLike], out: str | os.PathLike, *, depth: int | None = None,
               tag: str = "merged", dedupe: bool = False, batch_bytes: int = BATCH_BYTES,
               tmp_dir: str | os.PathLike | None = None) -> MergeSummary:
    """Merge the run files ``paths`` into ``out`` (see the module docstring); ``depth`` keeps each query's best."""
    files = [Path(p) for p in paths]
    out = Path(out)
    if not files:
        raise InputError("no run files to merge", field="RUN")
    if depth is not None and (isinstance(depth, bool) or depth < 1):
        raise InputError(f"must be a positive integer, got {depth!r}", field="--depth")
    for p in files:
        if _same_file(p, out):
            raise InputError(f"the output is one of the input runs ({p}); refusing to overwrite an input",
                             path=out, field="--out")
    tag = "_".join(str(tag).split()) or "merged"
    check_ids([tag], what="run tag", path=out, field="--tag")
    kind = check_run_path(out, field="--out")
    if kind != "trec":  # ranx JSON / parquet: merged as TREC text first, then written in that format
        with tempfile.TemporaryDirectory(prefix="hcrbench-merge-", dir=tmp_dir) as tmp:
            text = Path(tmp) / "merged.trec"
            summary = merge_runs(files, text, depth=depth, tag=tag, dedupe=dedupe, batch_bytes=batch_bytes,
                                 tmp_dir=tmp_dir)
            write_any_run(read_run(text, name=tag), out, tag=tag, field="--out")
        return summary
    queries = read = written = 0
    with atomic_open(out, "w") as fh:
        for batch in iter_run_batches(files, batch_bytes=batch_bytes, dedupe=dedupe, name=tag, spill=True,
                                      tmp_dir=tmp_dir):
            run = batch.run
            order = ranked_order(run)
            rank = np.arange(order.size, dtype=np.int64) - np.repeat(run.offsets[:-1], run.lengths())
            if depth is not None:
                keep = rank < depth
                order, rank = order[keep], rank[keep]
            qids = np.array(run.query_ids, dtype=object)[run.entry_query_index()[order]].tolist()
            docs = [run.doc_vocab[c] for c in run.doc_index[order].tolist()]
            scores = run.scores[order].tolist()
            fh.write("".join(f"{q} Q0 {d} {r} {s!r} {tag}\n"
                             for q, d, r, s in zip(qids, docs, (rank + 1).tolist(), scores)))
            queries += len(run.query_ids)
            read += run.n_entries
            written += len(order)
    return MergeSummary(len(files), queries, read, written)
