"""A TREC run produced elsewhere, as a retriever: bring any system's output into an hcrbench comparison.

Two forms:

- ``path``: one file. ``index`` only notes the corpus (and warns about run documents it does not contain);
  ``search`` returns the stored ranking of each asked query, cut to ``k`` in trec_eval order. Queries absent
  from the file get an empty ranking; a file sharing no query with the asked ones is an InputError (mismatched
  ids).
- ``paths = {test = ..., dev = ..., tune = ...}``: one file per split (a system judged by the protocol runs on
  the test split and on tune / dev for the power plan). ``search`` answers from the file whose queries are the
  asked ones (the split's file; splits do not share query ids); a split without a file is an InputError the
  protocol reports as "not run on that split". Every file's ids are checked (:func:`first_unknown`, called by
  the runner once the data is loaded): a document the corpus does not hold, or a query that is not a query of
  that file's split, is one line ``FILE:LINE: unknown docid X`` / ``unknown qid X``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hcrbench.data.trec import read_run
from hcrbench.data.types import Corpus, Costs, Queries, Run, RunResult
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.retrieve.base import register_retriever
from hcrbench.retrieve.system_traits import Traits
from hcrbench.retrieve.util import int_at_least, timed

#: The splits a ``paths`` table may name, in the order a folder's files are looked for.
SPLITS = ("test", "dev", "tune")


@register_retriever("runfile")
class RunFileRetriever:
    """Replays ``path`` (``qid Q0 docid rank score tag``, plain or .gz), or the split's file of ``paths``.
    ``dedupe`` keeps first duplicates."""

    traits = Traits(stage="replay")

    def __init__(self, path: str | None = None, name: str | None = None, dedupe: bool = False,
                 paths: dict[str, str] | None = None) -> None:
        if path and paths:
            raise InputError("give path (one file) or paths (one file per split), not both", field="paths")
        if paths is not None:
            self.paths = check_paths(paths)
            self.runs = {s: read_run(p, dedupe=dedupe) for s, p in self.paths.items()}
            self.path = self.paths[next(iter(self.paths))]
            self.run = self.runs[next(iter(self.runs))]
        else:
            if not path:
                raise InputError("system 'runfile' needs path=RUN_FILE (or paths = {test = ..., dev = ...})",
                                 field="path")
            p = Path(path)
            if not p.is_file():
                raise InputError("run file not found", path=p, field="path")
            self.path = p
            self.paths = {}
            self.run = read_run(p, dedupe=dedupe)
            self.runs = {"": self.run}
        self.name = name or self.run.name
        self.unknown_docs = 0

    @property
    def params(self) -> dict[str, Any]:
        if self.paths:
            return {"paths": {s: str(p) for s, p in self.paths.items()},
                    "entries": {s: r.n_entries for s, r in self.runs.items()},
                    "queries": {s: len(r) for s, r in self.runs.items()}}
        return {"path": str(self.path), "entries": self.run.n_entries, "queries": len(self.run)}

    def index(self, corpus: Corpus) -> None:
        if self.paths:  # strict: the runner checked every file's ids (first_unknown); a direct use checks here
            for p in self.paths.values():
                hit = first_unknown(p, docs=corpus)
                if hit is not None:
                    raise InputError(f"unknown docid {hit[1]} (not in the corpus {corpus.name!r})", path=p,
                                     line=hit[0])
            return
        mine, unknown = own_unknown(self.run, corpus)
        self.unknown_docs = unknown
        n_q = len(self.run.query_ids)
        if n_q and not mine:
            warnings.warn(f"{self.path}: none of the doc ids it retrieves for its {n_q} "
                          f"quer{'y' if n_q == 1 else 'ies'} is in the corpus {corpus.name!r} (not in the corpus: "
                          "another corpus's run?)", HcrbenchWarning, stacklevel=2)
        elif unknown:
            warnings.warn(f"{self.path}: {unknown} doc ids it retrieves for the {mine} queries it ranks over the "
                          f"corpus {corpus.name!r} are not in it"
                          + (f" (its {n_q - mine} queries with no doc in it, another world's or split's, are not "
                             "counted)" if mine < n_q else ""), HcrbenchWarning, stacklevel=2)

    def _for(self, queries: Queries) -> tuple[Path, Run]:
        """The file (and run) that answers ``queries``: the one sharing the most query ids with them."""
        if not self.paths:
            return self.path, self.run
        asked = set(queries.query_ids)
        split, n = max(((s, len(asked.intersection(r.query_ids))) for s, r in self.runs.items()),
                       key=lambda x: x[1])
        if asked and n == 0:
            raise InputError(f"no run file for these {len(asked)} queries (files for "
                             f"{', '.join(self.paths)}; first asked: {_preview(queries.query_ids)})", field="paths")
        return self.paths[split], self.runs[split]

    def search(self, queries: Queries, k: int = 100) -> RunResult:
        k = int_at_least(k, "k", 1)
        asked = set(queries.query_ids)
        path, stored = self._for(queries)
        if asked and not asked.intersection(stored.query_ids):  # mismatched ids, not a run that found nothing
            raise InputError(f"the run shares no query with the {len(asked)} requested queries (first run ids: "
                             f"{_preview(stored.query_ids)}; first requested: {_preview(queries.query_ids)})",
                             path=path, field="qid")
        costs = Costs()
        with timed(costs, "search"):
            sub = stored.subset(queries.query_ids)
            ranked = {q: sub.ranked(q)[:k] if q in sub else [] for q in queries.query_ids}
            run = Run.from_ranked(ranked, name=self.name)
        costs.add("queries", len(queries))
        costs.add("docs_scored", run.n_entries)
        return RunResult(run, costs)


def own_unknown(run: Run, corpus: Corpus) -> tuple[int, int]:
    """``(queries, unknown)``: how many of ``run``'s queries rank at least one document of ``corpus`` (its own
    queries: a file holding several worlds' or splits' rankings is checked against one world's corpus at a time,
    and the other worlds' queries retrieve none of its documents), and how many distinct doc ids those queries
    retrieve that are not in ``corpus``."""
    import numpy as np

    vocab = run.doc_vocab
    known = np.fromiter((d in corpus for d in vocab), dtype=bool, count=len(vocab))
    hit = known[run.doc_index] if len(run.doc_index) else np.zeros(0, dtype=bool)
    csum = np.concatenate([[0], np.cumsum(hit, dtype=np.int64)])
    own = (csum[run.offsets[1:]] - csum[run.offsets[:-1]]) > 0
    per_entry = np.repeat(own, np.diff(run.offsets))
    return int(own.sum()), len(set(run.doc_index[per_entry & ~hit].tolist()))


def check_paths(paths: Any) -> dict[str, Path]:
    """``paths`` as ``{split: Path}`` (splits of :data:`SPLITS`, files that exist), else one InputError."""
    if not isinstance(paths, dict) or not paths:
        raise InputError("must be a table of split = run file, e.g. {test = \"test.trec\", dev = \"dev.trec\"}",
                         field="paths")
    out: dict[str, Path] = {}
    for split, p in paths.items():
        if split not in SPLITS:
            raise InputError(f"unknown split {split!r} (one of {', '.join(SPLITS)})", field=f"paths.{split}")
        if not isinstance(p, str) or not p:
            raise InputError(f"must be the path of a run file, got {p!r}", field=f"paths.{split}")
        f = Path(p).expanduser()
        if not f.is_file():
            raise InputError(f"run file {p} not found", field=f"paths.{split}")
        out[split] = f
    return out


def first_unknown(path: str | Path, *, docs: Iterable[str] | Corpus | None = None,
                  qids: Iterable[str] | None = None) -> tuple[int, str, str] | None:
    """The first line of the run file ``path`` whose docid is not in ``docs`` or whose qid is not in ``qids``:
    ``(line, id, "docid" | "qid")``, or None when every id is known (a check left out as None is not made)."""
    from hcrbench.data.trec import _raw_lines

    known_docs = None if docs is None else (docs if isinstance(docs, Corpus) else set(docs))
    known_q = None if qids is None else set(qids)
    for n, raw in _raw_lines(path):
        parts = raw.split()
        if len(parts) < 3 or parts[0][:1] == b"#":
            continue
        q, d = parts[0].decode("utf-8", "replace"), parts[2].decode("utf-8", "replace")
        if known_q is not None and q not in known_q:
            return n, q, "qid"
        if known_docs is not None and d not in known_docs:
            return n, d, "docid"
    return None


def _preview(ids: list[str], n: int = 3) -> str:
    return ", ".join(repr(q) for q in ids[:n]) + (", ..." if len(ids) > n else "")
