"""ranx's order of tied documents, reproduced exactly, so that rank-based fusion can equal ``ranx.fuse``.

ranx ranks a query's documents by ``np.argsort(-scores)`` inside numba (``ranx.data_structures.common.
sort_dict_by_value``), applied to the documents in the order they were added (a TREC file's line order, a dict's
key order). numba's argsort is an unstable quicksort (median-of-three partition, insertion sort below 15 items,
``numba.misc.quicksort``), so tied documents come out in an order that depends on the input order and on every
other score of the query, neither trec_eval's (doc id descending) nor the file's. :func:`ranx_argsort` is that
quicksort in plain Python; a query without tied scores takes numpy's argsort (any correct sort agrees there).
Tests check it against numba's own ``np.argsort`` and the fusion built on it against ``ranx.fuse``.
"""

from __future__ import annotations

import numpy as np

from hcrbench.data.types import Run

_SMALL = 15  # numba.misc.quicksort.SMALL_QUICKSORT


def _insertion(a: list[float], r: list[int], low: int, high: int) -> None:
    for i in range(low + 1, high + 1):
        k = r[i]
        v = a[k]
        j = i
        while j > low and v < a[r[j - 1]]:
            r[j] = r[j - 1]
            j -= 1
        r[j] = k


def _partition(a: list[float], r: list[int], low: int, high: int) -> int:
    mid = (low + high) >> 1
    if a[r[mid]] < a[r[low]]:
        r[low], r[mid] = r[mid], r[low]
    if a[r[high]] < a[r[mid]]:
        r[high], r[mid] = r[mid], r[high]
    if a[r[mid]] < a[r[low]]:
        r[low], r[mid] = r[mid], r[low]
    pivot = a[r[mid]]
    r[high], r[mid] = r[mid], r[high]
    i, j = low, high - 1
    while True:
        while i < high and a[r[i]] < pivot:
            i += 1
        while j >= low and pivot < a[r[j]]:
            j -= 1
        if i >= j:
            break
        r[i], r[j] = r[j], r[i]
        i += 1
        j -= 1
    r[i], r[high] = r[high], r[i]
    return i


def ranx_argsort(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys)`` as numba computes it (its default unstable quicksort): the same result on ties."""
    n = len(keys)
    if n < 2 or len(np.unique(keys)) == n:
        return np.argsort(keys, kind="stable")
    a = np.asarray(keys, dtype=np.float64).tolist()
    r = list(range(n))
    stack = [(0, n - 1)]
    while stack:
        low, high = stack.pop()
        while high - low >= _SMALL:
            i = _partition(a, r, low, high)
            if high - i > i - low:
                if high > i:
                    stack.append((i + 1, high))
                high = i - 1
            else:
                if i > low:
                    stack.append((low, i - 1))
                low = i + 1
        _insertion(a, r, low, high)
    return np.array(r, dtype=np.int64)


def ranx_positions(run: Run, values: np.ndarray | None = None) -> np.ndarray:
    """For each entry of ``run`` (storage order), its 1-based position in ranx's sorted run: ``values`` (default
    the run's scores) descending, ties as ranx's numba quicksort leaves them given the storage (file) order."""
    v = run.scores if values is None else np.asarray(values, dtype=np.float64)
    ranks = np.empty(run.n_entries, dtype=np.int64)
    for lo, hi in zip(run.offsets[:-1].tolist(), run.offsets[1:].tolist()):
        order = ranx_argsort(-v[lo:hi])
        ranks[lo + order] = np.arange(1, hi - lo + 1)
    return ranks


def ranx_saved_order(fused: Run, inputs: list[tuple[Run, np.ndarray]]) -> list[tuple[str, list[tuple[str, float]]]]:
    """The lines ``ranx.fuse(...).save(path)`` writes for ``fused``: queries in sorted id order; each query's
    documents in ranx's sorted order of the fused scores, ties as its quicksort leaves them given the order ranx
    built the fused run in (the union of the input runs, in run order, each run in its own ranx order).

    ``inputs`` holds each input run with its entries' 1-based positions in ranx's (normalised) sorted run
    (:func:`~hcrbench.retrieve.fusion_methods.run_positions`)."""
    out = []
    where = {q: i for i, q in enumerate(fused.query_ids)}
    spans = [{q: i for i, q in enumerate(run.query_ids)} for run, _ in inputs]
    for qid in sorted(fused.query_ids):
        lo, hi = int(fused.offsets[where[qid]]), int(fused.offsets[where[qid] + 1])
        score = {fused.doc_vocab[int(d)]: float(s) for d, s in zip(fused.doc_index[lo:hi].tolist(),
                                                                     fused.scores[lo:hi].tolist())}
        built: dict[str, None] = {}
        for (run, pos), span in zip(inputs, spans):
            if qid not in span:
                continue
            rlo, rhi = int(run.offsets[span[qid]]), int(run.offsets[span[qid] + 1])
            entries = np.arange(rlo, rhi)[np.argsort(pos[rlo:rhi], kind="stable")]
            for i in entries.tolist():
                built.setdefault(run.doc_vocab[int(run.doc_index[i])], None)
        for doc in score:  # a candidate no run retrieved (never with the methods this order is claimed for)
            built.setdefault(doc, None)
        docs = [d for d in built if d in score]
        order = ranx_argsort(-np.array([score[d] for d in docs], dtype=np.float64))
        out.append((qid, [(docs[i], score[docs[i]]) for i in order.tolist()]))
    return out
