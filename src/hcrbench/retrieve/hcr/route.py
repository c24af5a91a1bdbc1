"""Query-time routing over the HCR tree: scoring cascade, adaptive beam with MMR diversity, collapsed path, dual path.

Per level the candidates (children of the beam) go through a **cascade**: the flat baseline's hybrid, BM25 over
their routing texts (``node_repr="subtree"``: the whole subtree's text, :mod:`~hcrbench.retrieve.hcr.nodes`) and
dense cosine of their routing vectors, fused by reciprocal rank (k = ``rrf_k``), with a third RRF list for nodes
whose **entity card** names an entity of the query; when nodes are routed by summaries the reranker (MaxSim or a
CrossEncoder, given as a callable) reorders the ``prefilter`` best. The **beam** keeps at least ``beam_width``
nodes, and more until the chunks under them reach ``target_pool`` (adaptive beam; 0 = fixed width), chosen by MMR:
relevance (1 - rank / n) traded against the largest cosine to a node already kept (``mmr_lambda`` = 1 turns
diversity off). Below the last level the beam's chunks, plus chunks **linked** by an entity of the query or of the
best few candidates, go through the chunk cascade (``leaf_rerank`` survivors reranked).
The **collapsed** path (``collapsed_scope="leaves"``) scores every last-level node with the same hybrid, ignoring
the hierarchy, and expands the best until ``target_pool`` chunks; ``"exhaustive"`` is the original rendering (every
node and chunk by dense cosine, the ``collapsed_k`` best expanded: as many chunk vectors as flat search).
**Dual** runs both and keeps the path with the higher confidence (``fusion="wta"``; :meth:`Router.confidence`) or
fuses them (RRF). **Flat** (ablation A1) runs the chunk cascade over every chunk. Every decision is written to a
:class:`~hcrbench.data.tree.RoutingRecord`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from hcrbench.data.tree import LevelLog, RoutingRecord, Tree
from hcrbench.retrieve.hcr.links import EntityLinks

if TYPE_CHECKING:
    from hcrbench.retrieve.hcr.lexical import SparseBM25
    from hcrbench.retrieve.hcr.nodes import EntityCard

MODES = ("dual", "beam", "collapsed")
FUSIONS = ("rrf", "wta")
COLLAPSED_SCOPES = ("leaves", "exhaustive")
#: reranker(query position, "node" | "chunk", ids) -> scores (higher is better)
Reranker = Callable[[int, str, np.ndarray], np.ndarray]
#: what a routing step asks the reranker: (query position, "node" | "chunk", ids)
Request = tuple[int, str, np.ndarray]
T = TypeVar("T")
LOG_TOP = 30


@dataclass
class RouteConfig:
    """Routing switches (the ablations are these fields; see the ``hcr`` retriever)."""

    beam_width: int = 4
    prefilter: int = 8
    leaf_rerank: int = 100
    mmr_lambda: float = 0.8
    mode: str = "dual"
    fusion: str = "wta"
    rrf_k: float = 60.0
    collapsed_k: int = 10
    links: bool = True
    link_seeds: int = 3
    links_per_entity: int = 5
    max_links: int = 20
    flat: bool = False
    target_pool: int = 100
    collapsed_scope: str = "leaves"
    card: bool = True


def _rrf_pair(a: np.ndarray, b: np.ndarray, k: float, hits: np.ndarray | None = None) -> np.ndarray:
    """RRF of two score arrays over the same items (ties broken by position, stably); ``hits`` (entity-card
    matches, optional) adds a third list that ranks only the items with at least one hit."""
    out = np.zeros(len(a), dtype=np.float64)
    for s in (a, b):
        ranks = np.empty(len(s), dtype=np.int64)
        ranks[np.argsort(-s, kind="stable")] = np.arange(1, len(s) + 1)
        out += 1.0 / (k + ranks)
    if hits is not None and hits.any():
        ranks = np.empty(len(hits), dtype=np.int64)
        ranks[np.argsort(-hits, kind="stable")] = np.arange(1, len(hits) + 1)
        out += np.where(hits > 0, 1.0 / (k + ranks), 0.0)
    return out


class Router:
    """Routes one query at a time; holds read-only arrays shared by all queries."""

    def __init__(self, tree: Tree, node_vecs: np.ndarray, chunk_vecs: np.ndarray, chunk_lex: SparseBM25,
                 node_lex: SparseBM25 | None, links: EntityLinks | None, cfg: RouteConfig,
                 reranker: Reranker | None, node_reranker: bool = True, card: EntityCard | None = None) -> None:
        self.tree, self.node_vecs, self.chunk_vecs = tree, node_vecs, chunk_vecs
        self.chunk_lex, self.node_lex, self.links, self.cfg = chunk_lex, node_lex, links, cfg
        self.reranker = reranker
        self.node_reranker = node_reranker and node_lex is not None  # centroids (A6) have no text to rerank
        self.card = card if cfg.card else None
        self.children = [np.asarray(n.children, dtype=np.int64) for n in tree.nodes]
        self.chunks = [np.asarray(n.chunks, dtype=np.int64) for n in tree.nodes]
        self._leaf_cache: dict[int, np.ndarray] = {}
        size = np.array([len(n.chunks) for n in tree.nodes], dtype=np.int64)
        for n in reversed(tree.nodes):  # breadth-first ids: children after parents
            if n.parent is not None:
                size[n.parent] += size[n.node_id]
        self.size = size  # chunks under each node
        self.depth = tree.depth
        self.leaves = np.array([n.node_id for n in tree.nodes if n.level == self.depth], dtype=np.int64)

    # -- the cascade ---------------------------------------------------------------------------------------
    def _prefilter(self, kind: str, ids: np.ndarray, qvec: np.ndarray, qlex: dict) -> np.ndarray:
        vecs, lex = (self.node_vecs, self.node_lex) if kind == "node" else (self.chunk_vecs, self.chunk_lex)
        dense = vecs[ids] @ qvec
        if lex is None:
            return dense.astype(np.float64)
        hits = None
        if kind == "node" and self.card is not None:
            hits = self.card.hits(qlex.get("ents", ()), ids)
        return _rrf_pair(dense.astype(np.float64), self._lexical(kind, lex, ids, qlex), self.cfg.rrf_k, hits)

    def _lexical(self, kind: str, lex: SparseBM25, ids: np.ndarray, qlex: dict) -> np.ndarray:
        """BM25 of ``ids``, each row scored once per query (kept in ``qlex``): a row's score is its own sparse
        product, the same whichever rows are scored with it, and the paths and levels of one query score
        many rows more than once."""
        key = ("bm25", kind)
        memo = qlex.get(key)
        if memo is None:
            memo = qlex[key] = np.full(len(self.tree.nodes) if kind == "node" else len(self.chunk_vecs), np.nan)
        if kind == "node" and np.isnan(memo[0]):  # a query's routing reaches most nodes: score them all
            memo[:] = lex.score(qlex[kind], np.arange(len(memo)))
        got = memo[ids]
        miss = np.isnan(got)
        if miss.any():
            fresh = lex.score(qlex[kind], ids[miss])
            memo[ids[miss]] = fresh
            got[miss] = fresh
        return got

    def cascade(self, kind: str, ids: np.ndarray, qi: int, qvec: np.ndarray, qlex: dict, survivors: int,
                rec: RoutingRecord) -> list[tuple[int, float]]:
        """``ids`` ranked best first with their scores (reranker scores for survivors, fused below them)."""
        return self._drive(self._cascade(kind, ids, qi, qvec, qlex, survivors, rec))

    def _drive(self, steps: Generator[Request, np.ndarray, T]) -> T:
        """Run one query's routing, answering each reranker request as it comes."""
        try:
            req = next(steps)
            while True:
                req = steps.send(self.reranker(*req))  # type: ignore[misc]
        except StopIteration as stop:
            return stop.value

    def _cascade(self, kind: str, ids: np.ndarray, qi: int, qvec: np.ndarray, qlex: dict, survivors: int,
                 rec: RoutingRecord) -> Generator[Request, np.ndarray, list[tuple[int, float]]]:
        if len(ids) == 0:
            return []
        fused = self._prefilter(kind, ids, qvec, qlex)
        if kind == "node":
            rec.nodes_scored += len(ids)
        else:
            rec.chunks_scored += len(ids)
        order = np.argsort(-fused, kind="stable")
        use = self.reranker is not None and (kind == "chunk" or self.node_reranker)
        n_head = min(survivors, len(ids)) if use else 0
        head, tail = order[:n_head], order[n_head:]
        out: list[tuple[int, float]] = []
        if n_head:
            rs = np.asarray((yield qi, kind, ids[head]), dtype=np.float64)
            rec.reranked += n_head
            ro = np.argsort(-rs, kind="stable")
            out = list(zip(ids[head[ro]].tolist(), rs[ro].tolist()))
            floor = float(rs.min()) - 1.0  # the tail below every reranked score, in fused order, one apart
            out += zip(ids[tail].tolist(), (floor - np.arange(len(tail), dtype=np.float64)).tolist())
        else:
            out = list(zip(ids[order].tolist(), fused[order].tolist()))
        return out

    # -- beam ------------------------------------------------------------------------------------------------
    def _mmr(self, ranked: list[tuple[int, float]], width: int, pool: int = 0) -> list[int]:
        """At least ``width`` nodes, and more until the chunks under them reach ``pool`` (adaptive beam), picked
        greedily by MMR (relevance = 1 - rank / n against the largest cosine to a node already kept)."""
        lam = self.cfg.mmr_lambda
        ids = np.array([i for i, _ in ranked], dtype=np.int64)
        if pool > 0 and len(ids):
            need = int(np.searchsorted(np.cumsum(self.size[ids]), pool) + 1)  # ranked order reaches the pool
            width = max(width, min(need, len(ids)))
        if lam >= 1.0 or len(ranked) <= width:
            out = [i for i, _ in ranked[:width]]
            return self._fill_pool(out, ids, pool)
        rel = 1.0 - np.arange(len(ids)) / len(ids)
        vecs = self.node_vecs[ids]
        chosen: list[int] = []
        best_sim = np.full(len(ids), -np.inf)
        taken = np.zeros(len(ids), dtype=bool)
        have = 0
        while taken.sum() < len(ids) and (len(chosen) < width or have < pool):
            penalty = np.where(np.isfinite(best_sim), best_sim, 0.0)
            val = lam * rel - (1.0 - lam) * penalty
            val[taken] = -np.inf
            j = int(np.argmax(val))
            taken[j] = True
            chosen.append(int(ids[j]))
            have += int(self.size[ids[j]])
            best_sim = np.maximum(best_sim, vecs @ vecs[j])
        return chosen

    def _fill_pool(self, chosen: list[int], ranked_ids: np.ndarray, pool: int) -> list[int]:
        have = int(self.size[chosen].sum()) if chosen else 0
        out = list(chosen)
        for i in ranked_ids.tolist():
            if have >= pool:
                break
            if i not in out:
                out.append(int(i))
                have += int(self.size[i])
        return out

    def leaf_chunks(self, node: int) -> np.ndarray:
        got = self._leaf_cache.get(node)
        if got is None:
            got = np.asarray(self.tree.leaf_chunks(node), dtype=np.int64)
            self._leaf_cache[node] = got
        return got

    def beam(self, qi: int, qtext_entities: list[str], qvec: np.ndarray, qlex: dict,
             rec: RoutingRecord) -> list[tuple[int, float]]:
        return self._drive(self._beam(qi, qtext_entities, qvec, qlex, rec))

    def _beam(self, qi: int, qtext_entities: list[str], qvec: np.ndarray, qlex: dict,
              rec: RoutingRecord) -> Generator[Request, np.ndarray, list[tuple[int, float]]]:
        beam = [0]
        for level in range(1, self.depth + 1):
            cands = np.concatenate([self.children[b] for b in beam]) if beam else np.zeros(0, np.int64)
            if len(cands) == 0:
                break
            ranked = yield from self._cascade("node", cands, qi, qvec, qlex, self.cfg.prefilter, rec)
            beam = self._mmr(ranked, self.cfg.beam_width, self.cfg.target_pool)
            rec.levels.append(LevelLog(level, [[i, round(s, 6)] for i, s in ranked], beam))
        leaf = np.unique(np.concatenate([self.chunks[b] for b in beam])) if beam else np.zeros(0, np.int64)
        if self.cfg.links and self.links is not None:
            leaf = self._follow_links(leaf, qtext_entities, qvec, qlex, rec)
        return (yield from self._cascade("chunk", leaf, qi, qvec, qlex, self.cfg.leaf_rerank, rec))

    def _follow_links(self, leaf: np.ndarray, q_entities: list[str], qvec: np.ndarray, qlex: dict,
                      rec: RoutingRecord, log: bool = True) -> np.ndarray:
        assert self.links is not None
        seeds = list(q_entities)
        if len(leaf) and self.cfg.link_seeds:
            fused = self._prefilter("chunk", leaf, qvec, qlex)
            for j in np.argsort(-fused, kind="stable")[: self.cfg.link_seeds]:
                seeds.extend(self.links.chunk_entities[int(leaf[j])])
        seeds = list(dict.fromkeys(seeds))
        have = set(leaf.tolist())
        added: list[int] = []
        for e, post in self.links.linked(seeds).items():
            new = np.array([c for c in post if c not in have], dtype=np.int64)
            if len(new) == 0:
                continue
            best = new[np.argsort(-(self.chunk_vecs[new] @ qvec), kind="stable")[: self.cfg.links_per_entity]]
            for c in best.tolist():
                if len(added) >= self.cfg.max_links:
                    break
                if c not in have:
                    have.add(c)
                    added.append(c)
                    if log:
                        rec.links.append([e, int(c)])
            if len(added) >= self.cfg.max_links:
                break
        return np.concatenate([leaf, np.asarray(added, dtype=np.int64)]) if added else leaf

    # -- collapsed -------------------------------------------------------------------------------------------
    def collapsed(self, qi: int, qvec: np.ndarray, qlex: dict, rec: RoutingRecord,
                  q_entities: Sequence[str] = ()) -> list[tuple[int, float]]:
        """The collapsed tree. ``collapsed_scope="leaves"`` (default): every last-level node is scored with the
        routing hybrid (no beam, no hierarchy), the best are expanded, in order, until they hold ``target_pool``
        chunks (``collapsed_k`` nodes when ``target_pool`` is 0), and those chunks (plus links) go through the chunk cascade.
        ``"exhaustive"`` (the original rendering): every node and chunk by dense cosine, the best ``collapsed_k``
        expanded; it scores as many chunk vectors as flat search."""
        return self._drive(self._collapsed(qi, qvec, qlex, rec, q_entities))

    def _collapsed(self, qi: int, qvec: np.ndarray, qlex: dict, rec: RoutingRecord,
                   q_entities: Sequence[str] = ()) -> Generator[Request, np.ndarray, list[tuple[int, float]]]:
        if self.cfg.collapsed_scope == "exhaustive":
            return (yield from self._collapsed_exhaustive(qi, qvec, qlex, rec))
        ranked = yield from self._cascade("node", self.leaves, qi, qvec, qlex, 0, rec)
        ids = np.array([i for i, _ in ranked], dtype=np.int64)
        need = int(np.searchsorted(np.cumsum(self.size[ids]), self.cfg.target_pool) + 1) if len(ids) else 0
        picked = ids[: need if self.cfg.target_pool > 0 else self.cfg.collapsed_k].tolist()
        rec.collapsed_nodes = [int(i) for i in picked]
        cands = (np.unique(np.concatenate([self.chunks[i] for i in picked])) if picked
                 else np.zeros(0, np.int64))
        if self.cfg.links and self.links is not None:
            cands = self._follow_links(cands, list(q_entities), qvec, qlex, rec, log=False)
        return (yield from self._cascade("chunk", cands, qi, qvec, qlex, self.cfg.leaf_rerank, rec))

    def _collapsed_exhaustive(self, qi: int, qvec: np.ndarray, qlex: dict, rec: RoutingRecord
                              ) -> Generator[Request, np.ndarray, list[tuple[int, float]]]:
        n_nodes = len(self.tree.nodes)
        node_s = self.node_vecs[1:] @ qvec
        chunk_s = self.chunk_vecs @ qvec
        rec.nodes_scored += n_nodes - 1
        rec.chunks_scored += len(chunk_s)
        alls = np.concatenate([node_s, chunk_s]).astype(np.float64)
        top = np.argsort(-alls, kind="stable")[: self.cfg.collapsed_k]
        picked: list[int] = []
        parts = []
        for t in top.tolist():
            if t < n_nodes - 1:
                picked.append(t + 1)
                parts.append(self.leaf_chunks(t + 1))
            else:
                c = t - (n_nodes - 1)
                picked.append(-1 - c)
                parts.append(np.array([c], dtype=np.int64))
        rec.collapsed_nodes = picked
        cands = np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
        return (yield from self._cascade("chunk", cands, qi, qvec, qlex, self.cfg.leaf_rerank, rec))

    def confidence(self, ranked: list[tuple[int, float]], qvec: np.ndarray) -> float:
        """A path's confidence: the mean final score of its top three chunks when a reranker scored them (the
        same reranker, query and scale for both paths, so the two are comparable), else their mean cosine to
        the query."""
        top = ranked[:3]
        if not top:
            return float("-inf")
        if self.reranker is not None:
            return float(np.mean([s for _, s in top]))
        return float((self.chunk_vecs[[i for i, _ in top]] @ qvec).mean())

    # -- one query -------------------------------------------------------------------------------------------
    def route(self, qid: str, qi: int, qvec: np.ndarray, qlex: dict, q_entities: list[str]
              ) -> tuple[list[tuple[int, float]], RoutingRecord]:
        """Ranked chunk positions with scores, and the routing record."""
        return self._drive(self._route(qid, qi, qvec, qlex, q_entities))

    def route_many(self, items: Sequence[tuple[str, int, np.ndarray, dict, list[str]]]
                   ) -> list[tuple[list[tuple[int, float]], RoutingRecord]]:
        """:meth:`route` of many queries (``route``'s arguments each), in lockstep: each round's reranker
        requests, one per query still routing, go to the reranker's ``many`` together (one by one without it).
        Each query's routing is the one :meth:`route` gives: its requests and the scores it is sent are the same.
        """
        many = getattr(self.reranker, "many", None)
        steps = [self._route(*it) for it in items]
        out: list = [None] * len(steps)
        asked: dict[int, Request] = {}

        def advance(k: int, answer: np.ndarray | None) -> None:
            try:
                asked[k] = next(steps[k]) if answer is None else steps[k].send(answer)
            except StopIteration as stop:
                out[k] = stop.value

        for k in range(len(steps)):
            advance(k, None)
        while asked:
            keys, batch = list(asked), list(asked.values())
            asked.clear()
            got = many(batch) if many is not None else [self.reranker(*r) for r in batch]  # type: ignore[misc]
            for k, answer in zip(keys, got):
                advance(k, np.asarray(answer, dtype=np.float64))
        return out

    def _route(self, qid: str, qi: int, qvec: np.ndarray, qlex: dict, q_entities: list[str]
               ) -> Generator[Request, np.ndarray, tuple[list[tuple[int, float]], RoutingRecord]]:
        rec = RoutingRecord(qid)
        cfg = self.cfg
        if cfg.flat:
            rec.path = "flat"
            all_chunks = np.arange(len(self.chunk_vecs), dtype=np.int64)
            ranked = yield from self._cascade("chunk", all_chunks, qi, qvec, qlex, cfg.leaf_rerank, rec)
        else:
            b = (yield from self._beam(qi, q_entities, qvec, qlex, rec)) if cfg.mode in ("beam", "dual") else []
            c = ((yield from self._collapsed(qi, qvec, qlex, rec, q_entities)) if cfg.mode in ("collapsed", "dual")
                 else [])
            rec.beam_top_chunks = [i for i, _ in b[:LOG_TOP]]
            rec.collapsed_top_chunks = [i for i, _ in c[:LOG_TOP]]
            cb = self.confidence(b, qvec) if cfg.mode == "dual" else float("-inf")
            cc = self.confidence(c, qvec) if cfg.mode == "dual" else float("-inf")
            if cfg.mode == "dual":
                rec.beam_confidence = round(cb, 6) if np.isfinite(cb) else None
                rec.collapsed_confidence = round(cc, 6) if np.isfinite(cc) else None
            if cfg.mode == "beam":
                ranked, rec.path = b, "beam"
            elif cfg.mode == "collapsed":
                ranked, rec.path = c, "collapsed"
            elif cfg.fusion == "rrf":
                fused: dict[int, float] = {}
                for lst in (b, c):
                    for r, (i, _) in enumerate(lst, start=1):
                        fused[i] = fused.get(i, 0.0) + 1.0 / (cfg.rrf_k + r)
                ranked = sorted(fused.items(), key=lambda x: (-x[1], x[0]))
                rec.path = "dual-rrf"
            else:
                win = "beam" if cb >= cc else "collapsed"
                ranked, rec.path = (b if win == "beam" else c), f"dual-wta:{win}"
        rec.top_chunks = [i for i, _ in ranked[:LOG_TOP]]
        return ranked, rec
