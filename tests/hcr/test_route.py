"""Routing on the constructed corpus: eps = 0 where clusters are known, A1 has no hierarchy, every path runs."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.errors import InputError
from hcrbench.metrics import evaluate
from hcrbench.metrics.tree import routing_errors
from hcrbench.retrieve import make_retriever


def _hcr(corpus, **kw):
    params = dict(backend="hash", chunk_tokens=0, depth=2, branching=4, cache=False, seed=0, target_pool=0)
    params.update(kw)
    r = make_retriever("hcr", **params)
    r.index(corpus)
    return r


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_known_clusters_route_without_error(clusters, seed):
    corpus, queries, qrels, _ = clusters
    r = _hcr(corpus, beam_width=1, mode="beam", links=False, seed=seed)
    res = r.search(queries, 10)
    e = routing_errors(r.tree, r.routing_log, qrels)
    assert e.n_queries == len(queries)
    assert e.eps_any == [0.0, 0.0] and e.eps_all == [0.0, 0.0] and e.accuracy == 1.0
    assert evaluate(qrels, {"h": res.run}, "Success@1").means["h"]["Success@1"] == 1.0


def test_misrouted_log_shows_error(clusters):
    """The instrument can fail: a beam forced away from the relevant branch gives eps_any = 1 at that level."""
    corpus, queries, qrels, _ = clusters
    r = _hcr(corpus, beam_width=1, mode="beam", links=False)
    r.search(queries, 10)
    for rec in r.routing_log:
        lv = rec.levels[0]
        wrong = [int(c) for c, _ in lv.candidates if int(c) not in lv.beam]
        lv.beam = [wrong[0]]
    e = routing_errors(r.tree, r.routing_log, qrels)
    assert e.eps_any[0] == 1.0 and e.accuracy == 0.0 and e.n_at_level[1] == 0


def test_a1_flat_removes_the_hierarchy(clusters):
    corpus, queries, _qrels, _ = clusters
    runs = []
    for seed in (0, 5):  # a different tree must not change the flat run at all
        r = _hcr(corpus, flat=True, seed=seed)
        res = r.search(queries, 10)
        assert all(rec.levels == [] and rec.path == "flat" for rec in r.routing_log)
        assert all(rec.chunks_scored == len(corpus) and rec.nodes_scored == 0 for rec in r.routing_log)
        runs.append(res.run.to_dict())
    assert runs[0] == runs[1]
    tree_run = _hcr(corpus, mode="beam", beam_width=1, seed=0)
    tree_run.search(queries, 10)
    assert all(rec.chunks_scored < len(corpus) for rec in tree_run.routing_log)


@pytest.mark.parametrize("kw", [dict(mode="dual", fusion="rrf"), dict(mode="dual", fusion="wta"),
                                dict(mode="collapsed"), dict(rerank="none"), dict(node_repr="centroid"),
                                dict(mmr_lambda=1.0), dict(depth=1)])
def test_every_switch_runs_and_logs(clusters, kw):
    corpus, queries, qrels, _ = clusters
    r = _hcr(corpus, **kw)
    res = r.search(queries, 10)
    assert len(r.routing_log) == len(queries)
    assert res.costs.counters["chunks_scored"] > 0
    nd = evaluate(qrels, {"h": res.run}, "nDCG@10").means["h"]["nDCG@10"]
    assert nd > 0.5, (kw, nd)  # the topics are trivially separable
    rec = r.routing_log[0]
    if kw.get("mode", "dual") != "collapsed":
        assert rec.beam_top_chunks
    if kw.get("mode", "dual") != "beam":
        assert rec.collapsed_top_chunks and rec.collapsed_nodes
    if kw.get("rerank") == "none":
        assert rec.reranked == 0


def test_mmr_diversifies_the_beam(clusters):
    corpus, queries, _, _ = clusters
    beams = {}
    for lam in (1.0, 0.0):
        r = _hcr(corpus, mode="beam", beam_width=2, mmr_lambda=lam, links=False)
        r.search(queries, 10)
        beams[lam] = [rec.levels[0].beam for rec in r.routing_log]
        for rec in r.routing_log:  # lambda = 1 keeps the top of the cascade
            if lam == 1.0:
                assert rec.levels[0].beam == [int(c) for c, _ in rec.levels[0].candidates[:2]]
    assert beams[1.0] != beams[0.0]


def test_links_are_followed_across_branches(clusters):
    corpus, _queries, _, _ = clusters
    corpus.texts[0] += " Shared with ZZ-0042."  # astro-0 and ship-5 name the same identifier
    corpus.texts[-1] += " Shared with ZZ-0042."
    r = _hcr(corpus, mode="beam", beam_width=1, links=True)
    from hcrbench.data.types import Queries

    r.search(Queries(["x"], ["galaxy nebula ZZ-0042"]), 10)
    rec = r.routing_log[0]
    linked = {c for e, c in rec.links if e == "zz-0042"}
    assert linked and all(corpus.doc_ids[c] in ("astro-0", "ship-5") for c in linked)
    r2 = _hcr(corpus, mode="beam", beam_width=1, links=False)
    r2.search(Queries(["x"], ["galaxy nebula ZZ-0042"]), 10)
    assert r2.routing_log[0].links == []


@pytest.mark.parametrize("kw,field", [(dict(mode="wide"), "mode"), (dict(depth=0), "depth"),
                                      (dict(mmr_lambda=1.5), "mmr_lambda"), (dict(links="yes"), "links"),
                                      (dict(rerank="colbert"), "rerank"), (dict(branching=1), "branching")])
def test_bad_params_are_one_line(kw, field):
    with pytest.raises(InputError) as ei:
        make_retriever("hcr", backend="hash", **kw)
    assert ei.value.field == field and "\n" not in str(ei.value)


def test_cache_reloads_the_same_tree(clusters, tmp_path):
    corpus, queries, _, _ = clusters
    a = _hcr(corpus, cache=True, cache_dir=str(tmp_path))
    b = _hcr(corpus, cache=True, cache_dir=str(tmp_path))
    assert b.index_costs.counters.get("tree_cache_hits") == 1
    assert a.tree == b.tree
    ra, rb = a.search(queries, 10), b.search(queries, 10)
    assert ra.run.to_dict() == rb.run.to_dict()
    assert np.array_equal(a._node_vecs, b._node_vecs)


def test_cross_encoder_plugs_into_the_cascade(clusters):
    """A user's CrossEncoder (here a stand-in with ``predict``) scores the cascade's survivors at every level."""
    corpus, queries, qrels, _ = clusters

    class Overlap:  # scores a (query, text) pair by shared words, as a CrossEncoder would score it
        calls = 0

        def predict(self, pairs, show_progress_bar=False):
            Overlap.calls += 1
            return [len(set(q.split()) & set(t.lower().replace(".", " ").split())) for q, t in pairs]

    r = _hcr(corpus, rerank="cross-encoder", rerank_model="local-dir", mode="beam", beam_width=1, links=False,
             node_repr="summary")
    r._cross = Overlap()
    res = r.search(queries, 10)
    assert Overlap.calls == len(queries) * 3  # two node levels + the leaf level
    assert res.costs.counters["pairs_scored"] == res.costs.counters["reranked"]
    assert r.params["rerank_model"] == "local-dir"
    assert evaluate(qrels, {"h": res.run}, "Success@1").means["h"]["Success@1"] == 1.0
