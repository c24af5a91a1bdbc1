"""bootstrap_means draws 32-bit indices and counts 0/1 samples: bit for bit the means (and the generator state)
of the plain 64-bit draw and float mean it replaced, kept here as the reference."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import hcrbench.stats.bootstrap as boot


def reference_means(x: np.ndarray, n_resamples: int, rng: np.random.Generator, chunk_entries: int) -> np.ndarray:
    n = x.size
    out = np.empty(n_resamples)
    chunk = max(1, min(n_resamples, chunk_entries // n))
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        idx = rng.integers(0, n, size=(rows, n))
        out[start : start + rows] = x[idx].mean(axis=1)
    return out


def _same(x: np.ndarray, n_resamples: int, seed: int, chunk_entries: int) -> None:
    r_new, r_old = np.random.default_rng(seed), np.random.default_rng(seed)
    before, boot._CHUNK_ENTRIES = boot._CHUNK_ENTRIES, chunk_entries
    try:
        got = boot.bootstrap_means(x, n_resamples, r_new)
    finally:
        boot._CHUNK_ENTRIES = before
    want = reference_means(x, n_resamples, r_old, chunk_entries)
    assert got.tobytes() == want.tobytes()
    assert r_new.bit_generator.state == r_old.bit_generator.state  # the same words consumed


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), reps=st.integers(1, 700), seed=st.integers(0, 2**32), chunk=st.integers(1, 5000),
       kind=st.sampled_from(["binary", "float", "grades", "signed zeros"]))
def test_bootstrap_means_equal_the_reference_draw_for_draw(n, reps, seed, chunk, kind):
    rng = np.random.default_rng(seed ^ 0x5EED)
    x = {"binary": lambda: (rng.random(n) < 0.4).astype(np.float64),
         "float": lambda: rng.normal(size=n),
         "grades": lambda: rng.integers(0, 3, n).astype(np.float64) / 2,
         "signed zeros": lambda: np.where(rng.random(n) < 0.5, -0.0, 1.0)}[kind]()
    _same(x, reps, seed, chunk)


def test_a_rate_at_the_quickstarts_size_is_counted_and_equal():
    x = (np.random.default_rng(3).random(285) < 0.43).astype(np.float64)
    _same(x, 10_000, 12345, 1 << 21)
    _same(np.zeros(285), 500, 1, 1 << 21)
    _same(np.full(7, -0.0), 500, 1, 1 << 21)
