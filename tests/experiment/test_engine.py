"""The ``[execution]`` table and the local engine: validation with did-you-mean, ``--engine``/``--address``
overrides, one-line errors when Ray is missing or unreachable, and ``engine = "local"`` never importing Ray."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import pytest

from hcrbench.errors import InputError
from hcrbench.experiment import parse_config
from hcrbench.experiment.execution import ExecutionConfig, parse_memory

from .conftest import write_beir

BASE = 'name = "x"\n[dataset]\npath = "d"\n[[systems]]\nname = "a"\ntype = "bm25"\n'
SRC = str(Path(__file__).resolve().parents[2] / "src")


def _env() -> dict[str, str]:
    return {**os.environ, "HCRBENCH_PROGRESS": "0", "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_execution_table_defaults_to_the_local_engine():
    cfg = parse_config(BASE)
    assert cfg.execution == ExecutionConfig()
    assert (cfg.execution.engine, cfg.execution.address, cfg.execution.max_retries) == ("local", None, 2)


def test_execution_table_accepts_ray_settings_and_sizes():
    cfg = parse_config(BASE + '[execution]\nengine = "ray"\naddress = "10.0.0.5:6379"\nmax_retries = 1\n'
                              'num_cpus = 2\nnum_gpus = 0.5\nmemory = "1.5GiB"\n'
                              'runtime_env = { working_dir = ".", env_vars = { A = "1" } }\n')
    ex = cfg.execution
    assert (ex.engine, ex.address, ex.max_retries, ex.num_cpus, ex.num_gpus) == ("ray", "10.0.0.5:6379", 1, 2.0, 0.5)
    assert ex.memory_bytes == int(1.5 * 2**30)
    assert ex.runtime_env == {"working_dir": ".", "env_vars": {"A": "1"}}
    assert parse_memory(1000) == 1000 and parse_memory("512 MB") == 512 * 10**6 and parse_memory(None) is None


@pytest.mark.parametrize(("extra", "message"), [
    ('[execution]\nengin = "ray"\n', r"x.toml:8: execution.engin: unknown key .*did you mean 'engine'\?"),
    ('[execution]\nengine = "spark"\n', r"x.toml:8: execution.engine: Input should be 'local' or 'ray'"),
    ('[execution]\nmemory = "2 parsecs"\n', r"x.toml:8: execution.memory: memory must be bytes or a size"),
    ('[execution]\nmax_retries = -1\n', r"x.toml:8: execution.max_retries: .*greater than or equal to 0"),
    ('[execution]\naddress = " "\n', r"x.toml:8: execution.address: must not be empty"),
])
def test_bad_execution_table_is_one_line_naming_file_line_and_key(extra, message):
    with pytest.raises(InputError, match=message) as e:
        parse_config(BASE + extra, "x.toml")
    assert "\n" not in str(e.value)


def test_flags_override_the_table_and_an_address_implies_ray(tmp_path):
    from hcrbench.commands.run import execution_of

    cfg = tmp_path / "c.toml"
    cfg.write_text(BASE + '[execution]\nmax_retries = 5\n')
    assert execution_of(cfg, None, None) is None  # the table as written
    ex = execution_of(cfg, None, "127.0.0.1:6379")
    assert (ex.engine, ex.address, ex.max_retries) == ("ray", "127.0.0.1:6379", 5)
    assert execution_of(cfg, "local", None).engine == "local"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    write_beir(tmp_path / "data")
    cfg = tmp_path / "exp.toml"
    cfg.write_text('name = "tiny"\noutput_dir = "out"\nk = 10\nn_resamples = 100\nmetrics = ["nDCG@10"]\n'
                   '[dataset]\npath = "data"\n'
                   '[[systems]]\nname = "a"\ntype = "bm25"\n'
                   '[[systems]]\nname = "b"\ntype = "bm25"\nparams = { k1 = 1.5, b = 0.9 }\n')
    return cfg


def test_local_engine_never_imports_ray_and_records_where_each_cell_ran(tiny):
    probe = ("import sys\nfrom hcrbench.experiment import run_experiment\n"
             f"run_experiment({str(tiny)!r}, progress=False)\n"
             "print('ray' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
    manifest = json.loads((tiny.parent / "out" / "manifest.json").read_text())
    assert manifest["execution"]["engine"] == "local"
    for entry in manifest["systems"].values():
        assert entry["execution"]["engine"] == "local" and entry["execution"]["attempts"] == 1
        assert entry["execution"]["hostname"] == socket.gethostname()


def _hcrbench(*args: str, cwd: Path, block_ray: bool = False) -> subprocess.CompletedProcess:
    if block_ray:  # as if Ray were not installed
        code = ("import sys; sys.modules['ray'] = None\nfrom hcrbench.cli import main\n"
                f"sys.exit(main({list(args)!r}))")
        cmd = [sys.executable, "-c", code]
    else:
        cmd = ["hcrbench", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=_env(), timeout=300)


def test_engine_ray_without_ray_installed_says_install_the_extra(tiny):
    out = _hcrbench("run", str(tiny), "--engine", "ray", cwd=tiny.parent, block_ray=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1] == ("hcrbench: error: execution.engine: engine 'ray' needs Ray: "
                                                   "pip install 'hcrbench[ray]'")


def test_unknown_engine_flag_is_one_line_with_a_suggestion(tiny):
    out = _hcrbench("run", str(tiny), "--engine", "rya", cwd=tiny.parent)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip() == ("hcrbench: error: --engine: unknown engine 'rya' (expected: local, ray); "
                                  "did you mean 'ray'?")


def test_unreachable_address_is_one_line_and_fast_and_leaves_the_old_scores(tiny):
    if find_spec("ray") is None:
        pytest.skip("needs the [ray] extra")
    assert _hcrbench("run", str(tiny), "--quiet", cwd=tiny.parent).returncode == 0
    scores = (tiny.parent / "out" / "eval.json").read_bytes()
    tiny.write_text(tiny.read_text() + '[[systems]]\nname = "c"\ntype = "bm25"\nparams = { k1 = 0.5 }\n')
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    out = _hcrbench("run", str(tiny), "--address", f"127.0.0.1:{port}", cwd=tiny.parent)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(f"hcrbench: error: execution.address: cannot reach the Ray cluster at 127.0.0.1:{port}")
    assert time.monotonic() - t0 < 60
    assert (tiny.parent / "out" / "eval.json").read_bytes() == scores  # nothing was touched


def test_resources_per_system_name_or_type_override_the_defaults():
    cfg = parse_config(BASE + '[execution]\nnum_cpus = 2\nmemory = "1GiB"\n[execution.resources]\n'
                              'dense = { num_gpus = 1, memory = "8GiB" }\na = { num_cpus = 0.5 }\n')
    ex = cfg.execution
    assert ex.resources_for("a", "bm25") == {"num_cpus": 0.5, "num_gpus": 0.0, "memory": 2**30}  # by name
    assert ex.resources_for("d", "dense") == {"num_cpus": 2.0, "num_gpus": 1.0, "memory": 8 * 2**30}  # by type
    assert ex.resources_for("z", "hcr") == {"num_cpus": 2.0, "num_gpus": 0.0, "memory": 2**30}  # defaults
    with pytest.raises(InputError, match=r"execution.resources.dnese: 'dnese' is neither a system name nor a "
                                         r"system type of this experiment; did you mean 'dense'\?"):
        parse_config(BASE + '[execution.resources]\ndnese = { num_cpus = 1 }\n').execution.check_resources(
            [("b", "bm25"), ("c", "dense")])
    with pytest.raises(InputError, match=r"x.toml:8: execution.resources.a.num_gpu: unknown key"):
        parse_config(BASE + '[execution.resources]\na = { num_gpu = 1 }\n', "x.toml")


POOL = """name = "pool"
output_dir = "out"
metrics = ["nDCG@10", "RR"]
baseline = "a"
k = 10
n_resamples = 200
[dataset]
path = "data"
split = "test"
[[systems]]
name = "a"
type = "bm25"
[[systems]]
name = "b"
type = "bm25"
params = { k1 = 0.9, b = 0.4 }
[[systems]]
name = "c"
type = "dense"
params = { backend = "hash" }
[[systems]]
name = "d"
type = "hcr"
params = { backend = "hash" }
"""


def test_local_workers_give_the_bytes_of_the_one_by_one_run(tmp_path: Path):
    """``[execution] workers = 2``: the first cell here, the rest in two spawned processes (one cell of a type at a
    time); every run file, eval.json and the per-query table are the one-by-one run's bytes, and the manifest says
    where each ran."""
    outs = {}
    for workers in (1, 2):
        root = tmp_path / f"w{workers}"
        write_beir(root / "data")
        (root / "exp.toml").write_text(POOL + f"[execution]\nworkers = {workers}\n")
        res = subprocess.run([sys.executable, "-m", "hcrbench.cli", "run", "exp.toml", "--quiet"], cwd=root,
                             env=_env(), capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr
        outs[workers] = root / "out"
    for rel in ("runs/a.trec", "runs/b.trec", "runs/c.trec", "runs/d.trec", "eval.json", "per_query.csv"):
        assert (outs[1] / rel).read_bytes() == (outs[2] / rel).read_bytes(), rel
    systems = json.loads((outs[2] / "manifest.json").read_text())["systems"]
    pids = {n: systems[n]["execution"]["pid"] for n in "abcd"}
    assert pids["a"] not in {pids["b"], pids["c"], pids["d"]}  # a in the driver, the others in workers
    assert all(systems[n]["execution"]["engine"] == "local" for n in "abcd")


def test_a_worker_stops_the_joblib_processes_a_cell_started():
    """RAPTOR's clustering starts loky workers; a pool worker that left them idle would wait their 300 s timeout
    when it exits (its shutdown joins its children), stalling the pool's end."""
    from joblib import Parallel, delayed
    from joblib.externals.loky import reusable_executor

    from hcrbench.experiment.engine import _stop_loky

    assert Parallel(n_jobs=2, backend="loky")(delayed(abs)(-i) for i in range(4)) == [0, 1, 2, 3]
    executor = reusable_executor._executor
    assert executor is not None
    procs = list(executor._processes.values())
    assert procs and any(p.is_alive() for p in procs)
    _stop_loky()
    assert not any(p.is_alive() for p in procs)


def _cells(*types: str) -> list:
    from types import SimpleNamespace

    return [SimpleNamespace(name=f"{t}{i}", index=i, system=SimpleNamespace(type=t)) for i, t in enumerate(types)]


def test_chains_keep_a_type_together_unless_its_first_cell_already_ran():
    from hcrbench.experiment.engine import cell_chains

    cells = _cells("hcr", "hcr", "hcr", "bm25", "hcr", "rerank", "bm25")
    cold = cell_chains(cells, 2)
    assert [[c.name for c in ch] for ch in cold.values()] == [["hcr0", "hcr1", "hcr2", "hcr4"], ["bm253", "bm256"],
                                                              ["rerank5"]]
    warm = cell_chains(cells, 2, warm="hcr")  # its encodings and tree are cached: its cells go side by side
    assert [[c.name for c in ch] for ch in warm.values()] == [["hcr0", "hcr2"], ["hcr1", "hcr4"],
                                                              ["bm253", "bm256"], ["rerank5"]]
    assert [c.name for c in cell_chains(cells, 1, warm="hcr")["hcr"]] == ["hcr0", "hcr1", "hcr2", "hcr4"]
    assert len(cell_chains(_cells("bm25", "hcr"), 4, warm="hcr")) == 2  # one hcr cell: one chain


def test_readers_of_the_first_cell_join_its_batch_right_after_it():
    from hcrbench.experiment.reads import batches, with_readers_of_the_first

    cells = _cells("hcr", "bm25", "rerank", "dense")
    two = batches(cells, {"rerank2": "hcr0"})
    assert [[c.name for c in b] for b in two] == [["hcr0", "bm251", "dense3"], ["rerank2"]]
    one = with_readers_of_the_first(two, {"rerank2": "hcr0"})
    assert [[c.name for c in b] for b in one] == [["hcr0", "rerank2", "bm251", "dense3"]]
    other = batches(cells, {"rerank2": "bm251"})  # it reads a cell that runs in the pool: it waits for the batch
    assert with_readers_of_the_first(other, {"rerank2": "bm251"}) == other


READERS = """name = "readers"
output_dir = "out"
metrics = ["nDCG@10"]
baseline = "h"
k = 10
n_resamples = 100
[dataset]
path = "data"
split = "test"
[[systems]]
name = "h"
type = "hcr"
params = { backend = "hash" }
[[systems]]
name = "r"
type = "rerank"
params = { method = "maxsim", first_stage = "bm25", backend = "hash", top_n = 10, top_n_from = "h" }
[[systems]]
name = "h1"
type = "hcr"
params = { backend = "hash", seed = 1 }
[[systems]]
name = "hb"
type = "hcr"
params = { backend = "hash", mode = "beam" }
[[systems]]
name = "b"
type = "bm25"
"""


@pytest.mark.slow  # two runs of five systems in subprocesses
def test_split_hcr_chains_and_a_reader_beside_them_give_the_one_by_one_bytes(tmp_path: Path):
    """HCR first here, then its other cells in two chains and the reader of its routing log in the same pool:
    the run files and eval.json are the one-by-one run's bytes."""
    outs = {}
    for workers in (1, 2):
        root = tmp_path / f"w{workers}"
        write_beir(root / "data")
        (root / "exp.toml").write_text(READERS + f"[execution]\nworkers = {workers}\n")
        res = subprocess.run([sys.executable, "-m", "hcrbench.cli", "run", "exp.toml", "--quiet"], cwd=root,
                             env=_env(), capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr
        outs[workers] = root / "out"
    for rel in ("runs/h.trec", "runs/r.trec", "runs/h1.trec", "runs/hb.trec", "runs/b.trec", "eval.json"):
        assert (outs[1] / rel).read_bytes() == (outs[2] / rel).read_bytes(), rel
    systems = json.loads((outs[2] / "manifest.json").read_text())["systems"]
    pids = {n: systems[n]["execution"]["pid"] for n in ("h", "r", "h1", "hb")}
    assert pids["h"] not in {pids["r"], pids["h1"], pids["hb"]}  # h here, its reader in the pool with the rest


def test_a_cold_tree_type_starts_first_and_a_worker_gets_its_share_of_the_cores(monkeypatch):
    """RAPTOR (a tree no earlier cell built) is the longest cell: it goes first, not behind HCR's many cells; a
    worker beside others gives its clustering its share of the cores, not every core."""
    from hcrbench.experiment import engine
    from hcrbench.retrieve import runtime
    from hcrbench.retrieve.raptor.cluster import workers

    cells = _cells("hcr", "hcr", "hcr", "bm25", "raptor", "rerank")
    order = [[c.name for c in ch] for ch in engine.cell_chains(cells, 2, warm="hcr").values()]
    assert order == [["raptor4"], ["hcr0", "hcr2"], ["hcr1"], ["bm253"], ["rerank5"]]
    assert list(engine.cell_chains(cells, 2))[:2] == ["hcr", "raptor"]  # a cold HCR keeps its place
    monkeypatch.delenv(runtime.CELL_CORES_VAR, raising=False)  # (and restored after, as the two below)
    monkeypatch.delenv("HCRBENCH_PROGRESS", raising=False)
    monkeypatch.setattr(engine, "_DATA", None)
    monkeypatch.setattr(runtime, "usable_cores", lambda: 4)
    assert workers(0) == 4 and workers(3) == 3
    engine._worker_init(None, 1)
    assert workers(0) == 1 and workers(3) == 3  # an explicit n_jobs is kept
    monkeypatch.setenv(runtime.CELL_CORES_VAR, "8")
    assert workers(0) == 4  # never more than the process may use
