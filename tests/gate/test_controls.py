"""Controls are real runs with the intended properties, and the harness classifies them correctly."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

import pytest
from gate_bench import make_bench

from hcrbench.data import Qrels, load_beir, read_run
from hcrbench.errors import HcrbenchWarning
from hcrbench.gate import CONTROLS, EXPECTED_PASS, build_controls, gate_pairs, run_controls

SCIFACT = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "scifact"


def test_control_runs_have_their_properties():
    qrels, pool = make_bench(n_queries=80, seed=3)
    runs = build_controls(qrels, pool, k=10, seed=0)
    assert set(runs) == set(CONTROLS)
    for qid, docs in qrels.items():
        rel = {d for d, g in docs.items() if g > 0}
        ranked = lambda c: [d for d, _ in runs[c].ranked(qid)]  # noqa: B023, E731
        for c in CONTROLS:
            assert len(ranked(c)) == 10 and len(set(ranked(c))) == 10
        top = sorted(rel, key=lambda d: (-docs[d], d))[:10]
        assert ranked("oracle")[: len(top)] == top
        assert not rel & set(ranked("anti_oracle"))
        kept = rel & set(ranked("partial_oracle"))
        assert len(rel) // 2 <= len(kept) <= len(rel) // 2 + 1
    assert len({tuple(d for d, _ in runs["constant"].ranked(q)) for q in qrels}) == 1
    # shuffled is the oracle's rankings on other queries: a derangement
    oracle = {q: tuple(d for d, _ in runs["oracle"].ranked(q)) for q in qrels}
    shuffled = {q: tuple(d for d, _ in runs["shuffled"].ranked(q)) for q in qrels}
    assert sorted(shuffled.values()) == sorted(oracle.values())
    assert all(shuffled[q] != oracle[q] for q in qrels)


def test_controls_deterministic():
    qrels, pool = make_bench(n_queries=30, seed=4)
    a, b = build_controls(qrels, pool, seed=9), build_controls(qrels, pool, seed=9)
    assert all(a[c].to_dict() == b[c].to_dict() for c in CONTROLS)


def test_harness_trusted_on_synthetic_skewed_bench():
    qrels, pool = make_bench(n_queries=150, n_docs=300, seed=5, skew=1.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        rep = run_controls(qrels, pool, n_trials=120, seed=0)
    assert rep.trusted, rep.misclassified
    assert {r["control"] for r in rep.rows} == set(CONTROLS) and len(rep.rows) == 14
    const = rep.pairs["constant"].graded
    assert "D" in const.failed_nulls


def test_harness_flags_itself_when_a_control_is_misclassified():
    # every query has the same single gold doc: null A is the identity, so even the oracle cannot pass
    qrels = {f"q{i}": {"gold": 1} for i in range(40)}
    pool = ["gold"] + [f"x{i}" for i in range(100)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        rep = run_controls(qrels, pool, n_trials=100, seed=0)
    assert not rep.trusted and any(m.startswith("oracle") for m in rep.misclassified)


def test_scifact_controls_classified_correctly(shared_dir):
    ds = load_beir(SCIFACT, "test")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        rep = run_controls(ds.qrels, ds.corpus.doc_ids, n_trials=200, seed=0)
    assert rep.trusted, rep.misclassified
    got = {(r["control"], r["metric"]): r["gate_pass"] for r in rep.rows}
    assert all(got[(c, m)] == EXPECTED_PASS[c] for c, m in got)


def test_meridian_controls_classified_correctly(tmp_path, meridian_copy):
    out = tmp_path / "meridian"
    meridian_copy(out, "small", seed=0, grow=True)
    ds = load_beir(out, "test")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        rep = run_controls(ds.qrels, ds.corpus.doc_ids, n_trials=200, seed=0)
    assert rep.trusted, rep.misclassified
    assert "D" in rep.pairs["constant"].graded.failed_nulls


@pytest.mark.slow
def test_scifact_bm25_passes_constant_popularity_fail(shared_dir, tmp_path):
    out = tmp_path / "bm25.trec"
    subprocess.run(["hcrbench", "retrieve", "--dataset", str(SCIFACT), "--system", "bm25", "--k", "100",
                    "--out", str(out)], check=True)
    ds = load_beir(SCIFACT, "test")
    controls = build_controls(ds.qrels, ds.corpus.doc_ids, k=10, seed=0)
    runs = {"bm25": read_run(out), "constant": controls["constant"], "popularity": controls["popularity"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        pairs = gate_pairs(Qrels.from_dict(ds.qrels.to_dict()), runs, item_pool=ds.corpus.doc_ids, n_trials=200)
    assert pairs["bm25"].graded.gate_pass and pairs["bm25"].strict.gate_pass
    assert pairs["bm25"].graded.real_mean > 0.6
    for c in ("constant", "popularity"):
        assert not pairs[c].graded.gate_pass and not pairs[c].strict.gate_pass
