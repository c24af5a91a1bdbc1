"""``hcrbench retrieve --system hcr`` and ``hcrbench tree-metrics`` through the real console script."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from hcrbench.data.tree import read_routing_log, read_tree
from hcrbench.metrics.tree import routing_errors


def _run(args, tmp_path):
    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_CACHE": str(tmp_path / "cache")}
    return subprocess.run(["hcrbench", *args], capture_output=True, text=True, env=env, timeout=600)


def test_retrieve_writes_run_log_and_tree_then_metrics_match(beir_dir, tmp_path):
    out = tmp_path / "hcr.trec"
    p = _run(["retrieve", "--dataset", str(beir_dir), "--system", "hcr", "--param", "backend=hash",
              "--param", "chunk_tokens=0", "--param", "depth=2", "--param", "branching=4", "--param",
              "beam_width=1", "--k", "10", "--out", str(out)], tmp_path)
    assert p.returncode == 0, p.stderr
    lines = out.read_text().splitlines()
    assert lines and all(len(ln.split()) == 6 for ln in lines)
    log, tree = tmp_path / "hcr.routing.jsonl", tmp_path / "hcr.tree.jsonl"
    assert log.is_file() and tree.is_file() and (tmp_path / "hcr.tree.npz").is_file()
    records = read_routing_log(log)
    assert len(records) == 24 and all(len(r.levels) == 2 for r in records)

    js = tmp_path / "tree.json"
    m = _run(["tree-metrics", str(log), "--dataset", str(beir_dir), "--json", str(js)], tmp_path)
    assert m.returncode == 0, m.stderr
    assert "bottom line:" in m.stdout.strip().splitlines()[-1]
    rep = json.loads(js.read_text())
    # eps recomputed here, from the raw JSONL, equals what the command reports
    qrels = {}
    for ln in (beir_dir / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        q, d, g = ln.split("\t")
        qrels.setdefault(q, {})[d] = int(g)
    t = read_tree(tree)
    leaf_of = {c: n["node_id"] for n in map(lambda x: x.__dict__, t.nodes) for c in n["chunks"]}
    parent = {n.node_id: n.parent for n in t.nodes}
    miss = [0, 0]
    seen = [0, 0]
    for row in map(json.loads, log.read_text().splitlines()):
        good = set()
        for c, d in enumerate(t.chunk_docs):
            if qrels.get(row["query_id"], {}).get(d, 0) >= 1:
                n = leaf_of[c]
                while n is not None:
                    good.add(n)
                    n = parent[n]
        alive = True
        for i, lv in enumerate(row["levels"]):
            if alive and any(c in good for c, _ in lv["candidates"]):
                seen[i] += 1
                miss[i] += not (set(lv["beam"]) & good)
            alive = alive and bool(set(lv["beam"]) & good)
    assert rep["routing"]["eps_any"] == [miss[0] / seen[0], miss[1] / seen[1]]
    assert rep["routing"]["eps_any"] == routing_errors(t, records, qrels).eps_any
    assert rep["tree"]["purity_per_level"]["1"] == 1.0
    assert 0 <= rep["entity_links"]["coverage"] <= 1


@pytest.mark.parametrize("args,needle", [
    (["--param", "mode=sideways"], "mode must be one of"),
    (["--param", "depth=0"], "depth must be an integer >= 1"),
])
def test_bad_hcr_params_exit_2_one_line(beir_dir, tmp_path, args, needle):
    p = _run(["retrieve", "--dataset", str(beir_dir), "--system", "hcr", "--param", "backend=hash", *args,
              "--out", str(tmp_path / "x.trec")], tmp_path)
    assert p.returncode == 2
    err = p.stderr.strip()
    assert needle in err and "\n" not in err and "Traceback" not in err


def test_tree_metrics_missing_log_is_one_line(beir_dir, tmp_path):
    p = _run(["tree-metrics", str(tmp_path / "none.routing.jsonl"), "--dataset", str(beir_dir)], tmp_path)
    assert p.returncode == 2 and "routing log not found" in p.stderr and "\n" not in p.stderr.strip()
