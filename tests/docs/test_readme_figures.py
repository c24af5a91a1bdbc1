"""The README's result block is generated from the run it quotes (scripts/readme_figures.py): its shape on a
tiny protocol run, --write then --check on a copy of the README, a changed figure caught with its line, and
(slow) a small quickstart whose block round-trips."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "readme_figures.py"
sys.path.insert(0, str(REPO / "tests" / "protocol"))
from protocol_bench import write_bench  # noqa: E402

CONFIG = '''
name = "tiny"
output_dir = "out"
metrics = ["nDCG@10"]
n_resamples = 100
family = "metric"
[dataset]
path = "{bench}"
split = "test"
[protocol]
system = "mine"
kill_baseline = "kill"
[[systems]]
name = "kill"
type = "runfile"
params = {{ path = "{kill}" }}
[[systems]]
name = "bm25"
type = "bm25"
[[systems]]
name = "mine"
type = "bm25"
params = {{ k1 = 1.5 }}
'''


def _env(tmp: Path) -> dict[str, str]:
    return dict(os.environ, HCRBENCH_HOME=str(tmp / "home"), HCRBENCH_PROGRESS="0")


def _script(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          check=False, timeout=120)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """A finished `hcrbench run` with a [protocol] table on the constructed benchmark (seconds)."""
    root = tmp_path_factory.mktemp("tiny")
    bench = write_bench(root / "bench")
    kill = root / "kill.trec"
    docs = [json.loads(x)["_id"] for x in (bench / "corpus.jsonl").read_text().splitlines()]
    qids = sorted({ln.split("\t")[0] for ln in (bench / "qrels" / "test.tsv").read_text().splitlines()[1:]})
    kill.write_text("".join(f"{q} Q0 {d} {i + 1} {50 - i}.0 k\n" for q in qids for i, d in enumerate(docs[:20])))
    (root / "exp.toml").write_text(CONFIG.format(bench=bench, kill=kill))
    r = subprocess.run(["hcrbench", "run", str(root / "exp.toml"), "--quiet"], capture_output=True, text=True,
                       env=_env(root), check=False, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return root / "out"


def test_the_block_has_the_rules_the_verdict_and_every_score_of_the_run(tiny, tmp_path):
    r = _script(str(tiny), env=_env(tmp_path))
    assert r.returncode == 0, r.stderr
    text = r.stdout
    v = json.loads((tiny / "verdicts.json").read_text())
    ev = json.loads((tiny / "eval.json").read_text())
    lines = text.splitlines()
    assert lines[0].startswith(f"Figures from `{tiny}/verdicts.json` and `eval.json`")
    rows = [ln for ln in lines if ln.startswith("| ") and not ln.startswith("| rule ")]
    n_rules = len(v["checkpoints"]) + len(v["hypotheses"])
    assert n_rules <= len(rows) <= n_rules + 1  # + the field's row
    assert f"Overall **{v['overall']}**" in text
    for name, run in ev["runs"].items():  # every system's score, as eval.json has it
        assert f"{name} {run['means']['nDCG@10']:.3f}" in text
    for bad in ("`hcrbench", "need(s)", "failure_rate", "vs_kill_baseline", "None", "p p "):
        assert bad not in text, bad
    assert _script(str(tiny), env=_env(tmp_path)).stdout == text  # same folder, same bytes


def test_write_then_check_and_a_changed_figure_is_caught_with_its_line(tiny, tmp_path):
    readme = tmp_path / "results.md"
    readme.write_text((REPO / "docs" / "results.md").read_text(encoding="utf-8"), encoding="utf-8")
    env = _env(tmp_path)
    assert _script(str(tiny), "--write", "--readme", str(readme), env=env).returncode == 0
    ok = _script(str(tiny), "--check", "--readme", str(readme), env=env)
    assert ok.returncode == 0, ok.stderr
    text = readme.read_text(encoding="utf-8")
    before, block = text.split("<!-- readme-figures:start -->\n", 1)
    tampered = before + "<!-- readme-figures:start -->\n" + block.replace("Overall **", "Overall (edited) **", 1)
    readme.write_text(tampered, encoding="utf-8")
    bad = _script(str(tiny), "--check", "--readme", str(readme), env=env)
    line = next(i for i, ln in enumerate(tampered.splitlines(), 1) if "Overall (edited)" in ln)
    assert bad.returncode == 1 and bad.stderr.startswith(f"{readme}:{line}: the result block differs")
    readme.write_text("no markers here\n", encoding="utf-8")
    none = _script(str(tiny), "--check", "--readme", str(readme), env=env)
    assert none.returncode == 2 and len(none.stderr.strip().splitlines()) == 1


def test_the_readme_has_the_verdict_block_and_the_results_page_the_result_block():
    for page, kind in (("README.md", "verdict"), ("docs/results.md", "figures")):
        text = (REPO / page).read_text(encoding="utf-8")
        start, end = f"<!-- readme-{kind}:start -->", f"<!-- readme-{kind}:end -->"
        assert text.count(start) == 1 and text.count(end) == 1, page
        assert text.index(start) < text.index(end), page
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "readme-figures:start" not in readme and "docs/results.md" in readme
    # the first screen: what it tells you, the two commands, then what the end of the main job looks like
    assert readme.index("make quickstart") < readme.index("<!-- readme-verdict:start -->") < readme.index("## Quick")


def test_the_verdict_block_is_the_consoles_last_lines_of_the_run(tiny, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text((REPO / "README.md").read_text(encoding="utf-8"), encoding="utf-8")
    env = _env(tmp_path)
    assert _script(str(tiny), "--write", "--readme", str(readme), env=env).returncode == 0
    assert _script(str(tiny), "--check", "--readme", str(readme), env=env).returncode == 0
    body = readme.read_text(encoding="utf-8").split("<!-- readme-verdict:start -->\n", 1)[1].split(
        "<!-- readme-verdict:end -->", 1)[0]
    v = json.loads((tiny / "verdicts.json").read_text(encoding="utf-8"))
    assert body.startswith("```text\n") and body.endswith("```\n")
    assert f"verdict for {v['system']}" in body and "bottom line:" in body and f"report: {tiny}/report.html" in body


@pytest.mark.slow
def test_a_small_quickstart_round_trips_through_write_and_check(tmp_path):
    out = tmp_path / "qs"
    env = _env(tmp_path)
    r = subprocess.run(["hcrbench", "quickstart", "--worlds", "1", "--encoder", "hash", "--out", str(out), "--seeds", "2",
                        "--n-trials", "80", "--resamples", "1000"], capture_output=True, text=True, env=env,
                       check=False, timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    readme = tmp_path / "results.md"
    readme.write_text((REPO / "docs" / "results.md").read_text(encoding="utf-8"), encoding="utf-8")
    assert _script(str(out), "--write", "--readme", str(readme), env=env).returncode == 0
    check = _script(str(out), "--check", "--readme", str(readme), env=env)
    assert check.returncode == 0, check.stderr
    v = json.loads((out / "verdicts.json").read_text())
    assert f"system under test {v['system']}" in readme.read_text(encoding="utf-8")
