"""Per-world costs and variance components read from a run folder of a multi-world dataset."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from hcrbench.errors import InputError
from hcrbench.experiment.world_variance import components_of_run, is_per_query_stage, world_costs
from hcrbench.stats.variance_components import variance_components


def _folder(tmp_path, reused=False):
    rng = np.random.default_rng(4)
    data = tmp_path / "data"
    data.mkdir()
    rows, meta, d, wl, tl = [], [], [], [], []
    for w in range(2, 6):
        shift = rng.normal(0, 0.1)
        for t in range(8):
            ts = rng.normal(0, 0.1)
            for j in range(3):
                q = f"w{w:02d}-MQ{t}{j}"
                b = float(rng.uniform(0.2, 0.6))
                a = b + shift + ts + float(rng.normal(0, 0.1))
                rows += [{"run": "a", "query_id": q, "nDCG@10": a}, {"run": "b", "query_id": q, "nDCG@10": b}]
                meta.append({"query_id": q, "cluster": f"w{w:02d}-T{t}"})
                d.append(a - b)
                wl.append(w)
                tl.append(t)
    out = tmp_path / "run"
    out.mkdir()
    with (out / "per_query.csv").open("w", newline="") as f:
        wr = csv.DictWriter(f, ["run", "query_id", "nDCG@10"])
        wr.writeheader()
        wr.writerows(rows)
    (data / "queries.meta.jsonl").write_text("".join(json.dumps(m) + "\n" for m in meta))
    worlds = {f"w{w:02d}": {"n_documents": 500, "n_queries": 24, "seconds": 10.0 + w, "reused": reused,
                            "stage_seconds": {"index": 4.0, "search": 2.4, "bm25.encode_queries": 0.0}}
              for w in range(2, 6)}
    man = {"dataset": {"path": str(data)}, "systems": {"a": {"worlds": worlds}, "b": {"worlds": worlds}}}
    (out / "manifest.json").write_text(json.dumps(man))
    return out, np.asarray(d), wl, tl


def test_per_query_stages_are_told_from_fixed_ones():
    assert is_per_query_stage("search") and is_per_query_stage("bm25.search") and is_per_query_stage("route")
    assert not is_per_query_stage("index") and not is_per_query_stage("build_tree")


def test_world_costs_split_fixed_and_per_query_seconds(tmp_path):
    out, *_ = _folder(tmp_path)
    costs = world_costs(json.loads((out / "manifest.json").read_text()))
    assert set(costs) == {"w02", "w03", "w04", "w05"}
    assert costs["w03"]["fixed_s"] == pytest.approx(2 * (13.0 - 2.4))
    assert costs["w03"]["per_query_s"] == pytest.approx(2 * 2.4 / 24)
    assert costs["w03"]["by_system"]["a"]["fixed_s"] == pytest.approx(13.0 - 2.4)
    with pytest.raises(InputError, match="no system 'zz'"):
        world_costs(json.loads((out / "manifest.json").read_text()), ["zz"])


def test_components_of_run_equals_the_direct_estimate_and_is_json(tmp_path):
    out, d, wl, tl = _folder(tmp_path)
    doc = components_of_run(out, "a", "b", n_boot=50, seed=3)
    json.dumps(doc, allow_nan=False)
    want = variance_components(d, wl, tl, n_boot=50, seed=3).to_dict()
    got = doc["components"]
    for k in ("between_worlds", "between_topics", "within_topic"):
        assert got["components"][k]["value"] == pytest.approx(want["components"][k]["value"])
    assert doc["topics_known"] == len(d) and doc["worlds"] == ["w02", "w03", "w04", "w05"]
    assert got["n_topics"] == 32
    al = doc["allocation"]
    assert al["cost_world_s"] == pytest.approx(doc["cost_basis"]["cost_world_s"], abs=1e-3)
    assert 1 <= al["queries_per_world"] <= 24 and al["worlds_per_batch"] >= 2


def test_components_of_run_says_what_is_missing(tmp_path):
    out, *_ = _folder(tmp_path)
    with pytest.raises(InputError, match="no rows of run 'zz'"):
        components_of_run(out, "a", "zz")
    with pytest.raises(InputError, match="no column 'RR'"):
        components_of_run(out, "a", "b", metric="RR")
    (out / "per_query.csv").unlink()
    with pytest.raises(InputError, match=r"per_query\.csv"):
        components_of_run(out, "a", "b")


def test_components_of_run_gives_the_cautious_allocation_and_the_world_means(tmp_path):
    out, d, wl, _ = _folder(tmp_path)
    doc = components_of_run(out, "a", "b", n_boot=100)
    means = [np.mean([x for x, w in zip(d, wl, strict=True) if w == k]) for k in sorted(set(wl))]
    assert doc["world_mean_variance"]["observed"] == pytest.approx(np.var(means, ddof=1))
    assert doc["allocation_cautious"]["between"] >= doc["allocation"]["between"]
    assert doc["allocation_cautious"]["queries_per_world"] <= doc["allocation"]["queries_per_world"]


def test_world_variance_benchmark_tables_read_a_run_folder(tmp_path):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[2] / "benchmarks" / "world_variance.py"
    spec = importlib.util.spec_from_file_location("world_variance_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out, *_ = _folder(tmp_path)
    bench.PAIRS = [("a", "b")]
    doc = bench.measure(out, budget_min=2.0, n_boot=50, seed=0, args={"worlds": 6, "size": "small", "seed": 1})
    json.dumps(doc, allow_nan=False)
    text = bench.markdown(doc)
    al = doc["pairs"][0]["allocation"]
    assert f"| a − b | {al['cost_world_s']:.1f} |" in text
    assert all(f"| {w} | 24 |" in text for w in ("w02", "w03", "w04", "w05"))
    assert "Choice for a − b at the estimate" in text


def test_generation_seconds_join_a_worlds_fixed_cost(tmp_path):
    out, *_ = _folder(tmp_path)
    base = components_of_run(out, "a", "b", n_boot=0)
    more = components_of_run(out, "a", "b", n_boot=0, generate_s=15.0)
    assert more["allocation"]["cost_world_s"] == pytest.approx(base["allocation"]["cost_world_s"] + 15.0)
    assert more["cost_basis"]["generate_s"] == 15.0
    with pytest.raises(InputError, match="generate_s"):
        components_of_run(out, "a", "b", generate_s=-1.0)


def test_components_of_run_without_topics_keeps_worlds_and_queries(tmp_path):
    out, d, *_ = _folder(tmp_path)
    (tmp_path / "data" / "queries.meta.jsonl").unlink()
    doc = components_of_run(out, "a", "b", n_boot=0)
    comp = doc["components"]["components"]
    assert doc["topics_known"] == 0 and doc["components"]["n_topics"] == 4
    assert comp["between_topics"]["value"] == 0.0
    total = comp["between_worlds"]["raw"] + comp["within_topic"]["value"]
    assert total == pytest.approx(np.var(d, ddof=1), rel=0.2)
