"""A TREC run produced elsewhere, as a retriever: bring any system's output into an hcrbench comparison.

``index`` only notes the corpus (and counts run documents it does not contain); ``search`` returns the stored
ranking of each asked query, cut to ``k`` in trec_eval order. Queries absent from the file get an empty ranking;
a file sharing no query with the asked ones is an InputError (mismatched ids).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from hcrbench.data.trec import read_run
from hcrbench.data.types import Corpus, Costs, Queries, Run, RunResult
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.retrieve.base import register_retriever
from hcrbench.retrieve.util import int_at_least, timed


@register_retriever("runfile")
class RunFileRetriever:
    """Replays ``path`` (``qid Q0 docid rank score tag``, plain or .gz). ``dedupe`` keeps first duplicates."""

    def __init__(self, path: str | None = None, name: str | None = None, dedupe: bool = False) -> None:
        if not path:
            raise InputError("system 'runfile' needs path=RUN_FILE", field="path")
        p = Path(path)
        if not p.is_file():
            raise InputError("run file not found", path=p, field="path")
        self.path = p
        self.run: Run = read_run(p, dedupe=dedupe)
        self.name = name or self.run.name
        self.unknown_docs = 0

    @property
    def params(self) -> dict[str, Any]:
        return {"path": str(self.path), "entries": self.run.n_entries, "queries": len(self.run)}

    def index(self, corpus: Corpus) -> None:
        used = set(self.run.doc_index.tolist())
        self.unknown_docs = sum(1 for c in used if self.run.doc_vocab[c] not in corpus)
        if self.unknown_docs:
            warnings.warn(f"{self.path}: {self.unknown_docs} retrieved doc ids are not in the corpus "
                          f"{corpus.name!r}", HcrbenchWarning, stacklevel=2)

    def search(self, queries: Queries, k: int = 100) -> RunResult:
        k = int_at_least(k, "k", 1)
        asked = set(queries.query_ids)
        if asked and not asked.intersection(self.run.query_ids):  # mismatched ids, not a run that found nothing
            raise InputError(f"the run shares no query with the {len(asked)} requested queries (first run ids: "
                             f"{_preview(self.run.query_ids)}; first requested: {_preview(queries.query_ids)})",
                             path=self.path, field="qid")
        costs = Costs()
        with timed(costs, "search"):
            sub = self.run.subset(queries.query_ids)
            ranked = {q: sub.ranked(q)[:k] if q in sub else [] for q in queries.query_ids}
            run = Run.from_ranked(ranked, name=self.name)
        costs.add("queries", len(queries))
        costs.add("docs_scored", run.n_entries)
        return RunResult(run, costs)


def _preview(ids: list[str], n: int = 3) -> str:
    return ", ".join(repr(q) for q in ids[:n]) + (", ..." if len(ids) > n else "")
