"""Qrels and runs from three parallel columns (query id, doc id, value): the one builder every reader of rows uses.

A format reader that yields rows (ir_datasets records, a DataFrame, ir_measures tuples) hands the columns here;
this module sits below both the format readers (:mod:`hcrbench.data.irds`) and the interop layer
(:mod:`hcrbench.data.interop`), so neither has to import the other. Query order is first appearance; entries keep
their order within a query; a (query, doc) pair given twice, a value that is not a number or one the type refuses
is a one-line :class:`~hcrbench.errors.InputError` naming the query and doc.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hcrbench.errors import InputError


def from_columns(cls: type, qids: Any, docs: Any, values: Any, name: str, what: str, source: str):
    """Build a Qrels / Run (``cls``) from three parallel columns (query order: first appearance)."""
    qs = np.asarray(qids, dtype=object).astype(str)
    ds = np.asarray(docs, dtype=object).astype(str)
    if qs.size == 0:
        raise InputError(f"{source} holds no rows", field=what)
    try:
        vals = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        bad = next(i for i, v in enumerate(values) if not is_number(v))
        raise InputError(f"{source}: {what} for query {str(qs[bad])!r} doc {str(ds[bad])!r} is not a number: "
                         f"{list(values)[bad]!r}", field=what) from None
    bad_mask = cls._bad_values(vals)
    if bad_mask.any():
        i = int(np.flatnonzero(bad_mask)[0])
        raise InputError(f"{source}: {what} for query {str(qs[i])!r} doc {str(ds[i])!r} is invalid: "
                         f"{float(vals[i])!r}", field=what)
    qcode, qvocab = first_appearance_codes(qs)
    dcode, dvocab = first_appearance_codes(ds)
    key = qcode * len(dvocab) + dcode
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    if (counts > 1).any():
        i = int(first[np.flatnonzero(counts > 1)[0]])
        raise InputError(f"{source}: query {str(qs[i])!r} holds doc {str(ds[i])!r} twice", field="doc_id")
    order = np.argsort(qcode, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(np.bincount(qcode, minlength=len(qvocab)))]).astype(np.int64)
    return cls(qvocab, offsets, dcode[order].astype(np.int32), vals[order].astype(cls._value_dtype), dvocab,
               name)


def from_records(cls: type, records: Any, value: str, name: str):
    """Build a Qrels / Run from namedtuples with ``query_id``, ``doc_id`` and ``value`` fields (ir_measures,
    ir_datasets)."""
    qs, ds, vs = [], [], []
    kind = "records"
    for r in records:
        qs.append(r.query_id)
        ds.append(r.doc_id)
        vs.append(getattr(r, value))
        kind = type(r).__name__
    what = "score" if value == "score" else "grade"
    return from_columns(cls, qs, ds, vs, name, what, f"the {kind} records")


def first_appearance_codes(strings: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Integer codes numbered in order of first appearance, and the vocabulary."""
    uniq, first, inv = np.unique(strings, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[order] = np.arange(len(uniq))
    return rank[inv.reshape(-1)], uniq[order].tolist()


def is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True
