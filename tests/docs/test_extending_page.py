"""docs/extending.md, followed step by step: the page's retriever module, registered through the page's entry point
(a dist-info on PYTHONPATH, as ``pip install`` leaves it), with the page's ``[[systems]]`` entry, runs through
``hcrbench run``, and its declared traits are what the protocol reads (a flat first stage joins the flat field)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "extending.md"
sys.path.insert(0, str(REPO / "tests" / "protocol"))
from protocol_bench import write_bench  # noqa: E402


def _install(target: Path) -> tuple[str, str]:
    """The page's module and entry point in ``target``; returns (entry name, the page's [[systems]] block)."""
    text = PAGE.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    tomls = re.findall(r"```toml\n(.*?)```", text, re.S)
    entry = next(t for t in tomls if "hcrbench.retrievers" in t)
    systems = next(t for t in tomls if "[[systems]]" in t)
    name, value = re.search(r'\[project\.entry-points\."hcrbench\.retrievers"\]\n\s*(\S+) = "([^"]+)"',
                            re.sub(r"\n +", "\n", entry)).groups()
    module = value.split(":")[0]
    (target / f"{module}.py").write_text(code, encoding="utf-8")
    info = target / f"{module}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[hcrbench.retrievers]\n{name} = {value}\n", encoding="utf-8")
    return name, re.sub(r"(?m)^ +", "", systems)


def test_the_pages_retriever_runs_and_its_traits_put_it_in_the_flat_field(tmp_path):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    name, systems = _install(plugins)
    bench = write_bench(tmp_path / "bench")
    cfg = tmp_path / "exp.toml"
    cfg.write_text(f'name = "extending"\noutput_dir = "out"\nmetrics = ["nDCG@10"]\nn_resamples = 200\n'
                   f'[dataset]\npath = "{bench}"\nsplit = "test"\n'
                   f'[protocol]\nsystem = "{name}"\nkill_baseline = "bm25"\nflat = "auto"\n'
                   f'[[systems]]\nname = "bm25"\ntype = "bm25"\n' + systems, encoding="utf-8")
    env = dict(os.environ, HCRBENCH_HOME=str(tmp_path / "home"), HCRBENCH_PROGRESS="0")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(plugins), env.get("PYTHONPATH", "")) if p)
    r = subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], cwd=tmp_path, capture_output=True, text=True,
                       env=env, check=False, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["systems"][name]["type"] == name and manifest["systems"][name]["params"] == {"lowercase": True}
    v = json.loads((tmp_path / "out" / "verdicts.json").read_text(encoding="utf-8"))
    assert v["field"]["candidates"] == ["bm25", name]  # stage = "first", no tree: a flat first stage
    rows = {x["id"]: x for x in [*v["checkpoints"], *v["hypotheses"]]}
    assert rows["easy_routing"]["text"] == f"not run: {name} writes no routing log"  # tree = False

    bad = cfg.read_text(encoding="utf-8").replace("lowercase = true", "lowercase = true, lowercse = false")
    cfg.write_text(bad.replace('output_dir = "out"', 'output_dir = "out-bad"'), encoding="utf-8")
    r = subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], cwd=tmp_path, capture_output=True, text=True,
                       env=env, check=False, timeout=600)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "lowercse" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
