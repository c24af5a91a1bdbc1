"""The null samplers do what their definitions say (docs: hcrbench.gate.nulls)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from hcrbench.gate.nulls import Relevance, null_c_ranked, sample_distinct_rows


def _rel(seed=0, n_rows=50, n_labels=30):
    rng = np.random.default_rng(seed)
    rows, docs, grades = [], [], []
    for r in range(n_rows):
        m = int(rng.integers(1, 6))
        d = rng.choice(n_labels, size=m, replace=False, p=np.arange(n_labels, 0, -1) / np.arange(n_labels, 0, -1).sum())
        rows += [r] * m
        docs += (d * 3 + 5).tolist()  # sparse codes: labels are not 0..n-1
        grades += rng.integers(1, 4, size=m).tolist()
    return Relevance.build(np.array(rows), np.array(docs), np.array(grades), n_rows)


def _per_row(rows, docs, grades):
    out = {}
    for r, d, g in zip(rows.tolist(), docs.tolist(), grades.tolist()):
        out.setdefault(r, []).append((d, g))
    return out


@pytest.mark.parametrize("counts", [[1, 1, 1, 1], [3, 0, 5, 2, 8], [10, 10]])
def test_sample_distinct_rows_are_distinct(counts):
    rng = np.random.default_rng(0)
    p = np.linspace(1, 20, 12)
    for weights in (None, p / p.sum()):
        out = sample_distinct_rows(rng, np.array(counts), 12, weights)
        assert out.size == sum(counts)
        pos = 0
        for c in counts:
            row = out[pos:pos + c]
            assert len(set(row.tolist())) == c and row.min(initial=0) >= 0 and row.max(initial=0) < 12
            pos += c


def test_sample_distinct_rows_uniform_first_and_pairs():
    rng = np.random.default_rng(1)
    out = sample_distinct_rows(rng, np.full(20000, 2), 5).reshape(-1, 2)
    # every ordered pair of distinct items is equally likely: 20 cells
    cells = np.bincount(out[:, 0] * 5 + out[:, 1], minlength=25)
    observed = cells[[i * 5 + j for i in range(5) for j in range(5) if i != j]]
    assert stats.chisquare(observed).pvalue > 1e-3
    assert cells[[i * 6 for i in range(5)]].sum() == 0


def test_sample_distinct_rows_successive_sampling_law():
    """Second draw given the first follows p restricted to the other items (successive sampling)."""
    rng = np.random.default_rng(2)
    p = np.array([0.6, 0.25, 0.1, 0.05])
    out = sample_distinct_rows(rng, np.full(40000, 2), 4, p).reshape(-1, 2)
    first = np.bincount(out[:, 0], minlength=4)
    assert stats.chisquare(first, p * len(out)).pvalue > 1e-3
    sel = out[out[:, 0] == 0, 1]
    q = p[1:] / p[1:].sum()
    assert stats.chisquare(np.bincount(sel, minlength=4)[1:], q * sel.size).pvalue > 1e-3


def test_null_a_is_a_bijection_of_the_label_pool():
    rel = _rel()
    rows, docs, grades = rel.null_a(np.random.default_rng(0))
    np.testing.assert_array_equal(rows, rel.rows)
    np.testing.assert_array_equal(grades, rel.grades)
    mapping = {}
    for old, new in zip(rel.docs.tolist(), docs.tolist()):
        assert mapping.setdefault(old, new) == new  # a function of the doc
    assert sorted(mapping.values()) == sorted(mapping)  # one-to-one onto the label pool
    assert set(mapping) == set(rel.labels.tolist())


@pytest.mark.parametrize("which", ["null_b", "null_d", "null_d_iid"])
def test_nulls_b_d_keep_sizes_and_grades(which):
    rel = _rel(3)
    rows, docs, grades = getattr(rel, which)(np.random.default_rng(4))
    before, after = _per_row(rel.rows, rel.docs, rel.grades), _per_row(rows, docs, grades)
    labels = set(rel.labels.tolist())
    for r in before:
        assert sorted(g for _, g in before[r]) == sorted(g for _, g in after[r])
        ds = [d for d, _ in after[r]]
        assert len(set(ds)) == len(ds) and set(ds) <= labels


def test_null_d_keeps_every_doc_frequency_exactly():
    rel = _rel(5, n_rows=300)
    rng = np.random.default_rng(6)
    moved = 0
    for _ in range(20):
        rows, docs, grades = rel.null_d(rng)
        np.testing.assert_array_equal(grades, rel.grades)
        for g in np.unique(rel.grades):  # every doc keeps its frequency at every grade
            before = np.bincount(np.searchsorted(rel.labels, rel.docs[rel.grades == g]), minlength=rel.labels.size)
            after = np.bincount(np.searchsorted(rel.labels, docs[grades == g]), minlength=rel.labels.size)
            np.testing.assert_array_equal(after, before)
        for r in range(rel.n_rows):
            ds = docs[rows == r]
            assert len(set(ds.tolist())) == ds.size
        moved += int(np.sum(docs != rel.docs))
    assert moved > 0.5 * 20 * rel.docs.size  # the incidences really move


def test_null_d_iid_follows_the_relevance_frequency():
    rel = _rel(5, n_rows=300)
    rng = np.random.default_rng(6)
    counts = np.zeros(rel.labels.size)
    counts_b = np.zeros(rel.labels.size)
    for _ in range(100):
        counts += np.bincount(np.searchsorted(rel.labels, rel.null_d_iid(rng)[1]), minlength=rel.labels.size)
        counts_b += np.bincount(np.searchsorted(rel.labels, rel.null_b(rng)[1]), minlength=rel.labels.size)
    assert stats.spearmanr(counts, rel.freq).statistic > 0.9
    assert counts_b.std() / counts_b.mean() < 0.1  # B is uniform over the pool


@pytest.mark.parametrize("n_pool", [7, 25])  # general sampler / rejection of rows with a repeat
def test_null_c_rows_are_distinct_uniform_pool_docs(n_pool):
    pool = np.arange(n_pool) * 3 + 2
    out = null_c_ranked(np.random.default_rng(0), 4000, 5, pool)
    assert out.shape == (4000, 5)
    assert all(len(set(r)) == 5 for r in out.tolist())
    assert set(out.ravel().tolist()) <= set(pool.tolist())
    for col in range(5):  # every rank position is uniform over the pool
        assert stats.chisquare(np.bincount((out[:, col] - 2) // 3, minlength=n_pool)).pvalue > 1e-3
