"""One p per comparison per table, its family named in the header, through the console script: ``evaluate``'s
comparison table shows only the p that decides its bold deltas and (``--all-pairs``) the letters, so a letter and
a p beside it never come from two tests (the issue: a Holm letter beside a Tukey p of 0.82)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

EX = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def three(tmp_path: Path) -> list[str]:
    rev = tmp_path / "rev.trec"  # bm25 with its ranks reversed: a third system both others beat
    rev.write_text("".join(f"{p[0]} Q0 {p[2]} 1 {-float(p[4])} rev\n"
                           for p in (ln.split() for ln in (EX / "bm25.trec").read_text().splitlines())))
    return [str(EX / "cranfield.qrels"), str(EX / "bm25.trec"), str(EX / "bm25_stemmed.trec"), str(rev)]


def _evaluate(*args: str) -> str:
    r = subprocess.run(["hcrbench", "evaluate", *args, "--resamples", "300"], capture_output=True, text=True,
                       check=False, env={**os.environ, "HCRBENCH_PROGRESS": "0", "COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    return r.stdout


def _header(out: str) -> list[str]:
    """The comparison table's column headers, each joined across the lines a narrow terminal wraps it over."""
    lines = out.splitlines()
    i = next(i for i, ln in enumerate(lines) if "┃ run" in ln and "delta" in ln)
    while i > 0 and "┃" in lines[i - 1] and "┏" not in lines[i - 1]:
        i -= 1
    cols: list[list[str]] = []
    while i < len(lines) and "┃" in lines[i]:
        cells = [c.strip() for c in lines[i].strip().strip("┃").split("┃")]
        cols = cols or [[] for _ in cells]
        for col, cell in zip(cols, cells):
            if cell:
                col.append(cell)
        i += 1
    return [" ".join(c) for c in cols]


def _p_columns(out: str) -> list[str]:
    return [c for c in _header(out) if re.search(r"(^|\W)p(\W|$)", c)]


def test_the_comparison_table_has_one_p_whose_header_names_its_family(three):
    out = _evaluate(*three, "-m", "nDCG@10", "-m", "AP")
    assert _p_columns(out) == ["p (Holm, 2 comparisons)"]  # family 'run': each run's two metrics
    assert "one test per table: paired permutation test, Holm-adjusted" in " ".join(out.split())


@pytest.mark.parametrize(("letters", "header"), [("holm", "p (Holm, 3 comparisons)"), ("tukey", "p (Tukey HSD)"),
                                                 ("t", "p (t-test, unadjusted)")])
def test_all_pairs_shows_the_p_of_the_test_that_decides_the_letters(three, letters, header):
    out = _evaluate(*three, "-m", "nDCG@10", "--all-pairs", "--letters", letters)
    assert _p_columns(out) == [header]
    flat = " ".join(out.split())
    if letters == "holm":  # all pairs on one metric are one family (the letters' claims), corrected together
        assert "Holm family: every run" in flat
    assert "the p of the comparisons table below" in flat


def test_the_letters_and_the_p_beside_them_agree(three):
    """Every pair the table's p calls significant gives the better run the other's letter, and no other pair does."""
    out = _evaluate(*three, "-m", "nDCG@10", "--all-pairs", "--letters", "tukey", "--alpha", "0.05")
    letter = {"bm25": "a", "bm25_stemmed": "b", "rev": "c"}
    sup = {"a": "ᵃ", "b": "ᵇ", "c": "ᶜ"}
    means = {}
    for ln in out.splitlines():
        cells = [c.strip() for c in ln.split("│") if c.strip()]
        if len(cells) == 4 and cells[1] in letter:
            means[cells[1]] = cells[2]
    rows = [[c.strip() for c in ln.split("│") if c.strip()] for ln in out.splitlines()
            if ln.count("│") >= 8 and "nDCG@10" in ln]
    assert len(rows) == 3
    p_at = _header(out).index("p (Tukey HSD)")
    for row in rows:
        run, vs, delta, p = row[0], row[1], row[3], row[p_at]
        better, worse = (run, vs) if float(delta) > 0 else (vs, run)
        assert (sup[letter[worse]] in means[better]) == (float(p) <= 0.05), (run, vs, p, means)
