"""Conditional power: how many queries an interval that has not decided yet needs, given the queries it holds.

An undecided row's queries stay in its later looks: the run adds queries to them. Those first queries are the ones
that left the interval undecided, so their mean sits nearer the threshold than a fresh sample's would; the n at
which a fresh sample has power 0.8 (:func:`hcrbench.stats.power.required_n`) then decides such a row less often
than 0.8 (on the calibration's draws 65-80%, docs/protocol.md). The figure here is the power *conditional on the
queries in hand* (Lan & Wittes 1988, "The B-value"; Proschan, Lan & Wittes 2006, ch. 3): the first ``n1`` queries
kept with their mean ``m1``, the ``n - n1`` new ones drawn at a truth a margin past the threshold with per-query sd
``sd``, the interval at ``n`` being ``mean_n +- crit(n) sd / sqrt(n)``:

    P(decide at n) = Phi((k (truth - thr) + n1 (m1 - thr) - crit(n) sd sqrt(n)) / (sd sqrt(k))),  k = n - n1

(signs flipped for the side below the threshold). The truth may lie a margin past the threshold on either side;
the figure is the larger of the two sides' n, so that it holds its power whichever side the truth is on.

- :func:`conditional_n`: that n for an interval with a known critical value (a t on its df, the df growing with
  the queries: the topic-clustered CR2 interval's Bell-McCaffrey df scale with its clusters).
- :func:`betting_conditional_n`: the same for the betting interval (:mod:`hcrbench.stats.bounded`), whose width
  at small n is set by its running-variance prior and truncation (its half-width is 5.4 sd / sqrt(n) at 120
  queries of sd 0.13, 2.74 at 2,880): its power is simulated on the interval itself, the first queries kept in
  their order and new ones drawn from them recentred on the truth, up to :data:`SIM_MAX` queries, and beyond that
  the formula above with the interval's large-n multiplier sqrt(2 log(2 / alpha)).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist

import numpy as np

from hcrbench.stats.bounded import rejects_rows

SIM_MAX = 4000   # queries up to which the betting interval's power is simulated (beyond: its large-n formula)
REPS = 200       # simulated continuations per candidate n (deterministic: seeded)


def conditional_power(m1: float, n1: int, threshold: float, truth: float, sd: float, n: int, crit: float) -> float:
    """P(an interval ``mean +- crit sd / sqrt(n)`` at ``n`` lies wholly past ``threshold`` on ``truth``'s side),
    its first ``n1`` queries' mean being ``m1`` and the rest drawn at ``truth`` (module docstring)."""
    k = n - n1
    if k <= 0 or sd <= 0:
        return 0.0
    s = 1.0 if truth > threshold else -1.0
    num = k * s * (truth - threshold) + n1 * s * (m1 - threshold) - crit * sd * math.sqrt(n)
    return NormalDist().cdf(num / (sd * math.sqrt(k)))


def _smallest(ok: Callable[[int], bool], n1: int, max_n: int) -> int | None:
    """The smallest n in (n1, max_n] with ``ok(n)`` by doubling the added queries, then bisection (``ok`` is
    monotone in n past the first n it holds at, up to the simulation's noise)."""
    k = max(1, n1 // 8)
    lo = n1
    while not ok(n1 + k):
        lo = n1 + k
        if n1 + k >= max_n:
            return None
        k = min(2 * k, max_n - n1)
    hi = n1 + k
    while hi - lo > max(1, lo // 100):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def conditional_n(m1: float, n1: int, threshold: float, margin: float, sd: float | None, crit: Callable[[int], float],
                  *, power: float = 0.8, max_n: int = 1_000_000) -> int | None:
    """The n at which the interval (critical value ``crit(n)``) decides with probability ``power`` at a truth
    ``margin`` past ``threshold``, given its first ``n1`` queries' mean ``m1``: the larger of the two sides' n
    (None when a side needs more than ``max_n`` or the sd is not positive)."""
    if sd is None or not math.isfinite(sd) or sd <= 0 or margin <= 0 or n1 < 1:
        return None
    need = 0
    for truth in (threshold + margin, threshold - margin):
        n = _smallest(lambda n, t=truth: conditional_power(m1, n1, threshold, t, sd, n, crit(n)) >= power, n1, max_n)
        if n is None:
            return None
        need = max(need, n)
    return need


def betting_power(first: np.ndarray, threshold: float, truth: float, n: int, idx: np.ndarray,
                  confidence: float) -> float:
    """Simulated P(the betting interval at ``n`` lies wholly past ``threshold`` on ``truth``'s side): ``first``
    (paired differences in [-1, 1]) kept in their order, ``n - len(first)`` more drawn by ``idx`` (reps x k
    indices into ``first``) from ``first`` recentred on ``truth``."""
    n1, k = first.size, n - first.size
    pool = np.clip(first - first.mean() + truth, -1.0, 1.0)
    x = np.concatenate([np.broadcast_to(first, (idx.shape[0], n1)), pool[idx[:, :k]]], axis=1)
    rej = rejects_rows((x + 1) / 2, (threshold + 1) / 2, confidence=confidence)
    side = x.mean(axis=1) > threshold if truth > threshold else x.mean(axis=1) < threshold
    return float(np.mean(rej & side))


def betting_conditional_n(first: object, threshold: float, margin: float, *, confidence: float = 0.95,
                          power: float = 0.8, reps: int = REPS, seed: int = 0, sim_max: int = SIM_MAX,
                          max_n: int = 1_000_000) -> int | None:
    """:func:`conditional_n` for the betting interval of the paired differences ``first`` (module docstring):
    simulated on the interval itself up to ``sim_max`` queries, the large-n formula beyond."""
    d = np.clip(np.asarray(first, dtype=np.float64).ravel(), -1.0, 1.0)
    n1 = d.size
    sd = float(d.std(ddof=1)) if n1 > 1 else 0.0
    if n1 < 2 or sd <= 0 or margin <= 0:
        return None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n1, size=(reps, max(sim_max - n1, 1)))
    kappa = math.sqrt(2 * math.log(2 / (1 - confidence)))  # the half-width's multiplier of sd / sqrt(n), large n
    m1, need = float(d.mean()), 0
    for truth in (threshold + margin, threshold - margin):
        def ok(n: int, t: float = truth) -> bool:
            if n <= sim_max:
                return betting_power(d, threshold, t, n, idx, confidence) >= power
            return conditional_power(m1, n1, threshold, t, sd, n, kappa) >= power

        n = _smallest(ok, n1, max_n)
        if n is None:
            return None
        need = max(need, n)
    return need
