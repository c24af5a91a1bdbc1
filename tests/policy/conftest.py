"""Policy tests: an isolated cache folder for every test (BM25 indexes are cached on disk)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HCRBENCH_CACHE", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("HCRBENCH_PROGRESS", "0")
