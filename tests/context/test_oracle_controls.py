"""The controls of sufficiency@B on Meridian small (test split, B = 400), through ``hcrbench run``: the oracle (the
cheapest deliverable cover) fails at most 5% of the budget-feasible queries, a copy of the baseline scores exactly
like it, a broken (random) system scores near 0; chunked systems are scored on their own ranked chunks."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

CONFIG = """name = "ctl"
output_dir = "{out}"
seed = 0
metrics = ["nDCG@10"]
baseline = "bm25"
k = 100
n_resamples = 200
budgets = [400]
[context]
chunk_tokens = 128
candidates = 100
[dataset]
path = "{data}"
split = "test"
[[systems]]
name = "bm25"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
chunking = {{ max_tokens = 128, overlap = 32, structure_aware = true }}
[[systems]]
name = "bm25-copy"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
chunking = {{ max_tokens = 128, overlap = 32, structure_aware = true }}
[[systems]]
name = "random"
type = "runfile"
params = {{ path = "{random}" }}
chunking = {{ max_tokens = 128, overlap = 32, structure_aware = true }}
selection = "submodular"
"""


def _random_chunk_run(data: Path, path: Path) -> None:
    """100 chunks drawn at random (seeded) for every test query: a broken system that delivers chunks."""
    from hcrbench.data.beir import read_corpus, read_queries
    from hcrbench.data.chunking import chunk_corpus

    corpus = read_corpus(data / "corpus.jsonl")
    ids = chunk_corpus(corpus, max_tokens=128, overlap=32, structure_aware=True).corpus.doc_ids
    rng = random.Random(7)
    with open(path, "w") as fh:
        for q in read_queries(data / "queries.jsonl").query_ids:
            for r, c in enumerate(rng.sample(ids, 100)):
                fh.write(f"{q} Q0 {c} {r + 1} {100 - r} random\n")


@pytest.fixture(scope="module")
def controls(meridian, tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("controls")
    rnd = tmp / "random.trec"
    _random_chunk_run(meridian, rnd)
    cfg = tmp / "c.toml"
    cfg.write_text(CONFIG.format(out=tmp / "out", data=meridian, random=rnd))
    env = {**os.environ, "HCRBENCH_PROGRESS": "0"}
    r = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    return {"stdout": r.stdout, "doc": json.loads((tmp / "out" / "eval.json").read_text())["sufficiency"],
            "out": tmp / "out"}


@pytest.mark.slow
def test_oracle_fails_at_most_5_percent_of_feasible_queries_at_400(controls):
    s = controls["doc"]
    assert s["oracle"] == "oracle"
    o = s["systems"]["oracle"]
    # the oracle delivers the baseline's units (no protocol here): bm25's own 128-token chunks, 32 overlap
    assert o["control"] == "oracle" and o["delivers"] == "units" and o["unit_set"] == "chunks-128o32s"
    f = o["failure_on_feasible"]
    assert f["budget"] == 400 and f["feasible_in"] == "chunks-128o32s"
    assert f["n"] >= 20  # not vacuous: Meridian small has budget-feasible test queries in 128-token chunks
    assert f["rate"] <= 0.05
    assert o["mean_tokens"]["400"] <= 400
    # the per-query feasibility the protocol reads, beside the sentence-level one
    bf = s["budget_feasible"]
    assert bf["unit_set"] == "chunks-128o32s" and bf["budget"] == 400
    assert set(bf["deliverable"]) == set(o["budget_feasible"]) and sum(bf["deliverable"].values()) == f["n"]
    assert set(bf["sentence"]) >= set(bf["deliverable"])
    # feasibility in deliverable units never exceeds the sentence-level count: chunks cost at least their sentences
    assert sum(bf["deliverable"].values()) <= sum(bf["sentence"].values())
    feas = s["feasibility"]
    assert set(feas["unit_sets"]) == {"chunks-128", "chunks-128o32s"}
    cats = feas["unit_sets"]["chunks-128o32s"]["by_category"]
    assert sum(c["feasible"] for c in cats.values()) == f["n"]
    assert set(cats) == set(feas["sentence"]["by_category"])


@pytest.mark.slow
def test_copy_of_baseline_scores_like_it_and_random_scores_near_zero(controls):
    s = controls["doc"]
    bm, cp, rnd = (s["systems"][n] for n in ("bm25", "bm25-copy", "random"))
    assert bm["delivers"] == "units" and bm["unit_set"] == "chunks-128o32s" and bm["selection"] == "greedy"
    assert rnd["selection"] == "submodular"
    def rates(e):  # the CIs' bootstrap seeds differ by system name; the rates must not
        return {b: {k: r["rate"] for k, r in v.items()} for b, v in e["rates"].items()}

    assert rates(cp) == rates(bm) and cp["mean_tokens"] == bm["mean_tokens"]
    assert cp["failure_on_feasible"] == bm["failure_on_feasible"]
    r400 = rnd["rates"]["400"]["evidence_coverage"]["rate"]
    assert r400 <= 0.05
    assert bm["rates"]["400"]["evidence_coverage"]["rate"] > r400 + 0.1
    copy_test = next(c for c in s["comparisons"] if c["system"] == "bm25-copy" and c["budget"] == "400")
    assert copy_test["pvalue"] == 1.0
    assert "oracle" not in {c["system"] for c in s["comparisons"]}
    # the chunks in the context are the system's own ids
    row = json.loads((controls["out"] / "contexts" / "bm25.jsonl").read_text().splitlines()[0])
    assert all("#c" in c for c in row["chunks"])
    assert "oracle" in controls["stdout"]


def test_oracle_cover_through_selection_and_judge_on_meridian_small(meridian):
    """The fast form of the oracle control (no retrieval): every test query whose needed facts fit in 400 tokens of
    128-token chunks is judged sufficient when its cheapest cover goes through greedy selection and the judge."""
    from hcrbench.context import ChunkIndex, select
    from hcrbench.data.beir import read_corpus, read_queries
    from hcrbench.data.chunking import chunk_corpus
    from hcrbench.data.evidence import read_evidence
    from hcrbench.data.tokens import get_counter
    from hcrbench.experiment.context_deliver import UnitSet, oracle_candidates, unit_feasibility
    from hcrbench.metrics.sufficiency import judge

    corpus = read_corpus(meridian / "corpus.jsonl")
    qids = [q for q in read_queries(meridian / "queries.jsonl").query_ids
            if q in (meridian / "qrels" / "test.tsv").read_text()]
    evidence = read_evidence(meridian / "evidence.jsonl")
    counter = get_counter(None)
    us = UnitSet("chunks-128", ChunkIndex(chunk_corpus(corpus, max_tokens=128, overlap=0, counter=counter)), {})
    texts = dict(zip(corpus.doc_ids, corpus.texts))
    cover = unit_feasibility(us, evidence, qids, texts)
    feasible = [q for q, c in cover.items() if c["cover_tokens"] is not None and c["cover_tokens"] <= 400]
    assert len(feasible) >= 20
    cands = oracle_candidates(us, evidence, feasible, [400], texts)[400]
    fails = 0
    for q in feasible:
        sel = select(q, cands[q], 400, "greedy", token_counter=counter.name)
        assert sel.n_tokens == cover[q]["cover_tokens"]  # the cheapest cover, all of it selected
        fails += not judge(sel.chunks, sel.text(), evidence[q], None, texts).evidence_coverage
    assert fails / len(feasible) <= 0.05
