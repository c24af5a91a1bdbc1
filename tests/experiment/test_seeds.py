"""The runner's seed hook: a seed_group of systems is reported as mean ± sd, tested on seed-averaged scores."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hcrbench.experiment import run_experiment
from hcrbench.stats import aggregate_seeds

from .conftest import CONFIG, write_beir

SEEDED = CONFIG.format(locked="false") + "".join(
    f'\n[[systems]]\nname = "s{i}"\ntype = "fake"\nseed = {i}\nseed_group = "stoch"\nparams = {{ bias = {b} }}\n'
    for i, b in ((1, 0.5), (2, 2.5), (3, 1.5)))


def test_seed_group_aggregates_and_compares(tmp_path: Path):
    write_beir(tmp_path / "data")
    cfg = tmp_path / "exp.toml"
    cfg.write_text(SEEDED)
    res = run_experiment(cfg, progress=False)
    doc = json.loads((res.output_dir / "eval.json").read_text())
    assert {"runs", "comparisons"} <= set(doc)  # old keys kept
    agg = doc["seed_aggregates"]["stoch"]
    for metric in ("nDCG@10", "AP"):
        per_seed = {s: [doc["runs"][s]["per_query"][metric][q] for q in sorted(doc["runs"]["a"]["per_query"][metric])]
                    for s in ("s1", "s2", "s3")}
        want = aggregate_seeds(per_seed)
        assert agg[metric]["mean"] == pytest.approx(want.mean) and agg[metric]["sd"] == pytest.approx(want.sd)
        assert agg[metric]["n_seeds"] == 3 and agg[metric]["members"] == ["s1", "s2", "s3"]
    comps = {c["metric"]: c for c in doc["seed_comparisons"]}
    assert set(comps) == {"nDCG@10", "R@100", "RR", "AP"}
    for metric, c in comps.items():
        assert c["run"] == "stoch (seed mean)" and c["baseline"] == "a" and c["n"] == 4
        assert c["mean_run"] == pytest.approx(agg[metric]["mean"]) and c["family_size"] == 4
    # each seed ran with its own seed (recorded in the fingerprint) and the group's delta is the seed average
    deltas = [next(x["delta"] for x in doc["comparisons"] if x["run"] == s and x["metric"] == "AP")
              for s in ("s1", "s2", "s3")]
    assert comps["AP"]["delta"] == pytest.approx(np.mean(deltas))


def test_no_seed_group_adds_no_key(experiment: Path):
    res = run_experiment(experiment, progress=False)
    doc = json.loads((res.output_dir / "eval.json").read_text())
    assert "seed_aggregates" not in doc and "seed_comparisons" not in doc
