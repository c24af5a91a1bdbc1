"""Systems whose search is the same computation (they differ only in name or context selection) are searched once."""

from __future__ import annotations

import json
from pathlib import Path

from hcrbench.experiment.runner import run_experiment

from .conftest import CALLS, write_beir

TWINS = """name = "twins"
output_dir = "out"
seed = 0
metrics = ["nDCG@10"]
baseline = "a"
k = 10
n_resamples = 200

[dataset]
path = "data"
split = "test"

[[systems]]
name = "a"
type = "fake"

[[systems]]
name = "a-greedy"
type = "fake"
selection = "greedy"

[[systems]]
name = "b"
type = "fake"
params = { bias = 2.5 }
"""


def _strip_tag(path: Path) -> list[str]:
    return [line.rsplit(" ", 1)[0] for line in path.read_text().splitlines()]


def test_a_twin_is_searched_once_and_gets_the_same_run_logs_and_scores(tmp_path: Path):
    write_beir(tmp_path / "data")
    cfg = tmp_path / "exp.toml"
    cfg.write_text(TWINS)
    run_experiment(cfg, progress=False)
    assert CALLS["search"] == 2  # a and b; a-greedy is a's search
    out = tmp_path / "out"
    assert _strip_tag(out / "runs" / "a-greedy.trec") == _strip_tag(out / "runs" / "a.trec")
    assert (out / "runs" / "a-greedy.trec").read_text().splitlines()[0].endswith(" a-greedy")
    systems = json.loads((out / "manifest.json").read_text())["systems"]
    assert systems["a-greedy"]["same_run_as"] == "a" and "same_run_as" not in systems["b"]
    assert systems["a-greedy"]["fingerprint"] == systems["a"]["fingerprint"]
    means = json.loads((out / "eval.json").read_text())
    text = json.dumps(means)
    assert '"a-greedy"' in text
    # a re-run reuses all three
    run_experiment(cfg, progress=False)
    assert CALLS["search"] == 2


def test_twins_computed_apart_give_the_same_bytes(tmp_path: Path):
    """With the twin in a config of its own, its run file is the bytes the copy has."""
    write_beir(tmp_path / "one" / "data")
    write_beir(tmp_path / "two" / "data")
    (tmp_path / "one" / "exp.toml").write_text(TWINS)
    alone = TWINS.replace('[[systems]]\nname = "a"\ntype = "fake"\n\n', "").replace('baseline = "a"',
                                                                                   'baseline = "a-greedy"')
    (tmp_path / "two" / "exp.toml").write_text(alone)
    run_experiment(tmp_path / "one" / "exp.toml", progress=False)
    run_experiment(tmp_path / "two" / "exp.toml", progress=False)
    rel = Path("out") / "runs" / "a-greedy.trec"
    assert (tmp_path / "one" / rel).read_bytes() == (tmp_path / "two" / rel).read_bytes()
