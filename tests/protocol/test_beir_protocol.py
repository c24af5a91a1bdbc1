"""The protocol on a BEIR dataset (SciFact's shape: no query categories, no evidence file, no tune / dev split):
the rules it cannot compute say "not run" / "not decidable" and why, and the controls still run
(examples/scifact-protocol.toml is the same config on /work/shared/datasets/scifact)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

CONFIG = """
name = "beir-protocol"
output_dir = "out"
seed = 0
metrics = ["nDCG@10", "R@100"]
baseline = "rerank"
n_resamples = 300
family = "metric"
budgets = [400, 600]

[dataset]
path = "{bench}"
split = "test"

[protocol]
system = "hcr"
kill_baseline = "rerank"
flat = "bm25"
beam_only = "hcr-beam"
collapsed_only = "hcr-collapsed"
no_links = "hcr-no-links"

[[systems]]
name = "hcr"
type = "hcr"
params = {{ backend = "hash", seed = 0, chunk_tokens = 64, chunk_overlap = 8 }}
selection = "submodular"

[[systems]]
name = "rerank"
type = "hcr"
params = {{ backend = "hash", flat = true, chunk_tokens = 64, chunk_overlap = 8 }}

[[systems]]
name = "bm25"
type = "bm25"

[[systems]]
name = "hcr-beam"
type = "hcr"
params = {{ backend = "hash", mode = "beam", chunk_tokens = 64, chunk_overlap = 8 }}

[[systems]]
name = "hcr-collapsed"
type = "hcr"
params = {{ backend = "hash", mode = "collapsed", chunk_tokens = 64, chunk_overlap = 8 }}

[[systems]]
name = "hcr-no-links"
type = "hcr"
params = {{ backend = "hash", links = false, chunk_tokens = 64, chunk_overlap = 8 }}
"""


def _beir_like(root: Path) -> Path:
    """The protocol bench without what SciFact lacks: query metadata, evidence.jsonl and the tune split."""
    from protocol_bench import write_bench

    write_bench(root)
    (root / "evidence.jsonl").unlink()
    (root / "qrels" / "tune.tsv").unlink()
    rows = [json.loads(x) for x in (root / "queries.jsonl").read_text().splitlines()]
    (root / "queries.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "metadata"}) + "\n"
                                                for r in rows))
    return root


@pytest.fixture(scope="module")
def beir_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("beir")
    os.environ["HCRBENCH_HOME"] = str(tmp / "home")
    bench = _beir_like(tmp / "bench")
    cfg = tmp / "exp.toml"
    cfg.write_text(CONFIG.format(bench=bench), encoding="utf-8")
    r = subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], capture_output=True, text=True, check=False)
    return tmp, r


def test_rules_a_beir_dataset_cannot_compute_say_why(beir_run):
    tmp, r = beir_run
    assert r.returncode == 0, r.stderr
    v = json.loads((tmp / "out" / "verdicts.json").read_text())
    h = {x["id"]: x for x in v["hypotheses"]}
    # go needs entity-spanning queries (the design's third clause): without them H1b is not run, or no-go when
    # the dual path is no better than a single path (which needs no categories)
    assert h["H1b"]["verdict"] in ("not run", "no-go")
    assert "no entity-spanning queries" in h["H1b"]["text"] or "entity-spanning: not run" in h["H1b"]["text"]
    easy = next(c for c in v["checkpoints"] if c["id"] == "easy_routing")
    assert easy["status"] == "not run" and "no tune / dev (or train) split" in easy["text"]
    assert h["corpus_size"]["verdict"] == "not run" and "one corpus as given" in h["corpus_size"]["text"]
    for rule in ("H1a", "failure_rate"):  # no evidence file: no sufficiency oracle, no feasibility
        assert h[rule]["verdict"] in ("not run", "not decidable")
        assert "oracle" in h[rule]["text"] or "evidence" in h[rule]["text"], h[rule]["text"]
    assert h["H1c"]["verdict"] in ("not run", "not decidable") and "condition" in h["H1c"]["text"]
    # no dev split: nothing chosen on dev, H1b would compare with each single path (Holm)
    assert v["dev_selection"]["status"] == "not run" and "no 'dev' split" in v["dev_selection"]["text"]
    assert v["tuning"]["dev_selection"] == v["dev_selection"]
    # a dataset taken whole is its full size: the kill criterion is judged (at a few queries it cannot decide: it
    # says so with the n it needs, never "not decidable at size")
    assert v["full_size"] is True and h["kill"]["verdict"] in ("go", "kill", "not decidable")
    assert "at size" not in h["kill"]["text"] and "kill" in v["operating"]
    assert r.stdout.strip().splitlines()[-1].startswith("bottom line:")


def test_the_controls_still_run_on_a_beir_dataset(beir_run):
    tmp, _ = beir_run
    v = json.loads((tmp / "out" / "verdicts.json").read_text())
    ctl = v["controls"]
    assert {c["control"] for c in ctl} == {"oracle", "clone", "degraded", "twin", "plus_margin", "minus_margin"}
    assert {("clone", "kill"), ("degraded", "kill"), ("oracle", "kill")} <= {(c["control"], c["rule"]) for c in ctl}
    assert all(set(c) >= {"control", "rule", "expected", "got", "ok"} for c in ctl)
    bad = [c for c in ctl if not c["ok"]]
    assert sorted(v["undecidable_rules"]) == sorted({c["rule"] for c in bad})
    ev = json.loads((tmp / "out" / "eval.json").read_text())
    assert all(row["ms_per_query"] is None for row in ev["cost"].values()) and "manifest" in ev["cost_timing"]
    assert "cost per query (ms: manifest.json" in beir_run[1].stdout  # the console shows the manifest's figures
