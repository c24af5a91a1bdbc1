"""`hcrbench run` on a dataset of several worlds: each system built and searched per world, pooled outputs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hcrbench.data import load_beir
from hcrbench.data.trec import read_run as read_trec_run
from hcrbench.synth.worlds import WORLDS_DIR, generate_worlds, world_of

QUERIES = 30


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("worldsrun")
    generate_worlds(root / "k4", "small", seed=23, n_queries=QUERIES, worlds=4)
    (root / "exp.toml").write_text('name = "worlds"\noutput_dir = "out"\nmetrics = ["nDCG@10"]\n'
                                   '[dataset]\npath = "k4"\nsplit = "test"\n'
                                   '[[systems]]\nname = "bm25"\ntype = "bm25"\n'
                                   '[[systems]]\nname = "hcr"\ntype = "hcr"\nparams = { backend = "hash" }\n')
    res = subprocess.run(["hcrbench", "run", "exp.toml", "--quiet"], cwd=root, capture_output=True, text=True,
                         env={**__import__("os").environ, "HCRBENCH_CACHE": str(root / "cache")})
    assert res.returncode == 0, res.stderr
    return root


def test_every_query_retrieves_only_from_its_own_world(ran):
    for name in ("bm25", "hcr"):
        run = read_trec_run(ran / "out" / "runs" / f"{name}.trec")
        worlds = {world_of(q) for q in run.query_ids}
        assert worlds == {2, 3}  # the test worlds of four: w00 tune, w01 dev
        for q in run.query_ids:
            assert {world_of(d) for d, _ in run.ranked(q)} == {world_of(q)}


def test_a_world_is_searched_as_if_it_were_alone(ran):
    """A world's BM25 scores are those of BM25 on that world's own folder: its size stays its size."""
    from hcrbench.retrieve import make_retriever

    pooled = read_trec_run(ran / "out" / "runs" / "bm25.trec")
    world = ran / "k4" / WORLDS_DIR / "w03"
    corpus = load_beir(world, "test").corpus
    from hcrbench.data.beir import read_queries

    allq = read_queries(world / "queries.jsonl")
    mine = [q for q in pooled.query_ids if world_of(q) == 3]
    alone = make_retriever("bm25")
    alone.index(corpus)
    res = alone.search(allq.subset([q.split("-", 1)[1] for q in mine]), k=100)
    for q in mine:
        got = [(d.split("-", 1)[1], round(s, 6)) for d, s in pooled.ranked(q)]
        want = [(d, round(s, 6)) for d, s in res.run.ranked(q.split("-", 1)[1])]
        assert got == want


def test_the_manifest_says_what_each_world_cost(ran):
    man = json.loads((ran / "out" / "manifest.json").read_text())
    systems = man["systems"]
    entry = systems["bm25"] if isinstance(systems, dict) else next(s for s in systems if s["name"] == "bm25")
    assert set(entry["worlds"]) == {"w02", "w03"}
    for w in entry["worlds"].values():
        assert w["n_documents"] == 500 and w["n_queries"] > 0 and w["seconds"] >= 0


def test_tree_metrics_are_measured_per_world_and_pooled(ran):
    doc = json.loads((ran / "out" / "tree_metrics.json").read_text())["hcr"]
    per = doc["worlds"]
    assert set(per) == {"w02", "w03"}
    assert doc["n_queries_logged"] == sum(d["n_queries_logged"] for d in per.values())
    assert doc["tree"]["depth"] == max(d["tree"]["depth"] for d in per.values())
    acc = [d["routing"]["accuracy"] for d in per.values()]
    assert min(acc) - 1e-12 <= doc["routing"]["accuracy"] <= max(acc) + 1e-12
    logs = ran / "out" / "logs"
    parts = [(logs / f"hcr.{w}.routing.jsonl").read_text() for w in ("w02", "w03")]
    assert (logs / "hcr.routing.jsonl").read_text() == "".join(parts)  # the pooled log, world by world


@pytest.mark.slow  # three runs of HCR and its kill baseline on two worlds (~1.5 min on 2 cores)
def test_adding_a_world_computes_only_the_new_world_and_gives_the_same_bytes(tmp_path):
    import os

    generate_worlds(tmp_path / "k", "small", seed=29, n_queries=QUERIES, worlds=3)
    cfg = ('name = "grow"\noutput_dir = "{out}"\nmetrics = ["nDCG@10"]\n[dataset]\npath = "k"\nsplit = "test"\n'
           '[[systems]]\nname = "hcr"\ntype = "hcr"\nparams = {{ backend = "hash" }}\n'
           '[[systems]]\nname = "rr"\ntype = "rerank"\nparams = {{ method = "maxsim", backend = "hash", top_n = 100, '
           'top_n_from = "hcr", top_n_match = "per-query" }}\n')
    env = {**os.environ, "HCRBENCH_CACHE": str(tmp_path / "cache")}

    def run(out: str) -> None:
        (tmp_path / f"{out}.toml").write_text(cfg.format(out=out))
        res = subprocess.run(["hcrbench", "run", f"{out}.toml", "--quiet"], cwd=tmp_path, capture_output=True,
                             text=True, env=env)
        assert res.returncode == 0, res.stderr

    run("a")
    generate_worlds(tmp_path / "k", "small", seed=29, n_queries=QUERIES, worlds=4)  # one more test world
    run("a")
    man = json.loads((tmp_path / "a" / "manifest.json").read_text())["systems"]
    for name in ("hcr", "rr"):
        entry = man[name] if isinstance(man, dict) else next(s for s in man if s["name"] == name)
        assert {w: e["reused"] for w, e in entry["worlds"].items()} == {"w02": True, "w03": False}
    run("b")  # every world computed afresh: the same bytes as with w02 reused
    for rel in ("runs/hcr.trec", "runs/rr.trec", "logs/hcr.routing.jsonl", "logs/hcr.units.jsonl", "eval.json"):
        a, b = tmp_path / "a" / rel, tmp_path / "b" / rel
        if rel == "eval.json":
            da, db = json.loads(a.read_text()), json.loads(b.read_text())
            assert da.get("means") == db.get("means") and da.get("per_query") == db.get("per_query")
        else:
            assert a.read_bytes() == b.read_bytes(), rel


def test_adding_test_worlds_keeps_the_tune_and_dev_keys_and_the_registry_key_matches(tmp_path):
    from hcrbench.experiment.config import DatasetConfig
    from hcrbench.experiment.dataset import load_data
    from hcrbench.protocol.looks import split_key_of

    root = tmp_path / "k"
    generate_worlds(root, "small", seed=31, n_queries=QUERIES, worlds=3)

    def key(split: str) -> str:
        data = load_data(DatasetConfig(path=str(root), split=split), tmp_path, tmp_path / "x.toml")
        assert split_key_of(root, split) == data.key  # the one-look registry's early check reads the same key
        return data.key

    before = {s: key(s) for s in ("tune", "dev", "test")}
    generate_worlds(root, "small", seed=31, n_queries=QUERIES, worlds=4)
    after = {s: key(s) for s in ("tune", "dev", "test")}
    assert after["tune"] == before["tune"] and after["dev"] == before["dev"]
    assert after["test"] != before["test"]  # the test split holds a new world


def test_components_of_run_reads_the_run_folder(ran):
    from hcrbench.experiment.world_variance import components_of_run

    doc = components_of_run(ran / "out", "hcr", "bm25", n_boot=20)
    assert doc["worlds"] == ["w02", "w03"] and doc["topics_known"] == doc["components"]["n_queries"]
    assert set(doc["costs"]) == {"w02", "w03"}
    for c in doc["costs"].values():
        assert set(c["by_system"]) == {"bm25", "hcr"} and c["fixed_s"] > 0 and c["per_query_s"] > 0
    assert 1 <= doc["allocation"]["queries_per_world"] <= max(c["n_queries"] for c in doc["costs"].values())


def test_a_world_computed_again_counts_the_cached_work_from_before_the_run(ran):
    """Another folder, the same cache: each world is computed again (no world part of this folder to reuse), and
    its manifest entry counts the embeddings and indexes the cache held from before the run, which the
    quickstart's forecast prices (or flags) as work a fresh world would do."""
    import os

    text = (ran / "exp.toml").read_text().replace('output_dir = "out"', 'output_dir = "again"')
    (ran / "again.toml").write_text(text)
    res = subprocess.run(["hcrbench", "run", "again.toml", "--quiet"], cwd=ran, capture_output=True, text=True,
                         env={**os.environ, "HCRBENCH_CACHE": str(ran / "cache")})
    assert res.returncode == 0, res.stderr
    first = json.loads((ran / "out" / "manifest.json").read_text())["systems"]
    again = json.loads((ran / "again" / "manifest.json").read_text())["systems"]
    for w in ("w02", "w03"):
        assert first["hcr"]["worlds"][w]["cache_hits_prior"] == 0 and first["hcr"]["worlds"][w]["texts_encoded"] > 0
        now = again["hcr"]["worlds"][w]
        assert not now["reused"] and now["texts_encoded"] == 0
        # every hit is on a vector stored before this run (a text met twice is one encode and two hits)
        assert now["cache_hits_prior"] == now["cache_hits"] >= first["hcr"]["worlds"][w]["texts_encoded"]
    for name in ("bm25", "hcr"):  # BM25's index and HCR's tree came from the cache too
        for w in ("w02", "w03"):
            assert first[name]["worlds"][w]["index_hits_prior"] == 0 and again[name]["worlds"][w]["index_hits_prior"] >= 1
