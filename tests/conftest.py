"""Shared test fixtures: paths to ../shared (read-only data beside the repo)."""

from __future__ import annotations

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
