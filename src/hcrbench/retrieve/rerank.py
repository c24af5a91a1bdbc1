"""Second-stage reranking of the top-N of any first stage.

Two methods, named for what they are:

* ``method="maxsim"`` (the offline default): late interaction over MiniLM *token* embeddings, ColBERT-style and
  zero-shot. Token vectors (special tokens dropped) are L2-normalised; score(q, d) = sum over query tokens of the
  max cosine over document tokens (:func:`maxsim_scores` defines it; the search computes the same bytes, faster,
  by :func:`~hcrbench.retrieve.maxsim.maxsim_exact`). It needs no trained reranker weights, which do not exist
  offline. It is NOT a trained cross-encoder. Document token vectors are cached on disk (fp16), and only candidate
  documents are encoded.
* ``method="cross-encoder"``: a sentence-transformers ``CrossEncoder`` (default
  ``cross-encoder/ms-marco-MiniLM-L-6-v2``, which needs a network or a local copy; ``model=`` takes any name/path).

With ``fuse=True`` the reranked list is fused by RRF (k = ``rrf_k``) with the first stage's top-N. When ``k`` exceeds
``top_n`` the first stage's documents beyond ``top_n`` follow, in their order, below every reranked one.

Fairness against HCR (``top_n_from = HCR's routing.jsonl``): the baseline reranks, per query
(``top_n_match="per-query"``, default) or on average (``"mean"``), as many candidates as HCR's cascade considered
for that query (``top_n_field="chunks_scored"``, default; ``"reranked"``: as many as HCR reranked), read from HCR's
cost log, instead of a fixed ``top_n``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hcrbench.data.cache import EmbeddingCache
from hcrbench.data.types import Corpus, Costs, Queries, Run, RunResult
from hcrbench.errors import InputError
from hcrbench.retrieve.base import Retriever, make_retriever, register_retriever
from hcrbench.retrieve.encoders import (
    BACKENDS,
    Encoder,
    build_encoder,
    encode_cached,
    require,
    resolve_backend,
)
from hcrbench.retrieve.fusion import rrf
from hcrbench.retrieve.maxsim import maxsim_exact, maxsim_scores, one_thread_blas  # noqa: F401  (maxsim_scores: public here)
from hcrbench.retrieve.runtime import cache_identity
from hcrbench.retrieve.system_traits import Traits
from hcrbench.retrieve.util import finite_nonneg, int_at_least, prefixed_costs, timed

DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L-6-v2"
METHODS = ("maxsim", "cross-encoder")
MATCHES = ("per-query", "mean")
FIELDS = ("chunks_scored", "reranked")


def matched_top_n(path: str, field: str = "chunks_scored") -> dict[str, int]:
    """Per query, how many candidates HCR's cascade considered (``chunks_scored``: every chunk its cascade scored,
    beam and collapsed paths together) or reranked (``reranked``), read from its routing log (``routing.jsonl``).
    The fairness rule of the design: the reranker baseline reranks as many candidates as HCR's cascade considers.
    """
    from pathlib import Path

    from hcrbench.data.tree import read_routing_log

    if not Path(path).is_file():
        raise InputError("no HCR routing log here (run HCR with log_path first)", path=path, field="top_n_from")
    recs = read_routing_log(path)
    if not recs:
        raise InputError("the HCR routing log is empty", path=path, field="top_n_from")
    return {r.query_id: int(getattr(r, field)) for r in recs}




#: Bytes of float32 token blocks one search keeps (about 650 candidate documents of 256 tokens x 384 dims)
FLOAT32_BLOCK_BYTES = 256 << 20


def _float32_blocks(docs: list[str], blocks: list[np.ndarray], asked: list[str]) -> dict[str, np.ndarray]:
    """Each document's token block, cast from float16 to float32 once per search rather than once per query
    that reranks it (the cast costs ~3x the product it feeds), the documents most queries ask for first, within
    :data:`FLOAT32_BLOCK_BYTES`; the rest stay float16 and are cast per query. The cast is exact: same bytes."""
    from collections import Counter

    counts = Counter(asked)
    by_doc = dict(zip(docs, blocks))
    budget = FLOAT32_BLOCK_BYTES
    for d in sorted(docs, key=lambda d: -counts[d]):  # stable: ties keep the corpus order
        b = by_doc[d]
        if b.dtype != np.float32 and b.size * 4 <= budget:
            by_doc[d] = np.asarray(b, dtype=np.float32)
            budget -= b.size * 4
    return by_doc


@register_retriever("rerank")
class RerankRetriever:
    """Rerank ``first_stage`` (a registered system name, or ``first`` a Retriever) top ``top_n`` with ``method``."""

    traits = Traits(stage="rerank", reranker_param=("method", "maxsim"), reranker_model_param="model")

    def __init__(
        self,
        method: str = "maxsim",
        first_stage: str = "bm25",
        first_stage_params: dict[str, Any] | None = None,
        top_n: int = 100,
        model: str | None = None,
        backend: str = "auto",
        batch_size: int = 32,
        max_seq_length: int | None = None,
        device: str = "cpu",
        fuse: bool = False,
        rrf_k: float = 60,
        cache: bool = True,
        cache_dir: str | None = None,
        name: str = "rerank",
        first: Retriever | None = None,
        encoder: Encoder | None = None,
        top_n_from: str | None = None,
        top_n_match: str = "per-query",
        top_n_field: str = "chunks_scored",
    ) -> None:
        if method not in METHODS:
            raise InputError(f"unknown rerank method {method!r} (expected one of {', '.join(METHODS)})",
                             field="method")
        if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
            raise InputError(f"top_n must be an integer >= 1, got {top_n!r}", field="top_n")
        if backend not in BACKENDS:
            raise InputError(f"unknown backend {backend!r} (expected one of {', '.join(BACKENDS)})", field="backend")
        if top_n_match not in MATCHES:
            raise InputError(f"top_n_match must be one of {', '.join(MATCHES)}, got {top_n_match!r}",
                             field="top_n_match")
        if top_n_field not in FIELDS:
            raise InputError(f"top_n_field must be one of {', '.join(FIELDS)}, got {top_n_field!r}",
                             field="top_n_field")
        self.top_n_from, self.top_n_match, self.top_n_field = top_n_from, top_n_match, top_n_field
        self._per_query: dict[str, int] | None = None
        if top_n_from is not None:
            self._per_query = matched_top_n(top_n_from, top_n_field)
            if top_n_match == "mean":
                top_n = max(1, round(sum(self._per_query.values()) / len(self._per_query)))
                self._per_query = None
            else:
                top_n = max(self._per_query.values())
        rrf_k = finite_nonneg(rrf_k, "rrf_k")
        batch_size = int_at_least(batch_size, "batch_size", 1)
        if max_seq_length is not None:
            max_seq_length = int_at_least(max_seq_length, "max_seq_length", 1)
        if first_stage_params is not None and not isinstance(first_stage_params, dict):
            raise InputError(f"first_stage_params must be a table (dict), got {first_stage_params!r}",
                             field="first_stage_params")
        if method == "cross-encoder":
            require("sentence_transformers", "rerank", "dense")
        elif encoder is None:
            backend = resolve_backend(backend, "rerank")
        if first is None:
            if first_stage == "rerank":
                raise InputError("first_stage cannot be 'rerank'", field="first_stage")
            fp = dict(first_stage_params or {})
            if first_stage in ("bm25", "dense", "hybrid"):
                fp = {"cache": cache, "cache_dir": cache_dir, **fp}
            first = make_retriever(first_stage, **fp)
        self.first = first
        self.method, self.top_n, self.model, self.backend = method, int(top_n), model, backend
        self.batch_size, self.max_seq_length, self.device = int(batch_size), max_seq_length, device
        self.fuse, self.rrf_k = bool(fuse), float(rrf_k)
        self.cache, self.cache_dir, self.name = bool(cache), cache_dir, name
        self._encoder = encoder
        self._cross: Any = None
        self._corpus: Corpus | None = None
        self.index_costs = Costs()

    # -- models --------------------------------------------------------------------------------------------
    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            self._encoder = build_encoder(self.model, self.backend, batch_size=self.batch_size,
                                          device=self.device, max_seq_length=self.max_seq_length)
        return self._encoder

    @property
    def cross_encoder(self) -> Any:
        if self._cross is None:
            from sentence_transformers import CrossEncoder

            name = self.model or DEFAULT_CROSS_ENCODER
            try:
                self._cross = CrossEncoder(name, device=self.device)
            except Exception as e:
                raise InputError(
                    f"could not load cross-encoder {name!r} ({type(e).__name__}); no cross-encoder weights "
                    "ship offline: pass model=LOCAL_DIR or use method=maxsim", field="model") from None
            if self.max_seq_length:
                self._cross.max_length = int(self.max_seq_length)
        return self._cross

    @property
    def params(self) -> dict[str, Any]:
        p: dict[str, Any] = {"method": self.method, "top_n": self.top_n, "first_stage": self.first.name,
                             "first_stage_params": self.first.params, "fuse": self.fuse}
        if self.top_n_from is not None:
            p.update(top_n_from=str(self.top_n_from), top_n_match=self.top_n_match, top_n_field=self.top_n_field)
        if self.method == "maxsim":
            p.update(model=self.encoder.model_id, backend=self.backend, trained_reranker=False,
                     note="zero-shot late interaction (MaxSim) over MiniLM token embeddings")
        else:
            p.update(model=self.model or DEFAULT_CROSS_ENCODER)
        if self.fuse:
            p["rrf_k"] = self.rrf_k
        return p

    # -- protocol ------------------------------------------------------------------------------------------
    def index(self, corpus: Corpus) -> None:
        self.first.index(corpus)
        self._corpus = corpus
        self.index_costs = prefixed_costs(getattr(self.first, "index_costs", Costs()), "first_stage")

    def search(self, queries: Queries, k: int = 100) -> RunResult:
        if self._corpus is None:
            raise RuntimeError("RerankRetriever.search called before index()")
        first = self.first.search(queries, max(self.top_n, k))
        costs = prefixed_costs(first.costs, "first_stage")
        corpus = self._corpus
        # candidates the corpus does not hold (a run file's stray ids) cannot be reranked: dropped
        cands = {q: [(d, s) for d, s in first.run.ranked(q) if d in corpus] if q in first.run else []
                 for q in queries.query_ids}
        with timed(costs, "rerank"):
            if self.method == "maxsim":
                scored = self._maxsim(queries, cands, costs)
            else:
                scored = self._cross_scores(queries, cands, costs)
        reranked = Run.from_ranked(scored, name=self.name)
        if self.fuse:
            top = Run.from_ranked({q: v[: self._n(q)] for q, v in cands.items()}, name="first")
            reranked = rrf([reranked, top], k=self.rrf_k, name=self.name)
        out: dict[str, list[tuple[str, float]]] = {}
        for q in queries.query_ids:
            head = reranked.ranked(q) if q in reranked else []
            seen = {d for d, _ in head}
            floor = min((s for _, s in head), default=0.0)
            tail = [d for d, _ in cands[q][self._n(q) :] if d not in seen]
            out[q] = (head + [(d, floor - 1.0 - i) for i, d in enumerate(tail)])[:k]
        costs.add("queries", len(queries))
        return RunResult(Run.from_ranked(out, name=self.name), costs)

    def _n(self, qid: str) -> int:
        """Candidates reranked for ``qid``: ``top_n``, or HCR's count for that query when matched per query (a
        query HCR did not log gets ``top_n``, the largest count)."""
        if self._per_query is None:
            return self.top_n
        return max(1, self._per_query.get(qid, self.top_n))

    def _maxsim(self, queries: Queries, cands: dict[str, list[tuple[str, float]]], costs: Costs):
        corpus = self._corpus
        assert corpus is not None
        cache = EmbeddingCache(cache_identity(self.encoder) + "|tokens", self.cache_dir,
                               dtype="float16") if self.cache else None
        docs = sorted({d for q, v in cands.items() for d, _ in v[: self._n(q)]}, key=corpus.index_of)
        with timed(costs, "encode_docs"):
            blocks = encode_cached(self.encoder, [corpus.full_text(corpus.index_of(d)) for d in docs], cache=cache,
                                   costs=costs, tokens=True, dtype="float16", desc="token vectors")
        by_doc = _float32_blocks(docs, blocks, [d for q, v in cands.items() for d, _ in v[: self._n(q)]])
        with timed(costs, "encode_queries"):
            qtok = encode_cached(self.encoder, list(queries.texts), cache=cache, costs=costs, tokens=True,
                                 dtype="float16", desc="query tokens")
        scored = {}
        # maxsim_exact: the bytes of maxsim_scores (one BLAS product per query locates each max, the definition's
        # kernel computes it), a few times faster; BLAS on one thread, where a second only waits on a busy machine
        with one_thread_blas():
            for qi, q in enumerate(queries.query_ids):
                top = [d for d, _ in cands[q][: self._n(q)]]
                s = maxsim_exact(np.asarray(qtok[qi], dtype=np.float32), [by_doc[d] for d in top])
                costs.add("docs_scored", len(top))
                scored[q] = list(zip(top, s.tolist()))
        return scored

    def _cross_scores(self, queries: Queries, cands: dict[str, list[tuple[str, float]]], costs: Costs):
        corpus = self._corpus
        assert corpus is not None
        model = self.cross_encoder
        scored = {}
        for q, text in queries.items():
            top = [d for d, _ in cands[q][: self._n(q)]]
            pairs = [(text, corpus.full_text(corpus.index_of(d))) for d in top]
            s = model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False) if pairs else []
            costs.add("docs_scored", len(top))
            costs.add("pairs_scored", len(top))
            scored[q] = list(zip(top, np.asarray(s, dtype=np.float64).reshape(-1).tolist()))
        return scored
