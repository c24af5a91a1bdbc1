"""The ``root`` fixture of the fault-injection tests (helpers live in faultkit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from faultkit import config_text, make_dataset


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """tmp_path with data/ (BEIR), good.trec, poor.trec and a.toml (experiment "exp-a" -> out/)."""
    make_dataset(tmp_path / "data")
    (tmp_path / "good.trec").write_text("".join(f"q{i} Q0 d{i} 1 2.0 g\nq{i} Q0 d{i + 8} 2 1.0 g\n"
                                                for i in range(8)))
    (tmp_path / "poor.trec").write_text("".join(f"q{i} Q0 d{i + 8} 1 2.0 p\nq{i} Q0 d{i} 2 1.0 p\n"
                                                for i in range(8)))
    (tmp_path / "a.toml").write_text(config_text("exp-a", tmp_path))
    return tmp_path
