"""An undecided row's "needs ~ n" where it is sized in queries, given the queries it holds: the topic interval (the
kill rule's CR2 over topic clusters when its queries carry no worlds, or the paired t) and checkpoint 3's betting
interval. The power is conditional on the queries in hand (:mod:`hcrbench.stats.conditional_power`), at a truth a
margin past the threshold on either side; target power :data:`registry.POWER` (0.8), checked in
tests/protocol/test_needs_queries_power.py and the calibration's "needs ~ n" table (docs/protocol.md). Rows judged
over worlds are sized in worlds (:func:`registry.undecided_worlds`)."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol.registry import POWER, Rule
from hcrbench.protocol.rules import MAX_N, confidence, t_level


def n_given_queries(rule: Rule, mean: float | None, n: int | None, sd: float | None, df: float | None = None,
                    *, power: float = POWER) -> int | None:
    """The n at which a row judged on a t interval over queries (the topic-clustered CR2 on ``df`` Bell-McCaffrey
    df, or the paired t on n - 1), undecided at ``n`` with mean ``mean`` and per-query sd ``sd`` (its standard
    error x sqrt(n): the clustering is in it), decides with probability 0.8 at a truth a margin past its threshold,
    on either side, *given the queries it holds* (:func:`hcrbench.stats.conditional_power.conditional_n`: those
    queries stay in every later look, and they are the ones that left it undecided, so a fresh sample's n for
    power 0.8 decided 65-78% there). The df grow with the queries (clusters in proportion)."""
    from hcrbench.stats.conditional_power import conditional_n

    if mean is None or not n or n < 2 or rule.kind not in ("difference", "mean") or rule.go != rule.nogo:
        return None
    df0 = float(df) if df is not None and df > 0 else n - 1.0
    need = conditional_n(float(mean), int(n), rule.go, rule.margin, sd,
                         lambda m: float(t_level(max(df0 * m / n, 1.0))), power=power, max_n=MAX_N)
    return need


def n_given_queries_betting(rule: Rule, diffs: Any, *, power: float = POWER) -> int | None:
    """:func:`n_given_queries` for a row judged on the betting interval of its per-query differences ``diffs``
    (checkpoint 3): its power simulated on that interval itself, the queries in hand kept in their order
    (:func:`hcrbench.stats.conditional_power.betting_conditional_n`); the half-width / z reading of its width
    that stood before overstated the n 3-4 fold at 120 queries, where the interval's running-variance prior
    still widens it."""
    from hcrbench.stats.conditional_power import betting_conditional_n

    if diffs is None or rule.go != rule.nogo:
        return None
    return betting_conditional_n(diffs, rule.go, rule.margin, confidence=confidence(), power=power, max_n=MAX_N)
