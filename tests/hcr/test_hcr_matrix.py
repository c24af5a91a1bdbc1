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


def _matrix_json(path: Path) -> dict[str, list[float]]:
    """A hand-made ``test --json``: kill, bm25, HCR on two seeds, A1, a copy of HCR (control) and a clear loser."""
    import numpy as np

    rng = np.random.default_rng(7)
    qids = [f"q{i}" for i in range(10)]
    base = rng.uniform(0.2, 0.8, size=10)
    pq = {"kill": base, "bm25": base - rng.uniform(0.0, 0.1, 10), "hcr s0": base + rng.uniform(-0.05, 0.15, 10),
          "hcr s1": base + rng.uniform(-0.05, 0.15, 10), "A1 s0": base + 0.01}
    pq["A8 s0"], pq["A8 s1"] = pq["hcr s0"].copy(), pq["hcr s1"].copy()            # a copy of HCR
    pq["A4 s0"], pq["A4 s1"] = pq["hcr s0"] - 0.3, pq["hcr s1"] - rng.uniform(0.2, 0.4, 10)  # broken
    rows = {}
    for n, v in pq.items():
        rows[n] = dict(ndcg=float(v.mean()), r100=0.5, suff400=None, chunks=10.0, nodes=1.0, reranked=1.0, ms=1.0,
                       cpu_ms=1.0, per_query=dict(zip(qids, v.tolist())))
        if n != "kill":
            rows[n].update(delta=float(v.mean() - base.mean()), ci=[-1.0, 1.0], p=0.5, p_holm=0.5)
    path.write_text(json.dumps({"rows": rows, "n_chunks": 100}))
    return {n: v.tolist() for n, v in pq.items()}


def test_paired_matches_scipy_and_its_controls(tmp_path: Path) -> None:
    import numpy as np
    from scipy.stats import permutation_test

    pq = _matrix_json(tmp_path / "m.json")
    p = subprocess.run([sys.executable, str(SCRIPT), "paired", "--from", str(tmp_path / "m.json")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = {ln.split(" vs ")[0] + " vs " + ln.split(" vs ")[1].split(",")[0].split(" on")[0]: ln
             for ln in p.stdout.splitlines() if " vs " in ln and not ln.startswith("|")}

    def ref(a: str, b: str) -> tuple[float, float]:  # exact sign-flip test (2^10 flips), scipy as the reference
        x, y = np.array(pq[a]), np.array(pq[b])
        r = permutation_test((x, y), lambda u, v: np.mean(u - v), permutation_type="samples", n_resamples=np.inf)
        return float(np.mean(x - y)), float(r.pvalue)

    d0, p0 = ref("hcr s0", "bm25")
    d1, p1 = ref("hcr s1", "bm25")
    assert f"{d0:+.4f} / {d1:+.4f}; p {p0:.2g} / {p1:.2g}" in lines["hcr vs bm25"]
    a0, q0 = ref("hcr s0", "A1 s0")
    assert lines["hcr vs A1"].split(": ")[1].startswith(f"{a0:+.4f}") and f"p {q0:.2g}" in lines["hcr vs A1"]
    # controls: a copy of HCR gains nothing (p 1); a system 0.2-0.4 worse on every query is a significant loss
    assert "+0.0000 / +0.0000 (mean +0.0000); p 1 / 1" in lines["A8 vs hcr"]
    b0, r0 = ref("A4 s0", "hcr s0")
    assert f"{b0:+.4f}" in lines["A4 vs hcr"] and b0 < -0.2 and r0 < 0.01 and f"p {r0:.2g}" in lines["A4 vs hcr"]
    # the seed-grouped table: mean ± sd over the seeds, per-seed values in brackets
    m = np.array([np.mean(pq["hcr s0"]), np.mean(pq["hcr s1"])])
    assert f"| hcr | {m.mean():.4f} ± {m.std(ddof=1):.4f} ({m[0]:.4f} / {m[1]:.4f})" in p.stdout


def test_paired_without_a_run_file_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": {}}')
    for args in (["paired"], ["paired", "--from", str(tmp_path / "missing.json")], ["paired", "--from", str(bad)]):
        p = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and p.stderr.startswith("error:") and "Traceback" not in p.stderr, (args, p.stderr)
