"""BLAS on one thread while an experiment's cells share the cores among processes (the quickstart): in this
process, in every process spawned meanwhile, and not after; a thread count the user set is left alone."""

from __future__ import annotations

import multiprocessing
import os

import pytest

from hcrbench.retrieve.runtime import BLAS_THREAD_VARS, one_blas_thread_per_process


def _child_env(q) -> None:
    q.put({k: os.environ.get(k) for k in BLAS_THREAD_VARS})


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


@pytest.fixture
def no_user_setting(monkeypatch):
    for k in BLAS_THREAD_VARS:
        monkeypatch.delenv(k, raising=False)


def test_one_thread_here_and_in_spawned_processes_then_restored(no_user_setting):
    pytest.importorskip("threadpoolctl")
    import numpy  # noqa: F401 (its BLAS loaded before the block)

    outside = _blas_threads()
    with one_blas_thread_per_process():
        assert all(os.environ[k] == "1" for k in BLAS_THREAD_VARS)
        assert _blas_threads() and set(_blas_threads()) == {1}
        ctx = multiprocessing.get_context("spawn")
        q = ctx.Queue()
        p = ctx.Process(target=_child_env, args=(q,))
        p.start()
        got = q.get(timeout=60)
        p.join()
        assert got == {k: "1" for k in BLAS_THREAD_VARS}
    assert all(k not in os.environ for k in BLAS_THREAD_VARS)
    assert _blas_threads() == outside


def test_off_or_set_by_the_user_changes_nothing(no_user_setting, monkeypatch):
    with one_blas_thread_per_process(False):
        assert all(k not in os.environ for k in BLAS_THREAD_VARS)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    with one_blas_thread_per_process():
        assert os.environ["OPENBLAS_NUM_THREADS"] == "3" and "MKL_NUM_THREADS" not in os.environ
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"
