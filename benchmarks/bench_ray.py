"""Local vs Ray on this machine: a 12-cell experiment grid, and corpus encoding throughput per Ray Data actor.

    python benchmarks/bench_ray.py [--size small] [--encode-texts 300] [--json results.json]

Grid: Meridian (``hcrbench generate meridian --size SIZE --grow``), BM25 with 12 (k1, b) settings, run through the
console script three ways, each into a fresh output folder: ``--engine local``; ``--engine ray`` with no address
(starts and stops a private Ray: the cost a one-off user pays); ``--address`` of a Ray head already running on
127.0.0.1 (what a user with a cluster pays). Wall time of each, the sum of the cells' own seconds, ratios to local,
and whether the three eval.json files are byte-identical.
Encoding: the first N corpus texts encoded with the int8 ONNX MiniLM locally (``encode_cached``, no cache) and
on Ray Data with 1 and 2 actors (1 CPU each) into a fresh cache; texts/s in total and per actor. Pipeline
figures include actor start-up and model loads; the model-id probe and connection are timed separately.
"""

from __future__ import annotations

import argparse
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

#: The `ray` console script installed beside this interpreter (else the one on PATH).
_BESIDE = Path(sys.executable).with_name("ray")
RAY = str(_BESIDE) if _BESIDE.is_file() else (shutil.which("ray") or "ray")
GRID = [(k1, b) for k1 in (0.6, 0.9, 1.2, 1.5) for b in (0.3, 0.6, 0.9)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _config(out: str) -> str:
    text = f'name = "bench-ray"\noutput_dir = "{out}"\nn_resamples = 1000\nmetrics = ["nDCG@10", "R@100"]\n'
    text += '[dataset]\npath = "meridian"\nsplit = "test"\n'
    for k1, b in GRID:
        text += f'[[systems]]\nname = "bm25.k{k1}.b{b}"\ntype = "bm25"\nparams = {{ k1 = {k1}, b = {b} }}\n'
    return text


def _run(work: Path, name: str, args: list[str], env: dict[str, str]) -> dict:
    (work / f"{name}.toml").write_text(_config(f"out-{name}"))
    t0 = time.perf_counter()
    p = subprocess.run(["hcrbench", "run", f"{name}.toml", "--quiet", *args], cwd=work, env=env,
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{name} failed:\n{p.stderr[-3000:]}")
    manifest = json.loads((work / f"out-{name}" / "manifest.json").read_text())
    cells = sum(e["seconds"] for e in manifest["systems"].values())
    hosts = {e["execution"].get("node_id") or e["execution"]["hostname"] for e in manifest["systems"].values()}
    return {"wall_s": round(wall, 2), "cells_s": round(cells, 2), "eval": (work / f"out-{name}" / "eval.json")
            .read_bytes(), "where": len(hosts)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="small")
    ap.add_argument("--encode-texts", type=int, default=300)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="hcrb", dir="/tmp"))
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16),
           "HCRBENCH_PROGRESS": "0", "RAY_USAGE_STATS_ENABLED": "0", "HCRBENCH_CACHE": str(work / "cache")}
    os.environ.update({k: env[k] for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_USAGE_STATS_ENABLED")})
    head = None
    try:
        subprocess.run(["hcrbench", "generate", "meridian", "--size", args.size, "--grow",
                        "--out", str(work / "meridian")],
                       env=env, check=True, capture_output=True)
        res = {"machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}",
               "size": args.size, "cells": len(GRID)}
        res["local"] = _run(work, "local", ["--engine", "local"], env)
        res["ray_private"] = _run(work, "ray_private", ["--engine", "ray"], env)
        port = _free_port()
        t0 = time.perf_counter()
        head = subprocess.Popen([RAY, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
                                 "--num-cpus=2", "--include-dashboard=false", f"--temp-dir={work / 'ray'}",
                                 "--disable-usage-stats"], env=env, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        head.wait()
        res["ray_start_s"] = round(time.perf_counter() - t0, 2)
        res["ray_cluster"] = _run(work, "ray_cluster", ["--address", f"127.0.0.1:{port}"], env)
        same = res["local"]["eval"] == res["ray_private"]["eval"] == res["ray_cluster"]["eval"]
        res["eval_identical"] = same
        for k in ("local", "ray_private", "ray_cluster"):
            del res[k]["eval"]
        res["encoding"] = _encoding(work, port, args.encode_texts)
    finally:
        if head is not None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(head.pid, sig)
                time.sleep(2 if sig == signal.SIGTERM else 0)
        shutil.rmtree(work, ignore_errors=True)
    _print(res)
    if args.json:
        from hcrbench.data import atomic_write_text

        atomic_write_text(args.json, json.dumps(res, indent=2) + "\n")


def markdown(res: dict) -> str:
    """A --json file as docs/scale.md's two tables: the grid three ways, then encoding locally and on Ray Data."""
    base = res["local"]["wall_s"]
    out = [f"Meridian {res['size']}, {res['cells']} BM25 cells, each way into a fresh output folder through the "
           "console script:", "", "| run | wall s | sum of cells' seconds | × local |", "|---|---:|---:|---:|"]
    for key, label in (("local", "`--engine local`"),
                       ("ray_private", "`--engine ray` (private Ray started and stopped by the run)"),
                       ("ray_cluster", "`--address` of a running head (1 node, 2 CPUs)")):
        r = res[key]
        out.append(f"| {label} | {r['wall_s']:.2f} | {r['cells_s']:.2f} | {r['wall_s'] / base:.2f} |")
    e = res["encoding"]
    out += ["", f"`ray start --head` took {res['ray_start_s']:.2f} s; `eval.json` byte-identical across the three: "
                f"**{'yes' if res['eval_identical'] else 'no'}**.", "",
            f"Encoding the first {e['texts']} Meridian documents with the int8 ONNX MiniLM:", "",
            "| how | texts/s | per actor | max abs diff to local |", "|---|---:|---:|---:|",
            f"| local `encode_cached`, 1 ONNX thread | {e['local_1thread_tps']:.1f} | | |",
            f"| local `encode_cached`, 2 ONNX threads | {e['local_2thread_tps']:.1f} | | |"]
    for a in (1, 2):
        out.append(f"| Ray Data, {a} actor{'s' if a > 1 else ''} (1 CPU each) | {e[f'ray_{a}actor_tps']:.1f} | "
                   f"{e[f'ray_{a}actor_tps_per_actor']:.1f} | {e[f'ray_{a}actor_max_abs_diff']:.2g} |")
    out += ["", f"Ray Data figures cover the whole pipeline, actor start-up and model load included "
                f"({e['ray_1actor_s']:.0f} s and {e['ray_2actor_s']:.0f} s); the model-id probe took "
                f"{e['ray_1actor_probe_s']:.1f} s the first time and {e['ray_2actor_probe_s']:.1f} s the second; "
                f"connecting took {e['connect_s']:.1f} s."]
    return "\n".join(out)


def _encoding(work: Path, port: int, n: int) -> dict:
    import numpy as np

    from hcrbench.data.beir import read_corpus
    from hcrbench.experiment.execution import ExecutionConfig
    from hcrbench.experiment.ray_encode import encode_on_ray
    from hcrbench.experiment.ray_engine import connect, disconnect
    from hcrbench.retrieve.encoders import OnnxMiniLMEncoder, encode_cached

    corpus = read_corpus(work / "meridian" / "corpus.jsonl")
    texts = [corpus.full_text(i) for i in range(min(n, len(corpus)))]
    out: dict = {"texts": len(texts)}
    for threads in (1, 2):
        enc = OnnxMiniLMEncoder(threads=threads)
        t0 = time.perf_counter()
        local = encode_cached(enc, texts)
        out[f"local_{threads}thread_tps"] = round(len(texts) / (time.perf_counter() - t0), 1)
    t0 = time.perf_counter()
    connect(ExecutionConfig(engine="ray", address=f"127.0.0.1:{port}"))
    out["connect_s"] = round(time.perf_counter() - t0, 2)
    try:
        for actors in (1, 2):
            cache_dir = work / f"enc-cache-{actors}"
            st = encode_on_ray(texts, backend="onnx", cache_dir=str(cache_dir), actors=actors)
            out[f"ray_{actors}actor_tps"] = st["texts_per_second"]
            out[f"ray_{actors}actor_tps_per_actor"] = round(st["texts_per_second"] / actors, 1)
            out[f"ray_{actors}actor_s"] = st["encode_seconds"]
            out[f"ray_{actors}actor_probe_s"] = round(st["seconds"] - st["encode_seconds"], 2)
            from hcrbench.data.cache import EmbeddingCache

            got = encode_cached(OnnxMiniLMEncoder(), texts, cache=EmbeddingCache(st["model_id"], cache_dir))
            out[f"ray_{actors}actor_max_abs_diff"] = float(np.abs(np.stack(got) - np.stack(local)).max())
    finally:
        disconnect()
    return out


def _print(res: dict) -> None:
    base = res["local"]["wall_s"]
    print(f"machine: {res['machine']}; Meridian {res['size']}, {res['cells']} BM25 cells")
    print(f"{'run':<42}{'wall s':>8}{'cells s':>9}{'x local':>9}{'nodes':>7}")
    for key, label in (("local", "--engine local"), ("ray_private", "--engine ray (private Ray, start+stop)"),
                       ("ray_cluster", "--address (running head, 2 CPUs)")):
        r = res[key]
        print(f"{label:<42}{r['wall_s']:>8.2f}{r['cells_s']:>9.2f}{r['wall_s'] / base:>9.2f}{r['where']:>7}")
    print(f"ray start --head: {res['ray_start_s']:.2f}s; eval.json byte-identical across the three: "
          f"{res['eval_identical']}")
    e = res["encoding"]
    print(f"encoding {e['texts']} texts (ONNX int8 MiniLM): local {e['local_1thread_tps']} texts/s (1 thread), "
          f"{e['local_2thread_tps']} (2 threads); connect {e['connect_s']}s")
    for a in (1, 2):
        print(f"  Ray Data, {a} actor(s): {e[f'ray_{a}actor_tps']} texts/s ({e[f'ray_{a}actor_tps_per_actor']} per "
              f"actor) over {e[f'ray_{a}actor_s']}s incl. actor start-up; model-id probe "
              f"{e[f'ray_{a}actor_probe_s']}s; max |diff| to local {e[f'ray_{a}actor_max_abs_diff']:.2e}")


if __name__ == "__main__":
    main()
