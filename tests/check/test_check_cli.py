"""``hcrbench freeze`` / ``hcrbench check``: a degraded bm25 fails (exit 1), the frozen one passes (exit 0), a
vanished system fails, a changed dataset is an input error (exit 2) unless allowed.

The main flows go through the console script in a subprocess; the others call ``hcrbench.cli.main`` in-process
(the same code path after argument parsing; each subprocess spends ~4 s importing bm25s, scipy and pandas)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from hcrbench.cli import main

from .conftest import DAMAGED, GOOD, hcrbench, judged_test_queries, write_config


@pytest.fixture(scope="module")
def frozen(tmp_path_factory, meridian: Path) -> Path:
    """good.toml frozen to baseline.json (in one folder, so the baseline names its config relatively)."""
    root = tmp_path_factory.mktemp("frozen")
    write_config(root / "good.toml", meridian, GOOD)
    proc = hcrbench("freeze", "good.toml", "--out", "baseline.json", "--quiet", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert f"froze 2 systems on {judged_test_queries(meridian)} queries" in proc.stdout
    return root / "baseline.json"


def _bottom(proc) -> str:
    line = proc.stdout.strip().splitlines()[-1]
    assert line.startswith("check: "), proc.stdout
    return line


def test_baseline_file_holds_what_a_paired_test_needs(frozen: Path, meridian: Path):
    n = judged_test_queries(meridian)
    doc = json.loads(frozen.read_text())
    assert doc["schema"] == "hcrbench.baseline/1" and doc["suite"] == {"kind": "full"}
    assert doc["config"] == "good.toml" and len(doc["config_sha256"]) == 64
    assert set(doc["dataset"]["files"]) == {"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"}
    bm25 = doc["systems"]["bm25"]
    assert bm25["params"] == {"k1": 0.9, "b": 0.4}
    per_query = bm25["per_query"]["nDCG@10"]
    assert len(per_query) == n == doc["dataset"]["n_queries"]
    assert sum(per_query.values()) / n == pytest.approx(bm25["means"]["nDCG@10"], abs=1e-12)
    assert doc["gate"] is None  # no gate.json in a plain run's folder


def test_check_passes_on_the_frozen_system(frozen: Path, tmp_path: Path, meridian: Path):
    # CONFIG from the baseline, which names it relative to itself: found from any working directory.
    proc = hcrbench("check", "--baseline", str(frozen), "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _bottom(proc) == "check: 2 of 2 systems within 0.02 of the baseline nDCG@10: PASS"
    assert "note:" not in proc.stdout  # same config, same dataset, same version
    n = judged_test_queries(meridian)
    assert re.search(rf"│ bm25 +│ +0\.\d{{4}} │ +0\.\d{{4}} │ \+0\.0000 │ +1\.0000 │ +{n} │", proc.stdout), proc.stdout


def test_check_fails_on_a_degraded_bm25_and_max_drop_sets_the_line(frozen: Path, tmp_path: Path, meridian: Path):
    cfg = write_config(tmp_path / "damaged.toml", meridian, DAMAGED)
    proc = hcrbench("check", str(cfg), "--baseline", str(frozen), "--json", str(tmp_path / "c.json"), "--quiet",
                    cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rows = {r["system"]: r for r in json.loads((tmp_path / "c.json").read_text())["systems"]}
    drop = -rows["bm25"]["delta"]
    assert drop > 0.02 and rows["bm25"]["status"] == "FAIL" and rows["bm25"]["p_drop"] < 0.05
    assert "note: the config differs from the one frozen" in proc.stdout
    assert rows["bm25-flat"]["status"] == "ok" and rows["bm25-flat"]["delta"] == 0.0
    assert re.fullmatch(rf"check: 1 of 2 systems within 0\.02 of the baseline nDCG@10; bm25 dropped "
                        rf"{drop:.3f} nDCG@10 \(p = [0-9.e-]+\): FAIL", _bottom(proc)), _bottom(proc)
    assert main(["check", str(cfg), "--baseline", str(frozen), "--max-drop", f"{drop + 0.002:.4f}", "--quiet"]) == 0


def _main(args: list[str], capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(args)
    except SystemExit as e:
        code = int(e.code)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_system_that_disappeared_fails(frozen: Path, tmp_path: Path, meridian: Path, capsys):
    cfg = write_config(tmp_path / "fewer.toml", meridian, {"bm25": GOOD["bm25"]})
    code, out, _ = _main(["check", str(cfg), "--baseline", str(frozen), "--quiet"], capsys)
    assert code == 1, out
    assert out.strip().splitlines()[-1] == ("check: 1 of 2 systems within 0.02 of the baseline nDCG@10; "
                                            "bm25-flat is gone: FAIL")


def test_a_changed_dataset_is_an_input_error_unless_allowed(frozen: Path, tmp_path: Path, meridian: Path, capsys):
    data = tmp_path / "meridian-edited"
    shutil.copytree(meridian, data)
    qrels = data / "qrels" / "test.tsv"
    lines = qrels.read_text().splitlines(keepends=True)
    gone = lines[1].split("\t")[0] + "\t"  # the first test query's judgments gone
    qrels.write_text("".join(ln for ln in lines if not ln.startswith(gone)))
    cfg = write_config(tmp_path / "edited.toml", data, GOOD)
    code, _, err = _main(["check", str(cfg), "--baseline", str(frozen)], capsys)  # with progress lines
    assert code == 2 and "Traceback" not in err
    line, = err.strip().splitlines()  # refused before any system ran: no progress line came first
    assert line.startswith("hcrbench: error: ") and "dataset: the dataset changed" in line
    assert "qrels/test.tsv" in line and "--allow-dataset-change" in line
    code, out, err = _main(["check", str(cfg), "--baseline", str(frozen), "--allow-dataset-change", "--quiet"],
                           capsys)
    assert code == 0, out + err
    assert "compared on the queries both have" in out
    assert re.search(rf"│ bm25 .*│ +{judged_test_queries(meridian) - 1} │", out), out


def test_freeze_of_an_output_folder_equals_freeze_of_its_config(frozen: Path, tmp_path: Path, capsys):
    root = tmp_path / "exp"
    root.mkdir()
    shutil.copy(frozen.parent / "good.toml", root / "good.toml")
    assert main(["run", str(root / "good.toml"), "--quiet"]) == 0
    assert main(["freeze", str(root / "out"), "--out", str(root / "from-folder.json")]) == 0
    # Same results, same bytes: no timestamps or timings in a baseline; the config is named relative to it.
    assert (root / "from-folder.json").read_bytes() == frozen.read_bytes()
