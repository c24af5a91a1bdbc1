"""Fault injection, structured files (issue 38): deeply nested, oversized or oddly encoded JSON and TOML (configs,
``hcrbench.lock``, ``manifest.json``, ``eval.json``, baselines, item pools) give the usual one line naming the
file and line, never a RecursionError traceback; a UTF-8 byte-order mark is accepted."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from faultkit import hcrbench, in_process, one_error_line, snapshot

from hcrbench.data.structured import MAX_DEPTH, MAX_TOML_BYTES, parse_json, parse_toml

DEEP = "[" * 100_000 + "]" * 100_000


def test_a_config_with_a_value_nested_5000_deep_is_one_line(root: Path):
    (root / "a.toml").write_text((root / "a.toml").read_text() + "deep = " + "[" * 5000 + "]" * 5000 + "\n")
    p = hcrbench("run", "a.toml", cwd=root)
    assert p.returncode == 2, p.stderr
    assert re.search(r"a\.toml:\d+: nested more than 100 levels deep", one_error_line(p))
    assert not (root / "out").exists()


@pytest.fixture
def done(root: Path, capsys) -> Path:
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    assert in_process(capsys, "lock", str(root / "out"))[0] == 0
    return root / "out"


@pytest.mark.parametrize("name", ["hcrbench.lock", "manifest.json", "eval.json"])
def test_verify_of_a_deeply_nested_stored_file_is_drift_not_a_traceback(done: Path, name: str):
    (done / name).write_text(DEEP)
    p = hcrbench("verify", "out", cwd=done.parent)
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr and "RecursionError" not in p.stdout + p.stderr
    assert f"{name}:1: nested more than {MAX_DEPTH} levels deep" in p.stdout + p.stderr


@pytest.mark.parametrize("name", ["manifest.json", "eval.json"])
def test_report_of_a_deeply_nested_file_is_one_line(done: Path, capsys, name: str):
    (done / name).write_text(DEEP)
    code, _, err = in_process(capsys, "report", str(done))
    assert code == 2 and err.count("\n") == 1, err
    assert f"{name}:1: nested more than" in err


def test_check_with_a_deeply_nested_baseline_is_one_line(root: Path):
    (root / "b.json").write_text("\n" + DEEP)
    p = hcrbench("check", "a.toml", "--baseline", "b.json", cwd=root)
    assert p.returncode == 2, p.stderr
    assert re.search(r"b\.json:2: .*nested more than", one_error_line(p))


def test_a_config_saved_with_a_bom_runs_as_without(root: Path, capsys):
    text = (root / "a.toml").read_text()
    (root / "bom.toml").write_bytes(b"\xef\xbb\xbf" + text.replace('"out"', '"out-bom"').encode())
    p = hcrbench("run", "bom.toml", "--quiet", cwd=root)
    assert p.returncode == 0, p.stderr
    assert in_process(capsys, "run", str(root / "a.toml"), "--quiet")[0] == 0
    assert (root / "out-bom" / "eval.json").read_bytes() == (root / "out" / "eval.json").read_bytes()


def test_a_config_with_invalid_utf8_names_the_line(root: Path, capsys):
    (root / "u.toml").write_bytes((root / "a.toml").read_bytes() + b'note = "caf\xe9"\n')
    code, _, err = in_process(capsys, "run", str(root / "u.toml"))
    assert code == 2 and re.search(r"u\.toml:\d+: invalid UTF-8 at byte \d+", err), err


def test_an_oversized_config_is_refused_before_it_is_read(root: Path, capsys):
    (root / "big.toml").write_text((root / "a.toml").read_text() + "#" * (MAX_TOML_BYTES + 1) + "\n")
    code, _, err = in_process(capsys, "run", str(root / "big.toml"))
    assert code == 2 and "over the" in err and "big.toml" in err, err


@pytest.mark.parametrize("pool", ['{"d1": 1, "d2": 1}', '{\n"d1": 1,\n"d2": 1\n}', '[["d1"], "d2"]'])
def test_an_item_pool_that_is_not_a_list_of_ids_is_refused(root: Path, capsys, pool: str):
    (root / "pool.json").write_text(pool)
    before = snapshot(root)
    code, _, err = in_process(capsys, "gate", str(root / "good.trec"), "--qrels", str(root / "data/qrels/test.tsv"),
                              "--item-pool", str(root / "pool.json"))
    assert code == 2 and "--item-pool: expected a JSON list of document ids" in err, err
    assert snapshot(root) == before


def test_the_reader_agrees_with_the_standard_parsers_below_the_depth_limit():
    doc = {"a": [[[1, "]]]]", {"b": "[[{"}]]], "c": "x\"[", "d": None}
    text = json.dumps(doc)
    assert parse_json(text) == json.loads(text) == doc
    assert parse_json("\ufeff" + text) == doc
    ok = "v = " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n"
    assert parse_toml(ok)["v"] is not None
    assert parse_toml('s = """[[[[\n[[[["""\n# [[[[[[\nt = \'[[[\'\n') == {"s": "[[[[\n[[[[", "t": "[[["}
    with pytest.raises(ValueError, match="nested more than"):
        parse_toml("v = " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n")
