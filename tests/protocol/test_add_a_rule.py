"""docs/extending.md's "How to add a protocol rule", followed step by step: the page's rule module, registered
through the page's entry point (a dist-info on PYTHONPATH, as ``pip install`` leaves it), appears in
verdicts.json (its row in its order, its operating characteristics), in the console's verdict block and in the
report, without another file touched."""

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


def _section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text[text.index("# How to add a protocol rule"):]


def _install(target: Path) -> tuple[str, str]:
    """The page's rule module and entry point in ``target``; returns (module, rule id)."""
    text = _section()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    entry = next(t for t in re.findall(r"```toml\n(.*?)```", text, re.S) if "hcrbench.rules" in t)
    name, value = re.search(r'\[project\.entry-points\."hcrbench\.rules"\]\n\s*(\S+) = "([^"]+)"',
                            re.sub(r"\n +", "\n", entry)).groups()
    (target / f"{value}.py").write_text(code, encoding="utf-8")
    info = target / f"{value}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {value}\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[hcrbench.rules]\n{name} = {value}\n", encoding="utf-8")
    return value, re.search(r'^ID = "([^"]+)"', code, re.M).group(1)


def test_the_pages_rule_is_judged_replayed_and_shown_everywhere(tmp_path):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    _module, rid = _install(plugins)
    bench = write_bench(tmp_path / "bench")
    cfg = tmp_path / "exp.toml"
    cfg.write_text('name = "a-rule"\noutput_dir = "out"\nmetrics = ["nDCG@10"]\nn_resamples = 200\n'
                   f'[dataset]\npath = "{bench}"\nsplit = "test"\n'
                   '[protocol]\nsystem = "bm25"\nkill_baseline = "bm25-flat"\nflat = "bm25"\n'
                   '[[systems]]\nname = "bm25"\ntype = "bm25"\n'
                   '[[systems]]\nname = "bm25-flat"\ntype = "bm25"\nparams = { k1 = 0.3, b = 0.1 }\n',
                   encoding="utf-8")
    env = dict(os.environ, HCRBENCH_HOME=str(tmp_path / "home"), HCRBENCH_PROGRESS="0")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(plugins), env.get("PYTHONPATH", "")) if p)
    r = subprocess.run(["hcrbench", "run", str(cfg)], cwd=tmp_path, capture_output=True, text=True, env=env,
                       check=False, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    v = json.loads((tmp_path / "out" / "verdicts.json").read_text(encoding="utf-8"))
    ids = [h["id"] for h in v["hypotheses"]]
    assert ids.index(rid) == ids.index("kill") - 1  # order 9.5: after the corpus-size rule, before the kill
    row = v["hypotheses"][ids.index(rid)]
    assert row["name"] == "Quality floor" and row["n"] and row["interval"]
    assert row["verdict"] in ("go", "no-go", "not decidable")
    op = v["operating"][rid]  # replayed like every built-in rule: a mean, normal construction
    assert op["margin"] == 0.05 and "normal" in op["constructions"] and op["reported"]
    assert row["evidence"]["operating"]["power_go"] == op["power_go"]
    assert "Quality floor" in r.stdout  # the console's table of rules
    from hcrbench.report.verdict_block import block_lines

    assert "quality floor" in "\n".join(str(x[1]) for x in block_lines(v))  # the verdict block, by its short name
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "Quality floor" in report or "quality floor" in report
