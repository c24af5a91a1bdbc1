"""What checksum verification of the cache costs on a warm dense run, and what it saves under fault injection.

1. Encodes the dataset once (cached), then times warm ``index + search`` runs alternately with verification on and
   off (off = the checks patched out, as before this feature), and prints the median ratio (goal: under 5%).
2. Repeats the issue's two fault injections on a copy of the warm cache (reverse the components of every third
   cached vector; flip bytes inside the vector files) and prints nDCG@10 clean / damaged-with-checks.

    python benchmarks/bench_cache_verify.py --dataset ../shared/datasets/scifact [--backend onnx|torch]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from hcrbench.data import cache as cache_mod
from hcrbench.data import load_beir
from hcrbench.errors import HcrbenchWarning
from hcrbench.metrics import evaluate
from hcrbench.retrieve import make_retriever


def run_once(ds, backend: str, k: int = 100):
    r = make_retriever("dense", backend=backend)
    t0 = time.perf_counter()
    r.index(ds.corpus)
    res = r.search(ds.queries, k)
    return time.perf_counter() - t0, res.run


def ndcg(ds, run) -> float:
    return evaluate(ds.qrels, {"r": run}, ["nDCG@10"]).means["r"]["nDCG@10"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="../shared/datasets/scifact")
    ap.add_argument("--split", default="test")
    ap.add_argument("--backend", default="onnx")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cache", default=os.environ.get("HCRBENCH_CACHE"))
    ap.add_argument("--damage-shards", type=int, default=0,
                    help="Damage only the first N shards (0 = every shard, as in the issue; each damaged shard is "
                         "re-encoded, so 0 re-encodes the whole corpus twice).")
    args = ap.parse_args()
    if args.cache:
        os.environ["HCRBENCH_CACHE"] = args.cache
    os.environ.setdefault("HCRBENCH_PROGRESS", "0")
    ds = load_beir(args.dataset, args.split)
    t_first, run = run_once(ds, args.backend)
    clean = ndcg(ds, run)
    print(f"{args.dataset} {args.backend}: first run {t_first:.1f}s, nDCG@10 {clean:.4f}")

    real_check, real_index = cache_mod.EmbeddingCache.check_shard, cache_mod.check_index
    on, off = [], []
    for _ in range(args.repeat):
        on.append(run_once(ds, args.backend)[0])
        cache_mod.EmbeddingCache.check_shard = lambda self, shard: None
        cache_mod.check_index = lambda folder: None
        try:
            off.append(run_once(ds, args.backend)[0])
        finally:
            cache_mod.EmbeddingCache.check_shard, cache_mod.check_index = real_check, real_index
    m_on, m_off = statistics.median(on), statistics.median(off)
    print(f"warm run, median of {args.repeat}: verified {m_on:.3f}s, unverified {m_off:.3f}s, "
          f"overhead {100 * (m_on / m_off - 1):+.1f}%")

    root = cache_mod.cache_root()
    for name in ("scrambled-finite", "flipped-bytes"):
        tmp = Path(tempfile.mkdtemp(prefix="hcrbench-fault-"))
        try:
            shutil.copytree(root / "embeddings", tmp / "embeddings")
            shards = sorted((tmp / "embeddings").glob("*/*.vec.npy"))
            for f in shards[: args.damage_shards or len(shards)]:
                if name == "scrambled-finite":
                    a = np.load(f)
                    a[::3] = a[::3, ::-1].copy()
                    np.save(f, a)
                else:
                    b = bytearray(f.read_bytes())
                    for j in range(len(b) // 3, len(b), max(1, len(b) // 50)):
                        b[j] ^= 0xFF
                    f.write_bytes(bytes(b))
            os.environ["HCRBENCH_CACHE"] = str(tmp)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", HcrbenchWarning)
                t, run = run_once(ds, args.backend)
            n_warn = sum(issubclass(w.category, HcrbenchWarning) for w in caught)
            print(f"{name}: nDCG@10 {ndcg(ds, run):.4f} (clean {clean:.4f}), {n_warn} damaged shards named, "
                  f"recomputed in {t:.1f}s")
        finally:
            os.environ["HCRBENCH_CACHE"] = str(root)
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
