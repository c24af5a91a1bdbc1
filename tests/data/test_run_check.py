"""``hcrbench validate``: each problem class fires on its planted defect and stays quiet on a clean run."""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

import pytest

from hcrbench.data.run_check import check_run
from hcrbench.errors import InputError

EX = Path(__file__).resolve().parents[2] / "examples"
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
CLEAN = "1 Q0 a 1 3.0 sys\n1 Q0 b 2 2.0 sys\n1 Q0 c 3 2.0 sys\n2 Q0 c 1 1.5 sys\n"
DEFECTS = {  # class key -> (a run with exactly that defect, the offending line)
    "column2": ("1 Q0 a 1 3.0 sys\n1 0 b 2 2.0 sys\n2 Q0 c 1 1.5 sys\n", 2),
    "tags": ("1 Q0 a 1 3.0 sys\n1 Q0 b 2 2.0 sys\n2 Q0 c 1 1.5 other\n", 3),
    "ranks": ("1 Q0 a 1 1.0 sys\n1 Q0 b 2 2.0 sys\n2 Q0 c 1 1.5 sys\n", 2),
    "depth": ("1 Q0 a 1 3.0 sys\n1 Q0 b 2 2.0 sys\n1 Q0 c 3 1.0 sys\n1 Q0 d 4 0.5 sys\n2 Q0 c 1 1.5 sys\n", 1),
    "duplicates": ("1 Q0 a 1 3.0 sys\n1 Q0 a 2 2.0 sys\n2 Q0 c 1 1.5 sys\n", 2),
    "unknown_queries": ("1 Q0 a 1 3.0 sys\n2 Q0 c 1 1.5 sys\n77 Q0 c 1 1.5 sys\n", 3),
    "no_judged_docs": ("1 Q0 x 1 3.0 sys\n2 Q0 y 1 1.5 sys\n", 1),
}


def _validate(tmp_path, text, *extra, gz=False):
    run = tmp_path / ("r.trec.gz" if gz else "r.trec")
    if gz:
        run.write_bytes(gzip.compress(text.encode()))
    else:
        run.write_text(text)
    q = tmp_path / "q.qrels"
    q.write_text(QRELS)
    return run, subprocess.run(["hcrbench", "validate", str(run), "--qrels", str(q), "--k", "3", *extra],
                               capture_output=True, text=True, check=False)


def test_clean_run_passes(tmp_path):
    _, r = _validate(tmp_path, CLEAN, gz=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "FAIL" not in r.stdout and r.stdout.strip().splitlines()[-1].endswith("ready to score")
    assert sum(ln.startswith("ok ") for ln in r.stdout.splitlines()) == 7


@pytest.mark.parametrize("key", list(DEFECTS))
def test_each_class_fires_on_its_defect_alone(tmp_path, key):
    from hcrbench.data import read_qrels

    text, line = DEFECTS[key]
    run = tmp_path / "r.trec"
    run.write_text(text)
    (tmp_path / "q.qrels").write_text(QRELS)
    failed = check_run(run, read_qrels(tmp_path / "q.qrels"), k=3).failed
    assert [p.key for p in failed] == [key] and failed[0].first[0] == line


def test_every_defect_through_the_console_script(tmp_path):
    text = "1 Q0 a 1 1.0 sys\n1 0 b 2 2.0 other\n1 Q0 b 3 0.5 sys\n1 Q0 c 4 0.1 sys\n77 Q0 c 1 1.5 sys\n"
    run, r = _validate(tmp_path, text)
    assert r.returncode == 1, r.stdout + r.stderr
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    assert len(fails) == 6 and f"{run}:2" in fails[0], r.stdout
    assert "(column2, tags, ranks, depth, duplicates, unknown_queries)" in r.stdout.splitlines()[-1]
    assert "info  1 of 2 qrels queries have no line" in r.stdout


def test_unreadable_input_exits_2(tmp_path):
    run, r = _validate(tmp_path, "1 Q0 a 1 3.0 sys\n1 Q0 b 2 nan sys\n")
    assert r.returncode == 2 and f"{run}:2" in r.stderr and "Traceback" not in r.stderr, r.stderr
    for text in ("1 Q0 a 1\n", "1 Q0 a 1 x sys\n"):  # the same check, in process
        (tmp_path / "b.trec").write_text(text)
        with pytest.raises(InputError, match=r"b\.trec:1"):
            check_run(tmp_path / "b.trec")
    r = subprocess.run(["hcrbench", "validate", str(tmp_path / "absent.trec")], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_a_real_run_is_clean_but_too_deep_for_a_small_k():
    from hcrbench.data import read_qrels

    assert not check_run(EX / "bm25.trec", read_qrels(EX / "cranfield.qrels")).failed
    deep = check_run(EX / "bm25.trec", k=50).failed
    assert [p.key for p in deep] == ["depth"] and deep[0].count == 25


def test_a_run_hcrbench_wrote_passes_its_own_validate_whatever_float64_says(tmp_path):
    """One score order: scores equal in float32 but not in float64 are tied for the writer, the ranker and
    validate alike (trec_eval compares 32-bit floats), so the writer's ranks never contradict validate."""
    from hcrbench.data import Run, read_run
    from hcrbench.data.trec import write_run

    # b and c differ below float32 precision: tied, ordered by doc id descending (c before b)
    run = Run.from_dict({"1": {"a": 3.0, "b": 1.0 + 2e-9, "c": 1.0, "d": 0.5}, "2": {"c": 1.5}}, name="sys")
    path = tmp_path / "r.trec"
    write_run(run, path)
    assert [d for d, _ in read_run(path).ranked("1")] == ["a", "c", "b", "d"]
    assert "ranks" not in [p.key for p in check_run(path).failed]
    # a contradiction above float32 precision is still one
    (tmp_path / "bad.trec").write_text("1 Q0 a 1 1.0 sys\n1 Q0 b 2 1.001 sys\n")
    assert [p.key for p in check_run(tmp_path / "bad.trec").failed] == ["ranks"]


def test_a_run_of_another_collection_fails_validate_through_the_console_script(tmp_path):
    _, r = _validate(tmp_path, "1 Q0 x 1 3.0 sys\n2 Q0 y 1 1.5 sys\n")
    assert r.returncode == 1 and "no retrieved document is judged" in r.stdout, r.stdout


def test_evaluate_warns_when_no_retrieved_document_is_judged(tmp_path):
    run, _ = _validate(tmp_path, "1 Q0 x 1 3.0 sys\n2 Q0 y 1 1.5 sys\n")
    r = subprocess.run(["hcrbench", "evaluate", str(tmp_path / "q.qrels"), str(run)],
                       capture_output=True, text=True, check=False)
    assert "none of its 2 retrieved documents is judged" in r.stderr, r.stdout + r.stderr
    ok = tmp_path / "ok.trec"
    ok.write_text(CLEAN)
    r = subprocess.run(["hcrbench", "evaluate", str(tmp_path / "q.qrels"), str(ok)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "is judged" not in r.stderr
