"""Tree metrics on a hand-built tree, against values worked out by hand (and a property test for eps bounds)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data.tree import LevelLog, RoutingRecord, Tree, TreeNode, read_routing_log, write_routing_log
from hcrbench.metrics.tree import (
    dendrogram_purity,
    entity_link_coverage,
    leaf_reachability,
    level_purity,
    path_agreement,
    routing_errors,
    sibling_distinctiveness,
    summary_fidelity,
    world_surface_forms,
)

#        0
#      /   \
#     1     2          level 1
#    / \   / \
#   3   4 5   6        level 2: chunks 0,1 | 2 | 3 | 4,5
TREE = Tree(
    [TreeNode(0, 0, None, [1, 2]), TreeNode(1, 1, 0, [3, 4]), TreeNode(2, 1, 0, [5, 6]),
     TreeNode(3, 2, 1, chunks=[0, 1]), TreeNode(4, 2, 1, chunks=[2]), TreeNode(5, 2, 2, chunks=[3]),
     TreeNode(6, 2, 2, chunks=[4, 5])],
    ["c0", "c1", "c2", "c3", "c4", "c5"], ["d0", "d0", "d1", "d2", "d3", "d3"],
    chunk_entities=[["rahul rossi"], [], ["sys-02"], [], ["atlas crm"], []])
LABELS = ["a", "a", "a", "b", "b", "a"]


def rec(qid, b1, b2, cands1=(1, 2), cands2=None):
    cands2 = cands2 if cands2 is not None else [c for b in b1 for c in TREE.nodes[b].children]
    return RoutingRecord(qid, [LevelLog(1, [[c, 1.0] for c in cands1], list(b1)),
                               LevelLog(2, [[c, 1.0] for c in cands2], list(b2))])


def test_eps_by_hand(tmp_path):
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}, "q4": {"d0": 1, "d2": 1}, "q5": {"zz": 1}}
    log = [rec("q1", [1], [4]),      # right, right
           rec("q2", [1], [3]),      # wrong at level 1 (d2 is under node 2): level 2 not counted
           rec("q3", [2], [5]),      # right at 1, wrong at 2 (d3 lives in node 6)
           rec("q4", [1], [3]),      # d0 under 1 and d2 under 2: any-correct yes; all-correct fits? 2 correct > 1
           rec("q5", [1], [3])]      # no relevant chunk in the tree: skipped
    write_routing_log(log, tmp_path / "r.jsonl")
    e = routing_errors(TREE, read_routing_log(tmp_path / "r.jsonl"), qrels)
    assert e.n_queries == 4
    assert e.n_at_level == [4, 3]
    assert e.eps_any == [0.25, 1 / 3]
    # level 1 all-correct: q1 ok, q2 miss, q3 ok, q4 beam {1} subset of correct {1, 2} -> ok
    assert e.eps_all == [0.25, 1 / 3]
    assert e.accuracy == 0.5
    assert math.isclose(e.predicted_product, 0.75 * (2 / 3))
    assert math.isclose(e.predicted_power, (1 - (0.25 + 1 / 3) / 2) ** 2)


def test_all_correct_in_beam_is_stricter():
    qrels = {"q": {"d0": 1, "d3": 1}}  # nodes 3 and 6 are correct at level 2
    e = routing_errors(TREE, [rec("q", [1, 2], [3, 4])], qrels)
    assert e.eps_any == [0.0, 0.0]
    assert e.eps_all == [0.0, 1.0]  # both correct nodes fit in a beam of 2, but node 6 was dropped
    e = routing_errors(TREE, [rec("q", [1, 2], [3])], qrels)  # a beam of 1 can hold only one of them
    assert e.eps_all == [0.0, 0.0]


def test_purity_by_hand():
    p = level_purity(TREE, LABELS)
    assert p == {1: (3 + 2) / 6, 2: (2 + 1 + 1 + 1) / 6}
    # same-label pairs: under a perfect tree every LCA is pure; here the value is strictly between 0 and 1
    d = dendrogram_purity(TREE, LABELS, n_pairs=500, seed=0)
    assert 0.5 < d < 1.0
    assert dendrogram_purity(TREE, ["a", "a", "b", "c", "d", "d"], n_pairs=100) == 1.0


def test_sibling_distinctiveness_and_fidelity():
    v = np.zeros((7, 2))
    v[1], v[2] = [1, 0], [0, 1]          # orthogonal: distance 1
    v[3], v[4] = [1, 0], [1, 0]          # identical: distance 0
    v[5], v[6] = [1, 0], [-1, 0]         # opposite: distance 2
    s = sibling_distinctiveness(TREE, v)
    assert s["n"] == 3 and math.isclose(s["mean"], 1.0) and s["min"] == 0.0
    assert math.isclose(s["sd"], 1.0)
    f = summary_fidelity(TREE, v, v)
    assert math.isclose(f["cosine_mean"], 1.0)
    assert f["own_centroid_rate"] == 5 / 6  # nodes 3 and 4 are identical: argmax picks 3 for both


def test_leaf_reachability():
    assert leaf_reachability(TREE, 2, 0.9) == 1.0          # every node has 2 children: a beam of 2 keeps all
    assert leaf_reachability(TREE, 1, 0.0) == 1.0
    r = leaf_reachability(TREE, 1, 0.5, n_trials=400, seed=1)
    assert abs(r - 0.25) < 0.05                              # (1 - 0.5) ** 2


def test_entity_coverage():
    forms = world_surface_forms({"people": [{"id": "P1", "name": "Rahul Rossi"}],
                                 "systems": [{"id": "SYS-02", "name": "Helix HRIS"}]})
    assert forms["P1"] == {"p1", "rahul rossi"}
    cov = entity_link_coverage(TREE, {"d0": ["P1"], "d1": ["SYS-02"], "d2": ["P1"], "d9": ["P1"]}, forms)
    assert cov == {"coverage": 2 / 3, "pairs": 3}


def test_path_agreement_by_category():
    recs = [RoutingRecord("q1", beam_top_chunks=[2], collapsed_top_chunks=[2], top_chunks=[2]),
            RoutingRecord("q2", beam_top_chunks=[0], collapsed_top_chunks=[3], top_chunks=[3])]
    out = path_agreement(TREE, recs, {"q1": {"d1": 1}, "q2": {"d2": 1}}, {"q1": "detail", "q2": "thematic"})
    assert out["agreement"] == 0.5
    assert out["by_category"]["detail|agree"]["beam"] == 1.0
    assert out["by_category"]["thematic|disagree"] == {"n": 1, "beam": 0.0, "collapsed": 1.0, "returned": 1.0}


def _wta(qid, beam, coll, winner):
    top = beam if winner == "beam" else coll
    return RoutingRecord(qid, path=f"dual-wta:{winner}", beam_top_chunks=beam, collapsed_top_chunks=coll,
                         top_chunks=top, beam_confidence=1.0, collapsed_confidence=0.5)


def test_winner_stats_oracle_and_broken_rule():
    """Metric 4: a rule that always keeps the better path scores kept_not_worse 1 and reaches the oracle; one that
    always keeps the worse scores 0; winners are counted per category."""
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d0": 1}}
    cats = {"q1": "detail", "q2": "thematic", "q3": "detail"}
    good = [_wta("q1", [2], [3], "beam"), _wta("q2", [0], [3], "collapsed"), _wta("q3", [0], [0], "beam")]
    bad = [_wta("q1", [2], [3], "collapsed"), _wta("q2", [0], [3], "beam"), _wta("q3", [0], [0], "beam")]
    g = path_agreement(TREE, good, qrels, cats)["winner"]
    b = path_agreement(TREE, bad, qrels, cats)["winner"]
    assert g["kept_not_worse"] == 1.0 and g["kept_ndcg10"] == g["oracle_ndcg10"] == 1.0
    assert b["kept_not_worse"] == 1 / 3 and b["kept_ndcg10"] == 1 / 3 and b["oracle_ndcg10"] == 1.0
    assert g["counts"] == {"all": {"beam": 2, "collapsed": 1}, "detail": {"beam": 2, "collapsed": 0},
                           "thematic": {"beam": 0, "collapsed": 1}}
    rrf = [RoutingRecord("q1", path="dual-rrf", beam_top_chunks=[2], collapsed_top_chunks=[3], top_chunks=[2])]
    assert "winner" not in path_agreement(TREE, rrf, qrels, cats)


def test_confidences_round_trip(tmp_path):
    recs = [_wta("q1", [2], [3], "beam"), RoutingRecord("q2")]
    write_routing_log(recs, tmp_path / "r.jsonl")
    back = read_routing_log(tmp_path / "r.jsonl")
    assert (back[0].beam_confidence, back[0].collapsed_confidence) == (1.0, 0.5)
    assert back[1].beam_confidence is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, 2]), st.sampled_from([3, 4, 5, 6]), st.sampled_from(
    ["d0", "d1", "d2", "d3"])), min_size=1, max_size=12))
def test_eps_bounds_and_consistency(rows):
    log, qrels = [], {}
    for i, (b1, b2, d) in enumerate(rows):
        log.append(rec(f"q{i}", [b1], [b2]))
        qrels[f"q{i}"] = {d: 1}
    e = routing_errors(TREE, log, qrels)
    for a, b in zip(e.eps_any, e.eps_all):
        assert math.isnan(a) or 0 <= a <= b <= 1
    assert e.accuracy == np.mean([
        bool({b1, b2} <= {n for c, dd in enumerate(TREE.chunk_docs) if dd == d for n in TREE.ancestors(
            int(TREE.chunk_leaf()[c]))}) for b1, b2, d in rows])
