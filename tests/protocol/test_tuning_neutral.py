"""A tuning grid over a parameter that cannot change the ranking is not run: RAPTOR's ``top_k`` (collapsed, fill)
gives the same document ranking at every value, so its grid keeps the first value without a run on the tune
split, the reason is recorded, and the test config is the one a run of every point would have written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.experiment.config import parse_config
from hcrbench.protocol.quickstart import render_config
from hcrbench.protocol.tuning import effective_grids, tune, tune_config
from hcrbench.retrieve.raptor.select import collapsed, rank_documents
from hcrbench.retrieve.raptor.tree import RaptorTree
from hcrbench.retrieve.system_traits import ranking_neutral

CONFIG = """
name = "neutral-test"
output_dir = "out"
seed = 0
metrics = ["nDCG@10"]
baseline = "bm25"

[dataset]
path = "{bench}"
split = "test"

[protocol]
system = "raptor"
kill_baseline = "bm25"
tune = {{ raptor = {{ top_k = [10, 5]{more} }} }}

[[systems]]
name = "raptor"
type = "raptor"
params = {{ backend = "hash"{params} }}

[[systems]]
name = "bm25"
type = "bm25"
"""


def _tree() -> RaptorTree:
    """8 leaves (docs A..D, two chunks each), 4 layer-1 nodes, 2 layer-2 nodes (a leaf under two parents)."""
    texts = [f"leaf {i}" for i in range(8)] + ["s8", "s9", "s10", "s11", "s12", "s13"]
    layers = np.array([0] * 8 + [1] * 4 + [2] * 2, dtype=np.int32)
    children = [[] for _ in range(8)] + [[0, 1], [2, 3, 1], [4, 5], [6, 7], [8, 9], [10, 11]]
    emb = np.zeros((14, 2), dtype=np.float32)
    tokens = np.array([30, 40, 50, 60, 70, 80, 90, 100, 20, 20, 20, 20, 10, 10], dtype=np.int64)
    ids = [f"{'ABCD'[i // 2]}#c{i % 2}" for i in range(8)]
    return RaptorTree(texts, layers, tokens, children, emb, ids, [i.split("#")[0] for i in ids])


@settings(max_examples=100, deadline=None)
@given(scores=st.lists(st.floats(-1, 1, allow_nan=False), min_size=14, max_size=14),
       top_k=st.integers(1, 14), cap=st.integers(1, 600), k=st.integers(1, 4))
def test_raptor_collapsed_with_fill_ranks_documents_alike_at_every_top_k_and_token_cap(scores, top_k, cap, k):
    tree = _tree()
    s = np.asarray(scores)
    order = np.argsort(-s, kind="stable")
    ref, _ = rank_documents(tree, s, collapsed(s, tree.tokens, 10, 3500, order).nodes, k, fill_order=order)
    got, _ = rank_documents(tree, s, collapsed(s, tree.tokens, top_k, cap, order).nodes, k, fill_order=order)
    assert got == ref


def test_raptor_declares_top_k_neutral_only_in_collapsed_mode_with_fill():
    assert set(ranking_neutral("raptor", {})) == {"top_k", "max_tokens"}
    assert ranking_neutral("raptor", {"mode": "traversal"}) == {}
    assert ranking_neutral("raptor", {"fill": False}) == {}
    assert ranking_neutral("bm25", {}) == {}


def test_the_quickstart_tune_grid_leaves_raptor_out_and_says_why():
    cfg = parse_config(render_config(size="small", seed=3, worlds=3), Path("/nonexistent/quickstart.toml"))
    grids, skipped = effective_grids(cfg)
    assert "raptor" not in grids and set(grids) == set(cfg.protocol.tune) - {"raptor"}
    assert "top_k = 10 kept without a run" in skipped["raptor"]["top_k"]
    names = [s.name for s in parse_config(tune_config(cfg, "data", "t")).systems]
    assert names and not any(n.startswith("raptor") for n in names)


def test_a_grid_over_a_ranking_parameter_still_runs(bench):
    cfg = parse_config(CONFIG.format(bench=bench, more=", mode = [\"traversal\"]", params=""))
    grids, skipped = effective_grids(cfg)
    assert grids == {"raptor": {"top_k": [10, 5], "mode": ["traversal"]}} and skipped == {}
    cfg = parse_config(CONFIG.format(bench=bench, more="", params=", fill = false"))
    assert effective_grids(cfg) == ({"raptor": {"top_k": [10, 5]}}, {})


def test_a_grid_cut_to_one_point_runs_nothing_and_keeps_the_first_point(bench, tmp_path):
    cfg = parse_config(CONFIG.format(bench=bench, more="", params=""))
    doc = tune(cfg, tmp_path / "exp.toml", tmp_path / "tune", "small-s0")
    assert doc["chosen"] == {"raptor": {"top_k": 10}} and doc["scores"] == {}
    assert "top_k" in doc["skipped"]["raptor"] and "not run on tune" in doc["text"]
    assert not (tmp_path / "tune" / "small-s0").exists()  # no experiment on the tune split
    # the test config carries the first point, as a run of both points (a tie) would have chosen
    text = render_config(size="small", seed=3, worlds=3, tuned=doc["chosen"])
    raptor = next(s for s in parse_config(text, tmp_path / "q.toml").systems if s.name == "raptor")
    assert raptor.params["top_k"] == 10
    assert json.loads((tmp_path / "tune" / "small-s0.tuning.json").read_text()) == doc
