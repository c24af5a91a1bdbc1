"""Context selection chosen like any other parameter: a ``selection`` grid in ``[protocol] tune`` builds contexts on
the tune split, picks the selection with the highest sufficiency@B at the reference budget (ties: the first listed)
for the ranking parameters the metric chose, and the quickstart's config carries it into every HCR system."""

from __future__ import annotations

import json

import pytest

from hcrbench.experiment.config import parse_config
from hcrbench.protocol.quickstart import render_config
from hcrbench.protocol.tuning import tune, tune_config

CONFIG = """
name = "tuning-selection"
output_dir = "out"
seed = 0
metrics = ["nDCG@10"]
baseline = "bm25"

[dataset]
path = "{bench}"
split = "test"

[context]
chunk_tokens = 32
reference_budget = 40

[protocol]
system = "bm25"
kill_baseline = "bm25-doc"
tune = {{ bm25 = {{ k1 = [0.9], selection = ["submodular", "greedy"] }} }}

[[systems]]
name = "bm25"
type = "bm25"
chunking = {{ max_tokens = 32, overlap = 0 }}

[[systems]]
name = "bm25-doc"
type = "bm25"
"""


def test_a_selection_grid_becomes_context_selection_not_a_parameter(bench):
    cfg = parse_config(CONFIG.format(bench=bench))
    tcfg = parse_config(tune_config(cfg, str(bench), "t"))
    assert [s.name for s in tcfg.systems] == ["bm25.k1-0.9.selection-submodular", "bm25.k1-0.9.selection-greedy"]
    assert [s.selection for s in tcfg.systems] == ["submodular", "greedy"]
    assert all("selection" not in s.params and s.params["k1"] == 0.9 for s in tcfg.systems)
    assert tcfg.budgets == [40] and tcfg.context.reference_budget == 40 and tcfg.context.chunk_tokens == 32
    assert tcfg.dataset.split == "tune"


@pytest.mark.slow
def test_tune_picks_the_selection_with_the_best_sufficiency_on_tune(bench, tmp_path):
    cfg = parse_config(CONFIG.format(bench=bench))
    doc = tune(cfg, tmp_path / "exp.toml", tmp_path / "tune", "s0")
    suff = doc["sufficiency"]
    assert suff["budget"] == 40
    scores = suff["scores"]["bm25"]
    assert set(scores) == {"bm25.k1-0.9.selection-submodular", "bm25.k1-0.9.selection-greedy"}
    # the recorded rates are the tune experiment's own (eval.json), and the best one wins (ties: submodular, first)
    ev = json.loads((tmp_path / "tune" / "s0" / "eval.json").read_text())["sufficiency"]
    for name, rate in scores.items():
        assert rate == round(ev["systems"][name]["rates"]["40"][ev["headline"]]["rate"], 6)
    best = max(scores.values())
    want = "submodular" if scores["bm25.k1-0.9.selection-submodular"] == best else "greedy"
    assert doc["chosen"]["bm25"] == {"k1": 0.9, "selection": want}
    assert f"bm25 {want}" in doc["text"]


def test_the_quickstart_config_carries_a_tuned_selection_into_every_hcr_system():
    cfg = parse_config(render_config(size="small", seed=0, encoder="hash", seeds=2,
                                     tuned={"hcr": {"beam_width": 8, "selection": "greedy"}}))
    hcr = [s for s in cfg.systems if s.type == "hcr"]  # A1 (hcr-flat) too: the same cascade, the same selection
    assert hcr and all(s.selection == "greedy" for s in hcr)
    assert all("selection" not in s.params for s in cfg.systems)
    assert all(s.selection in (None, "greedy") for s in cfg.systems if s.type != "hcr")
    default = parse_config(render_config(size="small", seed=0, encoder="hash", seeds=2, tuned={"hcr": {}}))
    assert {s.name for s in default.systems if s.type == "hcr" and s.selection == "submodular"} == \
        {s.name for s in hcr if s.name != "hcr-greedy"}  # untuned: the design's default, A5 greedy
