"""``hcrbench run`` on an experiment with HCR systems prints the routing, tree-quality and ablation tables and ends
with a bottom line, through the real console script."""

from __future__ import annotations

import os
import subprocess


def _head(name, beir_dir, out, metrics):
    """An experiment on the constructed corpus with a bm25 baseline; systems are appended by each test."""
    return f"""
name = "{name}"
output_dir = "{out}"
metrics = {metrics}
baseline = "bm25"
k = 10
n_resamples = 500

[dataset]
path = "{beir_dir}"
split = "test"

[[systems]]
name = "bm25"
type = "bm25"
"""


def _run(cfg, tmp_path):
    """``hcrbench run CFG`` through the console script, on a wide terminal, with a private cache."""
    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_CACHE": str(tmp_path / "cache"), "COLUMNS": "200"}
    p = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    return p


def _config(beir_dir, out):
    hcr = 'backend = "hash", chunk_tokens = 0, depth = 2, branching = 4'
    return _head("tables", beir_dir, out, '["nDCG@10", "R@10"]') + f"""

[[systems]]
name = "hcr"
type = "hcr"
params = {{ {hcr}, log_path = "{out}/logs/hcr.routing.jsonl" }}

[[systems]]
name = "A4-no-links"
type = "hcr"
params = {{ {hcr}, links = false, log_path = "{out}/logs/A4-no-links.routing.jsonl" }}
"""


def test_run_prints_routing_tree_and_ablation_tables_then_a_bottom_line(beir_dir, tmp_path):
    cfg = tmp_path / "exp.toml"
    out = tmp_path / "out"
    cfg.write_text(_config(beir_dir, out))
    text = _run(cfg, tmp_path).stdout
    assert "Routing error per level" in text and "eps L1" in text and "eps L2" in text
    assert "Tree quality and routing cost" in text and "sibling distinctiveness" in text
    assert "Every hcr system against hcr" in text and "links: yes → no" in text  # values as a reader writes them
    last = text.strip().splitlines()[-1]
    assert last.startswith("bottom line:") and "next: hcrbench report" in last, last
    assert "nDCG@10" in last and ("beats" in last or "loses to" in last or "no significant" in last)
    assert (out / "tree_metrics.json").is_file()


def test_run_without_tree_systems_prints_no_tree_tables_and_still_ends_with_a_bottom_line(beir_dir, tmp_path):
    out = tmp_path / "flat"
    cfg = tmp_path / "flat.toml"
    cfg.write_text(_head("flat", beir_dir, out, '["nDCG@10"]') + """
[[systems]]
name = "bm25-flat-b"
type = "bm25"
params = { k1 = 0.2, b = 1.0 }
""")
    p = _run(cfg, tmp_path)
    assert "Routing error per level" not in p.stdout and "against hcr" not in p.stdout
    last = p.stdout.strip().splitlines()[-1]
    assert last.startswith("bottom line:") and "is best on nDCG@10" in last and "next: hcrbench report" in last, last
