"""``hcrbench run --engine ray`` on a real two-node Ray cluster (head + one worker node, both on 127.0.0.1,
started here and torn down after): the same eval.json as ``--engine local``, byte for byte, with one cell whose
worker process dies on its first attempt (a test-only retriever plugin) retried on the cluster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from .conftest import write_beir

pytestmark = pytest.mark.skipif(find_spec("ray") is None, reason="needs the [ray] extra")


def _config(out: str, marker: Path) -> str:
    text = (f'name = "grid"\noutput_dir = "{out}"\nk = 10\nn_resamples = 200\nmetrics = ["nDCG@10", "RR", "AP"]\n'
            f'baseline = "bm25.k0.9.s1"\n[dataset]\npath = "data"\n')
    for k1, b in ((0.9, 0.4), (1.2, 0.75), (1.5, 0.9)):
        for seed in (1, 2):
            text += (f'[[systems]]\nname = "bm25.k{k1}.s{seed}"\ntype = "bm25"\nseed = {seed}\n'
                     f'seed_group = "bm25.k{k1}"\nparams = {{ k1 = {k1}, b = {b} }}\n')
    text += (f'[[systems]]\nname = "crashy"\ntype = "crash_once"\n'
             f'params = {{ marker = "{marker}", k1 = 1.1, b = 0.5 }}\n')
    return text


def _alive_nodes(address: str, env: dict) -> set[str]:
    """The node ids Ray reports alive in the cluster at ``address`` (a short driver process)."""
    code = (f"import json, ray; ray.init(address={address!r}, logging_level='ERROR'); "
            "print(json.dumps([n['NodeID'] for n in ray.nodes() if n['Alive']]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_ray_cluster_run_matches_local_and_survives_a_dead_worker(ray_cluster, tmp_path):
    address, env = ray_cluster
    write_beir(tmp_path / "data")
    marker = tmp_path / "crashed-once"
    (tmp_path / "ray.toml").write_text(_config("out-ray", marker))
    (tmp_path / "local.toml").write_text(_config("out-local", marker))

    ray_run = subprocess.run(["hcrbench", "run", "ray.toml", "--engine", "ray", "--address", address],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=400)
    assert ray_run.returncode == 0, ray_run.stderr[-3000:]
    assert marker.exists()  # the crashing attempt really ran (and killed its worker process)
    assert "crashy: attempt 1 failed" in ray_run.stderr
    assert "ray: 7/7 cells done, 0 running, 0 failed, 1 retried" in ray_run.stderr

    local_run = subprocess.run(["hcrbench", "run", "local.toml", "--engine", "local"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=400)
    assert local_run.returncode == 0, local_run.stderr[-3000:]
    ray_eval = (tmp_path / "out-ray" / "eval.json").read_bytes()
    assert ray_eval == (tmp_path / "out-local" / "eval.json").read_bytes()
    doc = json.loads(ray_eval)
    assert len(doc["runs"]) == 7 and set(doc["seed_aggregates"]) == {"bm25.k0.9", "bm25.k1.2", "bm25.k1.5"}
    for name in doc["runs"]:
        assert (tmp_path / "out-ray" / "runs" / f"{name}.trec").read_bytes() == \
            (tmp_path / "out-local" / "runs" / f"{name}.trec").read_bytes()

    manifest = json.loads((tmp_path / "out-ray" / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["execution"]["address"] == address
    where = {name: e["execution"] for name, e in manifest["systems"].items()}
    assert all(w["engine"] == "ray" and len(w["node_id"]) == 56 for w in where.values())
    # Every cell ran on a live node of this two-node cluster. Which node takes a cell is Ray's scheduler's call:
    # under CPU contention (another test process busy beside it) it has put all seven on the head node.
    alive = _alive_nodes(address, env)
    assert len(alive) == 2 and {w["node_id"] for w in where.values()} <= alive
    assert where["crashy"]["attempts"] == 2 and len(where["crashy"]["failed_attempts"]) == 1
    assert "Worker" in where["crashy"]["failed_attempts"][0]["error"]  # Ray's WorkerCrashedError family
    assert {w["attempts"] for n, w in where.items() if n != "crashy"} == {1}

    # Resume on the cluster: nothing to recompute, the same scores.
    again = subprocess.run(["hcrbench", "run", "ray.toml", "--address", address], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=400)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "computed 0, reused 7" in again.stderr
    assert (tmp_path / "out-ray" / "eval.json").read_bytes() == ray_eval


def test_a_cell_that_dies_on_every_allowed_attempt_fails_in_one_line_and_resumes(ray_cluster, tmp_path):
    address, env = ray_cluster
    write_beir(tmp_path / "data")
    marker = tmp_path / "crashed-once"
    (tmp_path / "exp.toml").write_text(
        'name = "bounded"\noutput_dir = "out"\nk = 10\nn_resamples = 100\nmetrics = ["nDCG@10"]\n'
        '[dataset]\npath = "data"\n[execution]\nmax_retries = 0\n'
        '[[systems]]\nname = "bm25"\ntype = "bm25"\n'
        f'[[systems]]\nname = "crashy"\ntype = "crash_once"\nparams = {{ marker = "{marker}" }}\n')
    failed = subprocess.run(["hcrbench", "run", "exp.toml", "--address", address], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=400)
    assert failed.returncode == 2 and "Traceback" not in failed.stderr, failed.stderr[-3000:]
    assert failed.stderr.strip().splitlines()[-1].startswith(
        "hcrbench: error: execution.max_retries: 1 cell(s) failed on every one of 1 attempts: crashy (last: ")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["status"] == "partial" and list(manifest["systems"]) == ["bm25"]  # the finished cell is kept
    assert not (tmp_path / "out" / "eval.json").exists()

    resumed = subprocess.run(["hcrbench", "run", "exp.toml", "--address", address], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=400)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "computed 1, reused 1" in resumed.stderr and (tmp_path / "out" / "eval.json").is_file()


def test_a_resource_request_no_node_can_hold_is_refused_in_one_line(ray_cluster, tmp_path):
    address, env = ray_cluster
    write_beir(tmp_path / "data")
    (tmp_path / "exp.toml").write_text(
        'name = "gpu"\noutput_dir = "out"\nk = 10\nmetrics = ["nDCG@10"]\n[dataset]\npath = "data"\n'
        '[execution.resources]\nbm25 = { num_gpus = 1 }\n[[systems]]\nname = "bm25"\ntype = "bm25"\n')
    out = subprocess.run(["hcrbench", "run", "exp.toml", "--address", address], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=400)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-3000:]
    assert out.stderr.strip().splitlines()[-1].startswith(
        "hcrbench: error: execution: system 'bm25' asks for CPU 1, GPU 1, more than any node of the cluster has "
        "(CPU 1, GPU 0, memory ")


@pytest.mark.slow  # ~25 s: starts and stops a private Ray; the cluster test above covers the engine itself
def test_engine_ray_without_address_starts_a_private_local_ray_with_the_same_results(tmp_path):
    write_beir(tmp_path / "data")
    text = _config("out-{}", tmp_path / "unused").split('[[systems]]\nname = "crashy"')[0]
    for engine in ("ray", "local"):
        (tmp_path / f"{engine}.toml").write_text(text.replace("out-{}", f"out-{engine}"))
        out = subprocess.run(["hcrbench", "run", f"{engine}.toml", "--engine", engine], cwd=tmp_path,
                             capture_output=True, text=True, timeout=400,
                             env={**os.environ, "HCRBENCH_PROGRESS": "0", "RAY_USAGE_STATS_ENABLED": "0"})
        assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "out-ray" / "eval.json").read_bytes() == (tmp_path / "out-local" / "eval.json").read_bytes()
    manifest = json.loads((tmp_path / "out-ray" / "manifest.json").read_text())
    assert manifest["execution"]["address"] is None
    assert {e["execution"]["engine"] for e in manifest["systems"].values()} == {"ray"}


@pytest.mark.slow  # ~25 s: Ray retries the refused connection before giving up
def test_a_driver_without_the_cluster_token_gets_one_line(ray_cluster, tmp_path):
    address, env = ray_cluster
    write_beir(tmp_path / "data")
    (tmp_path / "exp.toml").write_text(_config("out", tmp_path / "unused").split('[[systems]]\nname = "crashy"')[0])
    env = {k: v for k, v in env.items() if k != "RAY_AUTH_TOKEN"}
    out = subprocess.run(["hcrbench", "run", "exp.toml", "--address", address], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=400)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-3000:]
    assert out.stderr.strip().splitlines()[-1].startswith(
        f"hcrbench: error: execution.address: cannot connect to the Ray cluster at {address}: ")



def _worlds_config(out: str, marker: Path | None, reader: bool = False) -> str:
    text = (f'name = "worlds"\noutput_dir = "{out}"\nk = 10\nn_resamples = 100\nmetrics = ["nDCG@10", "RR"]\n'
            'baseline = "bm25"\n[dataset]\npath = "k"\nsplit = "test"\n'
            '[[systems]]\nname = "bm25"\ntype = "bm25"\n'
            '[[systems]]\nname = "hcr"\ntype = "hcr"\nparams = { backend = "hash" }\n')
    if reader:
        text += ('[[systems]]\nname = "rr"\ntype = "rerank"\nparams = { method = "maxsim", backend = "hash", '
                 'top_n = 50, top_n_from = "hcr", top_n_match = "per-query" }\n')
    if marker is not None:
        text += f'[[systems]]\nname = "crashy"\ntype = "crash_once"\nparams = {{ marker = "{marker}" }}\n'
    return text


def _run_both(tmp_path: Path, address: str, env: dict, engine: str) -> str:
    args = ["--address", address] if engine == "ray" else ["--engine", "local"]
    res = subprocess.run(["hcrbench", "run", f"{engine}.toml", *args], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=400)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stderr


def _same_bytes(tmp_path: Path, names: list[str]) -> None:
    rels = ["eval.json", "logs/hcr.routing.jsonl", "logs/hcr.units.jsonl"] + [f"runs/{n}.trec" for n in names]
    for rel in rels:
        assert (tmp_path / "out-ray" / rel).read_bytes() == (tmp_path / "out-local" / rel).read_bytes(), rel


def test_worlds_are_ray_tasks_with_the_local_engines_bytes_and_a_dead_world_retried_alone(ray_cluster, tmp_path):
    """On a dataset of several worlds each (system, world) is its own Ray task: a world whose worker dies is the
    only one retried, and the pooled outputs are the local engine's bytes."""
    from hcrbench.synth.worlds import generate_worlds

    address, env = ray_cluster
    env = {**env, "HCRBENCH_CACHE": str(tmp_path / "cache")}
    generate_worlds(tmp_path / "k", "small", seed=37, n_queries=16, worlds=4)  # test split: w02, w03
    marker = tmp_path / "crashed-once"
    for engine in ("ray", "local"):
        (tmp_path / f"{engine}.toml").write_text(_worlds_config(f"out-{engine}", marker))
    err = _run_both(tmp_path, address, env, "ray")
    assert marker.exists() and ("crashy (w02): attempt 1 failed" in err or "crashy (w03): attempt 1 failed" in err)
    assert "ray: 3/3 cells done (6/6 world tasks), 0 running, 0 failed, 1 retried" in err
    systems = json.loads((tmp_path / "out-ray" / "manifest.json").read_text())["systems"]
    for name, entry in systems.items():
        assert set(entry["execution"]["worlds"]) == set(entry["worlds"]) == {"w02", "w03"}, name
        assert all(len(w["node_id"]) == 56 and w["attempts"] >= 1 for w in entry["execution"]["worlds"].values())
    crashed = systems["crashy"]["execution"]
    assert sorted(w["attempts"] for w in crashed["worlds"].values()) == [1, 2]
    assert [f["world"] for f in crashed["failed_attempts"]] == [w for w, x in crashed["worlds"].items()
                                                                 if x["attempts"] == 2]
    _run_both(tmp_path, address, env, "local")
    _same_bytes(tmp_path, ["bm25", "hcr", "crashy"])


@pytest.mark.slow  # four runs of HCR and a reader of it on two and three worlds (~2 min on 2 shared cores)
def test_adding_a_world_under_ray_computes_only_the_new_world_with_the_local_engines_bytes(ray_cluster, tmp_path):
    from hcrbench.synth.worlds import generate_worlds

    address, env = ray_cluster
    env = {**env, "HCRBENCH_CACHE": str(tmp_path / "cache")}
    generate_worlds(tmp_path / "k", "small", seed=41, n_queries=16, worlds=4)
    for engine in ("ray", "local"):
        (tmp_path / f"{engine}.toml").write_text(_worlds_config(f"out-{engine}", None, reader=True))
    err = _run_both(tmp_path, address, env, "ray")
    assert "ray: 1/1 cells done (2/2 world tasks), 0 running, 0 failed" in err  # rr reads hcr: a second batch
    _run_both(tmp_path, address, env, "local")
    _same_bytes(tmp_path, ["bm25", "hcr", "rr"])
    generate_worlds(tmp_path / "k", "small", seed=41, n_queries=16, worlds=5)  # one more test world: w04
    _run_both(tmp_path, address, env, "ray")
    systems = json.loads((tmp_path / "out-ray" / "manifest.json").read_text())["systems"]
    for name, entry in systems.items():
        assert {w: e["reused"] for w, e in entry["worlds"].items()} == {"w02": True, "w03": True, "w04": False}, name
    _run_both(tmp_path, address, env, "local")
    _same_bytes(tmp_path, ["bm25", "hcr", "rr"])
