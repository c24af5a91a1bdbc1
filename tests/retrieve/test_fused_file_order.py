"""``hcrbench fuse`` writes its file in the order ``ranx.fuse(...).save()`` writes, so ranx evaluating
hcrbench's fused file gives the numbers it gives on its own saved fused run, per query, ties included."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

EX = Path(__file__).resolve().parents[2] / "examples"
RUNS = [EX / "bm25.trec", EX / "bm25_stemmed.trec"]
WEIGHTED = ("wsum", "wmnz", "mixed")


def _lines(path: Path) -> list[tuple[str, str, str]]:
    """(query, doc, score text) of every line, in file order."""
    return [(f[0], f[2], f[4]) for f in map(str.split, path.read_text().splitlines()) if f]


def _check_equal_to_ranx(tmp_path: Path, method: str) -> None:
    ranx = pytest.importorskip("ranx")
    ours = tmp_path / f"{method}.trec"
    extra = ["--weights", "0.7,0.3"] if method in WEIGHTED else []
    r = subprocess.run(["hcrbench", "fuse", *map(str, RUNS), "--method", method, *extra, "--out", str(ours)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    rank_based = method in ("rrf", "isr", "log_isr", "logn_isr", "rbc")
    params = {"weights": [0.7, 0.3]} if method in WEIGHTED else {"phi": 0.8} if method == "rbc" else {}
    fused = ranx.fuse([ranx.Run.from_file(str(p), kind="trec") for p in RUNS], norm=None if rank_based else "min-max",
                      method=method, params=params)
    theirs = tmp_path / "theirs.trec"
    fused.save(str(theirs), kind="trec")
    assert _lines(ours) == _lines(theirs)  # the same lines in the same order, scores written alike
    qrels = ranx.Qrels.from_file(str(EX / "cranfield.qrels"), kind="trec")
    a, b = ranx.Run.from_file(str(ours), kind="trec"), ranx.Run.from_file(str(theirs), kind="trec")
    for metric in ("ndcg@10", "map@100", "precision@5"):
        ranx.evaluate(qrels, a, metric, make_comparable=True)
        ranx.evaluate(qrels, b, metric, make_comparable=True)
        sa, sb = dict(a.scores[metric]), dict(b.scores[metric])
        assert sa.keys() == sb.keys() and all(abs(sa[q] - sb[q]) <= 1e-9 for q in sa), metric


def test_rrf_file_is_ranx_saved_fused_run_and_not_trec_order(tmp_path):
    _check_equal_to_ranx(tmp_path, "rrf")
    trec = tmp_path / "trec_order.trec"  # the same fused scores in trec_eval's order: ties sit elsewhere
    from hcrbench.data import read_run, write_run

    write_run(read_run(tmp_path / "rrf.trec"), trec)
    assert [(q, d) for q, d, _ in _lines(trec)] != [(q, d) for q, d, _ in _lines(tmp_path / "rrf.trec")]


@pytest.mark.slow  # ranx JIT-compiles one numba kernel per method: minutes on a busy 2-core machine
@pytest.mark.parametrize("method", ["isr", "log_isr", "logn_isr", "rbc", "sum", "mnz", "med", "wsum", "mixed"])
def test_fused_file_equals_ranx_saved_fused_run(tmp_path, method):
    _check_equal_to_ranx(tmp_path, method)


def test_help_claims_ranx_order_except_for_the_borda_methods():
    r = subprocess.run(["hcrbench", "fuse", "--help"], capture_output=True, text=True, check=False,
                       env={"COLUMNS": "400", "PATH": __import__("os").environ["PATH"],
                            "PYTHONPATH": __import__("os").environ.get("PYTHONPATH", "")})
    text = " ".join(r.stdout.split())
    assert "ranx.fuse(...).save()" in text and "bordafuse" in text and "PYTHONHASHSEED" in text
