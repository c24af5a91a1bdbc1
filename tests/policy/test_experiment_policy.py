"""The policy axis of experiment configs: ``policies`` crosses systems; a policy run equals run_policy's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hcrbench.data import load_beir, read_run
from hcrbench.errors import InputError
from hcrbench.experiment.config import parse_config
from hcrbench.retrieve import make_retriever
from hcrbench.retrieve.policy import Policy, run_policy

BASE = """
name = "pol"
output_dir = "out"
metrics = ["R@10", "nDCG@10"]
n_resamples = 200
baseline = "bm25"
policies = ["1-hop@15", "2-hop@15"]
[dataset]
path = "data"
generate = "meridian"
[[systems]]
name = "bm25"
type = "bm25"
"""


def test_policies_cross_systems() -> None:
    cfg = parse_config(BASE)
    assert [s.name for s in cfg.systems] == ["bm25.1hop15", "bm25.2hop15"]
    assert [s.policy for s in cfg.systems] == ["1-hop@15", "2-hop@15"]
    assert cfg.baseline_name == "bm25.1hop15"
    with pytest.raises(InputError) as e:
        parse_config(BASE.replace('"2-hop@15"]', '"two hops"]'))
    assert e.value.field == "policies" and e.value.line == 7


def test_run_with_policies_matches_run_policy(tmp_path: Path) -> None:
    cfg = tmp_path / "exp.toml"
    cfg.write_text(BASE)
    r = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    man = json.loads((out / "manifest.json").read_text())
    assert man["systems"]["bm25.2hop15"]["policy"]["max_hops"] == 2
    assert man["systems"]["bm25.2hop15"]["costs"]["counters"]["policy_hops_used"] > len(
        read_run(out / "runs" / "bm25.1hop15.trec").query_ids)
    ds = load_beir(tmp_path / "data", "test")
    ret = make_retriever("bm25")
    ret.index(ds.corpus)
    want = run_policy(ret, ds.corpus, ds.queries, Policy.parse("2-hop@15")).run
    got = read_run(out / "runs" / "bm25.2hop15.trec")
    for q in want.query_ids:
        assert [d for d, _ in got.ranked(q)] == [d for d, _ in want.ranked(q)]
