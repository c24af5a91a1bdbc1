"""A tiny BEIR folder and a fake, call-counting retriever for runner tests; a two-node Ray cluster on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from hcrbench.data import Costs, Run, RunResult
from hcrbench.retrieve import register_retriever

CALLS: dict[str, int] = {"index": 0, "search": 0}
#: Salts of systems whose search crashes mid-way (set by a test to simulate an interruption).
FAIL_SALTS: set[int] = set()

DOCS = {
    "d1": ("Key rotation", "How to rotate the signing key every quarter."),
    "d2": ("Backups", "Nightly backups of the billing database."),
    "d3": ("Incident review", "The outage was caused by an expired signing key."),
    "d4": ("Onboarding", "New engineers get laptop access on day one."),
    "d5": ("Billing", "Invoices are generated from the billing database."),
    "d6": ("Laptops", "Laptop refresh happens every three years."),
}
QUERIES = {
    "q1": ("signing key rotation", "security"),
    "q2": ("billing database", "data"),
    "q3": ("laptop for new engineers", "it"),
    "q4": ("expired key outage", "security"),
}
QRELS = {"q1": {"d1": 2, "d3": 1}, "q2": {"d5": 1, "d2": 1}, "q3": {"d4": 2, "d6": 1}, "q4": {"d3": 2}}


@register_retriever("fake")
class FakeRetriever:
    """Word-overlap scores; counts index/search calls; ``fail=True`` raises mid-search; ``bias`` shifts."""

    name = "fake"

    def __init__(self, bias: float = 0.0, fail: bool = False, salt: int = 0) -> None:
        self.bias, self.fail, self.salt = bias, fail, salt
        self._docs: list[tuple[str, set[str]]] = []

    def index(self, corpus) -> None:
        CALLS["index"] += 1
        self._docs = [(d, set(corpus.full_text(i).lower().replace(".", "").split()))
                      for i, d in enumerate(corpus.doc_ids)]

    def search(self, queries, k: int = 100) -> RunResult:
        CALLS["search"] += 1
        out: dict[str, dict[str, float]] = {}
        for n, (qid, text) in enumerate(queries.items()):
            if (self.fail or self.salt in FAIL_SALTS) and n == 2:
                raise RuntimeError("simulated crash mid-search")
            words = set(text.lower().split())
            scores = {d: len(words & w) + self.bias * (int(d[1:].split("#")[0]) % 2 == 0) + 0.001 * self.salt
                      for d, w in self._docs}
            top = sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:k]
            out[qid] = dict(top)
        costs = Costs()
        costs.add("queries", len(queries))
        return RunResult(Run.from_dict(out), costs)

    @property
    def params(self) -> dict[str, Any]:
        return {"bias": self.bias, "fail": self.fail, "salt": self.salt}


@pytest.fixture(autouse=True)
def _reset_calls(monkeypatch, tmp_path):
    CALLS["index"] = CALLS["search"] = 0
    FAIL_SALTS.clear()
    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "hcrbench-home"))


def write_beir(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qrels").mkdir(exist_ok=True)
    with open(folder / "corpus.jsonl", "w") as fh:
        for d, (t, x) in DOCS.items():
            fh.write(json.dumps({"_id": d, "title": t, "text": x}) + "\n")
    with open(folder / "queries.jsonl", "w") as fh:
        for q, (t, cat) in QUERIES.items():
            fh.write(json.dumps({"_id": q, "text": t, "metadata": {"category": cat}}) + "\n")
    with open(folder / "qrels" / "test.tsv", "w") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for q, docs in QRELS.items():
            for d, g in docs.items():
                fh.write(f"{q}\t{d}\t{g}\n")
    return folder


CONFIG = """name = "tiny"
output_dir = "out"
seed = 0
metrics = ["nDCG@10", "R@100", "RR", "AP"]
baseline = "a"
k = 10
n_resamples = 200

[dataset]
path = "data"
split = "test"
locked = {locked}

[[systems]]
name = "a"
type = "fake"

[[systems]]
name = "b"
type = "fake"
params = {{ bias = 2.5 }}
"""


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    """A config file beside a tiny BEIR folder; returns the config path."""
    write_beir(tmp_path / "data")
    cfg = tmp_path / "exp.toml"
    cfg.write_text(CONFIG.format(locked="false"))
    return cfg


# ------------------------------------------------------------------------ a real Ray cluster (Ray tests only)

SRC = str(Path(__file__).resolve().parents[2] / "src")
#: The `ray` console script installed beside this interpreter (else the one on PATH).
_BESIDE = Path(sys.executable).with_name("ray")
RAY = str(_BESIDE) if _BESIDE.is_file() else (shutil.which("ray") or "ray")

#: A retriever plugin for the Ray tests (``crash_once``), put on the cluster's PYTHONPATH by ray_cluster.
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


@pytest.fixture(scope="session")
def ray_cluster():
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
            p = subprocess.Popen([RAY, "start", *args, *common], env=env, start_new_session=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            sessions.append(p)
            log, _ = p.communicate(timeout=180)
            assert p.returncode == 0, log[-2000:]
        yield address, env
    finally:
        _stop(sessions)
        shutil.rmtree(root, ignore_errors=True)
