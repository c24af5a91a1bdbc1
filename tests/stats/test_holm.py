"""Holm–Bonferroni against statsmodels.stats.multitest.multipletests(method="holm")."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from hcrbench.errors import InputError
from hcrbench.stats import holm


@pytest.mark.parametrize("seed", range(8))
def test_equals_statsmodels(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 30))
    p = rng.random(m) ** 3
    p[: m // 3] = p[0]  # ties
    np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1], rtol=0, atol=1e-15)


def test_known_values_and_order():
    # sorted p = .01, .02, .03, .5 -> 4*.01, max(.04, 3*.02), max(.06, 2*.03), max(.06, .5)
    np.testing.assert_allclose(holm([0.5, 0.03, 0.01, 0.02]), [0.5, 0.06, 0.04, 0.06])
    assert holm([]).size == 0
    assert holm([0.3]).tolist() == [0.3]


def test_rejects_non_probabilities():
    for bad in ([0.1, float("nan")], [0.1, 1.2], [-0.1]):
        with pytest.raises(InputError) as ei:
            holm(bad)
        assert ei.value.field == "pvalues"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=50))
def test_properties(pvals):
    p = np.array(pvals)
    adj = holm(p)
    assert np.all(adj >= p) and np.all(adj <= 1.0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adj[order]) >= 0)  # monotone in the raw p-values
    assert adj[order[0]] == min(1.0, p.size * p[order[0]])  # the smallest gets plain Bonferroni
