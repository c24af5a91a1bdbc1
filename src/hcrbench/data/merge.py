"""Shard runs merged into one TREC run, in bounded memory: what TREC RAG's concatenated segment runs need.

A corpus split into shards (TREC RAG 2024: 113,520,750 segments) gives one run per shard, each holding every
query. :func:`merge_runs` reads them as their concatenation, a batch of whole queries at a time
(:func:`hcrbench.data.trec_stream.iter_run_batches`, spilled by query), and writes each query once, queries in an
order every file keeps (shards cut from one run come back in its query order, even a query missing from the first
shard; first appearance settles the rest, :func:`query_order`), each query by score descending (compared as
32-bit floats, as trec_eval stores them), ties by the rank the line was given (so shards cut from one run put its ties back in its order), then doc id descending
in byte order (``strcmp``, trec_eval's own tie order), ranks 1..n. Every other field is written as read: the score's
text (``12.500000`` stays so), ``Q0`` and the run tag (unless ``tag`` replaces it), so shards split from a run
written with single spaces merge back to that run byte for byte. So
evaluating the merged file gives the numbers of evaluating the concatenation, and with ``depth`` those of the
concatenation scored with trec_eval's ``-M depth``. A doc that two lines give for one query is refused (trec_eval
refuses it too), naming the file and line of the second; ``dedupe`` keeps the first, as ``read_run(dedupe=True)``
on the concatenation (the summary's ``lines_read`` counts every line read, the dropped ones too). The output is
written atomically and may not be one of the inputs. Shards that each hold the same queries in the same order (the
usual case) are merged in one streamed pass (:mod:`hcrbench.data.merge_sorted`); any other input goes through
bucket files by query, as below, with the same output.
"""

from __future__ import annotations

import errno
import heapq
import itertools
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hcrbench.data.atomic import atomic_open
from hcrbench.data.ids import check_ids
from hcrbench.data.merge_sorted import NotSorted, merge_sorted
from hcrbench.data.run_formats import sniff
from hcrbench.data.run_writers import check_run_path, write_any_run
from hcrbench.data.trec import read_run
from hcrbench.data.trec_stream import BATCH_BYTES, iter_run_batches
from hcrbench.data.types import Run, trec_score_key
from hcrbench.errors import InputError, WriteError


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


def _encoded(ids: list[str]) -> np.ndarray:
    """Ids as UTF-8 bytes (a numpy bytes array: ids hold no NUL, so none loses a trailing byte)."""
    return np.array([d.encode("utf-8", "surrogatepass") for d in ids], dtype=bytes)


def _doc_bytes(run: Run) -> np.ndarray:
    """The run's doc ids as a bytes array (the reader's own bytes when it kept them)."""
    vb = run.vocab_bytes
    return vb.raw if vb is not None else _encoded(run.doc_vocab)


def _doc_rank(run: Run, enc: np.ndarray | None = None) -> np.ndarray:
    """Each doc code's position among the run's doc ids in code-point order (= UTF-8 byte order: strcmp's)."""
    enc = _encoded(run.doc_vocab) if enc is None else enc
    doc_rank = np.empty(len(enc), dtype=np.int64)
    doc_rank[np.argsort(enc, kind="stable")] = np.arange(len(enc))
    return doc_rank


def ranked_order(run: Run, doc_rank: np.ndarray | None = None) -> np.ndarray:
    """Entry indices of ``run`` in trec_eval order: by query (``run.query_ids`` order), score (float32) descending,
    doc id descending (code-point order, which is UTF-8 byte order: strcmp's)."""
    doc_rank = _doc_rank(run) if doc_rank is None else doc_rank
    return np.lexsort((-doc_rank[run.doc_index], -trec_score_key(run.scores), run.entry_query_index()))


def _line_order(run: Run, ranks: np.ndarray, depth: int | None, enc: np.ndarray) -> np.ndarray:
    """The entries written, in the order written: each query's best ``depth`` by trec_eval's order (what ``-M``
    keeps), ordered by float32 score descending, then the rank the line was given, then doc id descending. Doc ids
    are compared only inside groups equal on all the rest (rare): no sort of every id."""
    idx = np.arange(run.n_entries)
    if depth is not None:
        order = ranked_order(run, _doc_rank(run, enc))
        pos = np.arange(order.size, dtype=np.int64) - np.repeat(run.offsets[:-1], run.lengths())
        idx = np.sort(order[pos < depth])
    q = run.entry_query_index()[idx]
    neg = -trec_score_key(run.scores[idx])
    rk = ranks[idx]
    o = np.lexsort((rk, neg, q))
    q, neg, rk = q[o], neg[o], rk[o]
    tie = (q[1:] == q[:-1]) & (neg[1:] == neg[:-1]) & (rk[1:] == rk[:-1])
    if tie.any():  # each group of ties: its entries by doc id descending (byte order, strcmp's)
        start = np.concatenate([[True], ~tie])
        group = np.cumsum(start) - 1
        member = np.zeros(len(o), dtype=bool)
        member[1:] |= tie
        member[:-1] |= tie
        at = np.flatnonzero(member)
        docs = enc[run.doc_index[idx[o[at]]]]
        rank = np.empty(len(at), dtype=np.int64)
        rank[np.argsort(docs, kind="stable")] = np.arange(len(at))
        o[at] = o[at][np.lexsort((-rank, group[at]))]
    return idx[o]


def merge_runs(paths: list[str | os.PathLike], out: str | os.PathLike, *, depth: int | None = None,
               tag: str | None = None, dedupe: bool = False, batch_bytes: int = BATCH_BYTES,
               tmp_dir: str | os.PathLike | None = None) -> MergeSummary:
    """Merge the run files ``paths`` into ``out`` (see the module docstring); ``depth`` keeps each query's best,
    ``tag`` replaces every line's run tag (None keeps each line's own)."""
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
    if tmp_dir is not None:
        check_tmp_dir(tmp_dir)
    if tag is not None:
        tag = "_".join(str(tag).split()) or "merged"
        check_ids([tag], what="run tag", path=out, field="--tag")
    kind = check_run_path(out, field="--out")
    if kind != "trec":  # ranx JSON / parquet: merged as TREC text first, then written in that format
        with tempfile.TemporaryDirectory(prefix="hcrbench-merge-", dir=tmp_dir) as tmp:
            text = Path(tmp) / "merged.trec"
            summary = merge_runs(files, text, depth=depth, tag=tag, dedupe=dedupe, batch_bytes=batch_bytes,
                                 tmp_dir=tmp_dir)
            write_any_run(read_run(text, name=tag or "merged"), out, tag=tag, field="--out")
        return summary
    if depth is None and tag is None and all(p.is_file() and sniff(p) == "trec" for p in files):
        try:  # shards of one query order (the usual case): one streamed pass, nothing spilled
            queries, lines = merge_sorted(files, out)
            return MergeSummary(len(files), queries, lines, lines)
        except NotSorted:
            pass
    try:
        return _merge_text(files, out, depth, tag, dedupe, batch_bytes, tmp_dir)
    except WriteError:
        raise
    except OSError as e:  # the spill folder's doing (full, read-only, removed): name --tmp-dir, not --out
        where = Path(tempfile.gettempdir() if tmp_dir is None else tmp_dir)
        if not e.filename or not os.path.realpath(str(e.filename)).startswith(os.path.realpath(where)):
            raise
        err = WriteError(f"cannot write spill files in {where}: {e.strerror or e}", field="--tmp-dir")
        err.exit_code = 2 if e.errno in (errno.ENOTDIR, errno.ENOENT, errno.EACCES, errno.EROFS) else 1
        raise err from None


def check_tmp_dir(path: str | os.PathLike) -> None:
    """Refuse a ``--tmp-dir`` that is not an existing, writable folder, naming ``--tmp-dir`` (one line, exit 2)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"folder {p} does not exist (create it first, or leave --tmp-dir out for the system's "
                         "temporary folder)", field="--tmp-dir")
    if not p.is_dir():
        raise InputError(f"{p} is not a folder", field="--tmp-dir")
    if not os.access(p, os.W_OK | os.X_OK):
        raise InputError(f"folder {p} is not writable", field="--tmp-dir")


def _merge_text(files: list[Path], out: Path, depth: int | None, tag: str | None, dedupe: bool, batch_bytes: int,
                tmp_dir: str | os.PathLike | None) -> MergeSummary:
    queries = read = written = 0
    index: list[tuple[int, int, int]] = []  # per query: (its first line in the concatenation, offset, bytes)
    in_files: list[np.ndarray] = []  # per query: its first line in each file (-1: absent)
    with tempfile.TemporaryDirectory(prefix="hcrbench-merge-", dir=tmp_dir) as tmp:
        body = Path(tmp) / "queries.bin"
        with open(body, "wb") as fh:
            for batch in iter_run_batches(files, batch_bytes=batch_bytes, dedupe=dedupe, name=tag or "merged",
                                          spill=True, tmp_dir=tmp_dir, texts=True):
                run, cols = batch.run, batch.columns
                enc = _doc_bytes(run)
                order = _line_order(run, cols["rank"], depth, enc)
                counts = np.bincount(run.entry_query_index()[order], minlength=len(run.query_ids))
                buf, at = _text(run, cols, order, counts, tag, enc)
                bounds = at[np.concatenate([[0], np.cumsum(counts)])].tolist()
                for q, first in enumerate(batch.first_entry.tolist()):
                    chunk = buf[bounds[q]:bounds[q + 1]]
                    if chunk:
                        index.append((first, fh.tell(), len(chunk)))
                        in_files.append(batch.file_first[q])
                        fh.write(chunk)
                queries += len(run.query_ids)
                read += batch.n_read
                written += len(order)
        with atomic_open(out, "wb") as dst, open(body, "rb") as src:
            for i in query_order([g for g, _, _ in index], in_files):
                _, offset, size = index[i]
                src.seek(offset)
                dst.write(src.read(size))
    return MergeSummary(len(files), queries, read, written)


def query_order(first: list[int], in_files: list[np.ndarray]) -> list[int]:
    """The order queries are written in: one that keeps every file's own query order (shards cut from one run
    each hold its queries in its order, some queries missing from some shards), the query that appears first in
    the concatenation first among those free to go. Files that disagree (a cycle) are settled by first
    appearance. ``first``: each query's first line in the concatenation; ``in_files``: its first line per file."""
    n = len(first)
    if n == 0:
        return []
    table = np.stack(in_files)
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for f in range(table.shape[1]):
        members = np.flatnonzero(table[:, f] >= 0)
        seq = members[np.argsort(table[members, f], kind="stable")].tolist()
        for a, b in itertools.pairwise(seq):
            succ[a].append(b)
            indeg[b] += 1
    heap = [(first[i], i) for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    by_first = sorted(range(n), key=first.__getitem__)
    cursor = 0
    done = [False] * n
    out: list[int] = []
    while len(out) < n:
        if not heap:  # the files disagree on an order: the earliest query left goes next
            while done[by_first[cursor]]:
                cursor += 1
            heap.append((first[by_first[cursor]], by_first[cursor]))
        _, i = heapq.heappop(heap)
        if done[i]:
            continue
        done[i] = True
        out.append(i)
        for b in succ[i]:
            indeg[b] -= 1
            if indeg[b] == 0 and not done[b]:
                heapq.heappush(heap, (first[b], b))
    return out


def _text(run: Run, cols: dict[str, np.ndarray], order: np.ndarray, counts: np.ndarray, tag: str | None,
          enc: np.ndarray) -> tuple[bytes, np.ndarray]:
    """The written lines of ``order``'s entries, joined (ids, ``Q0`` field, score text and tag as read, ranks
    1..n), and where each line starts (plus the end). The fields are laid out as fixed-width rows of one byte
    matrix and its NUL padding dropped in one pass (no field holds a NUL): no Python object per line."""
    n = order.size
    if n == 0:
        return b"", np.zeros(1, dtype=np.int64)
    starts = np.repeat(np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    ranks = (np.arange(n, dtype=np.int64) - starts + 1)
    ranks = ranks.astype(f"S{len(str(int(ranks.max())))}")
    tags = np.array([tag.encode("utf-8")]) if tag is not None else cols["tag"][order]
    fields = [np.asarray(_encoded(run.query_ids))[run.entry_query_index()[order]], cols["q0"][order],
              enc[run.doc_index[order]], ranks, cols["score"][order], tags]
    parts = []
    for k, f in enumerate(fields):
        f = np.ascontiguousarray(f)
        w = f.dtype.itemsize
        m = f.view(np.uint8).reshape(len(f), w)
        parts.append(np.broadcast_to(m, (n, w)) if len(f) == 1 and n > 1 else m)
        parts.append(np.full((n, 1), 10 if k == len(fields) - 1 else 32, dtype=np.uint8))
    mat = np.concatenate(parts, axis=1)
    keep = mat != 0
    at = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(keep, axis=1), out=at[1:])
    return mat[keep].tobytes(), at
