"""hcrbench's evaluation where pt.Experiment goes: the same table as PyTerrier's own pt.Experiment (means, +/-,
t-test p, Holm-corrected p and reject, per-query values) on the same result frames, and on transformers run by
PyTerrier. Runs PyTerrier for real (pt.Experiment needs no JVM on frames)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hcrbench.errors import InputError

pt = pytest.importorskip("pyterrier", reason="PyTerrier is not installed (pip install 'hcrbench[pyterrier]')")
ir_measures = pytest.importorskip("ir_measures")

from hcrbench.stats.pt_experiment import experiment  # noqa: E402

N_Q = 15


def _frames(seed: int = 0):
    rng = np.random.default_rng(seed)
    topics = pd.DataFrame({"qid": [f"q{i}" for i in range(N_Q)], "query": ["x"] * N_Q})
    qrels = pd.DataFrame([{"qid": f"q{q}", "docno": f"d{d}", "label": int(rng.integers(0, 3))}
                          for q in range(N_Q) for d in rng.choice(40, 8, replace=False)])

    def results(s: int) -> pd.DataFrame:
        r = np.random.default_rng(s)
        return pd.DataFrame([{"qid": f"q{q}", "docno": f"d{d}", "score": float(np.round(r.random(), 3))}
                             for q in range(N_Q) for d in r.choice(40, 20, replace=False)])

    return topics, qrels, [results(1), results(2), results(3)]


MEASURES = [ir_measures.nDCG @ 10, "map", "P_5", ir_measures.RR]


def _aligned(ours: pd.DataFrame, theirs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    assert set(ours.columns) == set(theirs.columns)
    return ours[list(theirs.columns)], theirs


@pytest.mark.parametrize("correction", [None, "holm", "bonferroni"])
def test_the_table_equals_pt_experiments(correction):
    topics, qrels, runs = _frames()
    names = ["A", "B", "C"]
    theirs = pt.Experiment(runs, topics, qrels, MEASURES, names=names, baseline=0, correction=correction)
    ours = experiment(runs, topics, qrels, MEASURES, names=names, baseline=0, correction=correction)
    ours, theirs = _aligned(ours, theirs)
    assert ours["name"].tolist() == theirs["name"].tolist()
    for col in theirs.columns[1:]:
        a, b = ours[col].to_numpy(), theirs[col].to_numpy()
        if col.endswith("reject"):
            assert a.tolist() == b.tolist(), col
        else:
            np.testing.assert_allclose(a.astype(float), b.astype(float), rtol=0, atol=1e-9, equal_nan=True,
                                       err_msg=col)


def test_per_query_values_equal_pt_experiments():
    topics, qrels, runs = _frames(4)
    theirs = pt.Experiment(runs, topics, qrels, MEASURES, names=["A", "B", "C"], perquery=True)
    ours = experiment(runs, topics, qrels, MEASURES, names=["A", "B", "C"], perquery=True)
    key = ["name", "qid", "measure"]
    both = theirs.merge(ours, on=key, suffixes=("_pt", "_ours"))
    assert len(both) == len(theirs) == len(ours)
    np.testing.assert_allclose(both["value_ours"], both["value_pt"], rtol=0, atol=1e-12)


def test_transformers_run_on_the_topics_and_other_tests_apply():
    topics, qrels, runs = _frames(5)
    systems = [pt.Transformer.from_df(r) for r in runs]  # PyTerrier transformers answering from a frame
    want = experiment(runs, topics, qrels, ["nDCG@10"], names=["A", "B", "C"], baseline="A", test="wilcoxon")
    got = experiment(systems, topics, qrels, ["nDCG@10"], names=["A", "B", "C"], baseline="A", test="wilcoxon")
    pd.testing.assert_frame_equal(got, want)
    perm = experiment(runs, topics, qrels, ["nDCG@10"], names=["A", "B", "C"], baseline="A", test="permutation",
                      correction="fdr_bh", seed=3)
    assert perm["nDCG@10 p-value"].iloc[1:].between(0, 1).all()
    assert perm["nDCG@10 p-value corrected"].iloc[1:].ge(perm["nDCG@10 p-value"].iloc[1:]).all()


def test_bad_inputs_are_one_line_errors():
    topics, qrels, runs = _frames()
    with pytest.raises(InputError, match="baseline"):
        experiment(runs, topics, qrels, ["map"], names=["A", "B", "C"], baseline="Z")
    with pytest.raises(InputError, match="one distinct name"):
        experiment(runs, topics, qrels, ["map"], names=["A", "A", "C"])
    with pytest.raises(InputError, match="transformer or a result frame"):
        experiment([42], topics, qrels, ["map"])
