"""HCR's fast search writes the bytes of the plain one: the batched exact MaxSim against the per-document
definition, and whole searches (runs, scores, routing logs) against a reference router and reranker kept here
in their original, one-query-one-document form."""

from __future__ import annotations

import json

import numpy as np
import pytest

import hcrbench.retrieve.hcr.retriever as hcr_retriever
from hcrbench.data.types import Corpus, Queries
from hcrbench.retrieve import make_retriever
from hcrbench.retrieve.encoders import encode_cached
from hcrbench.retrieve.hcr.route import Router, _rrf_pair
from hcrbench.retrieve.maxsim import dot_error_bound, maxsim_exact, maxsim_exact_queries
from hcrbench.retrieve.rerank import maxsim_scores


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)).astype(np.float32)


@pytest.mark.parametrize("seed", range(6))
def test_maxsim_exact_matches_the_definition_bit_for_bit(seed):
    """Random shapes (empty queries and blocks included), float16 and float32 blocks, exact and near ties
    within a block, a document token equal to a query token, a document repeated."""
    rng = np.random.default_rng(seed)
    for _ in range(25):
        dim = int(rng.choice([384, 64, 7, 1]))
        m = int(rng.integers(0, 40)) if rng.random() < 0.8 else int(rng.integers(100, 300))
        q = _unit(rng.standard_normal((m, dim))).astype(np.float16).astype(np.float32)
        blocks = []
        for _ in range(int(rng.integers(0, 30))):
            b = _unit(rng.standard_normal((int(rng.integers(0, 120)), dim)))
            if len(b) > 2:
                b[1] = b[0]
                b[2] = _unit(b[0] + 1e-4 * rng.standard_normal(dim))
            if m and len(b) > 3:
                b[3] = q[0]
            blocks.append(b.astype(np.float16) if rng.random() < 0.8 else b)
        if blocks:
            blocks.append(blocks[0])
        want = maxsim_scores(q, blocks)
        got = maxsim_exact(q, blocks)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("seed", range(3))
def test_one_document_against_many_queries_matches_the_definition(seed):
    """The lockstep search's form: one block against every query that asks for it (empty queries included)."""
    rng = np.random.default_rng(seed)
    for _ in range(20):
        dim = int(rng.choice([384, 16]))
        queries = [_unit(rng.standard_normal((int(rng.integers(0, 30)), dim))) for _ in range(rng.integers(1, 8))]
        block = _unit(rng.standard_normal((int(rng.integers(0, 90)), dim)))
        if len(block) > 1 and len(queries[0]):
            block[1] = queries[0][0]
            block[0] = block[1]
        block = block.astype(np.float16)
        want = np.array([maxsim_scores(q, [block])[0] for q in queries])
        assert maxsim_exact_queries(queries, block).tobytes() == want.tobytes()
    eye = np.eye(16, dtype=np.float32)  # one-hot ties; a non-finite block falls back
    queries = [eye[rng.integers(0, 16, 5)] for _ in range(4)]
    block = eye[rng.integers(0, 16, 11)]
    want = np.array([maxsim_scores(q, [block])[0] for q in queries])
    assert maxsim_exact_queries(queries, block).tobytes() == want.tobytes()
    block[0, 0] = np.nan
    want = np.array([maxsim_scores(q, [block])[0] for q in queries])
    assert np.array_equal(maxsim_exact_queries(queries, block), want, equal_nan=True)


def test_maxsim_exact_on_one_hot_ties_and_non_finite_input():
    """The hashed encoder's one-hot tokens tie everywhere (every candidate goes to the exact kernel); a
    non-finite vector falls back to the definition."""
    rng = np.random.default_rng(0)
    eye = np.eye(16, dtype=np.float32)
    q = eye[rng.integers(0, 16, 9)]
    blocks = [eye[rng.integers(0, 16, int(n))] for n in rng.integers(0, 12, 40)]
    assert maxsim_exact(q, blocks).tobytes() == maxsim_scores(q, blocks).tobytes()
    bad = [b.copy() for b in blocks if len(b)]
    bad[0][0, 0] = np.inf
    assert np.array_equal(maxsim_exact(q, bad), maxsim_scores(q, bad), equal_nan=True)


def test_dot_error_bound_covers_float32_rounding():
    """The window is sound: float32 dot products in two summation orders stay within twice the bound."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 2000, 384)).astype(np.float32)
    seq = np.einsum("ik,ik->i", a, b, optimize=False)
    blas = np.array([float(np.dot(x, y)) for x, y in zip(a, b)], dtype=np.float32)
    scale = np.linalg.norm(a.astype(np.float64), axis=1) * np.linalg.norm(b.astype(np.float64), axis=1)
    assert (np.abs(seq.astype(np.float64) - blas) <= 2 * dot_error_bound(384) * scale).all()
    assert dot_error_bound(10**9) == float("inf")


# -- the reference: routing and MaxSim as they were, one query and one document at a time ------------------

class ReferenceRouter(Router):
    def _prefilter(self, kind, ids, qvec, qlex):
        vecs, lex = (self.node_vecs, self.node_lex) if kind == "node" else (self.chunk_vecs, self.chunk_lex)
        dense = vecs[ids] @ qvec
        if lex is None:
            return dense.astype(np.float64)
        hits = None
        if kind == "node" and self.card is not None:
            hits = self.card.hits(qlex.get("ents", ()), ids)
        return _rrf_pair(dense.astype(np.float64), lex.score(qlex[kind], ids), self.cfg.rrf_k, hits)

    def _cascade(self, kind, ids, qi, qvec, qlex, survivors, rec):
        """The cascade as it was (a generator only so the routing above it can ask the reranker)."""
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
        if n_head:
            rs = np.asarray((yield qi, kind, ids[head]), dtype=np.float64)
            rec.reranked += n_head
            ro = np.argsort(-rs, kind="stable")
            out = [(int(ids[head[j]]), float(rs[j])) for j in ro]
            floor = float(rs.min()) - 1.0
            out += [(int(ids[t]), floor - float(r)) for r, t in enumerate(tail)]
            return out
        return [(int(ids[t]), float(fused[t])) for t in order]


def reference_reranker(self, queries, costs):
    """The MaxSim reranker as it was: one query at a time (no ``many``: queries route one by one)."""
    if self.rerank != "maxsim":
        return None
    cache = self._emb_cache(tokens=True)
    qtok = encode_cached(self.encoder, list(queries.texts), cache=cache, costs=costs, tokens=True,
                         dtype="float16", desc="query tokens")
    blocks = {}

    def maxsim(qi, kind, ids):
        need = [int(i) for i in ids if (kind, int(i)) not in blocks]
        if need:
            got = encode_cached(self.encoder, [self._node_text(kind, i) for i in need], cache=cache,
                                costs=costs, tokens=True, dtype="float16", desc="token vectors")
            blocks.update({(kind, i): g for i, g in zip(need, got)})
        return maxsim_scores(np.asarray(qtok[qi], dtype=np.float32), [blocks[(kind, int(i))] for i in ids])

    return maxsim


def _world() -> tuple[Corpus, Queries]:
    """Eight topics whose vocabularies overlap, five documents each of several sentences (a few chunks per
    document), queries that mix topics and name identifiers (links and entity cards take part)."""
    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(120)]
    ids, texts = [], []
    for t in range(8):
        words = vocab[t * 12 : t * 12 + 24]
        for d in range(5):
            sents = [" ".join(rng.choice(words, 9)) + f" INC-{t}{d}{s % 2}00 Kai Rossi{t}." for s in range(6)]
            ids.append(f"d{t}-{d}")
            texts.append(" ".join(sents))
    qtexts = [" ".join(rng.choice(vocab[: 8 * 12 + 12], 5)) + (f" INC-{q % 8}{q % 5}000" if q % 3 else "")
              for q in range(30)]
    corpus = Corpus(ids, texts, [""] * len(ids), [{} for _ in ids], name="bytes-world")
    return corpus, Queries([f"q{i}" for i in range(len(qtexts))], qtexts, [{} for _ in qtexts])


VARIANTS = {
    "dual": {}, "beam": {"mode": "beam"}, "collapsed": {"mode": "collapsed"}, "flat": {"flat": True},
    "summary": {"node_repr": "summary"}, "centroid": {"node_repr": "centroid"}, "no-links": {"links": False},
    "rrf": {"fusion": "rrf"}, "exhaustive": {"collapsed_scope": "exhaustive"}, "no-mmr": {"mmr_lambda": 1.0},
    "seed1": {"seed": 1},
}


def _search_bytes(corpus, queries, cache_dir, **kw) -> bytes:
    params = dict(backend="hash", chunk_tokens=24, chunk_overlap=4, depth=2, branching=3, seed=0,
                  cache_dir=str(cache_dir))
    params.update(kw)
    r = make_retriever("hcr", **params)
    r.index(corpus)
    tokens = r._emb_cache(tokens=True)
    if tokens is not None:  # every token block stored, as an ONNX index stores them: the lockstep search runs
        encode_cached(r.encoder, list(r._texts) + [n.summary for n in r.tree.nodes], cache=tokens, tokens=True,
                      dtype="float16")
    res = r.search(queries, 50)
    runs = [{q: [(d, repr(s)) for d, s in run.ranked(q)] for q in run.query_ids} for run in (res.run, r.unit_run)]
    logs = [json.dumps(rec.__dict__, sort_keys=True, default=lambda o: o.__dict__) for rec in r.routing_log]
    return json.dumps([runs, logs]).encode()


def _check_against_reference(tmp_path, monkeypatch, variants: dict, caches: tuple[bool, ...]) -> None:
    corpus, queries = _world()
    lockstep = []
    route_many = Router.route_many
    monkeypatch.setattr(Router, "route_many", lambda self, items: lockstep.append(len(items))
                        or route_many(self, items))
    for cache in caches:
        lockstep.clear()
        fast = {v: _search_bytes(corpus, queries, tmp_path / "fast", cache=cache, **kw)
                for v, kw in variants.items()}
        assert bool(lockstep) == cache  # with every block in the token cache the queries route together
        with monkeypatch.context() as m:
            m.setattr(hcr_retriever, "Router", ReferenceRouter)
            m.setattr(hcr_retriever.HCRRetriever, "_make_reranker", reference_reranker)
            m.setattr(hcr_retriever, "_MAXSIM", {})
            for v, kw in variants.items():
                assert _search_bytes(corpus, queries, tmp_path / "ref", cache=cache, **kw) == fast[v], v


def test_default_search_and_a_seed_write_the_reference_bytes(tmp_path, monkeypatch):
    """The default dual path and a second seed in one process: the second reuses the first's MaxSim scores."""
    _check_against_reference(tmp_path, monkeypatch, {v: VARIANTS[v] for v in ("dual", "seed1")}, (True,))


@pytest.mark.slow
def test_every_variant_writes_the_reference_bytes(tmp_path, monkeypatch):
    """Every routing variant in one process (the MaxSim and BM25 memos shared as in an experiment); with and
    without the token cache."""
    _check_against_reference(tmp_path, monkeypatch, VARIANTS, (True, False))
