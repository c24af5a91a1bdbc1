"""RAPTOR clustering: BIC choice vs scikit-learn, soft assignment threshold, re-clustering guards (no UMAP)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.mixture import GaussianMixture

from hcrbench.retrieve.raptor import cluster as cl


def mixture(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]])
    return np.concatenate([c + rng.standard_normal((40, 2)) for c in centres])


def test_bic_choice_equals_scikit_learn_argmin():
    x = mixture()
    bics = [GaussianMixture(n_components=n, random_state=224).fit(x).bic(x) for n in np.arange(1, 8)]
    expected = int(np.arange(1, 8)[np.argmin(bics)])
    assert cl.optimal_clusters(x, max_clusters=8, seed=224) == expected == 3


def test_bic_range_is_the_codes_and_tiny_inputs_do_not_crash():
    x = mixture()[:2]
    assert cl.optimal_clusters(x, max_clusters=50) == 1  # range(1, 2): one candidate
    assert cl.optimal_clusters(x[:1], max_clusters=50) == 1  # the original would argmin an empty list


@pytest.mark.parametrize("threshold", [0.1, 0.3, 0.6])
def test_soft_assignment_respects_the_threshold(threshold):
    rng = np.random.default_rng(3)
    # Two overlapping blobs: points in the middle belong to both at p > 0.1.
    x = np.concatenate([rng.standard_normal((80, 2)), rng.standard_normal((80, 2)) + np.array([4.5, 0.0])])
    labels, n = cl.gmm_soft(x, threshold, max_clusters=4, seed=224)
    probs = GaussianMixture(n_components=n, random_state=224).fit(x).predict_proba(x)
    for p, ls in zip(probs, labels):
        assert ls.tolist() == np.flatnonzero(p > threshold).tolist()
    if threshold == 0.1:
        assert n >= 2 and any(len(ls) > 1 for ls in labels)  # soft: some point sits in two clusters


def test_umap_guard_keeps_tiny_groups_whole():
    emb = np.random.default_rng(0).standard_normal((5, 8))
    assert not cl.umap_fits(3, 1, 1) and not cl.umap_fits(11, 10, 10) and cl.umap_fits(12, 10, 10)
    for n in (1, 2, 3):
        got = cl.cluster_level(emb[:n], cl.ClusterConfig())
        assert [g.tolist() for g in got] == [list(range(n))]


@settings(max_examples=100, deadline=None)
@given(tokens=st.lists(st.integers(0, 600), min_size=1, max_size=60), cap=st.integers(1, 1500))
def test_split_by_order_stays_under_the_cap_and_keeps_order(tokens, cap):
    members = list(range(len(tokens)))
    groups = cl.split_by_order(members, tokens, cap)
    assert [m for g in groups for m in g.tolist()] == members
    for g in groups:
        assert len(g) == 1 or sum(tokens[m] for m in g) <= cap


def test_unsplittable_cluster_terminates_by_order(monkeypatch):
    # Clustering that never splits (the original then recurses forever): bounded, cut by order under the cap.
    monkeypatch.setattr(cl, "cluster_level", lambda emb, cfg: [np.arange(len(emb))])
    tokens = [100] * 80
    stats: dict[str, int] = {}
    groups = cl.raptor_clusters(np.zeros((80, 4)), tokens, cl.ClusterConfig(max_cluster_tokens=3500), stats=stats)
    assert [len(g) for g in groups] == [35, 35, 10]
    assert stats["split_by_order"] == 1


def test_recursion_depth_is_bounded(monkeypatch):
    # Clustering that always peels one node off: re-clustering goes deeper each time until the bound.
    def peel(emb, cfg):
        return [np.arange(len(emb) - 1), np.array([len(emb) - 1])] if len(emb) > 1 else [np.arange(len(emb))]

    monkeypatch.setattr(cl, "cluster_level", peel)
    tokens = [100] * 60
    stats: dict[str, int] = {}
    groups = cl.raptor_clusters(np.zeros((60, 4)), tokens,
                                cl.ClusterConfig(max_cluster_tokens=1000, max_recluster_depth=3), stats=stats)
    assert sorted(m for g in groups for m in g.tolist()) == list(range(60))
    assert all(sum(tokens[m] for m in g) <= 1000 for g in groups)
    assert stats["reclustered"] == 3 and stats["split_by_order"] == 1


def _bic_curve_counter(monkeypatch):
    """Count GMM fits made by the BIC scan."""
    import sklearn.mixture

    calls = []
    real = sklearn.mixture.GaussianMixture

    class Counting(real):
        def fit(self, x, y=None):
            calls.append(self.n_components)
            return super().fit(x, y)

    monkeypatch.setattr(sklearn.mixture, "GaussianMixture", Counting)
    return calls


# full scans of three seeds (tens of seconds each): the slow set; the short-patience deviation below stays fast
@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bic_patience_finds_the_full_scans_minimum_with_fewer_fits(monkeypatch, seed):
    x = mixture(seed)
    calls = _bic_curve_counter(monkeypatch)
    full = cl.optimal_clusters(x, max_clusters=30, seed=224, patience=0)
    n_full = len(calls)
    calls.clear()
    early = cl.optimal_clusters(x, max_clusters=30, seed=224, patience=5)
    assert early == full == 3
    assert n_full == 29 and len(calls) == 3 + 5  # the minimum at 3, then five counts that rose


def test_bic_patience_is_a_real_deviation_when_too_short(monkeypatch):
    """A BIC curve with a local minimum before the global one: patience 1 stops at the local one, the full scan
    (and a patience longer than the bump) finds the global one. The rule can fail; its default is a choice."""
    import sklearn.mixture

    curve = {1: 10.0, 2: 5.0, 3: 6.0, 4: 7.0, 5: 1.0, 6: 2.0, 7: 3.0}

    class Fake:
        def __init__(self, n_components, random_state=None):
            self.n_components = n_components

        def fit(self, x):
            return self

        def bic(self, x):
            return curve[self.n_components]

    monkeypatch.setattr(sklearn.mixture, "GaussianMixture", Fake)
    x = np.zeros((20, 2))
    assert cl.optimal_clusters(x, max_clusters=8, patience=0) == 5
    assert cl.optimal_clusters(x, max_clusters=8, patience=3) == 5
    assert cl.optimal_clusters(x, max_clusters=8, patience=1) == 2


def test_parallel_map_keeps_order():
    items = list(range(7))
    assert cl._map(abs, [-i for i in items], 2) == items == cl._map(abs, [-i for i in items], 1)
    assert cl.workers(3) == 3 and cl.workers(0) >= 1


@pytest.mark.slow
def test_parallel_cluster_level_equals_serial():
    """The local fits in worker processes give exactly the serial clusters (UMAP + GMM are seeded)."""
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((4, 32)) * 4
    emb = np.concatenate([c + rng.standard_normal((60, 32)) for c in centres])
    serial = cl.cluster_level(emb, cl.ClusterConfig(n_jobs=1))
    parallel = cl.cluster_level(emb, cl.ClusterConfig(n_jobs=2))
    assert [g.tolist() for g in serial] == [g.tolist() for g in parallel]
    assert len(serial) >= 2


@pytest.mark.parametrize("patience", [0, 2])
def test_parallel_bic_scan_gives_the_serial_scans_count(patience):
    """The global scan's fits in worker processes, judged in count order, choose what the serial scan does
    (including where patience stops it)."""
    rng = np.random.default_rng(5)
    centres = rng.standard_normal((5, 3)) * 6
    x = np.concatenate([c + rng.standard_normal((130, 3)) for c in centres])
    assert len(x) >= cl._PARALLEL_BIC_MIN
    serial = cl.optimal_clusters(x, max_clusters=9, seed=224, patience=patience, n_jobs=1)
    parallel = cl.optimal_clusters(x, max_clusters=9, seed=224, patience=patience, n_jobs=2)
    assert parallel == serial == 5  # five blobs (the serial scan = scikit-learn's argmin: the test above)
