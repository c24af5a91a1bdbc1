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
