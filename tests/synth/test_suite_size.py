"""``generate meridian --queries N`` (issue 35 item 2): N queries in the design's category shares, the same label
properties as the 300-query suite, byte-identical per seed, and a clear one-line error (no half-written folder)
when the world cannot hold N."""

from __future__ import annotations

import json
import subprocess

import pytest

from hcrbench.synth import GENERATOR_VERSION, describe
from hcrbench.synth.questions.generators import CATEGORIES
from hcrbench.synth.questions.suite import category_counts

KNOWN_GAPS = {"independent topics per split (clusters / queries, effective topics)",
              "relevant-document sets repeated within a split",
              # issue 35 items 3-4 (tests/synth/test_meridian.py's KNOWN_GAPS say why): the chunk-feasible shares
              # bound the share needing 11+ documents; a small world cannot reach every category's share and mix
              "queries needing >10 documents", "budget-feasible share per category (128-token chunks, 400 tokens)",
              "difficulty easy/medium/hard per category (target)"}


def _gen(out, *args):
    return subprocess.run(["hcrbench", "generate", "meridian", "--out", str(out), *args], capture_output=True,
                          text=True, check=False)


def test_category_counts_are_the_design_at_300_and_sum_to_n():
    assert category_counts(300) == {c: k for c, (k, _) in CATEGORIES.items()}
    for n in (10, 37, 100, 299, 301, 1000, 3000):
        got = category_counts(n)
        assert sum(got.values()) == n
        for c, (k, _) in CATEGORIES.items():  # within one query of the exact share
            assert abs(got[c] - n * k / 300) < 1


# medium at 400 runs with the slow set (~15 s): the small cases take n below and above the design's 300, and
# tests/synth/test_meridian.py::test_describe_medium_meets_every_target_but_the_known_gaps checks medium's labels
@pytest.mark.parametrize("seed, size, n", [(1, "small", 120), (2, "small", 450),
                                           pytest.param(0, "medium", 400, marks=pytest.mark.slow)])
def test_suite_of_n_queries_keeps_the_label_properties(tmp_path, seed, size, n):
    out = tmp_path / "m"
    r = _gen(out, "--size", size, "--seed", str(seed), "--queries", str(n), "--grow")
    assert r.returncode == 0, r.stderr
    assert f"{n} queries" in r.stdout
    metas = [json.loads(x) for x in (out / "queries.meta.jsonl").read_text().splitlines()]
    assert len(metas) == n == json.loads((out / "manifest.json").read_text())["n_queries"]
    assert json.loads((out / "manifest.json").read_text())["generator_version"] == GENERATOR_VERSION
    counts = {c: sum(m["category"] == c for m in metas) for c in CATEGORIES}
    assert counts == category_counts(n)
    assert len({m["query_id"] for m in metas}) == n and all(m.get("cluster") for m in metas)
    res = describe(out, write=False)
    # small's share of queries needing >10 documents is 0.19-0.23 over seeds (docs/meridian.md), at any n
    allowed = KNOWN_GAPS | ({"queries needing >10 documents"} if size == "small" else set())
    assert set(res["missed"]) <= allowed, res["missed"]
    props = {p["property"]: p["measured"] for p in res["properties"]}
    assert not any(props["split leakage (shared across splits)"].values())
    assert props["entities (expected or named in the text) in two or more splits"] == 0
    assert props["fact sets repeated within a split"] == 0


def test_same_seed_and_n_give_identical_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert _gen(out, "--seed", "3", "--queries", "90").returncode == 0
    for name in ("queries.jsonl", "queries.meta.jsonl", "qrels/test.tsv", "manifest.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.slow
def test_a_suite_the_world_cannot_hold_is_one_line_and_leaves_no_corpus(tmp_path):
    out = tmp_path / "big"
    r = _gen(out, "--queries", "4000", "--fixed-size")  # (a growing world would grow to hold it)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "queries" in lines[0] and "Traceback" not in r.stderr
    assert not (out / "corpus.jsonl").exists() and not (out / "manifest.json").exists()


@pytest.mark.parametrize("bad", ["abc", "-5", "5", "0", "1e3"])
def test_bad_queries_value_is_a_usage_error(tmp_path, bad):
    r = _gen(tmp_path / "x", "--queries", bad)
    assert r.returncode == 2 and "queries" in r.stderr and "Traceback" not in r.stderr
