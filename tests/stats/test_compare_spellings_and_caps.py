"""compare() accepts any spelling of a measure; resample counts are capped at ten million."""

from __future__ import annotations

import numpy as np
import pytest
from test_compare import make_eval

from hcrbench.errors import InputError
from hcrbench.stats import compare, paired_bootstrap_ci, permutation_test


def test_compare_canonicalises_metric_names():
    ev = make_eval()
    want = [(c.run, c.metric, c.p) for c in compare(ev, metrics="nDCG@10,R@100", n_resamples=300)]
    for spelling in ("ndcg_cut_10,recall_100", ["ndcg_cut.10", "R@100"], "NDCG@10, recall@100"):
        got = [(c.run, c.metric, c.p) for c in compare(ev, metrics=spelling, n_resamples=300)]
        assert got == want, spelling
    with pytest.raises(InputError, match=r"not in the evaluation: map \(= AP\)"):
        compare(ev, metrics="map", n_resamples=10)
    with pytest.raises(InputError, match="not in the evaluation: zzz"):
        compare(ev, metrics="zzz", n_resamples=10)


@pytest.mark.parametrize("n", [10**7 + 1, 10**12])
def test_resamples_are_capped(n):
    a, b = np.arange(5.0), np.zeros(5)
    for fn in (permutation_test, paired_bootstrap_ci):
        with pytest.raises(InputError) as ei:
            fn(a, b, n_resamples=n)
        assert str(ei.value).startswith("n_resamples: must be an integer in 1..10000000")
    with pytest.raises(InputError, match="n_resamples"):
        compare(make_eval(), n_resamples=n)
