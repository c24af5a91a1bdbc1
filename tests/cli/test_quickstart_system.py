"""``hcrbench quickstart --system NAME`` through the console script: the plugin of docs/plugins.md, installed in
the test (a dist-info with its entry point on PYTHONPATH, as ``pip install`` would leave it), is the subject, and
the console ends with a verdict block about it."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "plugins.md"


def install_doc_plugin(target: Path) -> tuple[str, int]:
    """Write the page's example module and an ``hcrbench.retrievers`` entry point (from the page's pyproject) into
    ``target``; returns the entry point's name and the example's line count."""
    section = DOC.read_text(encoding="utf-8").split("## A complete plugin", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    toml = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    name, value = re.search(r'\[project\.entry-points\."hcrbench\.retrievers"\]\n(\S+) = "([^"]+)"', toml).groups()
    module = value.split(":")[0]
    (target / f"{module}.py").write_text(code, encoding="utf-8")
    info = target / f"{module}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[hcrbench.retrievers]\n{name} = {value}\n", encoding="utf-8")
    return name, len(code.strip().splitlines())


def _env(tmp_path: Path, plugin_dir: Path | None = None) -> dict[str, str]:
    env = dict(os.environ, HCRBENCH_HOME=str(tmp_path / "home"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(plugin_dir or ""), env.get("PYTHONPATH", "")) if p)
    env.pop("HCRBENCH_PROGRESS", None)  # stderr is a pipe: the logged job's plain lines
    return env


def test_the_page_documents_the_types_and_a_short_complete_example(tmp_path):
    text = DOC.read_text(encoding="utf-8")
    for t in ("`Corpus`", "`Queries`", "`Run`", "`Costs`", "`RunResult`", "hcrbench.retrievers", "runfile:PATH"):
        assert t in text, t
    name, n = install_doc_plugin(tmp_path)
    assert name == "tfidf" and n <= 30


def test_a_system_that_is_not_there_is_one_line_and_exit_2(tmp_path):
    r = subprocess.run(["hcrbench", "quickstart", "--worlds", "1", "--system", "no-such-retriever", "--encoder", "hash", "--out",
                        str(tmp_path / "qs")], capture_output=True, text=True, env=_env(tmp_path), check=False)
    assert r.returncode == 2 and "--system" in r.stderr and "docs/plugins.md" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "qs").exists()


def test_the_installed_plugin_is_found_and_a_broken_one_is_named_before_anything_runs(tmp_path):
    pytest.importorskip("sklearn", reason="the documented example uses scikit-learn (extra 'context')")
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    install_doc_plugin(plugins)
    (plugins / "tfidf_plugin.py").write_text("raise ImportError('broken on purpose')\n", encoding="utf-8")
    r = subprocess.run(["hcrbench", "quickstart", "--worlds", "1", "--system", "tfidf", "--encoder", "hash", "--out",
                        str(tmp_path / "qs")], capture_output=True, text=True, env=_env(tmp_path, plugins),
                       check=False)
    assert r.returncode == 2 and "broken on purpose" in r.stderr and not (tmp_path / "qs").exists()


@pytest.mark.slow
def test_the_documented_plugin_goes_through_the_quickstart_and_the_verdict_is_about_it(tmp_path):
    pytest.importorskip("sklearn", reason="the documented example uses scikit-learn (extra 'context')")
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    name, _ = install_doc_plugin(plugins)
    out = tmp_path / "qs"
    r = subprocess.run(["hcrbench", "quickstart", "--worlds", "1", "--system", name, "--encoder", "hash", "--out", str(out),
                        "--seeds", "2", "--n-trials", "80", "--resamples", "1000"],
                       capture_output=True, text=True, env=_env(tmp_path, plugins), check=False, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    # progress from the first second: the plan, then a line per step with the ETA (stderr is a pipe here)
    err = r.stderr.splitlines()
    assert err[0].startswith(f"quickstart: {name} against the field") and any(" · ETA " in ln for ln in err)
    # the last screen is the verdict block, about the plugin
    lines = r.stdout.splitlines()
    start = max(i for i, ln in enumerate(lines) if ln.startswith("verdict for "))
    block = lines[start:]
    assert start == 0 and len(block) <= 15, r.stdout  # the full tables are in console.txt, not on screen
    assert block[0].startswith(f"verdict for {name} (the system under test)")
    assert re.match(rf"bottom line: [A-Z -]+ for {name}\b", block[1]), block[1]
    assert block[-1] == f"report: {out / 'report.html'}"
    text = "\n".join(block)
    assert "failure_rate" not in text and "need(s)" not in text and "`" not in text
    assert "…" not in text  # every reason in whole sentences (the full text is in console.txt and the report)
    from hcrbench.report.verdict_block import WORDS

    rules = [ln for ln in block if ln.startswith("  ")]  # one vocabulary: each rule line opens with its word
    assert rules and all(any(ln[2:].startswith(w + " ") for w in WORDS) for ln in rules), rules
    v = json.loads((out / "verdicts.json").read_text(encoding="utf-8"))
    assert v["system"] == name
    best = v["vs_best_simple"]
    assert best["system"] == name and best["best"] in best["field"] and name not in best["field"]
    assert best["best_mean"] == max(best["field"].values())
    assert f"vs the best simple system, {best['best']}: {name} {best['subject_mean']:.3f}" in text
    # HCR stays in the field as a comparator; the full tables were written, not printed
    m = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert m["systems"][name]["type"] == name and "hcr" in m["systems"]
    assert "Protocol:" in (out / "console.txt").read_text(encoding="utf-8")
