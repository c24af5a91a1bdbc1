"""Exact McNemar test for paired binary outcomes (e.g. sufficient / not, per query, for two systems).

Only discordant pairs carry information: with ``b`` queries where A succeeds and B fails and ``c`` the other way,
under H0 ``b ~ Binomial(b + c, 1/2)``; the two-sided p-value is ``min(1, 2 * P(X <= min(b, c)))``, the
definition of ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True)`` (checked in the tests).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from hcrbench.data.display import ResultDisplay
from hcrbench.errors import InputError
from hcrbench.stats._arrays import as_vector


@dataclass(frozen=True)
class McNemarResult(ResultDisplay):
    """Discordant counts (``a_only``: A yes and B no) and the exact two-sided p-value."""

    a_only: int
    b_only: int
    pvalue: float
    n: int

    def to_dict(self) -> dict:
        return {"a_only": self.a_only, "b_only": self.b_only, "pvalue": float(self.pvalue), "n": self.n}


def mcnemar_exact(a: object, b: object) -> McNemarResult:
    """Exact McNemar test of paired 0/1 vectors ``a`` and ``b`` (same queries, same order)."""
    x = as_vector(a, "a") != 0
    y = as_vector(b, "b") != 0
    if x.shape != y.shape:
        raise InputError(f"paired arrays differ in length: a has {x.size}, b has {y.size}", field="b")
    a_only = int(np.sum(x & ~y))
    b_only = int(np.sum(~x & y))
    n = a_only + b_only
    p = 1.0 if n == 0 else float(min(1.0, 2.0 * binom.cdf(min(a_only, b_only), n, 0.5)))
    return McNemarResult(a_only, b_only, p, int(x.size))
