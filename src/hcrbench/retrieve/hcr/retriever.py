"""The ``hcr`` retriever: hierarchical coarse-to-fine retrieval over chunks, with its ablations as parameters.

``index``: chunk the documents (``chunk_tokens``, sentence-respecting, as the chunked baselines; 0 = the corpus is
already chunks), embed the chunks (the dense baseline's encoders and cache), build or load the tree
(:mod:`~hcrbench.retrieve.hcr.tree`, cached by chunks + parameters + model + summarizer; ``summarizer="llm"``
with ``llm_endpoint`` / ``llm_model`` has an LLM write the summaries, :mod:`~hcrbench.retrieve.summarize_llm`),
embed the routing summaries, index chunks and summaries for BM25 and extract entities for cross-links.
``search``: route every query (:mod:`~hcrbench.retrieve.hcr.route`), map chunk scores to documents by max (MaxP)
and keep one
:class:`~hcrbench.data.tree.RoutingRecord` per query in ``routing_log`` (written to ``log_path`` when given;
``hcrbench retrieve`` writes it beside the run, with the tree).

Routing defaults: nodes are represented by their centroid, BM25 over their whole subtree and an entity
card (``node_repr="subtree"``); the beam keeps ``target_pool`` (100) chunks per level; the dual path keeps the more
confident path (``fusion="wta"``). ``tree_kind="docs"`` builds topic clusters of documents (never split across
leaves). Ablations (one parameter each): A1 ``flat=true`` (same chunks, same cascade, no tree), A2
``rerank="none"``, A3 ``mode="beam"``, A4 ``links=false``, A6 ``node_repr="centroid"`` (or ``"summary"``),
A7 ``depth=2``, A8 ``mmr_lambda=1``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data.atomic import atomic_open
from hcrbench.data.cache import EmbeddingCache, corpus_fingerprint, index_ready, save_index
from hcrbench.data.chunking import chunk_corpus, doc_run_from_chunk_run
from hcrbench.data.tree import Tree, read_tree, tree_vectors_path, write_routing_log, write_tree
from hcrbench.data.types import Corpus, Costs, Queries, Run, RunResult
from hcrbench.errors import InputError
from hcrbench.retrieve.base import register_retriever
from hcrbench.retrieve.encoders import Encoder, build_encoder, encode_cached, require
from hcrbench.retrieve.hcr.links import EXTRACTORS, EntityExtractor, EntityLinks
from hcrbench.retrieve.hcr.route import COLLAPSED_SCOPES, FUSIONS, MODES, RouteConfig, Router
from hcrbench.retrieve.hcr.tree import build_tree
from hcrbench.retrieve.maxsim import maxsim_exact, maxsim_exact_queries, one_thread_blas
from hcrbench.retrieve.rerank import DEFAULT_CROSS_ENCODER
from hcrbench.retrieve.runtime import cache_identity, vectors_digest
from hcrbench.retrieve.summarize import ExtractiveSummarizer
from hcrbench.retrieve.summarize_llm import make_summarizer, summarizer_key
from hcrbench.retrieve.system_traits import Traits
from hcrbench.retrieve.util import finite_nonneg, int_at_least, timed

RERANKERS = ("maxsim", "cross-encoder", "none")
NODE_REPRS = ("subtree", "summary", "centroid")
TREE_KINDS = ("chunks", "docs")
BACKENDS = ("onnx", "torch", "hash")


def _choice(v: Any, field: str, allowed: tuple[str, ...]) -> str:
    if v not in allowed:
        raise InputError(f"{field} must be one of {', '.join(allowed)}, got {v!r}", field=field)
    return str(v)


def _flag(v: Any, field: str) -> bool:
    if not isinstance(v, bool):
        raise InputError(f"{field} must be true or false, got {v!r}", field=field)
    return v


_MEMO: dict[Any, Any] = {"corpus": None}


def _shared(corpus: Corpus, key: Any, make: Any) -> Any:
    """What every HCR variant over the same corpus shares in one process (chunks, texts, chunk embeddings,
    chunk BM25), built once: an experiment's ablations index in seconds after the first. Only the last corpus is
    kept."""
    fp = corpus_key(corpus)
    if _MEMO["corpus"] != fp:  # by content, so an edited corpus is never served stale chunks
        _MEMO.clear()
        _MEMO["corpus"] = fp
    if key not in _MEMO:
        _MEMO[key] = make()
    return _MEMO[key]


#: MaxSim scores per (token cache, query text): {text: score}; cleared whole past _MAXSIM_CAP scores
_MAXSIM: dict[tuple[Any, str], dict[Any, float]] = {}
_MAXSIM_CAP = 2_000_000
#: queries routed together when the reranker takes many requests at once: at most this many, and as many as
#: keep their per-query BM25 rows (8 bytes a chunk each) within LOCKSTEP_BYTES
LOCKSTEP = 256
LOCKSTEP_BYTES = 32 << 20


def _maxsim_memo(ident: Any, query: str) -> dict[Any, float]:
    key = (ident, query)
    got = _MAXSIM.get(key)
    if got is None:
        if sum(len(v) for v in _MAXSIM.values()) > _MAXSIM_CAP:
            _MAXSIM.clear()
        got = _MAXSIM[key] = {}
    return got


def corpus_key(corpus: Corpus) -> str:
    """A corpus's identity by content: ids, titles and texts, every field length-prefixed (as
    :func:`~hcrbench.data.cache.corpus_fingerprint`), so no title/text split can pass for another."""
    return corpus_fingerprint(corpus.doc_ids, [f"{len(t)}:{t}{x}" for t, x in zip(corpus.titles, corpus.texts)])


@register_retriever("hcr")
class HCRRetriever:
    """Hierarchical coarse-to-fine retriever (see the module docstring for the parameters that matter)."""

    traits = Traits(tree=True, stage="first", flat_param="flat", encoder_param="backend",
                    reranker_param=("rerank", "maxsim"), reranker_model_param="rerank_model", unit="chunk",
                    code_version={"summarizer_version": ExtractiveSummarizer},
                    ablation_roles=("beam_only", "collapsed_only", "no_links"))

    def __init__(
        self,
        depth: int = 3,
        branching: int | None = None,
        beam_width: int = 3,
        prefilter: int = 8,
        leaf_rerank: int = 100,
        mmr_lambda: float = 0.8,
        mode: str = "dual",
        fusion: str = "wta",
        rrf_k: float = 60,
        collapsed_k: int = 10,
        links: bool = True,
        entities: str = "regex",
        link_max_df: int = 100,
        max_links: int = 20,
        links_per_entity: int = 5,
        node_repr: str = "subtree",
        rerank: str = "maxsim",
        rerank_model: str | None = None,
        flat: bool = False,
        chunk_tokens: int = 128,
        chunk_overlap: int = 32,
        structure_aware: bool = True,
        summary_tokens: int = 128,
        summary_sample: int = 64,
        model: str | None = None,
        backend: str = "onnx",
        batch_size: int = 32,
        seed: int = 0,
        log_path: str | None = None,
        cache: bool = True,
        cache_dir: str | None = None,
        name: str = "hcr",
        encoder: Encoder | None = None,
        target_pool: int = 100,
        tree_kind: str = "chunks",
        collapsed_scope: str = "leaves",
        card: bool = True,
        node_rerank: bool | None = None,
        summarizer: str = "extractive",
        llm_endpoint: str | None = None,
        llm_model: str | None = None,
    ) -> None:
        self.depth = int_at_least(depth, "depth", 1)
        self.branching = None if branching is None else int_at_least(branching, "branching", 2)
        self.mode = _choice(mode, "mode", MODES)
        self.fusion = _choice(fusion, "fusion", FUSIONS)
        self.node_repr = _choice(node_repr, "node_repr", NODE_REPRS)
        self.tree_kind = _choice(tree_kind, "tree_kind", TREE_KINDS)
        self.collapsed_scope = _choice(collapsed_scope, "collapsed_scope", COLLAPSED_SCOPES)
        self.card = _flag(card, "card")
        # nodes are reranked (MaxSim over their summary) only when routed by summaries, unless asked
        self.node_rerank = (self.node_repr == "summary") if node_rerank is None else _flag(node_rerank,
                                                                                          "node_rerank")
        self.rerank = _choice(rerank, "rerank", RERANKERS)
        self.entities = _choice(entities, "entities", EXTRACTORS)
        self.backend = _choice(backend, "backend", BACKENDS)
        self.links, self.flat = _flag(links, "links"), _flag(flat, "flat")
        self.structure_aware = _flag(structure_aware, "structure_aware")
        lam = finite_nonneg(mmr_lambda, "mmr_lambda")
        if lam > 1:
            raise InputError(f"mmr_lambda must be in [0, 1], got {mmr_lambda!r}", field="mmr_lambda")
        self.chunk_tokens = int_at_least(chunk_tokens, "chunk_tokens", 0)
        self.chunk_overlap = int_at_least(chunk_overlap, "chunk_overlap", 0)
        if self.chunk_tokens and not (self.chunk_tokens >= 8 and self.chunk_overlap < self.chunk_tokens):
            raise InputError("chunk_tokens must be 0 or >= 8 and above chunk_overlap", field="chunk_tokens")
        self.cfg = RouteConfig(
            beam_width=int_at_least(beam_width, "beam_width", 1), prefilter=int_at_least(prefilter, "prefilter", 1),
            leaf_rerank=int_at_least(leaf_rerank, "leaf_rerank", 1), mmr_lambda=lam, mode=self.mode,
            fusion=self.fusion, rrf_k=finite_nonneg(rrf_k, "rrf_k"),
            collapsed_k=int_at_least(collapsed_k, "collapsed_k", 1), links=self.links,
            links_per_entity=int_at_least(links_per_entity, "links_per_entity", 1),
            max_links=int_at_least(max_links, "max_links", 0), flat=self.flat,
            target_pool=int_at_least(target_pool, "target_pool", 0), collapsed_scope=self.collapsed_scope,
            card=self.card and self.node_repr == "subtree")
        self.link_max_df = int_at_least(link_max_df, "link_max_df", 1)
        self.summary_tokens = int_at_least(summary_tokens, "summary_tokens", 8)
        self.summary_sample = int_at_least(summary_sample, "summary_sample", 1)
        self.summarizer = make_summarizer(summarizer, endpoint=llm_endpoint, model=llm_model)
        self.batch_size = int_at_least(batch_size, "batch_size", 1)
        self.seed = int_at_least(seed, "seed", 0)
        if encoder is None and self.backend != "hash":
            require("onnxruntime" if self.backend == "onnx" else "sentence_transformers", "hcr",
                    "onnx" if self.backend == "onnx" else "dense")
        require("faiss", "hcr", "dense")
        require("bm25s", "hcr", "bm25")
        self.model, self.rerank_model = model, rerank_model
        self.log_path, self.cache, self.cache_dir, self.name = log_path, bool(cache), cache_dir, name
        self._encoder = encoder
        self._cross: Any = None
        self.tree: Tree | None = None
        self.routing_log: list = []
        self.index_costs = Costs()
        self._tree_file: Path | None = None

    # -- models ----------------------------------------------------------------------------------------------
    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            if self.backend == "hash":
                from hcrbench.retrieve.hcr.hashenc import HashingEncoder

                self._encoder = HashingEncoder()
            else:
                self._encoder = build_encoder(self.model, self.backend, batch_size=self.batch_size, device="cpu")
        return self._encoder

    @property
    def params(self) -> dict[str, Any]:
        c = self.cfg
        p: dict[str, Any] = {
            "model": self.encoder.model_id, "backend": self.backend, "depth": self.depth,
            "branching": self.tree.params.get("branching") if self.tree else self.branching,
            "beam_width": c.beam_width, "prefilter": c.prefilter, "leaf_rerank": c.leaf_rerank,
            "mmr_lambda": c.mmr_lambda, "mode": self.mode, "fusion": self.fusion, "rrf_k": c.rrf_k,
            "collapsed_k": c.collapsed_k, "links": self.links, "entities": self.entities,
            "link_max_df": self.link_max_df, "max_links": c.max_links, "links_per_entity": c.links_per_entity,
            "node_repr": self.node_repr, "rerank": self.rerank, "flat": self.flat,
            "target_pool": c.target_pool, "tree_kind": self.tree_kind, "collapsed_scope": self.collapsed_scope,
            "card": c.card, "node_rerank": self.node_rerank,
            "confidence": "mean top-3 reranker score (cosine without a reranker)",
            "chunk_tokens": self.chunk_tokens, "chunk_overlap": self.chunk_overlap,
            "structure_aware": self.structure_aware, "summary_tokens": self.summary_tokens,
            "summary_sample": self.summary_sample, "seed": self.seed, "summarizer": self.summarizer.name,
            # fairness: a flat + rerank baseline should rerank this many candidates per query
            "rerank_candidates_per_query": c.leaf_rerank if self.rerank != "none" else 0,
            "tree_from": "documents only",
        }
        if self.rerank == "cross-encoder":
            p["rerank_model"] = self.rerank_model or DEFAULT_CROSS_ENCODER
        if self.rerank == "maxsim":
            p["rerank_note"] = "zero-shot late interaction (MaxSim) over the encoder's token vectors"
        return p

    def _emb_cache(self, tokens: bool = False) -> EmbeddingCache | None:
        if not self.cache:
            return None
        if tokens:
            return EmbeddingCache(cache_identity(self.encoder) + "|tokens", self.cache_dir, dtype="float16")
        return EmbeddingCache(cache_identity(self.encoder), self.cache_dir)

    def _embed(self, texts: list[str], costs: Costs, desc: str) -> np.ndarray:
        vecs = encode_cached(self.encoder, texts, cache=self._emb_cache(), costs=costs, desc=desc,  # MaxSim's
                             tokens_cache=self._emb_cache(tokens=True) if self.rerank == "maxsim" else None)
        return np.ascontiguousarray(np.stack(vecs).astype(np.float32)) if vecs else np.zeros((0, 1), np.float32)

    # -- index -----------------------------------------------------------------------------------------------
    def index(self, corpus: Corpus) -> None:
        costs = Costs()
        ckey = ("chunks", self.chunk_tokens, self.chunk_overlap, self.structure_aware)
        if self.chunk_tokens:
            with timed(costs, "chunk"):
                chunked = _shared(corpus, ckey, lambda: chunk_corpus(
                    corpus, max_tokens=self.chunk_tokens, overlap=self.chunk_overlap,
                    structure_aware=self.structure_aware))
            chunks, self._c2d = chunked.corpus, chunked.chunk_to_doc
        else:
            chunks, self._c2d = corpus, None
        if len(chunks) == 0:
            raise InputError("the corpus has no documents to build a tree from", field="corpus")
        self._chunks = chunks
        texts = _shared(corpus, (*ckey, "texts"), lambda: [chunks.full_text(i) for i in range(len(chunks))])
        self._texts = texts
        docs = [self._c2d[c] for c in chunks.doc_ids] if self._c2d else list(chunks.doc_ids)
        with timed(costs, "encode_chunks"):
            emb = _shared(corpus, (*ckey, self.encoder.model_id),
                          lambda: self._embed(texts, costs, "encoding chunks"))
        self._chunk_vecs = emb
        with timed(costs, "tree"):
            tree, centroids = self._tree(emb, texts, list(chunks.doc_ids), docs, costs)
        self.tree, self._centroids = tree, centroids
        with timed(costs, "encode_summaries"):
            if self.node_repr == "summary":
                summ = [n.summary for n in tree.nodes[1:]]
                vecs = self._embed(summ, costs, "encoding summaries")
                self._node_vecs = np.vstack([np.zeros((1, emb.shape[1]), np.float32), vecs])
            else:
                self._node_vecs = centroids
        from hcrbench.retrieve.hcr.lexical import SparseBM25

        with timed(costs, "lexical"):
            self._chunk_lex = _shared(corpus, (*ckey, "bm25"), lambda: SparseBM25(texts))
            self._node_lex: Any = None
            if self.node_repr == "summary":
                self._node_lex = SparseBM25([n.summary for n in tree.nodes])
            elif self.node_repr == "subtree":
                from hcrbench.retrieve.hcr.nodes import SubtreeBM25

                self._node_lex = SubtreeBM25(tree, self._chunk_lex)
        self._links = None
        self._card = None
        if self.links or self.cfg.card or tree.chunk_entities is None:
            with timed(costs, "entities"):
                self._extractor = EntityExtractor(self.entities)
                if tree.chunk_entities is None:
                    tree.chunk_entities = self._extractor(texts)
                self._links = EntityLinks(tree.chunk_entities, self.link_max_df) if self.links else None
                if self.cfg.card:
                    from hcrbench.retrieve.hcr.nodes import EntityCard

                    self._card = EntityCard(tree, tree.chunk_entities)
        costs.add("chunks_indexed", len(texts))
        costs.add("tree_nodes", len(tree.nodes))
        self.index_costs = costs

    def _tree(self, emb: np.ndarray, texts: list[str], ids: list[str], docs: list[str], costs: Costs):
        import faiss

        # keyed by the vectors clustered, not only the model: a tree is never reused over other vectors
        key = {"chunks": corpus_fingerprint(ids, texts), "model": self.encoder.model_id, "depth": self.depth,
               "vectors": vectors_digest(emb),
               "branching": self.branching, "seed": self.seed, "summarizer": summarizer_key(self.summarizer),
               "summary_tokens": self.summary_tokens, "summary_sample": self.summary_sample,
               "entities": self.entities, "faiss": faiss.__version__, "version": 1,
               "summarizer_version": getattr(self.summarizer, "version", 1)}
        if self.tree_kind != "chunks":
            key["tree_kind"] = self.tree_kind
        hit = index_ready("hcr-tree", key, self.cache_dir) if self.cache else None
        if hit is not None:
            costs.add("tree_cache_hits")
            self._tree_file = hit / "tree.jsonl"
            return read_tree(hit / "tree.jsonl"), np.load(hit / "centroids.npy")
        built = build_tree(emb, texts, ids, docs, summarizer=self.summarizer, depth=self.depth,
                           branching=self.branching, seed=self.seed, summary_tokens=self.summary_tokens,
                           summary_sample=self.summary_sample, kind=self.tree_kind)
        built.tree.chunk_entities = EntityExtractor(self.entities)(texts)
        if self.cache:
            def writer(d: Path) -> None:
                write_tree(built.tree, d / "tree.jsonl")
                np.save(d / "centroids.npy", built.centroids)

            folder = save_index("hcr-tree", key, writer, self.cache_dir)
            self._tree_file = folder / "tree.jsonl"
        return built.tree, built.centroids

    # -- rerankers -------------------------------------------------------------------------------------------
    def _node_text(self, kind: str, i: int) -> str:
        assert self.tree is not None
        return self.tree.nodes[i].summary if kind == "node" else self._texts[i]

    def _make_reranker(self, queries: Queries, costs: Costs):
        if self.rerank == "none":
            return None
        if self.rerank == "cross-encoder":
            model = self._cross_encoder()

            def cross(qi: int, kind: str, ids: np.ndarray) -> np.ndarray:
                pairs = [(queries.texts[qi], self._node_text(kind, int(i))) for i in ids]
                costs.add("pairs_scored", len(pairs))
                return np.asarray(model.predict(pairs, show_progress_bar=False), dtype=np.float64).reshape(-1)

            return cross
        cache = self._emb_cache(tokens=True)
        qtok = encode_cached(self.encoder, list(queries.texts), cache=cache, costs=costs, tokens=True,
                             dtype="float16", desc="query tokens")
        blocks: dict[tuple[str, int], np.ndarray] = {}
        q32: dict[int, np.ndarray] = {}
        # a score is a function of the query's and the text's token blocks alone; with the token cache those
        # blocks are fixed per text, so every search of this process (the seeds and ablations over the same
        # world) shares the scores; without it only this search does
        shared = cache is not None
        ident = cache_identity(self.encoder) if shared else None
        local: dict[int, dict[Any, float]] = {}

        def memo(qi: int) -> dict[Any, float]:
            if not shared:
                return local.setdefault(qi, {})
            return _maxsim_memo(ident, queries.texts[qi])

        def maxsim(qi: int, kind: str, ids: np.ndarray) -> np.ndarray:
            keys = [(kind, int(i)) for i in ids]
            tkeys = [self._node_text(kind, i) for _, i in keys] if shared else keys
            scores = memo(qi)
            todo = [j for j, t in enumerate(tkeys) if t not in scores]
            if todo:
                need = [keys[j] for j in todo if keys[j] not in blocks]
                if need:
                    got = encode_cached(self.encoder, [self._node_text(k, i) for k, i in need], cache=cache,
                                        costs=costs, tokens=True, dtype="float16", desc="token vectors")
                    blocks.update(zip(need, got))
                if qi not in q32:
                    q32[qi] = np.asarray(qtok[qi], dtype=np.float32)
                got_s = maxsim_exact(q32[qi], [blocks[keys[j]] for j in todo])
                scores.update(zip((tkeys[j] for j in todo), got_s.tolist()))
            return np.array([scores[t] for t in tkeys], dtype=np.float64)

        def many(requests: list[tuple[int, str, np.ndarray]]) -> list[np.ndarray]:
            """Many queries' requests at once: each text's token block is read and cast once, against every
            query that asks for it (the lockstep search reaches here only when every block is in the cache)."""
            wanted: dict[tuple[str, int], dict[int, Any]] = {}
            for qi, kind, ids in requests:
                scores = memo(qi)
                for i in ids.tolist():
                    t = self._node_text(kind, i) if shared else (kind, i)
                    if t not in scores:
                        wanted.setdefault((kind, i), {})[qi] = t
            need = [k for k in wanted if k not in blocks]
            if need:
                got = encode_cached(self.encoder, [self._node_text(k, i) for k, i in need], cache=cache,
                                    costs=costs, tokens=True, dtype="float16", desc="token vectors")
                blocks.update(zip(need, got))
            with one_thread_blas():
                for key, asking in wanted.items():
                    qis = list(asking)
                    for qi in qis:
                        if qi not in q32:
                            q32[qi] = np.asarray(qtok[qi], dtype=np.float32)
                    got_s = maxsim_exact_queries([q32[qi] for qi in qis], blocks[key])
                    for qi, v in zip(qis, got_s.tolist()):
                        memo(qi)[asking[qi]] = v
            return [maxsim(qi, kind, ids) for qi, kind, ids in requests]

        maxsim.many = many  # type: ignore[attr-defined]
        maxsim.lockstep = shared and all(  # type: ignore[attr-defined]
            self._node_text("chunk", i) in cache for i in range(len(self._texts))) and (
            not self.node_rerank or all(n.summary in cache for n in self.tree.nodes[1:]))  # type: ignore[union-attr]
        return maxsim

    def _cross_encoder(self) -> Any:
        if self._cross is None:
            require("sentence_transformers", "hcr", "dense")
            from sentence_transformers import CrossEncoder

            name = self.rerank_model or DEFAULT_CROSS_ENCODER
            try:
                self._cross = CrossEncoder(name, device="cpu")
            except Exception as e:
                raise InputError(f"could not load cross-encoder {name!r} ({type(e).__name__}); pass "
                                 "rerank_model=LOCAL_DIR or use rerank=maxsim", field="rerank_model") from None
        return self._cross

    # -- search ----------------------------------------------------------------------------------------------
    def search(self, queries: Queries, k: int = 100) -> RunResult:
        if self.tree is None:
            raise RuntimeError("HCRRetriever.search called before index()")
        costs = Costs()
        with timed(costs, "encode_queries"):
            qv = self._embed(list(queries.texts), costs, "encoding queries")
            reranker = self._make_reranker(queries, costs)
        router = Router(self.tree, self._node_vecs, self._chunk_vecs, self._chunk_lex, self._node_lex,
                        self._links, self.cfg, reranker, node_reranker=self.node_rerank, card=self._card)
        extractor = getattr(self, "_extractor", None)
        want = self.links or self.cfg.card
        q_ents = extractor(list(queries.texts)) if extractor is not None and want else [[]] * len(queries)
        depth = 4 * int(k)
        ranked: dict[str, list[tuple[str, float]]] = {}
        self.routing_log = []
        # queries in lockstep windows when the reranker can take them together (each block read once per window)
        window = 1
        if getattr(reranker, "lockstep", False):
            window = max(1, min(LOCKSTEP, LOCKSTEP_BYTES // (8 * max(len(self._texts), 1))))
        items = list(enumerate(queries.items()))
        with timed(costs, "route"):
            for w in range(0, len(items), window):
                todo = []
                for qi, (qid, text) in items[w : w + window]:
                    qlex: dict[Any, Any] = {"chunk": self._chunk_lex.query_vector(text), "ents": q_ents[qi]}
                    if self._node_lex is not None:
                        qlex["node"] = (qlex["chunk"] if self.node_repr == "subtree"
                                        else self._node_lex.query_vector(text))
                    todo.append((qid, qi, qv[qi], qlex, q_ents[qi] if self.links else []))
                routed = (router.route_many(todo) if window > 1 else [router.route(*todo[0])])
                for (qid, *_), (chunks, rec) in zip(todo, routed):
                    self._take(qid, chunks, rec, ranked, depth, costs)
        run = Run.from_ranked(ranked, name=self.name)
        # what HCR delivers: its own ranked chunks, which the context step selects from (docs/context.md)
        self.unit_run, self.unit_corpus = run, self._chunks
        if self._c2d is not None:
            run = doc_run_from_chunk_run(run, self._c2d)
        costs.add("queries", len(queries))
        costs.add("docs_scored", sum(r.chunks_scored for r in self.routing_log))
        if self.log_path:
            self.write_log(self.log_path)
        return RunResult(run.top_k(int(k)), costs)

    def _take(self, qid: str, chunks: list, rec: Any, ranked: dict, depth: int, costs: Costs) -> None:
        ids = self._chunks.doc_ids
        ranked[qid] = [(ids[c], s) for c, s in chunks[:depth]]
        self.routing_log.append(rec)
        costs.add("nodes_scored", rec.nodes_scored)
        costs.add("chunks_scored", rec.chunks_scored)
        costs.add("reranked", rec.reranked)
        costs.add("links_followed", len(rec.links))

    def write_log(self, path: str | Path, tree_path: str | Path | None = None) -> None:
        """Write the routing log of the last ``search`` to ``path`` and the tree beside it (``.tree.jsonl``, plus
        ``.tree.npz`` with the routing vectors and centroids that tree-quality metrics need)."""
        path = Path(path)
        write_routing_log(self.routing_log, path)
        if self.tree is not None:
            tp = Path(tree_path) if tree_path else path.with_name(path.name.replace(".routing.jsonl", "")
                                                                  .removesuffix(".jsonl") + ".tree.jsonl")
            write_tree(self.tree, tp)
            arrays = {"routing_vectors": self._node_vecs, "centroids": self._centroids}
            with atomic_open(tree_vectors_path(tp), "wb") as fh:
                np.savez(fh, **arrays)
