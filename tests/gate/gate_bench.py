"""Synthetic benchmarks for the gate tests: skewed, graded, multi-relevance qrels over a doc pool."""

from __future__ import annotations

import numpy as np

from hcrbench.data import Run


def make_bench(n_queries: int = 120, n_docs: int = 400, seed: int = 0, max_rel: int = 4, skew: float = 1.1):
    """(qrels dict, pool list): relevant docs drawn from a Zipf-like popularity, grades 1-3, some 0s."""
    rng = np.random.default_rng(seed)
    pool = [f"d{i:04d}" for i in range(n_docs)]
    w = 1.0 / np.arange(1, n_docs + 1) ** skew
    w /= w.sum()
    qrels = {}
    for q in range(n_queries):
        m = int(rng.integers(1, max_rel + 1))
        docs = rng.choice(n_docs, size=m + 1, replace=False, p=w)
        qrels[f"q{q:03d}"] = {pool[d]: int(rng.integers(1, 4)) for d in docs[:m]}
        qrels[f"q{q:03d}"][pool[docs[m]]] = 0
    return qrels, pool


def good_run(qrels, pool, *, seed: int = 1, depth: int = 20, hit: float = 0.7, name: str = "good") -> Run:
    """Each relevant doc is retrieved near the top with probability ``hit``; the rest is random."""
    rng = np.random.default_rng(seed)
    out = {}
    for q, docs in qrels.items():
        rel = [d for d, g in docs.items() if g > 0 and rng.random() < hit]
        rest = [pool[i] for i in rng.choice(len(pool), size=depth, replace=False) if pool[i] not in rel]
        ranked = (rel + rest)[:depth]
        out[q] = {d: float(depth - i) for i, d in enumerate(ranked)}
    return Run.from_dict(out, name=name)


def constant_run(qrels, depth: int = 10, name: str = "constant") -> Run:
    freq: dict[str, int] = {}
    for docs in qrels.values():
        for d, g in docs.items():
            if g > 0:
                freq[d] = freq.get(d, 0) + 1
    top = sorted(freq, key=lambda d: (-freq[d], d))[:depth]
    return Run.from_dict({q: {d: float(depth - i) for i, d in enumerate(top)} for q in qrels}, name=name)
