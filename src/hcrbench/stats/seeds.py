"""Aggregation over training seeds: a stochastic system is one system, not three.

A system trained with seeds s1..sk gives k per-query score vectors on the same queries. Its reported figure is
the mean over seeds of the per-seed means, with the SD across seeds (how much the seed alone moves the score);
the paired tests are run on the *seed-averaged* per-query scores, so the query stays the unit of sampling and
seed noise is averaged out rather than counted as extra queries (pseudo-replication).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from hcrbench.data.display import ResultDisplay
from hcrbench.errors import InputError
from hcrbench.stats._arrays import as_vector


@dataclass(frozen=True)
class SeedAggregate(ResultDisplay):
    """Per-seed means, their mean and SD (ddof=1; 0 with one seed), and the seed-averaged per-query values."""

    seeds: list[str]
    seed_means: list[float]
    mean: float
    sd: float
    per_query: np.ndarray

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

    def to_dict(self) -> dict:
        return {"seeds": list(self.seeds), "seed_means": [float(x) for x in self.seed_means], "mean": float(self.mean),
                "sd": float(self.sd), "n_seeds": self.n_seeds}

    def __str__(self) -> str:
        return f"{self.mean:.4f} ± {self.sd:.4f} (n_seeds={self.n_seeds})"


def aggregate_seeds(per_seed: Mapping[str, Sequence[float]] | Sequence[Sequence[float]]) -> SeedAggregate:
    """Aggregate per-query values of one system over seeds (``{seed: values}`` or a list, values aligned by query).

    All seeds must score the same queries in the same order (same length); the result's ``per_query`` is the
    element-wise mean over seeds, ready for :func:`hcrbench.stats.permutation_test` / :func:`paired_ci`.
    """
    items = list(per_seed.items()) if isinstance(per_seed, Mapping) else [(str(i), v) for i, v in enumerate(per_seed)]
    if not items:
        raise InputError("no seed given", field="per_seed")
    arrays = [as_vector(v, f"per_seed[{k}]") for k, v in items]
    n = arrays[0].size
    for (k, _), arr in zip(items, arrays):
        if arr.size != n:
            raise InputError(f"seed {k!r} has {arr.size} values, the first seed {n}", field="per_seed")
    mat = np.vstack(arrays)
    means = mat.mean(axis=1)
    sd = float(means.std(ddof=1)) if means.size > 1 else 0.0
    return SeedAggregate([str(k) for k, _ in items], means.tolist(), float(means.mean()), sd, mat.mean(axis=0))
