"""``hcrbench report FOLDER`` through the console script: files, bottom line, "not run" list, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import hcrbench


def test_report_command_writes_files_and_ends_with_the_bottom_line(copy_of, tmp_path):
    folder = copy_of()
    res = hcrbench("report", str(folder), cwd=tmp_path)
    out = res.stdout.strip().splitlines()
    v = json.loads((folder / "verdicts.json").read_text())
    from hcrbench.protocol.words import plain

    assert any(line == f"bottom line: {v['overall']}: {plain(v['bottom_line'])}" for line in out)
    assert out[-1] == f"open {folder / 'report.html'}"
    assert "not run (no input for them): Corpus growth" in res.stdout
    for name in ("report.html", "report.md", "tables.tex"):
        assert (folder / name).is_file()


def test_report_command_without_verdicts_says_what_the_comparison_shows(copy_of, tmp_path):
    folder = copy_of(keep=("eval.json", "manifest.json", "per_query.parquet"))
    res = hcrbench("report", str(folder), cwd=tmp_path)
    line = next(x for x in res.stdout.splitlines() if x.startswith("bottom line:"))
    assert "bm25" in line and "verdicts.json is absent" in line
    assert "Verdict" in res.stdout.split("not run (no input for them):")[1].splitlines()[0]


def test_report_command_malformed_file_is_one_line_exit_2(copy_of, tmp_path):
    folder = copy_of()
    (folder / "tree_metrics.json").write_text("[1, 2]")
    res = hcrbench("report", str(folder), cwd=tmp_path, check=False)
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hcrbench: error:") and "tree_metrics.json" in lines[0]


def test_report_command_on_a_missing_folder_is_one_line_exit_2(tmp_path: Path):
    res = hcrbench("report", str(tmp_path / "nope"), cwd=tmp_path, check=False)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "nope" in res.stderr


def test_report_of_an_evaluate_json_alone(tmp_path: Path):
    """A folder holding only ``hcrbench evaluate --json``'s document: systems and ledger, the rest "not run"."""
    repo = Path(__file__).resolve().parents[2]
    hcrbench("evaluate", str(repo / "examples" / "cranfield.qrels"), str(repo / "examples" / "bm25.trec"),
             str(repo / "examples" / "bm25_stemmed.trec"), "--metrics", "nDCG@10,AP", "--json", "eval.json",
             cwd=tmp_path)
    res = hcrbench("report", str(tmp_path), cwd=tmp_path)
    assert "bottom line: " in res.stdout and "bm25_stemmed" in res.stdout
    html = (tmp_path / "report.html").read_text()
    assert '<section id="systems">' in html and '<section id="ledger">' in html
    assert '<section id="verdicts" class="notrun">' in html
