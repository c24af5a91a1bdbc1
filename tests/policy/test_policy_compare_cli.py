"""``hcrbench policy-compare`` through the console script: the tables, the bottom line, the JSON record fields."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

SIDE = {"recall_at_5", "recall_at_10", "ndcg_at_10", "mrr", "embedding_calls", "chunks_examined"}
DELTA = {"delta_recall_10", "delta_file_recall_10", "delta_ndcg_10", "pct_improvement"}


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def meridian(tmp_path_factory, meridian_copy) -> Path:
    out = tmp_path_factory.mktemp("mer") / "meridian"
    meridian_copy(out, "small", seed=0, grow=True)
    return out


def test_prose_json_records_and_bottom_line(meridian: Path, tmp_path: Path) -> None:
    js = tmp_path / "pc.json"
    r = _run("policy-compare", "--dataset", str(meridian), "--system", "bm25", "--budget", "15",
             "--json", str(js), "--resamples", "500")
    assert r.returncode == 0, r.stderr
    assert "bottom line [none]: 2-hop@15 vs 1-hop@15 R@10" in r.stdout
    doc = json.loads(js.read_text())
    assert set(doc) == {"config", "samples", "aggregate"}
    assert doc["config"]["single_hop"]["total_budget"] == 15 and doc["config"]["multi_hop"]["max_hops"] == 2
    assert len(doc["samples"]) == doc["config"]["n_queries"] > 0
    for s in doc["samples"]:
        assert set(s) == {"sample_id", "benchmark", "system", "embedding", "single_hop", "multi_hop", "delta",
                          "cost"}
        assert set(s["single_hop"]) == SIDE
        assert set(s["multi_hop"]) == SIDE | {"hops_used"}
        assert set(s["delta"]) == DELTA and s["delta"]["delta_file_recall_10"] is None
        assert set(s["cost"]) == {"embed_call_ratio", "chunks_examined_ratio"}
        assert s["multi_hop"]["chunks_examined"] <= 15 and s["single_hop"]["chunks_examined"] <= 15
        assert s["single_hop"]["embedding_calls"] == 0  # BM25
        d = s["multi_hop"]["recall_at_10"] - s["single_hop"]["recall_at_10"]
        assert s["delta"]["delta_recall_10"] == pytest.approx(d, abs=1e-6)
    rows = {r_["policy"]: r_ for r_ in doc["aggregate"]["rows"]}
    assert set(rows) == {"1-hop@15", "2-hop@15"}
    mean = sum(s["multi_hop"]["recall_at_10"] for s in doc["samples"]) / len(doc["samples"])
    assert rows["2-hop@15"]["recall_at_10"] == pytest.approx(mean, abs=1e-5)
    r10 = next(d for d in doc["aggregate"]["deltas"] if d["metric"] == "R@10")
    assert r10["ci_low"] <= r10["delta"] <= r10["ci_high"] and 0 <= r10["p"] <= r10["p_holm"] <= 1
    assert {s["stratum"] for s in doc["aggregate"]["strata"]} >= {"two_hop", "multi_hop", "detail"}


def test_code_set_file_recall_and_chunkers(tmp_path: Path) -> None:
    code = tmp_path / "code"
    assert _run("generate", "code", "--package", "json,email", "--queries", "40", "--out", str(code)).returncode == 0
    js = tmp_path / "code.json"
    r = _run("policy-compare", "--dataset", str(code), "--system", "bm25", "--budget", "10", "--json", str(js),
             "--resamples", "300")
    assert r.returncode == 0, r.stderr
    assert "bottom line [lines]" in r.stdout and "bottom line [ast]" in r.stdout
    doc = json.loads(js.read_text())
    assert doc["config"]["kind"] == "code" and doc["config"]["chunkers"] == ["lines", "ast"]
    assert len(doc["samples"]) == 2 * doc["config"]["n_queries"]
    for s in doc["samples"]:
        assert set(s["single_hop"]) == SIDE | {"file_recall_at_10"}
        assert s["delta"]["delta_file_recall_10"] is not None
        assert s["multi_hop"]["chunks_examined"] <= 10
    assert {c["run"] for c in doc["aggregate"]["chunkers"]} == {"ast"}


def test_bad_input_is_one_line(meridian: Path, tmp_path: Path) -> None:
    for args, needle in (
        (["--dataset", str(meridian), "--system", "bm25", "--max-hops", "1"], "--max-hops"),
        (["--dataset", str(meridian), "--system", "bm25", "--chunker", "weird"], "--chunker"),
    ):
        r = _run("policy-compare", *args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and needle in r.stderr and "Traceback" not in r.stderr


def test_bad_dataset_split_and_chunker_name_their_field(meridian: Path, tmp_path: Path) -> None:
    from hcrbench.errors import InputError
    from hcrbench.experiment.policy_compare import check_chunker, load_policy_bench

    for call, field in ((lambda: load_policy_bench(tmp_path / "nope"), "--dataset"),
                        (lambda: load_policy_bench(meridian, "nosuch"), "--split"),
                        (lambda: check_chunker("lines:20:10:5"), "--chunker"),
                        (lambda: check_chunker("ast:x"), "--chunker")):
        with pytest.raises(InputError) as e:
            call()
        assert e.value.field == field
