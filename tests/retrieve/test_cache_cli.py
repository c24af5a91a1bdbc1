"""Fault injection through the console script: a damaged cache never changes a number (real ONNX MiniLM).

Each test damages a copy of a warm cache the way a disk, a killed job or a careless copy would, then runs
``hcrbench retrieve`` and checks the run is byte-identical to the clean one, with one warning naming the damage;
``hcrbench cache verify`` reports the damage before repair and exits 1.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma", "omega", "river", "mountain", "forest", "ocean", "desert", "valley", "city", "village", "market", "harbor", "bridge", "tower", "garden", "castle", "island"]


def _dataset(root: Path, n_docs: int, seed: int = 0) -> Path:
    rng = random.Random(seed)
    ds = root / f"ds{n_docs}"
    (ds / "qrels").mkdir(parents=True)
    with open(ds / "corpus.jsonl", "w") as f:
        for i in range(n_docs):
            text = " ".join(rng.choice(WORDS) for _ in range(12))
            f.write(json.dumps({"_id": f"d{i}", "title": "", "text": text}) + "\n")
    with open(ds / "queries.jsonl", "w") as f:
        for i in range(15):
            f.write(json.dumps({"_id": f"q{i}", "text": " ".join(rng.choice(WORDS) for _ in range(4))}) + "\n")
    (ds / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i * 7}\t1\n" for i in range(15)))
    return ds


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "HCRBENCH_CACHE": str(cache), "HCRBENCH_PROGRESS": "0", "HF_HUB_OFFLINE": "1"}


def _retrieve(ds: Path, cache: Path, out: Path, system: str = "dense", **kw) -> subprocess.CompletedProcess:
    args = ["hcrbench", "retrieve", "--dataset", str(ds), "--system", system, "--out", str(out), "--k", "50"]
    if system == "dense":
        args += ["--param", "backend=onnx"]
    return subprocess.run(args, env=_env(cache), capture_output=True, text=True, timeout=300, **kw)


def _cache_cmd(cache: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", "cache", *args], env=_env(cache), capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    root = tmp_path_factory.mktemp("warm")
    ds = _dataset(root, 300)
    cache = root / "cache"
    for system in ("dense", "bm25"):
        r = _retrieve(ds, cache, root / f"{system}.trec", system)
        assert r.returncode == 0, r.stderr
    return ds, cache, root


def _doc_shards(cache: Path) -> list[Path]:
    """The embedding shards' vector files, largest first (the 256-document shard)."""
    files = list((cache / "embeddings").glob("*/*.vec.npy"))
    return sorted(files, key=lambda p: (-p.stat().st_size, p.name))


def _flip(p: Path) -> None:
    b = bytearray(p.read_bytes())
    for j in range(200, 264):
        b[-j] ^= 0x5A
    p.write_bytes(bytes(b))


def _scramble(p: Path) -> None:
    a = np.load(p)
    a[::3] = a[::3, ::-1].copy()  # finite, unit norm, wrong
    np.save(p, a)


INJECT = {
    "flipped-bytes": _flip,
    "scrambled-finite": _scramble,
    "truncated": lambda p: p.write_bytes(p.read_bytes()[:1000]),
    "zero-length": lambda p: p.write_bytes(b""),
    "wrong-dtype": lambda p: np.save(p, np.load(p).astype(np.float64)),
    "missing-keys-file": lambda p: Path(str(p).replace(".vec.npy", ".keys.npy")).unlink(),
}


@pytest.mark.parametrize("name", list(INJECT))
def test_damaged_embeddings_give_the_clean_run(warm, tmp_path, name):
    ds, clean_cache, root = warm
    cache = tmp_path / "cache"
    shutil.copytree(clean_cache, cache)
    INJECT[name](_doc_shards(cache)[0])
    if name != "missing-keys-file":  # a shard without its commit marker is simply not there: nothing to report
        v = _cache_cmd(cache, "verify")
        assert v.returncode == 1, v.stdout + v.stderr
        assert "DAMAGED embedding shard" in v.stderr and "Traceback" not in v.stderr
    r = _retrieve(ds, cache, tmp_path / "run.trec")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "run.trec").read_bytes() == (root / "dense.trec").read_bytes()
    if name != "missing-keys-file":
        assert r.stderr.count("is damaged") == 1, r.stderr
        assert "Traceback" not in r.stderr
    v = _cache_cmd(cache, "verify")
    assert v.returncode == 0 and "all intact" in v.stdout, v.stdout + v.stderr


def test_damaged_bm25_index_is_rebuilt(warm, tmp_path):
    ds, clean_cache, root = warm
    cache = tmp_path / "cache"
    shutil.copytree(clean_cache, cache)
    files = sorted(p for p in (cache / "indexes" / "bm25").rglob("*") if p.is_file() and p.suffix == ".npy")
    _flip(max(files, key=lambda p: p.stat().st_size))
    r = _retrieve(ds, cache, tmp_path / "run.trec", "bm25")
    assert r.returncode == 0 and r.stderr.count("is damaged") == 1, r.stderr
    assert (tmp_path / "run.trec").read_bytes() == (root / "bm25.trec").read_bytes()


def test_verify_repair_info_and_clear(warm, tmp_path):
    _, clean_cache, _ = warm
    cache = tmp_path / "cache"
    shutil.copytree(clean_cache, cache)
    _flip(_doc_shards(cache)[0])
    rep = _cache_cmd(cache, "verify", "--repair")
    assert rep.returncode == 0 and "removed" in rep.stdout, rep.stdout + rep.stderr
    assert _cache_cmd(cache, "verify").returncode == 0
    info = _cache_cmd(cache, "info")
    assert info.returncode == 0 and "embeddings" in info.stdout and "bm25" in info.stdout
    # info and verify count the same entries (verify adds how many files it checked inside them)
    n_info = int(re.search(r"^(\d+) entries,", info.stdout, re.M).group(1))
    n_verify = int(re.search(r": (\d+) entries \(\d+ embedding shards and indexes\) checked",
                             _cache_cmd(cache, "verify").stdout).group(1))
    assert n_info == n_verify > 0
    bad = _cache_cmd(cache, "clear", "--older-than", "soon")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--older-than" in bad.stderr
    cl = _cache_cmd(cache, "clear", "--kind", "bm25")
    assert cl.returncode == 0 and "deleted 1 entries" in cl.stdout
    assert not (cache / "indexes" / "bm25").exists() or not any((cache / "indexes" / "bm25").iterdir())


def test_sigkill_while_encoding_resumes_to_the_clean_run(tmp_path):
    ds = _dataset(tmp_path, 600, seed=1)
    clean = _retrieve(ds, tmp_path / "clean-cache", tmp_path / "clean.trec")
    assert clean.returncode == 0, clean.stderr
    cache = tmp_path / "cache"
    args = ["hcrbench", "retrieve", "--dataset", str(ds), "--system", "dense", "--param", "backend=onnx",
            "--out", str(tmp_path / "run.trec"), "--k", "50"]
    proc = subprocess.Popen(args, env=_env(cache), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if list((cache / "embeddings").glob("*/*.keys.npy")):
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.01)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "the encode finished before it could be killed"
    done = len(list((cache / "embeddings").glob("*/*.keys.npy")))
    assert 1 <= done < 3  # 600 documents are stored in 3 shards of up to 256
    assert not (tmp_path / "run.trec").exists()
    again = _retrieve(ds, cache, tmp_path / "run.trec")
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "run.trec").read_bytes() == (tmp_path / "clean.trec").read_bytes()
    assert _cache_cmd(cache, "verify").returncode == 0
