"""The code set built from installed stdlib source: deterministic, and its ground truth is what it claims."""

from __future__ import annotations

import ast
import json
import subprocess
from pathlib import Path

import pytest

from hcrbench.errors import InputError
from hcrbench.synth.codeset import build_codeset, package_root, snippet_jaccard


def test_ground_truth_is_consistent() -> None:
    corpus, queries, qrels, ranges, manifest = build_codeset("email", seed=1, n_queries=40)
    assert manifest["python_version"] and manifest["seed"] == 1 and len(queries) == 40
    for r in ranges:
        qid = r["query_id"]
        src = corpus[r["path"]].text
        lines = src.splitlines()
        assert r["snippet"] == "\n".join(lines[r["start_line"] - 1:r["end_line"]]) + "\n"
        node = next(n for n in ast.parse(src).body if getattr(n, "name", None) == r["name"])
        assert node.end_lineno == r["end_line"]
        qsrc = corpus[r["query_path"]].text.splitlines()
        assert queries[qid] == "\n".join(qsrc[r["query_start"] - 1:r["query_end"]]) + "\n"
        assert r["name"] + "(" in qsrc[r["query_end"] - 1].replace(" (", "(")  # the call is the last line
        assert r["query_path"] != r["path"]
        assert qrels[qid] == {r["path"]: 1}


def test_deterministic_per_seed_and_differs_across_seeds() -> None:
    a = build_codeset("email", seed=3, n_queries=30)
    b = build_codeset("email", seed=3, n_queries=30)
    c = build_codeset("email", seed=4, n_queries=30)
    assert a[1].texts == b[1].texts and a[3] == b[3]
    assert a[1].texts != c[1].texts


def test_bad_package_is_one_line() -> None:
    with pytest.raises(InputError):
        package_root("no_such_package_xyz")
    with pytest.raises(InputError):
        build_codeset("email,email")


def test_snippet_jaccard() -> None:
    assert snippet_jaccard("def f(x): return x", "def f(x): return x") == 1.0
    assert snippet_jaccard("a b", "c d") == 0.0
    assert snippet_jaccard("", "") == 0.0
    assert snippet_jaccard("a b c", "a b d") == pytest.approx(2 / 4)


def test_generate_code_cli(tmp_path: Path) -> None:
    out = tmp_path / "code"
    r = subprocess.run(["hcrbench", "generate", "code", "--package", "json,email", "--queries", "25",
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "next: hcrbench policy-compare" in r.stdout
    for f in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "linerange/test.jsonl", "manifest.json"):
        assert (out / f).is_file()
    m = json.loads((out / "manifest.json").read_text())
    assert m["n_queries"] == 25 and m["package"] == "json,email"
    r2 = subprocess.run(["hcrbench", "generate", "code", "--package", "json,email", "--queries", "25",
                         "--out", str(out)], capture_output=True, text=True)
    assert r2.returncode == 2 and r2.stderr.count("\n") == 1 and "--overwrite" in r2.stderr
