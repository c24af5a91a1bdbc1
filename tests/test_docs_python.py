"""docs/python.md runs: its ``python`` blocks are executed in order in one namespace, from the repository root.

The block that starts with ``# needs ranx`` runs only in the slow test (ranx compiles numba kernels on first use);
the fast test runs every other block and checks that exactly one was left for the slow test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "python.md"


def _blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


def _run(blocks: list[str], monkeypatch) -> dict:
    monkeypatch.chdir(REPO)
    namespace: dict = {"__name__": "docs_python"}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"docs/python.md block {i + 1}", "exec"), namespace)
        except Exception as e:  # name the block that broke
            raise AssertionError(f"docs/python.md block {i + 1} failed: {type(e).__name__}: {e}") from e
    return namespace


def test_docs_python_runs_without_ranx(monkeypatch, capsys):
    blocks = _blocks()
    fast = [b for b in blocks if not b.startswith("# needs ranx")]
    assert len(blocks) >= 8 and len(blocks) - len(fast) == 1
    ns = _run(fast, monkeypatch)
    out = capsys.readouterr().out
    assert "| run | nDCG@10 |" in out and "Run('bm25': 300 queries" in out
    assert ns["result"].means["bm25"]["nDCG@10"] > ns["result"].means["bm25_plain"]["nDCG@10"] > 0.5


@pytest.mark.slow  # ranx's numba JIT: 20-40 s on 2 cores
def test_docs_python_runs_every_block(monkeypatch):
    ns = _run(_blocks(), monkeypatch)
    assert "ranx" in ns and ns["back"].means["bm25"]["nDCG@10"] == ns["result"].means["bm25"]["nDCG@10"]
