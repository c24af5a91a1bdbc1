"""Fixtures of the protocol tests: the constructed benchmark (protocol_bench.py) and a private lock registry."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from protocol_bench import write_bench

os.environ.setdefault("HCRBENCH_PROGRESS", "0")


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    return write_bench(tmp_path / "bench")


@pytest.fixture(autouse=True)
def _own_lock_registry(tmp_path, monkeypatch):
    """Every test scores its splits in its own lock registry (never the user's ~/.hcrbench)."""
    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
