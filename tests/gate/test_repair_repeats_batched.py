"""null D's repair (hcrbench.gate.nulls._repair_repeats) draws its partners in batches, yet returns what the
one-draw-at-a-time loop it replaced returned and leaves the generator in the same state, so every gate trial
after it (and gate.json) stays byte-identical."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.gate.nulls import Relevance, _repair_repeats


def _repair_repeats_loop(rng, rows, docs, grades, max_rounds=1000):
    """The loop as it was before batching (gate/nulls.py)."""
    docs = docs.copy()
    n_rows = int(rows[-1]) + 1 if rows.size else 0
    starts = np.searchsorted(rows, np.arange(n_rows + 1))
    span = int(docs.max(initial=0)) + 1
    for _ in range(max_rounds):
        key = rows * span + docs
        order = np.argsort(key, kind="stable")
        dup = order[1:][key[order[1:]] == key[order[:-1]]]
        if dup.size == 0:
            return docs
        for i in dup.tolist():
            ri = rows[i]
            for _try in range(200):
                j = int(rng.integers(0, docs.size))
                rj = rows[j]
                if rj == ri or grades[j] != grades[i]:
                    continue
                row_i, row_j = docs[starts[ri]:starts[ri + 1]], docs[starts[rj]:starts[rj + 1]]
                if docs[j] in row_i or docs[i] in row_j:
                    continue
                docs[i], docs[j] = docs[j], docs[i]
                break
    raise RuntimeError("null D: could not deal relevant docs without repeats")


def _both(seed, rows, docs, keys, max_rounds, odd):
    out = []
    for fn in (_repair_repeats, _repair_repeats_loop):
        rng = np.random.default_rng(seed)
        if odd:  # leave half a 64-bit draw buffered in the generator, as an earlier bounded draw does
            rng.integers(0, 5)
        try:
            res = fn(rng, rows, docs, keys, max_rounds)
        except RuntimeError:
            res = None
        out.append((res, rng.bit_generator.state, rng.random()))
    return out


@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=2, max_size=25), n_docs=st.integers(2, 30),
       n_keys=st.integers(1, 3), seed=st.integers(0, 2**32 - 1), max_rounds=st.sampled_from([1, 3, 100]),
       odd=st.booleans(), data=st.data())
def test_batched_repair_equals_the_one_draw_loop(sizes, n_docs, n_keys, seed, max_rounds, odd, data):
    rows = np.repeat(np.arange(len(sizes)), sizes).astype(np.int64)
    docs = np.array(data.draw(st.lists(st.integers(0, n_docs - 1), min_size=rows.size, max_size=rows.size)),
                    dtype=np.int64)
    keys = np.array(data.draw(st.lists(st.integers(0, n_keys - 1), min_size=rows.size, max_size=rows.size)),
                    dtype=np.int64)
    (new, new_state, new_next), (old, old_state, old_next) = _both(seed, rows, docs, keys, max_rounds, odd)
    assert (new is None) == (old is None)
    if old is not None:
        np.testing.assert_array_equal(new, old)
        assert new.dtype == old.dtype
    assert new_state == old_state and new_next == old_next


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_null_d_trials_equal_the_loop_on_a_realistic_pool(seed, monkeypatch):
    # 300 queries of 1-5 relevant docs over 40 labels, grades 1-3: many strata, many repeats to repair
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, size=300)
    rows = np.repeat(np.arange(300), sizes)
    docs = np.concatenate([rng.choice(40, size=s, replace=False) for s in sizes])
    rel = Relevance.build(rows, docs, rng.integers(1, 4, size=rows.size), 300)
    new = [rel.null_d(g)[1] for g in [np.random.default_rng([seed, 3])] for _ in range(5)]
    import hcrbench.gate.nulls as nulls

    monkeypatch.setattr(nulls, "_repair_repeats", _repair_repeats_loop)
    old = [rel.null_d(g)[1] for g in [np.random.default_rng([seed, 3])] for _ in range(5)]
    for a, b in zip(new, old):
        np.testing.assert_array_equal(a, b)
