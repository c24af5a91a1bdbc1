"""The README's commands run as written (and docs blocks marked runnable), in a scratch folder beside ../shared.

The default suite runs every block not marked slow or skip; the slow suite (``-m slow``) runs all of them in
order. A block that fails names its file and line. See :mod:`readme_blocks` for the markers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .readme_blocks import REPO, SHARED, blocks, run_block, scratch

DOCS = sorted((REPO / "docs").glob("*.md"))


def _file_blocks(path: Path):
    return blocks(path, "run" if path.name == "README.md" else "skip")


def _run_all(path: Path, tmp_path: Path, modes: set[str]) -> int:
    if not SHARED.is_dir():
        pytest.fail(f"{SHARED} is missing: the README's commands read ../shared (CI puts it beside the repo)")
    cwd = scratch(tmp_path)
    ran = 0
    for b in _file_blocks(path):
        if b.mode not in modes:
            continue
        r = run_block(b, cwd)
        assert r.returncode == 0, (f"{b.where} ({b.lang}) exited {r.returncode}\n--- block\n{b.code}"
                                   f"--- stdout (tail)\n{r.stdout[-3000:]}\n--- stderr (tail)\n{r.stderr[-3000:]}")
        ran += 1
    return ran


def test_every_readme_block_is_marked_or_runs_by_default():
    found = _file_blocks(REPO / "README.md")
    assert sum(b.mode == "run" for b in found) >= 5, "the README's quick tour has runnable blocks"
    for b in found:
        assert b.mode != "skip" or b.reason, b.where


def test_readme_fast_blocks_run(tmp_path):
    assert _run_all(REPO / "README.md", tmp_path, {"run"}) >= 5


@pytest.mark.slow
def test_readme_all_blocks_run_in_order(tmp_path):
    assert _run_all(REPO / "README.md", tmp_path, {"run", "slow"}) >= 5


@pytest.mark.parametrize("page", [p for p in DOCS if any(b.mode == "run" for b in _file_blocks(p))],
                         ids=lambda p: p.name)
def test_docs_blocks_marked_runnable_run(page, tmp_path):
    assert _run_all(page, tmp_path, {"run"}) >= 1
