"""``hcrbench evaluate`` end to end: tables, JSON schema, and every bad input as one line + exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hcrbench.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def _run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        rc = main(args)
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def test_evaluate_examples_json_schema(tmp_path, capsys):
    out_json = tmp_path / "eval.json"
    rc, out, err = _run_cli(
        ["evaluate", str(EXAMPLES / "cranfield.qrels"), str(EXAMPLES / "bm25.trec"),
         str(EXAMPLES / "bm25_stemmed.trec"), "--metrics", "nDCG@10,R@100,RR,P@5,AP", "--json", str(out_json),
         "--resamples", "2000"],
        capsys,
    )
    assert rc == 0, err
    assert "nDCG@10" in out and "bm25_stemmed" in out and "averaged over 25 queries" in out
    doc = json.loads(out_json.read_text())
    assert set(doc) >= {"runs", "comparisons"}
    assert set(doc["runs"]) == {"bm25", "bm25_stemmed"}
    run = doc["runs"]["bm25"]
    assert set(run) >= {"means", "per_query", "ledger"}
    assert set(run["means"]) == {"nDCG@10", "R@100", "RR", "P@5", "AP"}
    assert len(run["per_query"]["AP"]) == 25
    assert len(doc["comparisons"]) == 5
    keys = {"run", "baseline", "metric", "delta", "ci_low", "ci_high", "p", "p_holm", "cohens_d", "helped",
            "hurt", "tied"}
    for c in doc["comparisons"]:
        assert keys <= set(c)
        assert c["baseline"] == "bm25" and c["run"] == "bm25_stemmed"
        assert c["ci_low"] <= c["delta"] <= c["ci_high"]
        assert 0 < c["p"] <= c["p_holm"] <= 1
        assert c["helped"] + c["hurt"] + c["tied"] == 25


def test_evaluate_matches_pytrec_eval_on_examples(tmp_path, capsys):
    import pytrec_eval

    from hcrbench.data import read_qrels, read_run

    out_json = tmp_path / "e.json"
    rc, _, err = _run_cli(["evaluate", str(EXAMPLES / "cranfield.qrels"), str(EXAMPLES / "bm25.trec"),
                           "-m", "nDCG@10,P@5,AP", "--json", str(out_json)], capsys)
    assert rc == 0, err
    ours = json.loads(out_json.read_text())["runs"]["bm25"]["per_query"]
    qrels = read_qrels(EXAMPLES / "cranfield.qrels").to_dict()
    run = read_run(EXAMPLES / "bm25.trec").to_dict()
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "P.5", "map"}).evaluate(run)
    for qid, vals in ref.items():
        assert ours["nDCG@10"][qid] == pytest.approx(vals["ndcg_cut_10"], abs=1e-12)
        assert ours["P@5"][qid] == pytest.approx(vals["P_5"], abs=1e-12)
        assert ours["AP"][qid] == pytest.approx(vals["map"], abs=1e-12)


def test_console_script_runs(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "hcrbench.cli", "evaluate", str(EXAMPLES / "cranfield.qrels"),
         str(EXAMPLES / "bm25.trec"), "-m", "P@5"],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "P@5" in proc.stdout


def _bad(tmp_path: Path, name: str, content: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    return p


BAD_RUNS = {
    "columns": ("1 Q0 184 1 2.5\n", ":1: columns: expected 6 columns"),
    "score": ("1 Q0 184 1 high t\n", ":1: score: score is not a number"),
    "nan": ("1 Q0 184 1 NaN t\n", ":1: score: score must be finite"),
    "inf": ("1 Q0 184 1 -inf t\n", ":1: score: score must be finite"),
    "dup": ("1 Q0 184 1 2 t\n1 Q0 184 2 1 t\n", ":2: docid: doc '184' appears twice for query '1'"),
    "empty": ("", ": file is empty"),
    "utf8": (b"1 Q0 18\xc34 1 2 t\n", ":1: invalid UTF-8"),
}


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_bad_run_is_one_line_exit_2(tmp_path, capsys, case):
    content, expected = BAD_RUNS[case]
    bad = _bad(tmp_path, "bad.trec", content)
    rc, _, err = _run_cli(["evaluate", str(EXAMPLES / "cranfield.qrels"), str(bad)], capsys)
    assert rc == 2
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"hcrbench: error: {bad}")
    assert expected in lines[0]
    assert "Traceback" not in err


def test_dedupe_flag_accepts_duplicates(tmp_path, capsys):
    bad = _bad(tmp_path, "dup.trec", "1 Q0 184 1 2 t\n1 Q0 184 2 1 t\n")
    rc, _, err = _run_cli(["evaluate", str(EXAMPLES / "cranfield.qrels"), str(bad), "--dedupe", "-m", "P@5"],
                          capsys)
    assert rc == 0, err


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("1 0 184 x\n", ":1: rel: relevance must be an integer"),
        ("1 0 184 1\n1 0 185\n", ":2: columns: expected 4"),
        ("", ": file is empty"),
        (b"1 0 18\xff4 1\n", ":1: invalid UTF-8"),
    ],
)
def test_bad_qrels_is_one_line_exit_2(tmp_path, capsys, content, expected):
    bad = _bad(tmp_path, "bad.qrels", content)
    rc, _, err = _run_cli(["evaluate", str(bad), str(EXAMPLES / "bm25.trec")], capsys)
    assert rc == 2
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and expected in lines[0], err


def test_bad_flags_are_one_line_exit_2(tmp_path, capsys):
    q, r = str(EXAMPLES / "cranfield.qrels"), str(EXAMPLES / "bm25.trec")
    for args, expected in (
        ([q, r, "-m", "nDCG@ten"], "--metrics"),
        ([q, r, "--baseline", "nope"], "no run named 'nope'"),
        ([q, r, "--missing", "maybe"], "--missing"),
        ([q, str(tmp_path / "absent.trec")], "file not found"),
    ):
        rc, _, err = _run_cli(["evaluate", *args], capsys)
        assert rc == 2, (args, err)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert len(lines) == 1 and expected in lines[0], (args, err)


def test_warnings_for_missing_and_extra_queries(tmp_path, capsys):
    run = _bad(tmp_path, "r.trec", "1 Q0 184 1 2 t\n999 Q0 184 1 2 t\n")
    rc, out, err = _run_cli(["evaluate", str(EXAMPLES / "cranfield.qrels"), str(run), "-m", "P@5"], capsys)
    assert rc == 0
    assert "warning" in err and "999" in err
    assert "24 zero-filled" in out
