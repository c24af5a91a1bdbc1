"""``hcrbench generate meridian`` writes the design's size by default (small 500, medium 2,000, full 3,500
documents) and ``describe`` checks it, with every query answerable from the text and asides below the top grade;
growth is the opt-in ``--grow`` (``--fixed-size`` still names the default). Console-script tests on seeds no other
test or doc names."""

from __future__ import annotations

import json
import subprocess

import pytest

SIZES = {"small": 500, "medium": 2000, "full": 3500}


def _hcrbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *args], capture_output=True, text=True, check=False)


def _generate_and_describe(out, size: str, seed: int) -> tuple[dict, dict, str]:
    r = _hcrbench("generate", "meridian", "--size", size, "--seed", str(seed), "--out", str(out))
    assert r.returncode == 0, r.stderr
    d = _hcrbench("describe", str(out))
    assert d.returncode in (0, 1), d.stderr  # 1: some target missed; the size row is checked below
    return (json.loads((out / "manifest.json").read_text()), json.loads((out / "describe.json").read_text()),
            r.stdout)


def _check_design_size(man: dict, res: dict, stdout: str, out, size: str) -> None:
    want = SIZES[size]
    assert man["grow"] is False and man["size"] == size and man["n_docs"] == man["size_docs"] == want
    assert f"meridian: {want:,} documents, " in stdout and "grew" not in stdout
    assert sum(1 for _ in (out / "corpus.jsonl").open()) == want
    row = {p["property"]: p for p in res["properties"]}["documents"]
    assert res["n_docs"] == want and row["measured"] == want and row["met"] is True
    assert row["target"] == f"{size} {want:,} (the size asked)"


def _check_answerable(res: dict) -> None:
    """Every query's identifiers, dates and names are written in the corpus and pick out one referent, and
    pages stating a needed fact in passing (asides) stay under 5% of the test split's top-grade judgments."""
    row = {p["property"]: p for p in res["properties"]}
    for name in ("queries relying on an identifier, date or name no document writes",
                 "queries whose identifier, date or name does not pick out one referent"):
        assert row[name]["measured"]["queries"] == 0 and row[name]["met"], (name, res["anchors"]["queries"])
    assert res["anchors"]["counts"]["test"]["queries"] > 0
    asides = row["asides among top-grade relevant judgments (all; test)"]
    assert asides["measured"][1] < 0.05 and asides["met"], asides


@pytest.mark.parametrize("size, seed", [("small", 60611),
                                        pytest.param("medium", 60613, marks=pytest.mark.slow)])  # ~30 s
def test_default_generation_is_the_designs_size_and_describe_meets_the_size_row(tmp_path, size, seed):
    out = tmp_path / size
    man, res, stdout = _generate_and_describe(out, size, seed)
    _check_design_size(man, res, stdout, out, size)
    _check_answerable(res)


@pytest.mark.slow
def test_default_full_generation_is_3500_documents(tmp_path):
    out = tmp_path / "full"
    man, res, stdout = _generate_and_describe(out, "full", 60617)
    _check_design_size(man, res, stdout, out, "full")
    _check_answerable(res)


@pytest.mark.slow
def test_fixed_size_names_the_default_and_grow_grows(tmp_path):
    default, fixed, grown = tmp_path / "default", tmp_path / "fixed", tmp_path / "grown"
    common = ("--size", "small", "--seed", "60619", "--queries", "300")
    assert _hcrbench("generate", "meridian", *common, "--out", str(default)).returncode == 0
    assert _hcrbench("generate", "meridian", *common, "--fixed-size", "--out", str(fixed)).returncode == 0
    assert (default / "manifest.json").read_bytes() == (fixed / "manifest.json").read_bytes()
    r = _hcrbench("generate", "meridian", *common, "--grow", "--out", str(grown))
    assert r.returncode == 0, r.stderr
    man = json.loads((grown / "manifest.json").read_text())
    assert man["grow"] is True and man["size_docs"] == 500 and man["n_docs"] > 500
    assert "the world grew from 500" in r.stdout and "without --grow it keeps 500" in r.stdout


def test_grow_with_several_worlds_is_one_line_and_exit_2(tmp_path):
    out = tmp_path / "m"
    r = _hcrbench("generate", "meridian", "--worlds", "3", "--grow", "--out", str(out))
    assert r.returncode == 2, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--grow" in lines[0] and "--worlds" in lines[0] and "Traceback" not in r.stderr
    assert not (out / "manifest.json").exists()


def test_help_says_what_each_size_flag_does():
    r = _hcrbench("generate", "meridian", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.replace("│", " ").split())
    assert "--fixed-size" in text and "--grow" in text and "(the default)" in text
