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


@dataclass(frozen=True)
class SeedComponent(ResultDisplay):
    """The tree-seed variance component of a seed-averaged mean difference (two-way random effects, queries x
    seeds, one value per cell): ``var`` is what seeds add to the variance of the mean beyond what the query
    spread of the seed-averaged differences already holds; ``ms_seed`` / ``ms_resid`` the mean squares it is made
    of (on k - 1 and (n - 1)(k - 1) df)."""

    k: int
    n: int
    ms_seed: float
    ms_resid: float
    var: float

    def combine(self, mean: float, var_query: float, df_query: float, confidence: float = 0.95
                ) -> tuple[float, float, float, float]:
        """``(low, high, df, se)``: the interval of ``mean`` with the query-path variance ``var_query`` (on
        ``df_query`` df) and this component added as variances, on Welch-Satterthwaite df."""
        from scipy import stats as sps

        a = 1.0 / (self.n * self.k)
        v = var_query + self.var
        if self.var > 0:
            den = var_query ** 2 / df_query + (a * self.ms_seed) ** 2 / (self.k - 1) + \
                (a * self.ms_resid) ** 2 / ((self.n - 1) * (self.k - 1))
            df = v ** 2 / den if den > 0 else df_query
        else:
            df = df_query
        h = float(sps.t.ppf(0.5 + confidence / 2, df)) * v ** 0.5
        return mean - h, mean + h, float(df), float(v ** 0.5)


def seed_component(per_seed: Sequence[Sequence[float]]) -> SeedComponent:
    """The tree-seed component of the mean of a (k seeds x n queries) matrix of paired differences.

    Model D_qs = mu + a_q + b_s + e_qs. The mean over both has variance s_a^2 / n + s_b^2 / k + s_e^2 / (n k)
    = (MS_query + MS_seed - MS_resid) / (n k). The query path (the interval of the seed-averaged per-query
    differences) estimates MS_query / (n k); the seeds add (MS_seed - MS_resid) / (n k), floored at 0. Adding the
    plain between-seed variance of the seed means (MS_seed / (n k)) counts the residual twice, and scaling it by
    t(k - 1) (12.7 at two seeds) on top of the query interval's own t counts the seeds' uncertainty as if they
    were the whole variance: the df of the sum is Welch-Satterthwaite's (:meth:`SeedComponent.combine`)."""
    d = np.asarray(per_seed, dtype=np.float64)
    if d.ndim != 2 or d.shape[0] < 2 or d.shape[1] < 2:
        raise InputError(f"need at least 2 seeds x 2 queries, got shape {d.shape}", field="per_seed")
    k, n = d.shape
    seed_means, query_means, grand = d.mean(axis=1), d.mean(axis=0), float(d.mean())
    ms_seed = n * float(np.sum((seed_means - grand) ** 2)) / (k - 1)
    resid = d - seed_means[:, None] - query_means[None, :] + grand
    ms_resid = float(np.sum(resid ** 2)) / ((n - 1) * (k - 1))
    return SeedComponent(k, n, ms_seed, ms_resid, max(0.0, (ms_seed - ms_resid) / (n * k)))
