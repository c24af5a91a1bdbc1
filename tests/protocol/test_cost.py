"""Cost per query beside quality: every system's figures from its manifest entry (flat + reranker: the first
stage's chunks and top_n reranker calls), and the depth flag for measures that read past a run's depth."""

from __future__ import annotations

from hcrbench.data.types import Run
from hcrbench.experiment.cost import cost_table, depth_mismatch, system_cost, with_timing
from hcrbench.protocol.verdicts import depth_sensitive


def test_flat_reranker_splits_its_first_stage_from_its_reranker_calls():
    entry = {"type": "rerank", "n_queries": 10, "seconds": 2.0, "params": {"top_n": 100},
             "costs": {"counters": {"docs_scored": 10 * (3783 + 100), "queries": 10}}}
    c = system_cost(entry)
    assert (c["chunks_scored"], c["reranker_calls"], c["nodes_scored"]) == (3783.0, 100.0, 0.0)
    assert with_timing({"r": c}, {"systems": {"r": entry}})["r"]["ms_per_query"] == 200.0


def test_tree_systems_report_nodes_and_chunks_and_every_run_its_depth():
    entry = {"type": "hcr", "n_queries": 2, "costs": {"counters": {"chunks_scored": 100, "nodes_scored": 30,
                                                                    "reranked": 40, "queries": 2}}}
    run = Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 1.0}})
    suff = {"reference_budget": 400, "systems": {"hcr": {"mean_tokens": {"400": 390.5, "all": 900.0}}}}
    table = cost_table({"hcr": entry}, {"hcr": run}, suff)
    assert table["hcr"] == {"queries": 2, "chunks_scored": 50.0, "nodes_scored": 15.0, "reranker_calls": 20.0,
                            "context_tokens": 390.5, "context_tokens_all": 900.0, "depth": 1.5,
                            "ms_per_query": None}  # eval.json keeps the key, null: the figure is the manifest's
    assert depth_mismatch({"a": {"depth": 30.0}, "b": {"depth": 100.0}}, "a", "b")
    assert not depth_mismatch({"a": {"depth": 100.0}, "b": {"depth": 100.0}}, "a", "b")


def test_depth_sensitive_measures_are_those_reading_past_the_shorter_run():
    assert depth_sensitive("R@100", 36) and not depth_sensitive("P@5", 36) and not depth_sensitive("nDCG@10", 36)
    assert depth_sensitive("AP", 1000) and not depth_sensitive("RR", 10)


def test_a_reranker_matched_to_hcr_per_query_counts_its_own_calls_not_its_largest_top_n():
    # 3 queries: HCR considered 50, 120 and 250 chunks; top_n is the largest (250), calls are 140 per query
    entry = {"type": "rerank", "n_queries": 3, "seconds": 0.3,
             "params": {"top_n": 250, "top_n_from": "/x/logs/hcr.routing.jsonl", "top_n_match": "per-query"},
             "costs": {"counters": {"docs_scored": 3 * 3783 + 50 + 120 + 250, "chunks_indexed": 3783,
                                    "queries": 3}}}
    c = system_cost(entry)
    assert (c["chunks_scored"], c["reranker_calls"]) == (3783.0, 140.0) and c["ms_per_query"] is None
    assert with_timing({"r": c}, {"systems": {"r": entry}})["r"]["ms_per_query"] == 100.0


def test_a_reranker_over_several_worlds_counts_each_querys_own_world_first_stage():
    # two worlds of 3,000 and 4,000 chunks, 2 and 1 queries: the pooled chunks_indexed (7,000) is no query's first
    # stage; each query's exhaustive first stage scores its own world's chunks, the reranker 100 more each
    worlds = {"w02": {"n_queries": 2, "chunks_indexed": 3000}, "w03": {"n_queries": 1, "chunks_indexed": 4000}}
    entry = {"type": "rerank", "n_queries": 3, "worlds": worlds,
             "params": {"top_n": 100, "top_n_from": "/x/logs/hcr.routing.jsonl", "top_n_match": "per-query"},
             "costs": {"counters": {"docs_scored": 2 * 3000 + 4000 + 3 * 100, "chunks_indexed": 7000, "queries": 3}}}
    c = system_cost(entry)
    assert c["reranker_calls"] == 100.0 and c["chunks_scored"] == round(10000 / 3, 3)
    # a manifest written before the worlds carried their own count: the pooled count over the worlds
    old = {**entry, "worlds": {"w02": {"n_queries": 2}, "w03": {"n_queries": 2}}, "n_queries": 4,
           "costs": {"counters": {"docs_scored": 2 * 3000 + 2 * 4000 + 4 * 100, "chunks_indexed": 7000, "queries": 4}}}
    assert (system_cost(old)["chunks_scored"], system_cost(old)["reranker_calls"]) == (3500.0, 100.0)


def test_eval_json_points_at_the_manifest_for_the_timings():
    from hcrbench.experiment.cost import COST_TIMING

    assert "manifest.json" in COST_TIMING and "seconds" in COST_TIMING
