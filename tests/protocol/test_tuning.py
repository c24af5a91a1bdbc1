"""Tune -> lock -> test: the grid runs on the tune split only, the best point by the protocol metric is chosen
(ties keep the first), recorded with its tune scores, and the quickstart's config carries the choice."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tomllib

from hcrbench.experiment.config import parse_config
from hcrbench.metrics import evaluate
from hcrbench.protocol.quickstart import render_config
from hcrbench.protocol.tuning import label, points, toml_value, tune, tune_config

CONFIG = """
name = "tuning-test"
output_dir = "out"
seed = 0
metrics = ["nDCG@10"]
baseline = "bm25"

[dataset]
path = "{bench}"
split = "test"

[protocol]
system = "hcr"
kill_baseline = "bm25"
tune = {{ bm25 = {{ k1 = [0.2, 1.2], b = [0.4] }} }}

[[systems]]
name = "hcr"
type = "hcr"
params = {{ backend = "hash", seed = 0, chunk_tokens = 64, chunk_overlap = 8 }}

[[systems]]
name = "bm25"
type = "bm25"
"""


def test_grid_points_labels_and_toml_round_trip():
    assert points({"a": [1, 2], "b": ["x"]}) == [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}]
    assert label("hcr", {"beam_width": 8, "mode": "beam"}) == "hcr.beam_width-8.mode-beam"
    value = {"s": 'a "q"', "b": True, "i": 3, "f": 0.5, "l": [1, 2], "d": {"x": "y"}}
    assert tomllib.loads(f"v = {toml_value(value)}")["v"] == value


def test_the_tune_config_runs_every_point_on_the_tune_split_only(bench, tmp_path):
    cfg = parse_config(CONFIG.format(bench=bench))
    text = tune_config(cfg, str(bench), "t")
    tcfg = parse_config(text)
    assert tcfg.dataset.split == "tune" and not tcfg.dataset.locked
    assert [s.name for s in tcfg.systems] == ["bm25.k1-0.2.b-0.4", "bm25.k1-1.2.b-0.4"]
    assert [(s.params["k1"], s.params["b"]) for s in tcfg.systems] == [(0.2, 0.4), (1.2, 0.4)]


@pytest.mark.slow
def test_tune_chooses_the_best_point_on_tune_and_records_its_scores(bench, tmp_path):
    cfg = parse_config(CONFIG.format(bench=bench))
    doc = tune(cfg, tmp_path / "exp.toml", tmp_path / "tune", "small-s0")
    assert doc["status"] == "tuned" and doc["split"] == "tune" and doc["n_queries"] == 40
    rec = json.loads((tmp_path / "tune" / "small-s0.tuning.json").read_text())
    assert rec == doc
    scores = doc["scores"]["bm25"]
    # the recorded tune scores are the runs' own nDCG@10 on the tune judgments (re-scored here independently)
    from hcrbench.data.trec import read_qrels, read_run

    qrels = read_qrels(bench / "qrels" / "tune.tsv")
    for name, s in scores.items():
        run = read_run(tmp_path / "tune" / "small-s0" / "runs" / f"{name}.trec")
        ev = evaluate(qrels, {name: run}, ["nDCG@10"], missing="zero")
        assert s == round(float(np.mean(ev.runs[name].values["nDCG@10"])), 6)
    best = max(scores.values())
    first = next(n for n, s in scores.items() if s == best)
    assert doc["chosen"]["bm25"] == {"k1": float(first.split(".k1-")[1].split(".b-")[0]), "b": 0.4}
    assert sorted(p.name for p in (tmp_path / "tune" / "small-s0" / "runs").iterdir()) == \
        sorted(f"{n}.trec" for n in scores)  # only the grid ran


def test_the_quickstart_config_carries_the_choice_into_every_hcr_system():
    cfg = parse_config(render_config(size="small", seed=0, encoder="hash", seeds=2,
                                     tuned={"hcr": {"beam_width": 8}}))
    hcr = [s for s in cfg.systems if s.type == "hcr" and not s.params.get("flat") and s.name != "hcr-beam2"]
    assert len(hcr) == 8 and all(s.params["beam_width"] == 8 for s in hcr)
    assert next(s for s in cfg.systems if s.name == "hcr-beam2").params["beam_width"] == 2  # a fixed condition
    flat = next(s for s in cfg.systems if s.params.get("flat"))
    assert "beam_width" not in flat.params  # A1 (HCR's cascade with no tree) has no beam to tune
    assert cfg.protocol.tune == {"hcr": {"beam_width": [4, 8], "selection": ["submodular", "greedy"]}, "hybrid-rrf": {"rrf_k": [60, 20]}}
    plain = parse_config(render_config(size="small", seed=0, encoder="minilm", seeds=1))
    assert all("beam_width" not in s.params for s in plain.systems if s.name != "hcr-beam2")
    # every tuned system of the packaged config gets its own choice, and only its own
    both = parse_config(render_config(size="small", seed=0, encoder="minilm", seeds=1, tuned={
        "hcr": {"beam_width": 4}, "raptor": {"top_k": 5}, "hybrid-rrf": {"rrf_k": 20}}))
    by = {s.name: s for s in both.systems}
    assert by["raptor"].params["top_k"] == 5 and by["hybrid-rrf"].params["rrf_k"] == 20
    assert by["hcr-greedy"].params["beam_width"] == 4 and "top_k" not in by["hcr"].params
    assert "rrf_k" not in by["raptor"].params and "beam_width" not in by["rerank"].params
    # the kill baseline's hybrid candidates take hybrid-rrf's tuned fusion; its depth stays HCR's (fairness)
    assert by["rerank"].params["first_stage_params"]["rrf_k"] == 20 and by["rerank"].params["top_n_from"] == "hcr"
    assert "rrf_k" not in plain.systems[[s.name for s in plain.systems].index("rerank")].params[
        "first_stage_params"]


def test_the_tune_config_asks_for_the_same_generated_suite():
    """A quickstart whose power plan generated a larger suite (``generate_queries``) tunes on that suite's tune
    split: the tune config once dropped the count, so the tune run rewrote the folder with the design's 300
    queries (and the test run wrote it back)."""
    for queries in (None, 525):
        cfg = parse_config(render_config(size="small", seed=3, data="data/m", **({"queries": queries} if queries
                                                                                 else {})))
        tcfg = parse_config(tune_config(cfg, "data/m", "t"))
        assert cfg.dataset.generate_queries == queries
        assert (tcfg.dataset.generate, tcfg.dataset.size, tcfg.dataset.generate_seed, tcfg.dataset.generate_queries) \
            == ("meridian", "small", 3, queries)
