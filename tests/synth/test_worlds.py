"""A dataset of K Meridian worlds: derived seeds, world-prefixed ids, splits by world, stable worlds, describe."""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from hcrbench.cli import main
from hcrbench.data import iter_jsonl, load_beir
from hcrbench.errors import InputError
from hcrbench.synth import generate_meridian
from hcrbench.synth.checks.describe_worlds import describe_worlds
from hcrbench.synth.generate import SPLITS
from hcrbench.synth.worlds import (
    WORLDS_DIR,
    check_worlds,
    generate_worlds,
    world_of,
    world_seed,
    world_split,
    world_splits,
)

QUERIES = 30  # a small suite: each world still holds every category


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def three(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("worlds") / "k3"
    generate_worlds(out, "small", seed=17, n_queries=QUERIES, worlds=3)
    return out


def _metas(folder: Path) -> list[dict]:
    return [o for _, o in iter_jsonl(folder / "queries.meta.jsonl")]


def test_world_split_depends_on_the_world_only_and_more_worlds_are_test_worlds():
    first = world_splits(40)
    assert first[:3] == list(SPLITS)
    for k in (3, 7, 12, 25):
        assert world_splits(k) == first[:k] and [world_split(w) for w in range(k)] == first[:k]
    counts = {s: world_splits(100).count(s) for s in SPLITS}
    assert counts == {"tune": 1, "dev": 1, "test": 98}


def test_world_seeds_are_distinct_accepted_by_the_seed_flag_and_follow_the_seed():
    seeds = [world_seed(5, w) for w in range(50)]
    assert len(set(seeds)) == 50 and all(0 <= s < 2**32 for s in seeds)
    assert [world_seed(6, w) for w in range(50)] != seeds
    assert world_seed(5, 3) == seeds[3]


@pytest.mark.parametrize("bad", [0, 2, 101, -1, True, "3"])
def test_check_worlds_refuses_counts_that_cannot_split_by_world(bad):
    with pytest.raises(InputError) as e:
        check_worlds(bad)
    assert "worlds" in str(e.value)


def test_a_world_is_the_standalone_generation_of_its_seed(three, tmp_path):
    man = json.loads((three / "manifest.json").read_text())
    entry = man["world_list"][1]
    alone = tmp_path / "alone"
    generate_meridian(alone, "small", seed=entry["seed"], n_queries=QUERIES, grow=False)
    assert _files(alone) == _files(three / WORLDS_DIR / "w01")


def test_more_worlds_leave_the_existing_worlds_unchanged(three, tmp_path):
    four = tmp_path / "k4"
    said = []
    # two worlds at a time (spawned processes): the bytes of the one-by-one generation (`three`), told in order
    man = generate_worlds(four, "small", seed=17, n_queries=QUERIES, worlds=4, on_world=said.append, workers=2)
    assert [e["done"] for e in said] == ["generated"] * 4
    assert [e["name"] for e in said] == ["w00", "w01", "w02", "w03"] and all(e["seconds"] > 0 for e in said)
    assert man["worlds"] == 4 and [e["split"] for e in man["world_list"]] == world_splits(4)
    for name in ("w00", "w01", "w02"):
        assert _files(four / WORLDS_DIR / name) == _files(three / WORLDS_DIR / name), name
    for f in ("corpus.jsonl", "queries.jsonl", "provenance.jsonl", "evidence.jsonl"):
        old = (three / f).read_bytes()
        assert (four / f).read_bytes().startswith(old) and len((four / f).read_bytes()) > len(old), f
    # in place: growing keeps the worlds there; shrinking removes the worlds past the count
    said.clear()
    man3 = generate_worlds(four, "small", seed=17, n_queries=QUERIES, worlds=3, on_world=said.append)
    assert [e["done"] for e in said] == ["kept"] * 3
    assert sorted(p.name for p in (four / WORLDS_DIR).iterdir()) == ["w00", "w01", "w02"]
    assert _files(four) == {**_files(three), "manifest.json": (four / "manifest.json").read_bytes()}
    assert man3["files"] == json.loads((three / "manifest.json").read_text())["files"]


def test_ids_carry_their_world_and_every_split_reads_as_a_beir_folder(three):
    metas = _metas(three)
    man = json.loads((three / "manifest.json").read_text())
    split_of = {e["world"]: e["split"] for e in man["world_list"]}
    for m in metas:
        w = world_of(m["query_id"])
        assert w == m["world"] and m["split"] == split_of[w] and m["split_in_world"] in SPLITS
        assert {world_of(d) for d in m["qrels"]} <= {w} and {world_of(f) for f in m["facts"]} <= {w}
        assert {world_of(e) for e in m["expected_entities"]} <= {w}
    docs = [o for _, o in iter_jsonl(three / "corpus.jsonl")]
    assert all(world_of(d["_id"]) == d["metadata"]["world"] for d in docs)
    assert len(docs) == sum(e["n_docs"] for e in man["world_list"]) == 3 * 500
    for split in SPLITS:
        ds = load_beir(three, split)
        worlds = {world_of(q) for q in ds.qrels.query_ids}
        assert worlds == {w for w, s in split_of.items() if s == split}
        assert all(world_of(d) in worlds for q in ds.qrels.query_ids for d in ds.qrels[q])


def test_splits_share_no_entity_document_or_fact(three):
    seen: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for m in _metas(three):
        for kind, ids in (("entity", m["expected_entities"]), ("doc", m["qrels"]), ("fact", m["facts"]),
                          ("cluster", [m.get("cluster")] if m.get("cluster") else [])):
            for i in ids:
                seen[kind][i].add(m["split"])
    assert seen["entity"] and seen["doc"] and seen["fact"]
    for kind, where in seen.items():
        assert all(len(s) == 1 for s in where.values()), kind
    # the same entity id names different things in different worlds: only the prefix keeps them apart
    bare = defaultdict(set)
    for m in _metas(three):
        for e in m["expected_entities"]:
            bare[e.split("-", 1)[1]].add(m["world"])
    assert any(len(ws) > 1 for ws in bare.values())


def test_describe_checks_each_world_and_the_pooled_figures(three, tmp_path):
    res = describe_worlds(three, write=False)
    props = {p["property"]: p for p in res["properties"]}
    assert props["documents per world"]["measured"] == {"w00": 500, "w01": 500, "w02": 500}
    structural = {"documents per world", "worlds per split", "ids outside their query's world (documents, facts, "
                  "entities)", "shared across splits", "files matching the manifests (pooled; worlds)"}
    assert structural <= set(props) and not structural & set(res["missed"]), res["missed"]
    topics = props["independent topics per split of worlds (clusters / queries, effective topics)"]["measured"]
    assert {s: t["queries"] for s, t in topics.items()} == dict.fromkeys(SPLITS, QUERIES)
    assert all(1 <= t["effective_topics"] <= t["clusters"] <= QUERIES for t in topics.values())
    assert [w["n_docs"] for w in res["per_world"]] == [500, 500, 500]
    assert [w["split"] for w in res["per_world"]] == list(SPLITS)
    # a world whose pooled documents went missing, and a world edited after generation, are both caught
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(three, bad)
    lines = (bad / "corpus.jsonl").read_text().splitlines(keepends=True)
    (bad / "corpus.jsonl").write_text("".join(lines[:-1]))
    with (bad / WORLDS_DIR / "w02" / "world.json").open("a") as fh:
        fh.write("\n")
    res = describe_worlds(bad, write=False)
    assert {"documents per world", "files matching the manifests (pooled; worlds)"} <= set(res["missed"])
    assert not {"worlds per split", "shared across splits"} & set(res["missed"])


def test_generate_and_describe_console_scripts_on_worlds(tmp_path):
    out = tmp_path / "cli"
    gen = subprocess.run(["hcrbench", "generate", "meridian", "--worlds", "3", "--queries", "30", "--seed", "2",
                          "--out", str(out)], capture_output=True, text=True)
    assert gen.returncode == 0, gen.stderr
    assert "3 worlds of 500 documents" in gen.stdout and "test w02" in gen.stdout
    said = gen.stderr.strip().splitlines()
    assert [line.split()[1] for line in said] == ["w00", "w01", "w02"] and all("generated" in x for x in said)
    res = subprocess.run(["hcrbench", "describe", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    last = res.stdout.strip().splitlines()[-1]
    assert "pooled target" in last and "of 3 worlds meet every target of their own" in last
    saved = json.loads((out / "describe.json").read_text())
    assert saved["worlds"] == 3 and len(saved["per_world"]) == 3 and "deliverable_feasibility" in saved
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["qrels", "qrels-topical", WORLDS_DIR]
    # the same folder as one world: the worlds go, the folder is the single-world layout again
    assert main(["generate", "meridian", "--queries", "30", "--seed", "2", "--fixed-size", "--out", str(out)]) == 0
    assert not (out / WORLDS_DIR).exists() and "worlds" not in json.loads((out / "manifest.json").read_text())
    assert (out / "world.json").is_file()
    # and back: the single world's world.json and the old describe.json go with it
    assert main(["generate", "meridian", "--worlds", "3", "--queries", "30", "--seed", "2", "--out", str(out)]) == 0
    assert not (out / "world.json").exists() and not (out / "describe.json").exists()
    assert json.loads((out / "manifest.json").read_text())["worlds"] == 3


def test_one_world_is_todays_folder(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["generate", "meridian", "--queries", "30", "--seed", "4", "--fixed-size", "--out", str(a)]) == 0
    assert main(["generate", "meridian", "--queries", "30", "--seed", "4", "--fixed-size", "--worlds", "1",
                 "--out", str(b)]) == 0
    assert _files(a) == _files(b) and not (b / WORLDS_DIR).exists()


@pytest.mark.parametrize("value", ["2", "0", "abc", "101"])
def test_cli_bad_worlds_exit_2_with_one_line(value, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["generate", "meridian", "--worlds", value, "--out", str(tmp_path / "x")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--worlds" in err
    assert not (tmp_path / "x").exists()


def test_run_on_a_multi_world_dataset_needs_its_world_count_to_generate(three, tmp_path):
    run = tmp_path / "r.trec"
    run.write_text("w02-MQ001 Q0 w02-MER-000001 1 1.0 r\n")
    body = (f'name = "worlds"\noutput_dir = "out"\nmetrics = ["nDCG@10"]\n[dataset]\npath = "{three}"\n'
            f'generate = "meridian"\nsize = "small"\ngenerate_seed = 17\ngenerate_queries = {QUERIES}\n{{worlds}}'
            f'[[systems]]\nname = "r"\ntype = "runfile"\nparams = {{{{ path = "{run}" }}}}\n')
    cfg = tmp_path / "exp.toml"
    cfg.write_text(body.format(worlds=""))
    before = _files(three)
    res = subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and "dataset.worlds" in err[0] and "worlds = 3" in err[0]
    assert _files(three) == before  # neither regenerated as one world nor written to
    assert not (tmp_path / "out").exists()
    cfg.write_text(body.format(worlds="worlds = 3\n"))  # the same folder, its worlds said: kept and searched per world
    res = subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert _files(three) == before


def test_describe_checks_a_world_against_the_size_asked(tmp_path):
    from hcrbench.synth import describe

    out = tmp_path / "one"
    generate_meridian(out, "small", seed=8, n_queries=QUERIES, grow=False)

    def row():
        props = describe(out, write=False)["properties"]
        return next(p for p in props if p["property"] == "documents")

    assert row()["measured"] == 500 and row()["met"] and "small 500" in row()["target"]
    lines = (out / "corpus.jsonl").read_text().splitlines(keepends=True)
    (out / "corpus.jsonl").write_text("".join(lines[:-1]))
    assert row()["measured"] == 499 and not row()["met"]
    man = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**man, "grow": True, "size": 400, "size_docs": 400}))
    assert row()["met"] and "grown" in row()["target"]  # a grown world says so beside its count


@pytest.mark.parametrize("grow", [True, False])
def test_ensure_meridian_neither_keeps_nor_overwrites_a_multi_world_folder(three, grow):
    from hcrbench.synth.generate import ensure_meridian

    man = json.loads((three / "manifest.json").read_text())
    before = _files(three)
    with pytest.raises(InputError) as e:
        ensure_meridian(three, "small", seed=man["seed"], n_queries=man["n_queries"], grow=grow)
    assert "3 Meridian worlds" in str(e.value)
    assert _files(three) == before


def test_names_across_splits_counts_names_and_questions_two_splits_share():
    from hcrbench.synth.checks.describe_worlds import names_across_splits

    def world(system: str) -> dict:
        return {"systems": [{"id": "SYS-01", "name": system}], "people": [{"id": "P0001", "name": "Ada Byrne"}]}

    tune = ("tune", world("Orbit VPN"), [{"text": "Who owns Orbit VPN?", "expected_entities": ["SYS-01"]}])
    dev = ("dev", world("Lumen Wiki"), [{"text": "Who owns Lumen Wiki?", "expected_entities": ["SYS-01"]}])
    test = ("test", world("Orbit VPN"), [{"text": "Who administers Orbit VPN?", "expected_entities": []}])
    assert names_across_splits([tune, dev]) == {"entity names": 0, "query texts": 0}
    assert names_across_splits([tune, dev, test]) == {"entity names": 1, "query texts": 0}  # named in the text
    again = ("test", world("Kestrel CRM"), [{"text": "who owns  Orbit VPN?", "expected_entities": []}])
    assert names_across_splits([tune, again]) == {"entity names": 0, "query texts": 1}
    same_split = ("tune", world("Orbit VPN"), test[2])
    assert names_across_splits([tune, same_split]) == {"entity names": 0, "query texts": 0}


def test_a_later_look_draws_fresh_test_worlds_and_keeps_tune_and_dev(tmp_path):
    from hcrbench.synth.worlds import look_world_seed

    first = [look_world_seed(11, w) for w in range(5)]
    again = [look_world_seed(11, w, look=2) for w in range(5)]
    assert first == [world_seed(11, w) for w in range(5)]
    assert again[:2] == first[:2]  # tune and dev: the same worlds (what was tuned and chosen there holds)
    assert not set(again[2:]) & set(first)  # every test world is new
    assert len({*again[2:], *(look_world_seed(11, w, look=3) for w in range(2, 5))}) == 6
    a, b = tmp_path / "a", tmp_path / "b"
    generate_worlds(a, "small", seed=11, n_queries=QUERIES, worlds=3)
    generate_worlds(b, "small", seed=11, n_queries=QUERIES, worlds=3, look=2)
    for w in ("w00", "w01"):
        assert _files(a / WORLDS_DIR / w) == _files(b / WORLDS_DIR / w)
    assert _files(a / WORLDS_DIR / "w02") != _files(b / WORLDS_DIR / "w02")
    assert json.loads((b / "manifest.json").read_text())["look"] == 2
