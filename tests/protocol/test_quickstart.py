"""``hcrbench quickstart``: the packaged protocol config, growth across sizes, input errors, and (slow) the whole
main job on Meridian small with the model-free encoder through the console script."""

from __future__ import annotations

import json
import subprocess
from types import SimpleNamespace

import pytest

from hcrbench.experiment.config import parse_config
from hcrbench.protocol.checkpoints import tree_sanity
from hcrbench.protocol.hypotheses import corpus_size, single_kill
from hcrbench.protocol.quickstart import growth_doc, parse_sizes, render_config
from hcrbench.protocol.verdicts import apply_growth


def assert_decidable_on_this_harness(verdicts: dict) -> None:
    """H1a and the failure rate of a quickstart's verdicts.json are not stopped by the harness: neither says "on
    this harness" nor "harness defect" (the passage-level control of each subject's delivery mode passes)."""
    rows = {h["id"]: h for h in verdicts["hypotheses"]}
    assert {"H1a", "failure_rate"} <= set(rows)
    for key in ("H1a", "failure_rate"):
        text = rows[key]["text"]
        assert "on this harness" not in text and "harness defect" not in text, (key, text)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *args], capture_output=True, text=True, check=False)


def test_the_packaged_config_runs_every_system_the_protocol_names():
    cfg = parse_config(render_config(size="small", seed=0, encoder="minilm", seeds=3))
    names = {s.name: s for s in cfg.systems}
    p = cfg.protocol
    assert {s.type for s in cfg.systems} == {"hcr", "rerank", "bm25", "dense", "hybrid", "raptor"}
    assert cfg.baseline == "rerank" and cfg.family == "metric" and cfg.dataset.locked
    assert [s.name for s in cfg.systems if s.seed_group == "hcr"] == ["hcr", "hcr-seed1", "hcr-seed2"]
    assert [names[n].seed for n in ("hcr-seed1", "hcr-seed2")] == [1, 2]
    p = cfg.protocol
    assert (p.system, p.kill_baseline, p.flat) == ("hcr", "rerank", "auto")  # flat: the best on dev
    assert all(n in names for n in p.names().values())
    # the kill baseline: hybrid (BM25 + dense RRF, hybrid-rrf's tuned rrf_k) candidates -> HCR's reranker
    kill = names["rerank"].params
    assert kill["first_stage"] == "hybrid" and kill["method"] == names["hcr"].params.get("rerank", "maxsim")
    assert kill["first_stage_params"]["systems"] == names["hybrid-rrf"].params["systems"]
    # A1 (HCR's cascade without a tree) and BM25 at both granularities are in the field
    assert names["hcr-flat"].params["flat"] is True and names["hcr-flat"].type == "hcr"
    assert names["bm25"].chunking is not None and names["bm25-doc"].chunking is None
    assert cfg.gate is not None and cfg.gate.controls and cfg.budgets == [200, 400, 600, 800, 1200]
    # fairness: the kill baseline reranks, per query, as many candidates as HCR (seed 0) considered
    assert names["rerank"].params["top_n_from"] == "hcr" and names["rerank"].params["top_n_match"] == "per-query"
    assert [s.name for s in cfg.systems].index("hcr") < [s.name for s in cfg.systems].index("rerank")
    # the design's selection defaults: submodular for every HCR system but A5, greedy for the baselines
    hcr = [s for s in cfg.systems if s.type == "hcr"]
    assert {s.name for s in hcr if s.selection != "submodular"} == {"hcr-greedy"}
    assert names["hcr-greedy"].selection == "greedy" and names["hcr-greedy"].params == names["hcr"].params
    assert cfg.selection == "greedy" and all(s.selection is None for s in cfg.systems if s.type != "hcr")
    assert set(p.tune) == {"hcr", "raptor", "hybrid-rrf"} and all(len(v) == 2 for g in p.tune.values()
                                                                  for v in g.values())
    one = parse_config(render_config(size="medium", seed=4, encoder="hash", seeds=1, fail_fast=True))
    assert [s.name for s in one.systems if s.seed_group] == ["hcr"] and one.protocol.fail_fast
    assert one.dataset.size == "medium" and one.seed == 4
    assert all(s.params.get("backend") == "hash" for s in one.systems if s.type == "hcr")
    hashed = {s.name: s for s in one.systems}  # the smoke run has the same field, every encoder hashed
    assert {"rerank", "hcr-flat", "bm25", "bm25-doc", "dense", "hybrid-rrf"} <= set(hashed)
    assert hashed["rerank"].params["first_stage"] == "hybrid" and hashed["rerank"].params["backend"] == "hash"
    assert hashed["rerank"].params["top_n_from"] == "hcr" and one.protocol.flat == "auto"


def test_sizes_are_ordered_by_corpus_size_and_checked():
    assert parse_sizes("full,small,medium") == ["small", "medium", "full"]
    assert parse_sizes("small,1200") == ["small", "1200"]
    for bad in ("small,tiny", "small,small", "", "400"):
        with pytest.raises(Exception, match="size"):
            parse_sizes(bad)


def test_growth_points_come_from_each_sizes_comparisons_and_feed_the_corpus_size_rule():
    def res(n, delta, lo, hi, p, sub):
        kill = {"id": "kill", "evidence": {"delta": delta, "ci_low": lo, "ci_high": hi, "p_holm": p}}
        cs = {"id": "corpus_size", "evidence": {"subset_at_this_size": sub}}
        return SimpleNamespace(verdicts={"system": "hcr", "kill_baseline": "rerank", "metric": "nDCG@10",
                                         "hypotheses": [cs, kill]},
                               manifest={"dataset": {"n_documents": n}})
    lose = {"delta": -0.06, "p": 0.01, "ci_low": -0.1, "ci_high": -0.02, "d": -0.4, "n": 70}
    g = growth_doc({"small": res(500, 0.02, 0.0, 0.04, 0.04, None),
                    "medium": res(2000, -0.03, -0.05, -0.01, 0.01, lose)})
    assert g == {"metric": "nDCG@10", "system": "hcr", "baseline": "rerank", "points": [
        {"size": "small", "n_docs": 500, "delta": 0.02, "ci_low": 0.0, "ci_high": 0.04, "p": 0.04, "subset": None},
        {"size": "medium", "n_docs": 2000, "delta": -0.03, "ci_low": -0.05, "ci_high": -0.01, "p": 0.01,
         "subset": lose}]}
    kill = single_kill(-0.03, 0.01, -0.05, -0.01, -0.3, size="medium", full_size=False)
    v = {"system": "hcr", "kill_baseline": "rerank", "checkpoints": [tree_sanity(0.5)], "overall": "inconclusive",
         "hypotheses": [corpus_size(None), kill]}
    after = apply_growth(v, g["points"])
    assert after["hypotheses"][0]["verdict"] == "no-go" and after["overall"] == "no-go"
    assert after["bottom_line"].startswith("no-go on corpus size (scaling)")
    assert "--sizes small,medium,full" in after["bottom_line"]  # medium cannot decide the kill criterion


@pytest.mark.parametrize("args, field", [(["--sizes", "small,tiny"], "--sizes"), (["--encoder", "bert"], "--encoder"),
                                         (["--seeds", "0"], "--seeds"), (["--size", "medium", "--sizes", "small"],
                                                                         "--sizes"),
                                         (["--max-queries", "-1"], "--max-queries")])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, field):
    r = _run("quickstart", "--worlds", "1", "--out", str(tmp_path / "qs"), *args)
    assert r.returncode == 2 and field in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "qs").exists()  # nothing written before the input is checked


@pytest.mark.slow
def test_quickstart_hash_on_meridian_small_ends_with_the_verdicts_and_the_report(tmp_path, monkeypatch):
    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
    out = tmp_path / "qs"
    args = ("quickstart", "--worlds", "1", "--out", str(out), "--encoder", "hash", "--seeds", "2", "--n-trials", "80",
            "--resamples", "1000", "--seed", "0")  # a development seed: tests never look at the verdict seed
    r = _run(*args)
    assert r.returncode == 0, r.stderr[-3000:]
    v = json.loads((out / "verdicts.json").read_text())
    for f in ("quickstart.toml", "gate.json", "tree_metrics.json", "eval.json", "report.html", "report.md",
              "tables.tex", "data/meridian-small-s0/corpus.jsonl"):
        assert (out / f).is_file(), f
    assert "bottom line:" in r.stdout and f"report: {out / 'report.html'}" in " ".join(r.stdout.split())
    assert v["seeds"] == [0, 1] and v["discipline"]["times_scored"] == 1
    # the harness's gate passes in a default quickstart: H1a and the failure rate decide on their evidence
    assert_decidable_on_this_harness(v)
    first_bytes = (out / "verdicts.json").read_bytes()
    again = _run(*args)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "computed 0, reused" in again.stderr or "reused" in again.stderr
    v2 = json.loads((out / "verdicts.json").read_text())
    # the warm re-run reuses every score: the same look, not a second one, and the same verdicts, byte for byte
    assert v2["discipline"]["times_scored"] == 1 and v2["discipline"]["new_look"] is True
    assert (out / "verdicts.json").read_bytes() == first_bytes
    assert {k: v2[k] for k in ("overall", "bottom_line", "checkpoints")} == \
        {k: v[k] for k in ("overall", "bottom_line", "checkpoints")}
    # the field: flat chosen on dev, the barrier checked, the power plan from tune + dev
    assert v["field"]["status"] == "chosen" and v["flat"] == v["field"]["flat"]
    assert v["field"]["barrier"]["status"] in ("passes", "fails") and v["power_plan"]["status"] == "planned"
    assert v["vs_best"]["line"] in v["bottom_line"] and "power plan" in r.stdout
    # another folder on the same corpus would be a second look at its locked test split: refused, then --relook
    other = (*args[:2], str(tmp_path / "qs2"), *args[3:])
    refused = _run(*other)
    assert refused.returncode == 2 and "--relook" in refused.stderr and not (tmp_path / "qs2" / "runs").exists()
    again = _run(*other, "--relook")
    assert again.returncode == 0, again.stderr[-3000:]
    v3 = json.loads((tmp_path / "qs2" / "verdicts.json").read_text())
    assert v3["discipline"]["relook"] is True and v3["discipline"]["looks_before"] == 1
    reg = json.loads((tmp_path / "home" / "scored-splits.json").read_text())
    (entry,) = [e for e in reg["splits"].values() if e["split"] == "test"]
    assert [s.get("relook", False) for s in entry["scorings"]] == [False, True]


def test_configured_cross_encoder_weights_make_the_kill_baseline_a_cross_encoder_with_maxsim_beside():
    cfg = parse_config(render_config(size="small", seed=0, encoder="minilm", seeds=1, cross_encoder="/models/ce"))
    by = {s.name: s for s in cfg.systems}
    assert by["rerank"].params["method"] == "cross-encoder" and by["rerank"].params["model"] == "/models/ce"
    twin = by["rerank-maxsim"].params
    assert twin["method"] == "maxsim" and {k: v for k, v in twin.items() if k != "method"} == \
        {k: v for k, v in by["rerank"].params.items() if k not in ("method", "model")}  # same candidates, depth
    hcr = [s for s in cfg.systems if s.type == "hcr"]
    assert hcr and all(s.params["rerank"] == "cross-encoder" and s.params["rerank_model"] == "/models/ce"
                       for s in hcr)  # the same reranker HCR uses, A1 included
    assert "rerank-maxsim" not in {s.name for s in parse_config(render_config(size="small", seed=0)).systems}


def test_the_verdicts_check_refuses_a_harness_that_stops_h1a_or_the_failure_rate():
    """The slow quickstart test's check fails on verdicts stopped by the harness (the report fixture kept from the
    document-level gate) and passes on verdicts that decide or need more queries."""
    from pathlib import Path

    old = json.loads((Path(__file__).parents[1] / "report" / "data" / "quickstart_verdicts.json").read_text())
    with pytest.raises(AssertionError):
        assert_decidable_on_this_harness(old)
    ok = {"hypotheses": [{"id": "H1a", "text": "not decidable at n = 59; needs n ~ 240"},
                         {"id": "failure_rate", "text": "hcr fails 31% of 59 budget-feasible queries: go"}]}
    assert_decidable_on_this_harness(ok)
    for key in ("H1a", "failure_rate"):
        bad = json.loads(json.dumps(ok))
        next(h for h in bad["hypotheses"] if h["id"] == key)["text"] = (
            "not decidable: harness defect: the passage-level perfect retriever (control row passage) fails 40%")
        with pytest.raises(AssertionError):
            assert_decidable_on_this_harness(bad)
