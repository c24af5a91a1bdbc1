"""``hcrbench run --engine ray`` on a real two-node Ray cluster (head + one worker node, both on 127.0.0.1,
started here and torn down after): the same eval.json as ``--engine local``, byte for byte, with one cell whose
worker process dies on its first attempt (a test-only retriever plugin) retried on the cluster."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from .conftest import write_beir

pytest.importorskip("ray")

SRC = str(Path(__file__).resolve().parents[2] / "src")

PLUGIN = '''"""Test plugin: BM25 whose index() kills its own process the first time (no marker file yet)."""
import os
from pathlib import Path

from hcrbench.retrieve import make_retriever


class CrashOnce:
    def __init__(self, marker: str, **params):
        self.marker, self.inner, self.name = Path(marker), make_retriever("bm25", **params), "crash_once"

    def index(self, corpus):
        if not self.marker.exists():
            self.marker.write_text(str(os.getpid()))
            os._exit(1)  # a worker that dies mid-cell: no exception, no result
        self.inner.index(corpus)

    def search(self, queries, k=100):
        return self.inner.search(queries, k=k)

    @property
    def params(self):
        return self.inner.params
'''


def _plugin_dir(root: Path) -> Path:
    """A folder that, on PYTHONPATH, registers the ``crash_once`` retriever through the entry-point group."""
    info = root / "hcrbench_crashtest-0.0.dist-info"
    info.mkdir(parents=True)
    (root / "hcrbench_crashtest.py").write_text(PLUGIN)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hcrbench-crashtest\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text("[hcrbench.retrievers]\ncrash_once = hcrbench_crashtest:CrashOnce\n")
    return root


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(sessions: list[subprocess.Popen]) -> None:
    """End the process groups this fixture started (every daemon of a `ray start` stays in its session), and
    no other Ray on the machine, which `ray stop` would also kill."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in sessions:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, sig)
        time.sleep(2 if sig == signal.SIGTERM else 0)


@pytest.fixture(scope="module")
def cluster():
    """``(address, env)`` of a head node and one worker node (1 CPU each) on 127.0.0.1, token-authenticated."""
    root = Path(tempfile.mkdtemp(prefix="hcrr", dir="/tmp"))  # short: Ray's socket paths must stay < 108 bytes
    plugin = _plugin_dir(root / "plugin")
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16),
           "PYTHONPATH": os.pathsep.join([SRC, str(plugin), os.environ.get("PYTHONPATH", "")]),
           "HCRBENCH_PROGRESS": "0", "RAY_USAGE_STATS_ENABLED": "0"}
    port = _free_port()
    address = f"127.0.0.1:{port}"
    common = ["--node-ip-address=127.0.0.1", "--num-cpus=1", "--disable-usage-stats"]
    sessions: list[subprocess.Popen] = []
    try:
        for args in (["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={root / 'ray'}"],
                     [f"--address={address}"]):
            p = subprocess.Popen(["ray", "start", *args, *common], env=env, start_new_session=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            sessions.append(p)
            log, _ = p.communicate(timeout=180)
            assert p.returncode == 0, log[-2000:]
        yield address, env
    finally:
        _stop(sessions)
        shutil.rmtree(root, ignore_errors=True)


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


def test_ray_cluster_run_matches_local_and_survives_a_dead_worker(cluster, tmp_path):
    address, env = cluster
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
    assert len({w["node_id"] for w in where.values()}) == 2  # both nodes ran cells
    assert where["crashy"]["attempts"] == 2 and len(where["crashy"]["failed_attempts"]) == 1
    assert "Worker" in where["crashy"]["failed_attempts"][0]["error"]  # Ray's WorkerCrashedError family
    assert {w["attempts"] for n, w in where.items() if n != "crashy"} == {1}

    # Resume on the cluster: nothing to recompute, the same scores.
    again = subprocess.run(["hcrbench", "run", "ray.toml", "--address", address], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=400)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "computed 0, reused 7" in again.stderr
    assert (tmp_path / "out-ray" / "eval.json").read_bytes() == ray_eval
