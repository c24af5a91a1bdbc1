"""A small Meridian (generated once per session) and bm25-only experiment configs for freeze / check tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

GOOD = {"bm25": "{ k1 = 0.9, b = 0.4 }", "bm25-flat": "{ k1 = 5.0, b = 1.0 }"}
#: The frozen bm25 damaged: almost no term-frequency saturation and no length normalisation (nDCG@10 drops ~0.06 on Meridian 3 small, ~0.12 on Meridian 4).
DAMAGED = {"bm25": "{ k1 = 0.01, b = 0.0 }", "bm25-flat": "{ k1 = 5.0, b = 1.0 }"}


def write_config(path: Path, dataset: Path, systems: dict[str, str], *, output_dir: str = "out",
                 metrics: str = '["nDCG@10", "R@100"]') -> Path:
    text = (f'name = "check-test"\noutput_dir = "{output_dir}"\nseed = 0\nmetrics = {metrics}\n'
            f'n_resamples = 200\nk = 100\n[dataset]\npath = "{dataset}"\nsplit = "test"\n')
    for name, params in systems.items():
        text += f'[[systems]]\nname = "{name}"\ntype = "bm25"\nparams = {params}\n'
    path.write_text(text)
    return path


def judged_test_queries(dataset: Path) -> int:
    """How many queries the dataset's test qrels judge (what freeze and check score), read from the files, so the
    tests follow the corpus the generator writes (Meridian 4's world changed the small split from 59 to 58)."""
    rows = (dataset / "qrels" / "test.tsv").read_text().splitlines()[1:]
    return len({r.split("\t")[0] for r in rows if r.strip()})


def hcrbench(*args: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    """The real console script, as a user runs it."""
    return subprocess.run(["hcrbench", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "HCRBENCH_PROGRESS": "0"})


@pytest.fixture(scope="session")
def meridian(tmp_path_factory, meridian_copy) -> Path:
    out = tmp_path_factory.mktemp("meridian-check") / "meridian-small"
    meridian_copy(out, size="small", seed=0, grow=True)
    return out


@pytest.fixture(autouse=True)
def _own_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "hcrbench-home"))  # the split-lock registry


@pytest.fixture
def good_config(tmp_path: Path, meridian: Path) -> Path:
    return write_config(tmp_path / "good.toml", meridian, GOOD)


@pytest.fixture
def damaged_config(tmp_path: Path, meridian: Path) -> Path:
    return write_config(tmp_path / "damaged.toml", meridian, DAMAGED)
