"""One declared Holm family through the real console script (finding 4)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

EX = Path(__file__).resolve().parents[2] / "examples"


def _evaluate(tmp_path, runs, name, *extra):
    out = tmp_path / f"{name}.json"
    r = subprocess.run(["hcrbench", "evaluate", str(EX / "cranfield.qrels"), *map(str, runs), "--metrics",
                        "nDCG@10,AP", "--resamples", "500", "--json", str(out), *extra],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text()), r.stdout


def test_holm_p_is_the_same_whatever_other_runs_are_given(tmp_path):
    third = tmp_path / "third.trec"  # bm25 with its ranks reversed: a third system
    lines = (EX / "bm25.trec").read_text().splitlines()
    third.write_text("\n".join(f"{ln.split()[0]} Q0 {ln.split()[2]} 1 {-float(ln.split()[4])} third" for ln in lines)
                     + "\n")
    two, out2 = _evaluate(tmp_path, [EX / "bm25.trec", EX / "bm25_stemmed.trec"], "two")
    three, _ = _evaluate(tmp_path, [EX / "bm25.trec", EX / "bm25_stemmed.trec", third], "three")
    key = {(c["run"], c["metric"]): c for c in three["comparisons"]}
    for c in two["comparisons"]:
        assert c["p_holm"] == key[(c["run"], c["metric"])]["p_holm"]
        assert c["family"] == "run" and c["family_size"] == 2
    assert "p (Holm, 2 comparisons)" in out2 and "Holm family" in out2  # one p, its family's size beside it
    pooled, _ = _evaluate(tmp_path, [EX / "bm25.trec", EX / "bm25_stemmed.trec", third], "pooled", "--family", "all")
    assert all(c["family_size"] == 4 for c in pooled["comparisons"])
    r = subprocess.run(["hcrbench", "evaluate", str(EX / "cranfield.qrels"), str(EX / "bm25.trec"), "--family", "x"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 2 and "--family" in r.stderr and "Traceback" not in r.stderr
