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
    head = next(ln for ln in out.splitlines() if "┃ run" in ln and "delta" in ln)
    return [c.strip() for c in head.split("┃") if c.strip()]


def _p_columns(out: str) -> list[str]:
    return [c for c in _header(out) if re.search(r"(^|\W)p(\W|$)", c)]


def test_the_comparison_table_has_one_p_whose_header_names_its_family(three):
    out = _evaluate(*three, "-m", "nDCG@10", "-m", "AP")
    assert _p_columns(out) == ["p (Holm, 2 comparisons)"]  # family 'run': each run's two metrics
    assert "one test per table: paired permutation test, Holm-adjusted" in " ".join(out.split())


@pytest.mark.parametrize(("letters", "header"), [("holm", "p (Holm, 1 per pair)"), ("tukey", "p (Tukey HSD)"),
                                                 ("t", "p (t-test, unadjusted)")])
def test_all_pairs_shows_the_p_of_the_test_that_decides_the_letters(three, letters, header):
    out = _evaluate(*three, "-m", "nDCG@10", "--all-pairs", "--letters", letters)
    assert _p_columns(out) == [header]
    flat = " ".join(out.split())
    if letters == "holm":  # a family of one per pair corrects nothing across pairs: said, not hidden
        assert "a family of 1 per pair: not corrected across pairs" in flat
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
    for run, vs, _, delta, _, p, *_ in rows:
        better, worse = (run, vs) if float(delta) > 0 else (vs, run)
        assert (sup[letter[worse]] in means[better]) == (float(p) <= 0.05), (run, vs, p, means)
