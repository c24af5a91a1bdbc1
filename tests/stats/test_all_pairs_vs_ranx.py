"""All-pairs statistics equal ranx's ``compare`` on three SciFact BM25 runs (t-test, Tukey's HSD, letters)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hcrbench.stats import compare, significance_letters

SCIFACT = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "scifact"
EX = Path(__file__).resolve().parents[2] / "examples"
VARIANTS = {"bm25": {}, "bm25_flat": {"k1": 0.6, "b": 0.3}, "bm25_nostem": {"stemmer": "none"}}


@pytest.fixture(scope="module")
def scifact_eval():
    from hcrbench.data import load_beir
    from hcrbench.metrics import evaluate
    from hcrbench.retrieve import make_retriever

    ds = load_beir(SCIFACT, "test")
    runs = {}
    for name, params in VARIANTS.items():
        r = make_retriever("bm25", **params)
        r.index(ds.corpus)
        runs[name] = r.search(ds.queries, 100).run.rename(name)
    return ds.qrels, runs, evaluate(ds.qrels, runs, ["nDCG@10", "R@100"])


@pytest.mark.slow  # ranx imports numba and JIT-compiles: seconds to minutes on a busy 2-core machine
@pytest.mark.parametrize("test,field", [("student", "t_p"), ("tukey", "p_tukey")])
def test_all_pairs_equal_ranx(scifact_eval, test, field):
    import ranx

    qrels, runs, ev = scifact_eval
    rq = ranx.Qrels.from_dict(qrels.to_dict())
    rr = [ranx.Run.from_dict(r.to_dict(), name=n) for n, r in runs.items()]
    report = ranx.compare(rq, rr, metrics=["ndcg@10", "recall@100"], stat_test=test, max_p=0.05)
    comps = compare(ev, pairs="all", n_resamples=200)
    assert len(comps) == 6
    names = list(runs)
    for c in comps:
        rx_metric = {"nDCG@10": "ndcg@10", "R@100": "recall@100"}[c.metric]
        assert c.mean_run == pytest.approx(report.results[c.run][rx_metric], abs=1e-6)
        assert getattr(c, field) == pytest.approx(report.comparisons[c.run, c.baseline][rx_metric]["p_value"],
                                                  rel=1e-6, abs=1e-9)
    ours = significance_letters(comps, names, alpha=0.05, p=field)
    for n in names:
        for m, rx_metric in (("nDCG@10", "ndcg@10"), ("R@100", "recall@100")):
            assert ours[(n, m)] == report.get_superscript_for_table(n, rx_metric), (n, m)
    assert any(ours.values()) or test == "tukey"  # the t-test separates the unstemmed run: the check has teeth


def test_evaluate_all_pairs_through_the_console_script(tmp_path):
    third = tmp_path / "rev.trec"  # bm25 with its ranks reversed: a broken system every other run beats
    lines = (EX / "bm25.trec").read_text().splitlines()
    third.write_text("\n".join(f"{ln.split()[0]} Q0 {ln.split()[2]} 1 {-float(ln.split()[4])} rev" for ln in lines)
                     + "\n")
    out = tmp_path / "ap.json"
    cmd = ["hcrbench", "evaluate", str(EX / "cranfield.qrels"), str(EX / "bm25.trec"), str(EX / "bm25_stemmed.trec"),
           str(third), "-m", "nDCG@10,AP", "--resamples", "200", "--all-pairs", "--json", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    pairs = [(c["run"], c["baseline"]) for c in doc["comparisons"] if c["metric"] == "AP"]
    assert pairs == [("bm25_stemmed", "bm25"), ("rev", "bm25"), ("rev", "bm25_stemmed")]
    assert all(0 <= c["p_tukey"] <= 1 for c in doc["comparisons"])
    assert "Superscripts" in r.stdout and "c = rev" in r.stdout and "ᶜ" in r.stdout  # the reversed run is beaten
    bad = subprocess.run([*cmd[:-2], "--letters", "z"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "--letters" in bad.stderr and "Traceback" not in bad.stderr
