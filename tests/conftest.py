"""Shared test fixtures: paths to ../shared (read-only data beside the repo), and copies of generated Meridian
worlds."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():  # CI always has it; say so loudly rather than skipping silently
        pytest.fail(f"../shared not found at {SHARED}: tests need the shared data beside the repo")
    return SHARED


@pytest.fixture(scope="session")
def conformance_dir(shared_dir: Path) -> Path:
    return shared_dir / "conformance" / "trec_eval"


def built_once(factory: pytest.TempPathFactory, name: str, build) -> Path:
    """The folder ``build(folder)`` wrote, built once per test run and shared by its xdist workers: read it or copy
    it, never write into it. A finished folder is renamed into place whole, so a worker sees all of it or none (two
    workers racing both build it; the first rename wins). ``name`` must say everything the build depends on, and the
    build must not write its own path into the folder (it is built elsewhere and renamed)."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # this run's root, shared by its workers (with -n 0 the parent outlives the run)
    root = base / "built-once"
    root.mkdir(exist_ok=True)
    done = root / name
    if not (done / ".built").is_file():
        work = Path(tempfile.mkdtemp(dir=root, prefix=f"{name}.part-"))
        try:
            build(work / "f")
            (work / "f" / ".built").touch()
            with contextlib.suppress(OSError):  # another worker renamed the same folder into place first
                os.rename(work / "f", done)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return done


@pytest.fixture(scope="session")
def meridian_copy(tmp_path_factory: pytest.TempPathFactory):
    """``meridian_copy(out, size, seed=, n_queries=, grow=)`` writes what ``generate_meridian`` with those arguments
    writes into ``out`` and returns its manifest, for tests that read a world rather than test the generator.

    Why: a small world costs seconds of CPU and a dozen test files read the same few worlds. Each set of arguments
    is generated once per test run (:func:`built_once`) and copied from there, so no test can change what another
    reads. Tests of generation itself (bytes per seed, growth, errors, the command line) call the generator."""
    from hcrbench.synth.generate import DESIGN_QUERIES, generate_meridian

    def make(out: str | Path, size: str | int = "small", seed: int = 0, n_queries: int = DESIGN_QUERIES,
             grow: bool = False) -> dict:
        src = built_once(tmp_path_factory, f"meridian-{size}-seed{seed}-q{n_queries}-{'grow' if grow else 'fixed'}",
                         lambda f: generate_meridian(f, size, seed=seed, n_queries=n_queries, grow=grow))
        shutil.copytree(src, out, dirs_exist_ok=True, copy_function=shutil.copy,
                        ignore=shutil.ignore_patterns(".built"))
        return json.loads((Path(out) / "manifest.json").read_text())

    return make
