"""ranx JSON and parquet runs get the TREC reader's hardening (console script): deep nesting, a decompression bomb,
ids a run file cannot hold, null ids, duplicate keys, each one line and exit 2; ``validate``, ``merge`` and
``evaluate --stream`` read them by their format; a truncated gzip names the file (never "aborted", exit 130);
``--tmp-dir`` problems name ``--tmp-dir``."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest


def _run(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *map(str, args)], capture_output=True, text=True, check=False, cwd=cwd,
                          timeout=300)


def _one_line_exit_2(p: subprocess.CompletedProcess, *words: str) -> str:
    err = p.stderr.strip()
    assert p.returncode == 2, (p.returncode, p.stdout, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "aborted" not in err, err
    for w in words:
        assert w in err, (w, err)
    return err


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "good.json").write_text(json.dumps({"q1": {"d1": 1.0, "d3": 0.5}, "q2": {"d2": 2.0, "d4": 0.25}}))
    return tmp_path


JSON_CASES = {
    "deep.json": ('{"q1": ' + '{"a": ' * 20000 + "1" + "}" * 20000 + "}", ["nested"]),
    "dup.json": ('{"q1": {"d1": 1.0, "d2": 0.5, "d1": 2.0}}', ["'d1'", "twice"]),
    "dupq.json": ('{"q1": {"d1": 1.0}, "q1": {"d2": 2.0}}', ["'q1'", "twice"]),
    "newline.json": (json.dumps({"q1\nmap all 0.9999": {"d1": 1.0}}), ["query id", "whitespace"]),
    "tab.json": (json.dumps({"q1": {"d\t1": 1.0}}), ["doc id", "whitespace"]),
    "blank.json": (json.dumps({"q1": {"d 1": 1.0}}), ["doc id", "whitespace"]),
    "null.json": (json.dumps({"q1": {"d1": None}}), ["d1"]),
}


@pytest.mark.parametrize("name", sorted(JSON_CASES))
def test_a_bad_json_run_is_one_line(root, name):
    text, words = JSON_CASES[name]
    (root / name).write_text(text)
    _one_line_exit_2(_run("evaluate", "q.txt", name, "-m", "map", cwd=root), name, *words)


def test_a_json_gz_bomb_is_refused_by_the_trec_readers_limit(root):
    (root / "bomb.json.gz").write_bytes(gzip.compress(b'{"q1": {"d1": 1.0' + b" " * (80 << 20) + b"}}"))
    _one_line_exit_2(_run("evaluate", "q.txt", "bomb.json.gz", cwd=root), "bomb.json.gz", "expands to more than")


@pytest.fixture
def pd():
    return pytest.importorskip("pandas")


def test_null_ids_in_a_parquet_run_are_refused_not_read_as_none(root, pd):
    pytest.importorskip("pyarrow")
    pd.DataFrame({"q_id": ["q1", None], "doc_id": ["d1", "d2"], "score": [1.0, 2.0]}).to_parquet(root / "nq.parquet")
    pd.DataFrame({"q_id": ["q1", "q2"], "doc_id": ["d1", None], "score": [1.0, 2.0]}).to_parquet(root / "nd.parquet")
    _one_line_exit_2(_run("evaluate", "q.txt", "nq.parquet", cwd=root), "nq.parquet", "row 2", "null")
    _one_line_exit_2(_run("evaluate", "q.txt", "nd.parquet", cwd=root), "nd.parquet", "row 2", "null")
    pd.DataFrame({"q_id": ["q1\tx"], "doc_id": ["d1"], "score": [1.0]}).to_parquet(root / "tab.parquet")
    _one_line_exit_2(_run("evaluate", "q.txt", "tab.parquet", cwd=root), "tab.parquet", "query id")


@pytest.mark.parametrize("shape", ["rows", "strings"])
def test_a_parquet_bomb_is_refused_before_it_is_materialised(root, pd, shape):
    pytest.importorskip("pyarrow")
    n, doc = (3_000_000, "d") if shape == "rows" else (300_000, "x" * 1000)
    pd.DataFrame({"q_id": ["q1"] * n, "doc_id": [doc] * n, "score": [1.0] * n}).to_parquet(root / "bomb.parquet")
    assert (root / "bomb.parquet").stat().st_size < 1 << 20
    # the command under a parent of its own, which reports that one child's peak memory (KiB) on its last line
    measure = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)")
    p = subprocess.run([sys.executable, "-c", measure, "hcrbench", "evaluate", "q.txt", "bomb.parquet"],
                       capture_output=True, text=True, cwd=root, timeout=300)
    *lines, peak_kb = p.stderr.strip().splitlines()
    _one_line_exit_2(subprocess.CompletedProcess(p.args, p.returncode, p.stdout, "\n".join(lines)), "bomb.parquet")
    assert int(peak_kb) < 1_000_000, peak_kb  # refused from the footer / dictionary, not after 2.8 GB


@pytest.mark.parametrize("fmt", ["json", "json.gz", "parquet"])
def test_validate_merge_and_stream_read_json_and_parquet_runs_by_format(root, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
        assert _run("merge", "good.json", "--out", "good.parquet", cwd=root).returncode == 0
    elif fmt == "json.gz":
        (root / "good.json.gz").write_bytes(gzip.compress((root / "good.json").read_bytes()))
    run = f"good.{fmt}"
    v = _run("validate", run, cwd=root)
    assert v.returncode == 0 and "clean (4 lines, 2 queries" in v.stdout, v.stdout + v.stderr
    m = _run("merge", run, "--out", "m.trec", cwd=root)
    assert m.returncode == 0, m.stderr
    assert (root / "m.trec").read_text().splitlines()[:2] == ["q1 Q0 d1 1 1.0 good", "q1 Q0 d3 2 0.5 good"]
    plain = _run("evaluate", "q.txt", "good.json", "-m", "map", "-q", "--format", "trec", cwd=root)
    streamed = _run("evaluate", "q.txt", run, "-m", "map", "-q", "--format", "trec", "--stream", cwd=root)
    assert plain.returncode == streamed.returncode == 0, streamed.stderr
    assert [ln for ln in streamed.stdout.splitlines() if "runid" not in ln] == \
        [ln for ln in plain.stdout.splitlines() if "runid" not in ln]


def _truncated(path: Path, data: bytes) -> None:
    gz = gzip.compress(data, mtime=0)
    path.write_bytes(gz[: len(gz) // 2])


@pytest.mark.parametrize("command", [
    ("merge", "cut.trec.gz", "--out", "m.trec"),
    ("merge", "cut.trec.gz", "cut.trec.gz", "--out", "m.trec"),
    ("evaluate", "q.txt", "cut.trec.gz", "--stream"),
    ("evaluate", "q.txt", "cut.trec.gz"),
    ("evaluate", "q.txt", "cut.json.gz"),
    ("validate", "cut.json.gz"),
])
def test_a_truncated_gzip_names_the_file_not_ctrl_c(root, command):
    _truncated(root / "cut.trec.gz", "".join(f"q{i % 40} Q0 d{i} 1 {i}.5 t\n" for i in range(40000)).encode())
    _truncated(root / "cut.json.gz", json.dumps({f"q{i}": {f"d{j}": j / 7 for j in range(200)}
                                                 for i in range(200)}).encode())
    p = _run(*command, cwd=root)
    assert p.returncode != 130
    _one_line_exit_2(p, "truncated", "gzip", next(a for a in command if a.startswith("cut.")))
    assert not (root / "m.trec").exists()


@pytest.mark.parametrize("where", ["missing/folder", "afile", "."])
def test_tmp_dir_problems_name_tmp_dir(root, where):
    (root / "a.trec").write_text("q1 Q0 d1 1 1.0 t\n")
    (root / "afile").write_text("x")
    p = _run("merge", "a.trec", "--out", "m.trec", "--tmp-dir", where, cwd=root)
    if where == ".":
        assert p.returncode == 0, p.stderr
        return
    err = _one_line_exit_2(p, "--tmp-dir")
    assert "--out" not in err
