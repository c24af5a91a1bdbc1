"""The data types at hcrbench's boundary: Corpus, Queries, Qrels, Run, RunResult.

String ids outside, integer ids inside. ``Qrels`` and ``Run`` are stored as ragged (CSR-like) numpy arrays:
per query a slice ``offsets[i]:offsets[i+1]`` into ``doc_index`` (codes into ``doc_vocab``) and ``grades`` /
``scores``. Ten million run lines then cost ~100 MB, not the ~2 GB a dict of dicts would.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.data.vocab import BytesVocab


def trec_score_key(scores: Any) -> np.ndarray:
    """Scores as trec_eval compares them when ranking: rounded to 32-bit floats (returned as float64).

    trec_eval stores run scores as C ``float``, so scores that differ only beyond float32 precision tie (and the
    tie goes to the doc id, descending). Use this as the sort key wherever a ranking is derived from scores for
    evaluation; never to change the stored values. Magnitudes beyond float32 range become +-inf, as in trec_eval.
    """
    with np.errstate(over="ignore"):
        return np.asarray(scores, dtype=np.float64).astype(np.float32).astype(np.float64)


# --------------------------------------------------------------------------------------------------- documents


@dataclass(frozen=True)
class Document:
    """One document of a corpus."""

    doc_id: str
    text: str
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


class Corpus:
    """An ordered collection of documents; ``doc_id`` -> position via :meth:`index_of`."""

    def __init__(
        self,
        doc_ids: list[str],
        texts: list[str],
        titles: list[str] | None = None,
        metadata: list[dict[str, Any]] | None = None,
        name: str = "corpus",
    ) -> None:
        n = len(doc_ids)
        if len(texts) != n or (titles is not None and len(titles) != n) or (
            metadata is not None and len(metadata) != n
        ):
            raise ValueError("Corpus: doc_ids, texts, titles and metadata must have the same length")
        self.doc_ids = list(doc_ids)
        self.texts = list(texts)
        self.titles = list(titles) if titles is not None else [""] * n
        self.metadata = list(metadata) if metadata is not None else [{} for _ in range(n)]
        self.name = name
        self._pos = {d: i for i, d in enumerate(self.doc_ids)}
        if len(self._pos) != n:
            seen: set[str] = set()
            dup = next(d for d in self.doc_ids if d in seen or seen.add(d))  # type: ignore[func-returns-value]
            raise ValueError(f"Corpus: duplicate doc_id {dup!r}")

    @classmethod
    def from_documents(cls, docs: Iterable[Document], name: str = "corpus") -> Corpus:
        docs = list(docs)
        return cls(
            [d.doc_id for d in docs],
            [d.text for d in docs],
            [d.title for d in docs],
            [dict(d.metadata) for d in docs],
            name=name,
        )

    def __len__(self) -> int:
        return len(self.doc_ids)

    def __iter__(self) -> Iterator[Document]:
        for i in range(len(self)):
            yield self.document(i)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._pos

    def __getitem__(self, doc_id: str) -> Document:
        return self.document(self._pos[doc_id])

    def index_of(self, doc_id: str) -> int:
        return self._pos[doc_id]

    def document(self, i: int) -> Document:
        return Document(self.doc_ids[i], self.texts[i], self.titles[i], self.metadata[i])

    def full_text(self, i: int) -> str:
        """Title and text joined the way BEIR baselines index them ("title text")."""
        t = self.titles[i]
        return f"{t} {self.texts[i]}" if t else self.texts[i]

    def subset(self, doc_ids: Iterable[str]) -> Corpus:
        idx = [self._pos[d] for d in doc_ids]
        return Corpus(
            [self.doc_ids[i] for i in idx],
            [self.texts[i] for i in idx],
            [self.titles[i] for i in idx],
            [self.metadata[i] for i in idx],
            name=self.name,
        )


class Queries:
    """Ordered queries with free-form metadata (category, difficulty, ...)."""

    def __init__(
        self,
        query_ids: list[str],
        texts: list[str],
        metadata: list[dict[str, Any]] | None = None,
        name: str = "queries",
    ) -> None:
        if len(texts) != len(query_ids) or (metadata is not None and len(metadata) != len(query_ids)):
            raise ValueError("Queries: query_ids, texts and metadata must have the same length")
        self.query_ids = list(query_ids)
        self.texts = list(texts)
        self.metadata = list(metadata) if metadata is not None else [{} for _ in query_ids]
        self.name = name
        self._pos = {q: i for i, q in enumerate(self.query_ids)}
        if len(self._pos) != len(self.query_ids):
            raise ValueError("Queries: duplicate query_id")

    @classmethod
    def from_dict(cls, d: Mapping[str, str], name: str = "queries") -> Queries:
        return cls(list(d), [d[q] for q in d], name=name)

    def __len__(self) -> int:
        return len(self.query_ids)

    def __contains__(self, qid: object) -> bool:
        return qid in self._pos

    def __getitem__(self, qid: str) -> str:
        return self.texts[self._pos[qid]]

    def items(self) -> Iterator[tuple[str, str]]:
        return zip(self.query_ids, self.texts)

    def meta(self, qid: str) -> dict[str, Any]:
        return self.metadata[self._pos[qid]]

    def subset(self, qids: Iterable[str]) -> Queries:
        idx = [self._pos[q] for q in qids if q in self._pos]
        return Queries(
            [self.query_ids[i] for i in idx],
            [self.texts[i] for i in idx],
            [self.metadata[i] for i in idx],
            name=self.name,
        )


# --------------------------------------------------------------------------------------------------- ragged base


class _Ragged:
    """Per-query slices of (doc code, value) pairs. Shared storage of Qrels and Run."""

    _value_dtype: type = np.float64

    def __init__(
        self,
        query_ids: list[str],
        offsets: np.ndarray,
        doc_index: np.ndarray,
        values: np.ndarray,
        doc_vocab: list[str],
        name: str,
    ) -> None:
        self.query_ids = list(query_ids)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.doc_index = np.asarray(doc_index, dtype=np.int32)
        self._values = np.asarray(values, dtype=self._value_dtype)
        if isinstance(doc_vocab, BytesVocab):  # ids read from a file: decoded only when someone asks for them
            self._vocab_bytes: BytesVocab | None = doc_vocab
            self._doc_vocab: list[str] | None = None
        else:
            self._vocab_bytes, self._doc_vocab = None, list(doc_vocab)
        self.name = name
        if len(self.offsets) != len(self.query_ids) + 1:
            raise ValueError("offsets must have len(query_ids) + 1 entries")
        if len(self.doc_index) != len(self._values) or (
            len(self.offsets) and int(self.offsets[-1]) != len(self.doc_index)
        ):
            raise ValueError("doc_index, values and offsets disagree")
        self._pos = {q: i for i, q in enumerate(self.query_ids)}
        if len(self._pos) != len(self.query_ids):
            raise ValueError("duplicate query id")

    @property
    def doc_vocab(self) -> list[str]:
        """Doc ids by code (``doc_index`` points here)."""
        if self._doc_vocab is None:  # decoded once; from then on the list is the truth (callers may edit it)
            self._doc_vocab, self._vocab_bytes = self._vocab_bytes.tolist(), None
        return self._doc_vocab

    @doc_vocab.setter
    def doc_vocab(self, value) -> None:
        self._vocab_bytes, self._doc_vocab = None, list(value)

    @property
    def vocab_bytes(self) -> BytesVocab | None:
        """The doc ids as bytes when they were read from a file and not changed since (None otherwise): lets
        scoring and merging look ids up without a ``str`` per id."""
        return self._vocab_bytes

    def _vocab_source(self):
        return self._vocab_bytes if self._vocab_bytes is not None else self._doc_vocab

    # -- construction ------------------------------------------------------------------------------------
    @classmethod
    def _from_mapping(cls, d: Mapping[str, Mapping[str, Any]], name: str, what: str = "value"):
        vocab: dict[str, int] = {}
        qids: list[str] = []
        offsets = [0]
        codes: list[int] = []
        vals: list[Any] = []
        get = vocab.get
        for q, docs in d.items():
            qids.append(q if type(q) is str else str(q))
            for doc, v in docs.items():
                if type(doc) is not str:
                    doc = str(doc)
                c = get(doc)
                if c is None:
                    c = vocab[doc] = len(vocab)
                codes.append(c)
                vals.append(v)
            offsets.append(len(codes))
        try:
            raw = np.array(vals, dtype=np.float64)
        except (TypeError, ValueError):
            raw = None
        bad = cls._bad_values(raw) if raw is not None else None
        if raw is None or bad.any():
            i = int(np.flatnonzero(bad)[0]) if raw is not None else next(
                j for j, v in enumerate(vals) if not _is_number(v))
            qi = int(np.searchsorted(np.asarray(offsets), i, side="right")) - 1
            doc = list(vocab)[codes[i]]
            raise ValueError(f"{cls.__name__} {what} for query {qids[qi]!r} doc {doc!r} is invalid: {vals[i]!r}")
        return cls(qids, np.array(offsets), np.array(codes, dtype=np.int32),
                   raw.astype(cls._value_dtype), list(vocab), name)

    @staticmethod
    def _bad_values(values: np.ndarray) -> np.ndarray:
        """Mask of values the subclass refuses (non-finite by default)."""
        return ~np.isfinite(values)

    # -- access -------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.query_ids)

    def __contains__(self, qid: object) -> bool:
        return qid in self._pos

    def __iter__(self) -> Iterator[str]:
        return iter(self.query_ids)

    def keys(self) -> list[str]:
        return list(self.query_ids)

    def _slice(self, qid: str) -> slice:
        i = self._pos[qid]
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def __getitem__(self, qid: str) -> dict[str, Any]:
        s = self._slice(qid)
        vocab = self.doc_vocab
        return {vocab[c]: v for c, v in zip(self.doc_index[s].tolist(), self._values[s].tolist())}

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for q in self.query_ids:
            yield q, self[q]

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """The dict-of-dicts form pytrec_eval and ir_measures use."""
        return dict(self.items())

    @property
    def n_entries(self) -> int:
        return int(self.doc_index.shape[0])

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def entry_query_index(self) -> np.ndarray:
        """For each entry, the position of its query in ``query_ids``."""
        return np.repeat(np.arange(len(self.query_ids), dtype=np.int64), self.lengths())

    def subset(self, qids: Iterable[str]):
        """A new object holding only ``qids`` (in that order; unknown ids are skipped)."""
        keep = [q for q in qids if q in self._pos]
        parts_i = [np.arange(*self._slice(q).indices(self.n_entries)) for q in keep]
        idx = np.concatenate(parts_i) if parts_i else np.zeros(0, dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum([len(p) for p in parts_i])]).astype(np.int64)
        return type(self)(keep, offsets, self.doc_index[idx], self._values[idx], self._vocab_source(), self.name)

    def rename(self, name: str):
        return type(self)(self.query_ids, self.offsets, self.doc_index, self._values, self._vocab_source(), name)

    # -- other libraries: ``to_frame`` / ``to_ranx`` are attached by hcrbench.data.interop (this module knows
    # nothing of pandas or ranx); notebooks: hcrbench.data.display ----------------------------------------------
    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.name!r}: {len(self.query_ids):,} queries, {self.n_entries:,} "
                f"{'judgments' if isinstance(self, Qrels) else 'retrieved docs'})")

    def _repr_html_(self) -> str:
        from hcrbench.data.display import fmt, html_table

        rows = []
        for q in self.query_ids[:3]:
            items = self.ranked(q) if isinstance(self, Run) else list(self[q].items())
            rows += [[q, d, fmt(v)] for d, v in items[:3]]
        value = "relevance" if isinstance(self, Qrels) else "score"
        return html_table(["query_id", "doc_id", value], rows, caption=repr(self) + " (first entries)")


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


class Qrels(_Ragged):
    """Graded relevance judgments: per query, judged doc -> integer grade (may be 0 or negative)."""

    _value_dtype = np.int32

    def __init__(self, query_ids, offsets, doc_index, grades, doc_vocab, name: str = "qrels") -> None:
        super().__init__(query_ids, offsets, doc_index, grades, doc_vocab, name)

    @property
    def grades(self) -> np.ndarray:
        return self._values

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, int]], name: str = "qrels") -> Qrels:
        """Build from ``{qid: {docid: grade}}``. Grades must be integers (ValueError names the first that isn't)."""
        return cls._from_mapping(d, name, "grade")

    @staticmethod
    def _bad_values(values: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return ~np.isfinite(values) | (values != np.round(values)) | (np.abs(values) > 2**31 - 1)

    def n_relevant(self, threshold: int = 1) -> np.ndarray:
        """Per query, the number of judged docs with grade >= threshold."""
        rel = (self.grades >= threshold).astype(np.int64)
        return np.bincount(self.entry_query_index(), weights=rel, minlength=len(self)).astype(np.int64)


class Run(_Ragged):
    """A ranked result list per query: doc -> score, plus a name (the run tag).

    Entries are kept in file order; :meth:`ranked` gives trec_eval's order (score descending, then doc id
    descending). A doc appears at most once per query.
    """

    _value_dtype = np.float64

    def __init__(self, query_ids, offsets, doc_index, scores, doc_vocab, name: str = "run") -> None:
        super().__init__(query_ids, offsets, doc_index, scores, doc_vocab, name)

    @property
    def scores(self) -> np.ndarray:
        return self._values

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, float]], name: str = "run") -> Run:
        """Build from ``{qid: {docid: score}}``. Scores must be finite numbers (ValueError names the first bad one)."""
        return cls._from_mapping(d, name, "score")

    @classmethod
    def from_ranked(cls, ranked: Mapping[str, list[tuple[str, float]]], name: str = "run") -> Run:
        """Build from ``{qid: [(docid, score), ...]}`` (best first). A document listed twice for one query is a
        ValueError naming both (which score would count is not the caller's to guess; ``evaluate`` refuses such
        a run too)."""
        d: dict[str, dict[str, float]] = {}
        for q, v in ranked.items():
            pairs = v if isinstance(v, (list, tuple)) else list(v)
            docs = d[q] = dict(pairs)
            if len(docs) != len(pairs):
                seen: set[Any] = set()
                dup = next(doc for doc, _ in pairs if doc in seen or seen.add(doc))  # type: ignore[func-returns-value]
                raise ValueError(f"Run.from_ranked: doc {dup!r} appears twice for query {q!r}; a document is "
                                 "ranked at most once per query")
        return cls._from_mapping(d, name)

    def ranked(self, qid: str) -> list[tuple[str, float]]:
        """The query's (doc, score) list in trec_eval order: score desc, then doc id desc.

        Scores are compared as 32-bit floats (see :func:`trec_score_key`); the returned scores are unchanged.
        """
        s = self._slice(qid)
        vocab = self.doc_vocab
        items = list(zip([vocab[c] for c in self.doc_index[s].tolist()], self._values[s].tolist()))
        keys = trec_score_key(self._values[s]).tolist()
        idx = sorted(range(len(items)), key=lambda i: items[i][0], reverse=True)
        idx.sort(key=keys.__getitem__, reverse=True)  # stable: ties keep doc-id-desc order
        return [items[i] for i in idx]

    def top_k(self, k: int) -> Run:
        """A new run keeping each query's first ``k`` documents in trec_eval order (``k`` >= 1)."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"Run.top_k: k must be an integer >= 1, got {k!r}")
        return Run.from_ranked({q: self.ranked(q)[:k] for q in self.query_ids}, name=self.name)


# --------------------------------------------------------------------------------------------------- run result


@dataclass
class Costs:
    """Cost counters every retriever fills: what it spent to produce a run.

    ``counters`` holds named counts (``embedding_calls``, ``chunks_scored``, ``tokens_encoded``, ...);
    ``stage_seconds`` the wall time per stage (``index``, ``encode_queries``, ``search``, ``rerank``, ...).
    """

    counters: dict[str, int] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, n: int = 1) -> None:
        self.counters[name] = self.counters.get(name, 0) + int(n)

    def add_time(self, stage: str, seconds: float) -> None:
        self.stage_seconds[stage] = self.stage_seconds.get(stage, 0.0) + float(seconds)

    def merge(self, other: Costs) -> Costs:
        out = Costs(dict(self.counters), dict(self.stage_seconds))
        for k, v in other.counters.items():
            out.add(k, v)
        for k, v in other.stage_seconds.items():
            out.add_time(k, v)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"counters": dict(sorted(self.counters.items())),
                "stage_seconds": dict(sorted(self.stage_seconds.items()))}


@dataclass
class RunResult:
    """A run together with what it cost and free-form extras (e.g. per-query routing traces)."""

    run: Run
    costs: Costs = field(default_factory=Costs)
    extras: dict[str, Any] = field(default_factory=dict)
