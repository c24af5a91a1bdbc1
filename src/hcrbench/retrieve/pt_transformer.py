"""Any hcrbench retriever as a PyTerrier transformer: queries in, ranked documents out, inside a PyTerrier pipeline.

``as_transformer("bm25", corpus, k=1000, k1=0.9)`` (or an already built retriever) indexes ``corpus`` (a
:class:`~hcrbench.data.Corpus`, or a pandas frame with ``docno`` and ``text`` columns, ``title`` optional) and
returns a ``pyterrier.Transformer``. Its ``transform`` takes PyTerrier's queries frame (``qid``, ``query``) and
returns PyTerrier's result frame: ``qid, query, docno, score, rank`` per retrieved document, each query's rows in
trec_eval's order (score descending, then doc id descending) with ``rank`` from 0, as PyTerrier numbers it. So
``as_transformer(...) % 10``, ``>>`` into a re-ranker, or ``pt.Experiment([...])`` work as with Terrier's own
retrievers; the rows equal :meth:`Run.to_frame("pyterrier") <hcrbench.data.Run.to_frame>` of the retriever's own
run on the same queries. Nothing here starts Terrier's JVM (PyTerrier's transformer API does not need it).

PyTerrier is optional (``pip install 'hcrbench[pyterrier]'``); it is imported when a transformer is made.
"""

from __future__ import annotations

from typing import Any

from hcrbench.data import Corpus, Queries
from hcrbench.errors import InputError
from hcrbench.retrieve.base import Retriever, make_retriever

_CLASS: Any = None


def as_corpus(corpus: Any) -> Corpus:
    """``corpus`` as a :class:`Corpus`: one already, or a frame with ``docno`` and ``text`` (``title`` optional)."""
    if isinstance(corpus, Corpus):
        return corpus
    columns = getattr(corpus, "columns", None)
    if columns is None:
        raise InputError(f"a corpus must be an hcrbench Corpus or a DataFrame with docno and text columns; got "
                         f"{type(corpus).__name__}", field="corpus")
    missing = [c for c in ("docno", "text") if c not in columns]
    if missing:
        raise InputError(f"the corpus frame lacks {', '.join(missing)} (has: {', '.join(map(str, columns))})",
                         field="corpus")
    titles = corpus["title"].astype(str).tolist() if "title" in columns else None
    try:
        return Corpus(corpus["docno"].astype(str).tolist(), corpus["text"].astype(str).tolist(), titles)
    except ValueError as e:  # a duplicate docno
        raise InputError(str(e), field="corpus") from None


def _queries(frame: Any) -> Queries:
    columns = getattr(frame, "columns", None)
    if columns is None or "qid" not in columns or "query" not in columns:
        have = ", ".join(map(str, columns)) if columns is not None else type(frame).__name__
        raise InputError(f"a PyTerrier queries frame needs qid and query columns (has: {have})", field="topics")
    first = frame.drop_duplicates("qid")  # a query asked twice is answered once, as Terrier's retrievers do
    return Queries(first["qid"].astype(str).tolist(), first["query"].astype(str).tolist())


def _transformer_class():
    """The ``pyterrier.Transformer`` subclass, made once pyterrier is importable."""
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    import pandas as pd
    import pyterrier as pt

    class HcrbenchRetriever(pt.Transformer):
        """An hcrbench retriever answering PyTerrier queries frames (see :mod:`hcrbench.retrieve.pt_transformer`)."""

        def __init__(self, retriever: Retriever, k: int, name: str) -> None:
            super().__init__()
            self.retriever, self.k, self.name = retriever, k, name

        def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
            queries = _queries(inp)
            columns = ["qid", "query", "docno", "score", "rank"]
            if not len(queries):
                return pd.DataFrame({c: [] for c in columns})
            run = self.retriever.search(queries, k=self.k).run
            frame = run.to_frame("pyterrier")
            text = dict(zip(queries.query_ids, queries.texts))
            frame.insert(1, "query", frame["qid"].map(text))
            return frame[columns]

        def __repr__(self) -> str:
            return f"HcrbenchRetriever({self.name!r}, k={self.k})"

    _CLASS = HcrbenchRetriever
    return _CLASS


def as_transformer(retriever: str | Retriever, corpus: Any = None, *, k: int = 1000, **params: Any):
    """A PyTerrier transformer answering with ``retriever`` (a registry or plugin name, built with ``params`` by
    :func:`~hcrbench.retrieve.make_retriever`, or a retriever object), indexed on ``corpus`` first when given (a
    retriever object may come indexed already). ``k``: documents per query."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"must be a positive integer, got {k!r}", field="k")
    if isinstance(retriever, str):
        name, system = retriever, make_retriever(retriever, **params)
    else:
        if params:
            raise InputError(f"parameters {', '.join(params)} go to make_retriever; pass a name, not a built "
                             "retriever, to use them", field="params")
        name, system = type(retriever).__name__, retriever
    cls = _transformer_class()
    if corpus is not None:
        system.index(as_corpus(corpus))
    return cls(system, k, name)
