"""What an encoder's numbers depend on besides its weights, so cached vectors are only reused where they would be
recomputed bit for bit.

A model's vectors are a function of the weights *and* of the software and CPU kernels that run them: another
onnxruntime or torch release, or a CPU with other vector instructions (AVX2 vs AVX-512 / VNNI / AMX kernels),
gives vectors that differ in the last bits. A cache keyed by the model alone would hand a run whatever an earlier
run on other software computed, mixed with what this one computes for the texts it lacks, so the same command
would give other numbers depending on what the cache held. :func:`cache_identity` is the key the embedding caches
use: the encoder's ``cache_id`` (model id + :func:`runtime_identity`) when it has one, else its ``model_id``.

:func:`vectors_digest` names the exact vectors an index (HCR's tree, RAPTOR's tree, an IVF index) was built from,
so a cached index is never reused over other vectors.
"""

from __future__ import annotations

import contextlib
import hashlib
import platform
from typing import Any

import numpy as np

#: CPU features that select different float kernels in onnxruntime's MLAS, torch and BLAS libraries.
_KERNEL_FLAGS = ("sse4_1", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                 "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16", "asimd", "sve")


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity on Linux, else the machine's count)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: Set by the local engine in its worker processes: the cores each may use while the others run beside it.
CELL_CORES_VAR = "HCRBENCH_CELL_CORES"


def cell_cores() -> int:
    """The cores a system's own parallel work may use here (RAPTOR's clustering workers with ``n_jobs = 0``):
    this process's share (:data:`CELL_CORES_VAR`) when the local engine runs it beside other cells, else
    :func:`usable_cores`. Beside another cell on 2 cores, RAPTOR's two joblib workers cost 55 CPU-s where one
    process took 41 (each worker compiles UMAP's numba code again), and took the other cell's core."""
    import os

    got = os.environ.get(CELL_CORES_VAR, "")
    return max(1, min(int(got), usable_cores())) if got.isdigit() else usable_cores()


def cpu_kernels() -> str:
    """``x86_64-1a2b3c4d``: the machine type and a digest of the CPU features that pick float kernels."""
    flags: set[str] = set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(("flags", "Features")):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:  # not Linux: the machine type alone
        pass
    have = ",".join(f for f in _KERNEL_FLAGS if f in flags)
    return f"{platform.machine() or 'cpu'}-{hashlib.sha256(have.encode()).hexdigest()[:8]}"


def runtime_identity(library: str, device: str = "cpu") -> str:
    """``onnxruntime-1.32.0@x86_64-1a2b3c4d``: a runtime's name and version and the kernels it runs on (the
    device name for an accelerator)."""
    from importlib import metadata

    try:
        version = metadata.version(library)
    except metadata.PackageNotFoundError:
        version = "unknown"
    where = cpu_kernels() if device == "cpu" else device
    return f"{library}-{version}@{where}"


def cache_identity(encoder: Any) -> str:
    """The key ``encoder``'s vectors are cached under: its ``cache_id`` when it has one, else its ``model_id``."""
    return str(getattr(encoder, "cache_id", None) or encoder.model_id)


def vectors_digest(x: np.ndarray) -> str:
    """sha256 (16 hex) of an array's dtype, shape and bytes."""
    a = np.ascontiguousarray(x)
    h = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes())
    return h.hexdigest()[:16]


@contextlib.contextmanager
def faiss_one_thread():
    """faiss on one OpenMP thread inside the block (its previous count restored after).

    faiss's k-means is not independent of its thread count: HCR's depth-2 tree over 12,873 hashed chunk vectors
    (k = 24) came out different with 1 and 2 threads (measured; depth 3 did not), so trees and IVF centroids are
    trained on one thread, whatever ``OMP_NUM_THREADS`` says.
    """
    import faiss

    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)


#: The variables BLAS libraries read when they load (a process spawned inside the block inherits them).
BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def one_blas_thread_per_process(on: bool = True):
    """BLAS (OpenBLAS / MKL) on one thread in this process and in every process it spawns inside the block; a
    no-op when ``on`` is false or the user set a thread count (:data:`BLAS_THREAD_VARS`). For processes that run
    beside other busy processes (the local engine's cells on several cores, the quickstart's prefetch): there the cores are already taken, and a BLAS thread waiting for
    its next product spins on a core another process needs. Measured on RAPTOR's clustering of a 500-document
    world on 2 busy cores: 163 CPU-s with two BLAS threads, 41 with one, the same tree. The numbers do not
    change: a product's output is split across threads, never a sum.

    The libraries loaded now are held through threadpoolctl (when installed) and restored after; the block sets
    :data:`BLAS_THREAD_VARS`, so a spawned process and a BLAS library first loaded inside the block (scipy's own
    OpenBLAS) start with one thread; such a library keeps it after."""
    import os

    if not on or any(os.environ.get(k) for k in BLAS_THREAD_VARS):
        yield
        return
    os.environ.update({k: "1" for k in BLAS_THREAD_VARS})
    try:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            limits = contextlib.nullcontext()
        else:
            limits = threadpool_limits(limits=1, user_api="blas")
        with limits:
            yield
    finally:
        for k in BLAS_THREAD_VARS:
            os.environ.pop(k, None)
