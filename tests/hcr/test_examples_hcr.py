"""The HCR example configs parse, and every system in them constructs (ablations are parameters, not copies)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hcrbench.experiment.config import load_config
from hcrbench.retrieve import make_retriever

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", ["hcr.toml", "hcr_hash.toml"])
def test_example_systems_construct(name):
    cfg, _ = load_config(EXAMPLES / name)
    types = {s.type for s in cfg.systems}
    assert "hcr" in types
    for s in cfg.systems:
        make_retriever(s.type, **s.params)
    hcr = [s for s in cfg.systems if s.type == "hcr"]
    assert {s.params.get("seed", 0) for s in hcr} >= {0, 1, 2}
    switches = {k for s in hcr for k in s.params}
    assert {"flat", "rerank", "mode", "links", "node_repr", "depth", "mmr_lambda"} <= switches
