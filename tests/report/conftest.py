"""A realistic experiment folder, made at test time by the real tools: Meridian small, ``hcrbench run`` with
three BM25 systems and token budgets, ``hcrbench gate --controls --baseline --calibration --json``; plus two
tiny committed files, ``tree_metrics.json`` (``hcrbench tree-metrics --json`` of HCR with the hash encoder on
Meridian small) and a hand-written ``verdicts.json`` (the protocol writes the real one). Every query text is
then given ``<script>`` and ``&`` so the report's escaping is tested on corpus text."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
MARK = " <script>window.__pwned = 1</script> & co"

CONFIG = """name = "report-fixture"
output_dir = "exp"
seed = 0
metrics = ["nDCG@10", "R@100"]
baseline = "bm25"
k = 100
n_resamples = 1000
strata = ["category"]
budgets = [200, 400]

[context]
candidates = 50

[dataset]
path = "data"
split = "test"

[[systems]]
name = "bm25"
type = "bm25"
params = { k1 = 0.9, b = 0.4 }

[[systems]]
name = "bm25-k1.5"
type = "bm25"
params = { k1 = 1.5, b = 0.75 }

[[systems]]
name = "bm25-chunks128"
type = "bm25"
params = { k1 = 0.9, b = 0.4 }
chunking = { max_tokens = 128, overlap = 32, respect_sentences = true, structure_aware = true }

[[systems]]
name = "dense-hash"                       # model-free hashed bag of words: surely worse than BM25, so the fixture
type = "dense"                            # holds significant comparisons whatever the corpus seed draws
params = { backend = "hash" }
"""


def hcrbench(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    """The console script in a subprocess (what a user runs)."""
    res = subprocess.run(["hcrbench", *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "HCRBENCH_PROGRESS": "0"})
    if check and res.returncode != 0:
        raise AssertionError(f"hcrbench {' '.join(args)} exited {res.returncode}:\n{res.stdout}\n{res.stderr}")
    return res


@pytest.fixture(scope="session")
def experiment(tmp_path_factory: pytest.TempPathFactory, meridian_copy) -> Path:
    """The experiment folder (``.../exp``) with every report input; its dataset is ``../data``."""
    root = tmp_path_factory.mktemp("report")
    meridian_copy(root / "data", "small", seed=0, grow=True)
    (root / "exp.toml").write_text(CONFIG)
    hcrbench("run", "exp.toml", cwd=root)
    exp = root / "exp"
    runs = sorted(str(p.relative_to(root)) for p in (exp / "runs").glob("*.trec"))
    gate = hcrbench("gate", *runs, "--dataset", "data", "--controls", "--baseline", "bm25", "--calibration",
                    "exp/calibration.png", "--json", "exp/gate.json", "--n-trials", "50", "--n-resamples", "500",
                    cwd=root, check=False)
    assert gate.returncode in (0, 1), gate.stderr  # 1 = a run failed the gate: still a valid gate.json
    doc = json.loads((exp / "gate.json").read_text())
    doc["family"] = "Holm per system over (nDCG@10, strict R@5) against bm25"  # what the runner adds
    (exp / "gate.json").write_text(json.dumps(doc))
    for name in ("tree_metrics.json", "verdicts.json"):
        shutil.copy(DATA / name, exp / name)
    queries = root / "data" / "queries.jsonl"  # after the run: the report reads the texts when it is drawn
    lines = [json.loads(x) for x in queries.read_text().splitlines() if x.strip()]
    queries.write_text("".join(json.dumps({**q, "text": q["text"] + MARK}) + "\n" for q in lines))
    return exp


@pytest.fixture
def copy_of(experiment: Path, tmp_path: Path):
    """A fresh copy of the experiment folder (to damage or thin out), with the same dataset path."""
    def make(keep: tuple[str, ...] | None = None) -> Path:
        dest = tmp_path / "exp"
        shutil.copytree(experiment, dest, ignore=shutil.ignore_patterns("contexts", "curves", "report*"))
        if keep is not None:
            for p in dest.iterdir():
                if p.name not in keep:
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
        return dest
    return make


@pytest.fixture(scope="session")
def written(experiment: Path) -> dict[str, Path]:
    """The report of the experiment folder, written once for every test that only reads it."""
    from hcrbench.report.document import write_report

    return write_report(experiment)
