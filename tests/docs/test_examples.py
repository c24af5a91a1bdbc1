"""Every example config in examples/ loads, builds its systems, and (slow suite) runs to the end as shipped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hcrbench.experiment.config import load_config
from hcrbench.experiment.runner import output_dir_of
from hcrbench.retrieve import make_retriever

from .readme_blocks import REPO, SHARED, scratch

CONFIGS = sorted((REPO / "examples").glob("*.toml"))


def test_there_are_example_configs():
    assert len(CONFIGS) >= 5


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_example_config_loads_and_its_systems_construct(config):
    cfg, _ = load_config(config)
    assert cfg.systems, config.name
    from hcrbench.experiment.reads import reads_of

    for i, s in enumerate(cfg.systems):
        src = reads_of(s, [x.name for x in cfg.systems[:i]])  # reads another system's output: made at run time
        make_retriever(s.type, **{k: v for k, v in s.params.items() if src is None or v != src})
    data = (config.parent / cfg.dataset.path).resolve() if cfg.dataset.path else None
    if data is not None and not cfg.dataset.generate:  # a dataset on disk must be there (../shared beside the repo)
        assert data.is_dir(), f"{config.name}: dataset {data} is missing"


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_example_config_runs_as_shipped(config, tmp_path):
    if not SHARED.is_dir():
        pytest.fail(f"{SHARED} is missing (CI puts ../shared beside the repository)")
    cwd = scratch(tmp_path)
    env = dict(os.environ, HCRBENCH_PROGRESS="0")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    r = subprocess.run(["hcrbench", "run", f"examples/{config.name}", "--quiet"], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=3600)
    assert r.returncode == 0, f"{config.name}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    path = cwd / "examples" / config.name
    cfg, _ = load_config(path)
    out = output_dir_of(cfg, path)
    ev = json.loads((out / "eval.json").read_text())
    assert set(ev["runs"]) == {s.name for s in cfg.systems}
