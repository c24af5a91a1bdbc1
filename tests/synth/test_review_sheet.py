"""review-sheet / review-score: a blind stratified sheet, and agreement scores checked against scikit-learn and
scipy (the sheet is filled programmatically here; the figures in the docs need a person)."""

from __future__ import annotations

import csv
import json
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

from hcrbench.synth import generate_meridian
from hcrbench.synth.checks.review import cohen_kappa, review_score


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("review") / "small"
    generate_meridian(out, "small", seed=2, grow=True)
    return out


def _sheet(folder: Path, tmp: Path, n: int = 30) -> Path:
    out = tmp / "sheet.csv"
    res = subprocess.run(["hcrbench", "review-sheet", str(folder), "--n", str(n), "--out", str(out)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "review-score" in res.stdout
    return out


def _rows(sheet: Path) -> list[dict]:
    with open(sheet, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _fill(sheet: Path, grades: list[int]) -> None:
    rows = _rows(sheet)
    for r, g in zip(rows, grades, strict=True):
        r["human_grade"] = str(g)
        r["answer_ok"] = "y" if r["answer"] else ""
    with open(sheet, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_sheet_is_blind_stratified_and_deterministic(folder, tmp_path):
    sheet = _sheet(folder, tmp_path)
    rows = _rows(sheet)
    key = json.loads((tmp_path / "sheet.key.json").read_text())["rows"]
    assert len(rows) == len(key) and "grade" not in rows[0]
    cats = {k["category"] for k in key}
    assert len({r["query_id"] for r in rows}) == 30 and len(cats) == 9  # every judged category
    assert {k["grade"] for k in key} == {0, 1, 2, 3}
    again = tmp_path / "again"
    again.mkdir()
    assert _sheet(folder, again).read_bytes() == sheet.read_bytes()


def test_perfect_and_noisy_readers_score_like_sklearn_and_scipy(folder, tmp_path):
    sheet = _sheet(folder, tmp_path)
    gen = [k["grade"] for k in json.loads((tmp_path / "sheet.key.json").read_text())["rows"]]
    _fill(sheet, gen)
    res = subprocess.run(["hcrbench", "review-score", str(sheet)], capture_output=True, text=True)
    assert res.returncode == 0 and "labels hold" in res.stdout, res.stdout + res.stderr
    s = review_score(sheet)
    assert s.kappa == pytest.approx(1.0) and s.tau == pytest.approx(1.0) and s.answer_ok == 1.0
    r = random.Random(0)
    noisy = [g if r.random() < 0.6 else r.randrange(4) for g in gen]
    _fill(sheet, noisy)
    s = review_score(sheet)
    assert s.kappa == pytest.approx(cohen_kappa_score(noisy, gen, labels=[0, 1, 2, 3]))
    assert s.kappa_linear == pytest.approx(cohen_kappa_score(noisy, gen, labels=[0, 1, 2, 3], weights="linear"))
    assert s.tau == pytest.approx(kendalltau(noisy, gen).statistic)
    assert s.tau < 1.0


def test_kappa_matches_sklearn_on_random_ratings():
    r = np.random.default_rng(0)
    for _ in range(20):
        a, b = r.integers(0, 4, 40), r.integers(0, 4, 40)
        assert cohen_kappa(a, b, [0, 1, 2, 3]) == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2, 3]))


def test_bad_grade_is_one_line_exit_2(folder, tmp_path):
    sheet = _sheet(folder, tmp_path)
    rows = _rows(sheet)
    _fill(sheet, [1] * len(rows))
    text = sheet.read_text().splitlines()
    text[3] = text[3].replace(",1,", ",7,", 1) if ",1,y," not in text[3] else text[3].replace(",1,y,", ",7,y,")
    sheet.write_text("\n".join(text) + "\n")
    res = subprocess.run(["hcrbench", "review-score", str(sheet)], capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "human_grade" in res.stderr and "sheet.csv:4:" in res.stderr and len(res.stderr.strip().splitlines()) == 1
