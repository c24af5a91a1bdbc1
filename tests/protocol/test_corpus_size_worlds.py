"""The corpus-size rule on world-replicated sizes (``quickstart --sizes`` with several worlds): each size's figure
and its last look travel through growth.json into the rule, which says at what level it judged, after how many
test worlds and queries it decided or how many more test worlds would decide it, and the bottom line says its
verdict. Tiny per-size results stand in for the runs (the slow test runs the console script)."""

from __future__ import annotations

import json
import os
import subprocess
from types import SimpleNamespace

import pytest

from hcrbench.errors import InputError
from hcrbench.protocol.checkpoints import tree_sanity
from hcrbench.protocol.hypotheses import corpus_size, single_kill
from hcrbench.protocol.quickstart import growth_doc, parse_sizes
from hcrbench.protocol.verdicts import apply_growth

CLUSTERED = "cluster-robust CR2 t (3 clusters, df 2.0, over 3 worlds)"


def _size(n_docs: int, sub: dict | None, look: int, level: float) -> SimpleNamespace:
    kill = {"id": "kill", "evidence": {"delta": 0.01, "ci_low": -0.02, "ci_high": 0.04, "p_holm": 0.4}}
    cs = {"id": "corpus_size", "evidence": {"subset_at_this_size": sub}}
    seq = {"look": look, "max_looks": 3, "level": level, "alpha": 0.05, "worlds": 3, "queries": 855,
           "worlds_per_batch": 1, "looks": [{"look": 1}]}
    return SimpleNamespace(verdicts={"system": "hcr", "kill_baseline": "rerank", "metric": "nDCG@10",
                                     "hypotheses": [cs, kill], "sequential": seq},
                           manifest={"dataset": {"n_documents": 3 * n_docs,
                                                 "worlds": {f"w0{i}": {"n_documents": n_docs} for i in range(5)}}})


def _judged(sub: dict, look: int = 2, level: float = 0.98) -> dict:
    g = growth_doc({"small": _size(500, None, 1, 0.99), "medium": _size(2000, sub, look, level),
                    "full": _size(3500, None, 1, 0.99)})
    kill = single_kill(0.01, 0.4, -0.02, 0.04, 0.05, n=855, size="full", full_size=True)
    v = {"system": "hcr", "kill_baseline": "rerank", "checkpoints": [tree_sanity(0.5)], "overall": "inconclusive",
         "hypotheses": [corpus_size(None), kill], "full_size": True}
    return {"growth": g, "verdicts": apply_growth(v, g["points"])}


def test_each_size_is_its_design_size_per_world_and_carries_its_last_look():
    g = _judged({"delta": 0.05, "p": 0.001, "ci_low": 0.02, "ci_high": 0.08, "d": 0.4, "n": 180, "sd": 0.2,
                 "ci_method": CLUSTERED})["growth"]
    assert [(p["size"], p["n_docs"]) for p in g["points"]] == [("small", 500), ("medium", 2000), ("full", 3500)]
    assert g["points"][1]["sequential"] == {"look": 2, "max_looks": 3, "level": 0.98, "worlds": 3,
                                            "worlds_per_batch": 1, "queries": 855}


def test_a_decided_row_says_after_how_many_test_worlds_and_queries_at_the_looks_level():
    out = _judged({"delta": 0.05, "p": 0.001, "ci_low": 0.02, "ci_high": 0.08, "d": 0.4, "n": 180, "sd": 0.2,
                   "ci_method": CLUSTERED})["verdicts"]
    row = out["hypotheses"][0]
    assert row["verdict"] == "go" and row["interval"] == [0.02, 0.08]
    assert row["interval_kind"].startswith(CLUSTERED) and "98% (subset at medium)" in row["interval_kind"]
    assert row["evidence"]["sequential"]["size"] == "medium" and row["evidence"]["sequential"]["look"] == 2
    assert "decided after 2 batches (3 worlds, 180 queries)" in row["text"]
    assert "corpus size (at medium): go" in out["bottom_line"]


def test_an_undecided_row_says_how_many_more_test_worlds_of_its_size_would_decide_it():
    # 180 rule queries over 3 test worlds: 60 a world; sd 0.3 at the +0.03 margin needs ~ 800 of them
    out = _judged({"delta": 0.01, "p": 0.5, "ci_low": -0.03, "ci_high": 0.05, "d": 0.05, "n": 180, "sd": 0.3,
                   "ci_method": CLUSTERED})["verdicts"]
    row = out["hypotheses"][0]
    und = row["undecided"]
    assert row["verdict"] == "not decidable" and und["at_worlds"] == 3
    assert und["needs_worlds"] == -(-und["needs_n"] // 60) and und["more_worlds"] == und["needs_worlds"] - 3
    assert f"~{und['more_worlds']} more test worlds ({und['needs_worlds']} in all)" in row["text"]
    assert f"corpus size (at medium): not decidable, ~{und['more_worlds']} more test worlds" in out["bottom_line"]


def test_a_no_go_on_corpus_size_is_named_once_in_the_bottom_line():
    out = _judged({"delta": -0.05, "p": 0.001, "ci_low": -0.08, "ci_high": -0.02, "d": -0.4, "n": 180, "sd": 0.2,
                   "ci_method": CLUSTERED})["verdicts"]
    assert out["overall"] == "no-go" and out["bottom_line"].startswith("no-go on corpus size (scaling)")
    assert "corpus size (at medium)" not in out["bottom_line"]


def test_one_world_per_size_leaves_the_row_without_a_look_record():
    g = {"points": [{"size": "small", "delta": 0.0, "subset": None},
                    {"size": "medium", "delta": 0.0, "subset": {"delta": 0.05, "p": 0.001, "ci_low": 0.02,
                                                                "ci_high": 0.08, "n": 60}}]}
    v = {"system": "hcr", "kill_baseline": "rerank", "checkpoints": [], "overall": "inconclusive",
         "hypotheses": [corpus_size(None)]}
    row = apply_growth(v, g["points"])["hypotheses"][0]
    assert row["verdict"] == "go" and "sequential" not in row["evidence"] and "95%" in row["interval_kind"]


@pytest.mark.parametrize("bad", ["small,huge", "small,,small", "300", "medium;full", ",", "small,100000000000"])
def test_a_bad_sizes_value_is_refused_naming_the_flag(bad):
    # the console script prints an InputError as one line naming its field (test_quickstart checks that line)
    with pytest.raises(InputError) as e:
        parse_sizes(bad)
    assert e.value.field == "--sizes" and "\n" not in str(e.value)


@pytest.mark.slow  # two Meridian sizes at 500 and 2,000 documents a world, three worlds each (minutes)
def test_quickstart_sizes_judges_corpus_size_on_replicated_worlds(tmp_path):
    # small and medium: the rule is judged at medium; full adds only a growth point (docs/protocol.md measured it)
    from hcrbench.report.verdict_block import word

    out = tmp_path / "qs"
    args = ["hcrbench", "quickstart", "--sizes", "small,medium", "--encoder", "hash", "--worlds", "3",
            "--max-worlds", "3", "--seeds", "1", "--n-trials", "20", "--resamples", "200", "--seed", "3",
            "--out", str(out)]
    env = {**os.environ, "HCRBENCH_HOME": str(tmp_path / "home")}
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    g = json.loads((out / "growth.json").read_text())
    assert [(p["size"], p["n_docs"]) for p in g["points"]] == [("small", 500), ("medium", 2000)]
    for size, n in (("small", 500), ("medium", 2000)):
        man = json.loads((out / "data" / f"meridian-{size}-s3-worlds" / "manifest.json").read_text())
        assert [(w["split"], w["n_docs"]) for w in man["world_list"]] == [("tune", n), ("dev", n), ("test", n)]
    v = json.loads((out / "verdicts.json").read_text())
    row = next(h for h in v["hypotheses"] if h["id"] == "corpus_size")
    assert row["verdict"] != "not run" and "cluster-robust" in row["interval_kind"]
    assert row["evidence"]["sequential"]["size"] == "medium"
    assert ("decided after" in row["text"]) != (row["verdict"] == "not decidable")
    said = f"corpus size (at medium): {row['verdict']}"
    assert said in v["bottom_line"] and said in " ".join((out / "report.md").read_text().split())
    block = [line.split() for line in r.stdout.splitlines()]  # the verdict block lists the rule under its word
    assert any(ws and ws[0] == word(row["verdict"]) and "corpus" in ws for ws in block), r.stdout
    again = subprocess.run(args, capture_output=True, text=True, env=env)
    assert again.returncode == 0 and "computed 0" in again.stderr, again.stderr[-3000:]
    assert json.loads((out / "verdicts.json").read_text())["bottom_line"] == v["bottom_line"]
