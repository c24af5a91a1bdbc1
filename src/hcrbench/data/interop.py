"""Qrels and runs in the shapes the neighbours use, in and out: ranx, ir_measures, pandas / PyTerrier, pytrec_eval.

In (:func:`as_qrels`, :func:`as_run`, the one coercion every API of hcrbench goes through): a :class:`Qrels` /
:class:`Run`, a path, ``irds:<id>`` (qrels, through ir_datasets), a pytrec_eval dict ``{qid: {doc: value}}``, a ranx
``Qrels`` / ``Run``, an iterable of ir_measures (or ir_datasets) namedtuples (``Qrel(query_id, doc_id, relevance)``,
``ScoredDoc(query_id, doc_id, score)``) and a pandas DataFrame with ir_measures columns (``query_id, doc_id,
relevance | score``) or PyTerrier ones (``qid, docno, label | score``). Anything else is a one-line
:class:`~hcrbench.errors.InputError` naming what is accepted. A run's ranking always comes from its scores
(trec_eval's order); a ``rank`` column is ignored, as trec_eval ignores the rank field.

Out: :func:`to_frame` (a DataFrame in ir_measures' or PyTerrier's column names) and :func:`to_ranx`, also
attached here as the methods ``Qrels.to_frame`` / ``Run.to_frame`` / ``.to_ranx`` (``hcrbench.data`` imports this
module, so they exist whenever a Qrels does): :mod:`hcrbench.data.types` knows nothing of pandas or ranx, and the
format readers (:mod:`~hcrbench.data.trec`, :mod:`~hcrbench.data.irds`) sit below this layer, never above it.

ranx, ir_measures and pandas are imported only when an object of theirs is passed or asked for: none is a
dependency of the core.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from hcrbench.data.columns import from_columns as _from_columns
from hcrbench.data.columns import from_records
from hcrbench.data.irds import irds_qrels
from hcrbench.data.trec import read_qrels, read_run
from hcrbench.data.types import Qrels, Run, RunResult, _Ragged
from hcrbench.errors import InputError

IRDS_PREFIX = "irds:"

QRELS_ACCEPTED = ("a Qrels, a path, 'irds:<id>', a {qid: {doc: grade}} dict, a ranx Qrels, ir_measures Qrel "
                  "tuples or a DataFrame with columns query_id, doc_id, relevance (or qid, docno, label)")
RUN_ACCEPTED = ("a Run, a path, a {qid: {doc: score}} dict, a ranx Run, ir_measures ScoredDoc tuples or a "
                "DataFrame with columns query_id, doc_id, score (or qid, docno, score)")

#: (query column, doc column) of each convention, and the value column of qrels / runs.
_STYLES = {
    "ir_measures": ("query_id", "doc_id", "relevance", "score"),
    "pyterrier": ("qid", "docno", "label", "score"),
}


def _module(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def is_ranx(obj: Any, cls: str) -> bool:
    """True for a ranx ``Qrels`` / ``Run`` (checked without importing ranx)."""
    return _module(obj) == "ranx" and type(obj).__name__ == cls


def is_frame(obj: Any) -> bool:
    """True for a pandas DataFrame (checked without importing pandas)."""
    return _module(obj) == "pandas" and type(obj).__name__ == "DataFrame"


def is_irds(obj: Any) -> bool:
    return isinstance(obj, str) and obj.startswith(IRDS_PREFIX)


def _records(obj: Any, value: str) -> Iterator[Any] | None:
    """An iterator over ``obj``'s namedtuples when ``obj`` is an iterable of records with ``query_id``, ``doc_id``
    and ``value`` fields (ir_measures, ir_datasets); None otherwise (nothing consumed)."""
    if isinstance(obj, (str, bytes, os.PathLike, Mapping, _Ragged, RunResult)) or not isinstance(obj, Iterable):
        return None
    if isinstance(obj, (list, tuple)):
        first = obj[0] if obj else None
        it: Iterator[Any] = iter(obj)
    else:
        if not isinstance(obj, Iterator):
            return None
        first = next(obj, None)
        if first is None:
            raise InputError("the iterable of records is empty", field="records")
        it = itertools.chain([first], obj)
    fields = getattr(first, "_fields", None)
    if not fields or not {"query_id", "doc_id", value} <= set(fields):
        if isinstance(obj, Iterator):
            raise InputError(f"an iterable of records needs namedtuples with fields query_id, doc_id, {value}, "
                             f"got {type(first).__name__}", field="records")
        return None
    return it


def looks_like_records(obj: Any, value: str = "score") -> bool:
    """True for a list / tuple of namedtuples with ``query_id``, ``doc_id`` and ``value`` fields."""
    if not isinstance(obj, (list, tuple)) or not obj:
        return False
    fields = getattr(obj[0], "_fields", None)
    return bool(fields) and {"query_id", "doc_id", value} <= set(fields)


# ------------------------------------------------------------------------------------------------------ in


def _frame_columns(frame: Any, value: str, source: str) -> tuple[str, str, str]:
    cols = [str(c) for c in frame.columns]
    for style, (q, d, rel, score) in _STYLES.items():
        want = rel if value == "relevance" else score
        if q in cols and d in cols:
            if want in cols:
                return q, d, want
            raise InputError(f"{source} has {style} columns {q}, {d} but no {want!r} column (it has: "
                             f"{', '.join(cols[:12])})", field=want)
    need = "relevance (or qid, docno, label)" if value == "relevance" else "score (or qid, docno, score)"
    raise InputError(f"{source} needs columns query_id, doc_id, {need}; it has: {', '.join(cols[:12])}",
                     field="columns")


def _from_frame(cls: type, frame: Any, value: str, name: str):
    what = "grade" if cls is Qrels else "score"
    source = "the DataFrame"
    q, d, v = _frame_columns(frame, value, source)
    return _from_columns(cls, frame[q].to_numpy(), frame[d].to_numpy(), frame[v].to_numpy(), name, what, source)


def _from_records(cls: type, records: Iterable[Any], value: str, name: str):
    return from_records(cls, records, value, name)


def _from_dict(cls: type, d: Mapping, name: str, field: str):
    try:
        return cls.from_dict(d, name=name)
    except (ValueError, TypeError, AttributeError) as e:
        raise InputError(f"bad {field} dict: {e}", field=field) from None


def as_qrels(obj: Any, *, name: str = "qrels") -> Qrels:
    """A :class:`Qrels` from anything :data:`QRELS_ACCEPTED` lists (see the module docstring)."""
    if isinstance(obj, Qrels):
        return obj
    if is_irds(obj):
        return irds_qrels(obj[len(IRDS_PREFIX):])
    if isinstance(obj, (str, os.PathLike)):
        return read_qrels(obj)
    if is_ranx(obj, "Qrels"):
        return _from_dict(Qrels, obj.to_dict(), getattr(obj, "name", None) or name, "qrels")
    if isinstance(obj, Mapping):
        return _from_dict(Qrels, obj, name, "qrels")
    if is_frame(obj):
        return _from_frame(Qrels, obj, "relevance", name)
    records = _records(obj, "relevance")
    if records is not None:
        return _from_records(Qrels, records, "relevance", name)
    raise InputError(f"qrels must be {QRELS_ACCEPTED}; got {type(obj).__name__}", field="qrels")


def is_foreign_run(obj: Any) -> bool:
    """True for a run in another library's shape (ranx Run, DataFrame, ScoredDoc records)."""
    return is_ranx(obj, "Run") or is_frame(obj) or looks_like_records(obj, "score") or (
        isinstance(obj, Iterator) and not isinstance(obj, (str, bytes)))


def as_run(obj: Any, *, name: str | None = None) -> Run:
    """A :class:`Run` from anything :data:`RUN_ACCEPTED` lists (a :class:`RunResult` gives its run).

    ``name`` renames the run; by default a Run / ranx Run keeps its own, a file its stem, anything else ``run``.
    """
    if isinstance(obj, RunResult):
        obj = obj.run
    if isinstance(obj, Run):
        out = obj
    elif isinstance(obj, (str, os.PathLike)):
        out = read_run(obj)
    elif is_ranx(obj, "Run"):
        out = _from_dict(Run, obj.to_dict(), getattr(obj, "name", None) or "run", "run")
    elif isinstance(obj, Mapping):
        out = _from_dict(Run, obj, "run", "run")
    elif is_frame(obj):
        out = _from_frame(Run, obj, "score", "run")
    else:
        records = _records(obj, "score")
        if records is None:
            raise InputError(f"a run must be {RUN_ACCEPTED}; got {type(obj).__name__}", field="run")
        out = _from_records(Run, records, "score", "run")
    return out if name is None or name == out.name else out.rename(name)


# ------------------------------------------------------------------------------------------------------ out


def to_frame(obj: Qrels | Run, columns: str = "ir_measures"):
    """A pandas DataFrame of ``obj``, one row per entry: ``query_id, doc_id, relevance`` (qrels) or ``query_id,
    doc_id, score`` (runs); with ``columns="pyterrier"`` ``qid, docno, label`` / ``qid, docno, score, rank``.

    Run rows come in trec_eval's order (score descending, then doc id descending) with ``rank`` from 0 as PyTerrier
    numbers it. Both ir_measures and PyTerrier accept these frames as they are.
    """
    import pandas as pd

    if columns not in _STYLES:
        raise InputError(f"columns must be one of {', '.join(_STYLES)}, got {columns!r}", field="columns")
    q, d, rel, score = _STYLES[columns]
    vocab = np.asarray(obj.doc_vocab, dtype=object)
    if isinstance(obj, Qrels):
        qi = obj.entry_query_index()
        return pd.DataFrame({q: np.asarray(obj.query_ids, dtype=object)[qi], d: vocab[obj.doc_index],
                             rel: obj.grades.astype(np.int64)})
    ranked = [(qid, doc, s) for qid in obj.query_ids for doc, s in obj.ranked(qid)]
    frame = pd.DataFrame(ranked, columns=[q, d, score])
    if columns == "pyterrier":
        frame["rank"] = frame.groupby(q, sort=False).cumcount()
    return frame


def to_ranx(obj: Qrels | Run):
    """A ranx ``Qrels`` / ``Run`` holding the same entries (a Run keeps its name)."""
    import ranx

    if isinstance(obj, Qrels):
        return ranx.Qrels.from_dict(obj.to_dict())
    return ranx.Run.from_dict(obj.to_dict(), name=obj.name)


# ------------------------------------------------------------------------------------------- methods of the types


def _to_frame_method(self: _Ragged, columns: str = "ir_measures"):
    """A pandas DataFrame, one row per entry, in ir_measures' columns or ``columns="pyterrier"``'s
    (:func:`hcrbench.data.interop.to_frame`)."""
    return to_frame(self, columns)  # type: ignore[arg-type]


def _to_ranx_method(self: _Ragged):
    """The same entries as a ranx ``Qrels`` / ``Run`` (needs ranx; :func:`hcrbench.data.interop.to_ranx`)."""
    return to_ranx(self)  # type: ignore[arg-type]


_to_frame_method.__name__ = _to_frame_method.__qualname__ = "to_frame"
_to_ranx_method.__name__ = _to_ranx_method.__qualname__ = "to_ranx"
_Ragged.to_frame = _to_frame_method  # type: ignore[attr-defined]
_Ragged.to_ranx = _to_ranx_method  # type: ignore[attr-defined]
