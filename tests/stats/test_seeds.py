"""Seed aggregation (finding 9): mean ± sd over seeds, paired tests on seed-averaged per-query scores."""

from __future__ import annotations

import numpy as np
import pytest

from hcrbench.errors import InputError
from hcrbench.stats import aggregate_seeds, permutation_test


def test_aggregate_seeds_mean_sd_and_per_query():
    rng = np.random.default_rng(0)
    runs = {str(s): np.clip(rng.normal(0.5, 0.2, 40), 0, 1) for s in (0, 1, 2)}
    agg = aggregate_seeds(runs)
    means = [v.mean() for v in runs.values()]
    assert agg.seeds == ["0", "1", "2"] and agg.n_seeds == 3
    assert agg.mean == pytest.approx(np.mean(means)) and agg.sd == pytest.approx(np.std(means, ddof=1))
    np.testing.assert_allclose(agg.per_query, np.mean(list(runs.values()), axis=0))
    assert agg.per_query.mean() == pytest.approx(agg.mean)
    assert "±" in str(agg) and agg.to_dict()["n_seeds"] == 3


def test_seed_averaging_keeps_the_query_as_the_unit():
    """Three seeds of the same system are not three times the queries: the test on the average has n queries."""
    rng = np.random.default_rng(1)
    base = rng.random(30)
    seeds = [np.clip(base + rng.normal(0.01, 0.05, 30), 0, 1) for _ in range(3)]
    agg = aggregate_seeds(seeds)
    assert agg.per_query.size == 30
    p_avg = permutation_test(agg.per_query, base, seed=0).pvalue
    p_pooled = permutation_test(np.concatenate(seeds), np.tile(base, 3), seed=0).pvalue
    assert p_pooled <= p_avg  # pooling seeds as queries overstates the evidence


def test_aggregate_seeds_rejects_misaligned_and_empty():
    with pytest.raises(InputError, match="seed '1' has 3 values"):
        aggregate_seeds({"0": [0.1, 0.2], "1": [0.1, 0.2, 0.3]})
    with pytest.raises(InputError, match="no seed"):
        aggregate_seeds({})
    assert aggregate_seeds([[0.2, 0.4]]).sd == 0.0
