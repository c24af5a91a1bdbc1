"""benchmarks/hcr_matrix.py end to end on the constructed corpus with the model-free encoder: every row it
reports, the paired comparison against the kill baseline, the cost columns and the tuning choice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "hcr_matrix.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args, "--backend", "hash"], capture_output=True,
                          text=True, timeout=300)


def test_matrix_rows_costs_and_paired_deltas(beir_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    p = _run("test", "--dataset", str(beir_dir), "--seeds", "0,1", "--ablations", "A1,A3", "--fair",
             "--params", '{"branching": 2, "target_pool": 4}', "--json", str(out), "--md", str(tmp_path / "m.md"))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    rows = doc["rows"]
    assert {"hcr s0", "hcr s1", "hcr-defaults s0", "bm25", "kill", "kill-fair", "A1 s0", "A3 s0"} <= set(rows)
    kill = rows["kill"]
    assert "delta" not in kill and kill["chunks"] == doc["n_chunks"] and kill["reranked"] == min(100, doc["n_chunks"])
    for name, r in rows.items():
        if name == "kill":
            continue
        assert abs(r["delta"] - (r["ndcg"] - kill["ndcg"])) < 1e-9
        assert r["ci"][0] <= r["delta"] <= r["ci"][1]
        assert 0 < r["p"] <= r["p_holm"] <= 1
    # A1 scores every chunk; the tree scores fewer; beam-only no more than the dual path
    assert rows["A1 s0"]["chunks"] == doc["n_chunks"]
    assert rows["hcr s0"]["chunks"] < doc["n_chunks"]
    assert rows["A3 s0"]["chunks"] <= rows["hcr s0"]["chunks"]
    # kill-fair reranks, per query, what HCR seed 0 scored
    assert abs(rows["kill-fair"]["reranked"] - min(rows["hcr s0"]["chunks"], doc["n_chunks"])) < 1e-9
    assert (tmp_path / "m.md").read_text().startswith("| system |")


def test_tune_keeps_the_best_tune_score(beir_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    p = _run("tune", "--dataset", str(beir_dir), "--params", '{"branching": 2}',
             "--grid", '{"target_pool": [2, 8], "mode": ["beam"]}', "--json", str(out))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    best = max(r["ndcg"] for r in doc["rows"].values())
    assert doc["rows"][doc["chosen_name"]]["ndcg"] == best
    assert doc["chosen"]["branching"] == 2


def test_unknown_ablation_is_a_usage_error(beir_dir: Path) -> None:
    p = _run("test", "--dataset", str(beir_dir), "--ablations", "A9")
    assert p.returncode == 2 and "unknown ablation" in p.stderr and "Traceback" not in p.stderr
