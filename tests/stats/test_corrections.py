"""Every multiple-comparison correction by statsmodels' names equals ``multipletests`` (statsmodels is a test
reference only; src never imports it), and every spelling it accepts is accepted."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from hcrbench.errors import InputError
from hcrbench.stats import adjust
from hcrbench.stats.multiple import ALIASES, CORRECTIONS, correction_name

# p-values with ties, zeros and ones (where step-up and step-down rules differ most)
probs = st.lists(st.one_of(st.floats(0.0, 1.0, allow_nan=False), st.sampled_from([0.0, 0.01, 0.05, 0.5, 1.0])),
                 min_size=1, max_size=30)
STATSMODELS = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni", "sidak": "sidak",
               "holm-sidak": "holm-sidak", "hommel": "hommel", "fdr_bh": "fdr_bh", "fdr_by": "fdr_by"}


@settings(max_examples=150, deadline=None)
@given(probs, st.sampled_from(sorted(STATSMODELS)))
def test_each_correction_equals_statsmodels_multipletests(p, name):
    ours = adjust(p, name)
    ref = multipletests(np.array(p), method=STATSMODELS[name])[1]
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-15)
    assert np.all(ours >= np.asarray(p) - 1e-15) and np.all(ours <= 1.0)


@settings(max_examples=60, deadline=None)
@given(probs)
def test_fwer_corrections_order_as_their_theory_says(p):
    arr = np.asarray(p)
    assert np.all(adjust(arr, "holm") <= adjust(arr, "bonferroni") + 1e-15)  # step-down never loses power
    assert np.all(adjust(arr, "hommel") <= adjust(arr, "holm") + 1e-12)
    assert np.all(adjust(arr, "holm-sidak") <= adjust(arr, "holm") + 1e-12)
    assert np.all(adjust(arr, "fdr_bh") <= adjust(arr, "fdr_by") + 1e-15)


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_statsmodels_short_names_mean_the_same_correction(alias):
    p = [0.001, 0.02, 0.03, 0.2, 0.04]
    np.testing.assert_array_equal(adjust(p, alias), adjust(p, ALIASES[alias]))
    np.testing.assert_allclose(adjust(p, alias.upper()), multipletests(p, method=alias)[1], rtol=1e-12)


def test_every_existing_spelling_still_works_and_unknown_names_are_refused():
    assert [correction_name(c) for c in CORRECTIONS] == list(CORRECTIONS)
    np.testing.assert_array_equal(adjust([0.01, 0.5], "bh"), adjust([0.01, 0.5], "fdr_bh"))
    np.testing.assert_array_equal(adjust([0.01, 0.5], "none"), [0.01, 0.5])
    with pytest.raises(InputError, match="bonferroni"):
        adjust([0.01], "bonferoni")
