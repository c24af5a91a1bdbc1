"""The stopping rule for "add test worlds in batches until each rule is decided or the budget is spent".

A group-sequential design with alpha spending (Lan & DeMets 1983): after look k of at most K, with information
fraction t_k (the share of the maximum evidence seen: k / K for equal batches), the error spent so far is
alpha(t_k), and the look-k boundary c_k is chosen so that, for a statistic that is a Brownian motion in the
information under the null (a mean of independent worlds' contributions), P(|Z_j| > c_j for some j <= k) =
alpha(t_k) exactly (recursive numerical integration, Armitage-McPherson-Rowe; Jennison & Turnbull 2000, ch. 19).
The union over looks is therefore alpha whatever look the run stops at: optional stopping (a run that ends early
because every rule is decided, or because the time budget is spent before look K) only spends less.

The default spending function is Hwang-Shih-DeCani with gamma = -2 (:data:`SPENDING`),
alpha(t) = alpha (1 - e^(2t)) / (1 - e^2): chosen by measured power (benchmarks/calibrate_rules.py, docs/protocol.md)
over the O'Brien-Fleming shape, which spends almost nothing at the first look (99.9998% at look 1 of 6, so the
first look all but never decides), and over Pocock's, which spends early but loses several points of power at
the last look. ``spending="obf"``, ``"pocock"`` or ``"hsd:GAMMA"`` picks another (:func:`spent`).

Every rule decides on the whole interval past its threshold; at look k that interval is computed at the
two-sided confidence level :func:`level` ``= 1 - 2 (1 - Phi(c_k))`` (z, t, Wilson, Fisher or betting alike),
so one run's error control is the rule's own interval at a wider level. Why this and not an anytime-valid
confidence sequence: the number of batches is bounded by the budget (``--max-worlds``), so spending the error
over a known K costs far less width than a sequence valid at every n. docs/protocol.md states this choice.

The power figure of an undecided row ("needs ~ M more worlds") is :func:`registry.n_for_power` at the level of
the look that would decide it, so it is the same computation a fixed-n row prints.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import optimize
from scipy import stats as sps

ALPHA = 0.05
#: the default spending function (:func:`spent`)
SPENDING = "hsd:-2"
GRID = 801  # points of the continuation region's score grid (the boundaries agree with gsDesign to ~1e-3)


def _check(look: int, max_looks: int, alpha: float) -> None:
    if not isinstance(max_looks, int) or max_looks < 1:
        raise ValueError(f"max_looks must be an integer >= 1, got {max_looks!r}")
    if not isinstance(look, int) or not 1 <= look <= max_looks:
        raise ValueError(f"look must be an integer in 1..{max_looks}, got {look!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")


def spent(t: float, alpha: float = ALPHA, spending: str | None = None) -> float:
    """The two-sided error the spending function ``spending`` (default :data:`SPENDING`) has spent at information
    fraction ``t``: ``"obf"`` (Lan-DeMets O'Brien-Fleming shape, 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))),
    ``"pocock"`` (Lan-DeMets Pocock shape, alpha ln(1 + (e - 1) t)) or ``"hsd:GAMMA"`` (Hwang-Shih-DeCani,
    alpha (1 - e^(-GAMMA t)) / (1 - e^(-GAMMA)); GAMMA 0 spends alpha t)."""
    if t <= 0:
        return 0.0
    t = min(t, 1.0)
    kind, gamma = _spending(spending)
    if kind == "obf":
        z = sps.norm.ppf(1 - alpha / 2)
        out = 2 * sps.norm.sf(z / math.sqrt(t))
    elif kind == "pocock":
        out = alpha * math.log(1 + (math.e - 1) * t)
    else:
        out = alpha * t if gamma == 0 else alpha * (1 - math.exp(-gamma * t)) / (1 - math.exp(-gamma))
    return float(min(alpha, out))


def _spending(spending: str | None) -> tuple[str, float]:
    """``(family, gamma)`` of a spending-function name (module docstring)."""
    name = (SPENDING if spending is None else str(spending)).strip().lower()
    if name in ("obf", "pocock"):
        return name, 0.0
    if name.startswith("hsd:"):
        try:
            gamma = float(name[4:])
        except ValueError:
            gamma = math.nan
        if math.isfinite(gamma) and -40 <= gamma <= 40:
            return "hsd", gamma
    raise ValueError(f"spending must be 'obf', 'pocock' or 'hsd:GAMMA' (GAMMA in [-40, 40]), got {spending!r}")


@lru_cache(maxsize=256)
def _bounds(fractions: tuple[float, ...], alpha: float, spending: str = "") -> tuple[float, ...]:
    """The two-sided z boundaries c_1..c_K at information ``fractions`` (increasing, last 1)."""
    out: list[float] = []
    grid = dens = None  # the sub-density of the score S = Z sqrt(t) among runs still going
    t_prev = 0.0
    for t in fractions:
        want = spent(t, alpha, spending or None) - spent(t_prev, alpha, spending or None)
        if grid is None:
            c = float(sps.norm.isf(want / 2)) if want > 0 else math.inf
        else:
            sd = math.sqrt(t - t_prev)
            w = dens * _weights(grid)

            def exit_prob(c: float, grid: np.ndarray = grid, w: np.ndarray = w, sd: float = sd,
                          t: float = t) -> float:
                b = c * math.sqrt(t)
                return float(np.sum(w * (sps.norm.cdf((-b - grid) / sd) + sps.norm.sf((b - grid) / sd))))

            if want <= 0 or exit_prob(40.0) >= want:
                c = math.inf
            else:
                c = float(optimize.brentq(lambda c, want=want: exit_prob(c) - want, 0.0, 40.0, xtol=1e-10))
        out.append(c)
        if math.isinf(c):
            c_grid = 8.0  # nothing exits: carry the density on a wide grid
        else:
            c_grid = c
        b = c_grid * math.sqrt(t)
        new = np.linspace(-b, b, GRID)
        if grid is None:
            dens = sps.norm.pdf(new / math.sqrt(t)) / math.sqrt(t)
        else:
            sd = math.sqrt(t - t_prev)
            w = dens * _weights(grid)
            dens = (sps.norm.pdf((new[:, None] - grid[None, :]) / sd) / sd) @ w
        grid, t_prev = new, t
    return tuple(out)


def _weights(grid: np.ndarray) -> np.ndarray:
    """Simpson weights on an odd-length even grid."""
    h = grid[1] - grid[0]
    w = np.ones(grid.size)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return w * h / 3


def _fractions(max_looks: int, fractions: Any) -> tuple[float, ...]:
    if fractions is None:
        return tuple((k + 1) / max_looks for k in range(max_looks))
    fr = tuple(float(f) for f in fractions)
    if len(fr) != max_looks or any(b <= a for a, b in itertools.pairwise((0.0, *fr))) or fr[-1] > 1.0 + 1e-12:
        raise ValueError(f"fractions must be {max_looks} increasing values in (0, 1], got {fractions!r}")
    return fr


def boundary(look: int, max_looks: int, alpha: float = ALPHA, fractions: Any = None, spending: str | None = None
             ) -> float:
    """The two-sided z boundary at ``look`` (1-based) of ``max_looks`` (inf: this look spends nothing)."""
    _check(look, max_looks, alpha)
    name = SPENDING if spending is None else str(spending)
    _spending(name)
    return _bounds(_fractions(max_looks, fractions), float(alpha), name)[look - 1]


def level(look: int, max_looks: int, alpha: float = ALPHA, fractions: Any = None, spending: str | None = None
          ) -> float:
    """The two-sided confidence level every rule's interval uses at ``look`` (1-based) of ``max_looks``:
    ``1 - 2 (1 - Phi(c_look))``. ``fractions``: the information fraction at each look (default equal batches,
    k / K; with batches of unequal size, the share of the maximum number of worlds seen). One look is the
    fixed design: ``level(1, 1) == 1 - alpha``."""
    if max_looks == 1 and look == 1 and fractions is None:
        _check(look, max_looks, alpha)
        return 1.0 - alpha
    c = boundary(look, max_looks, alpha, fractions, spending)
    return 1.0 if math.isinf(c) else float(1.0 - 2.0 * sps.norm.sf(c))


_LOOK: ContextVar[tuple[int, int] | None] = ContextVar("hcrbench_sequential_look", default=None)


@contextmanager
def at_look(look: int, max_looks: int) -> Iterator[tuple[int, int]]:
    """Judge everything inside the block as look ``look`` of at most ``max_looks``: the verdict step
    (:func:`hcrbench.protocol.verdicts.judge`, the runner's hook and ``--fail-fast``'s checks) then computes every
    rule's interval at :func:`look_level` of the config's ``[protocol] confidence``."""
    _check(look, max_looks, ALPHA)
    token = _LOOK.set((look, max_looks))
    try:
        yield look, max_looks
    finally:
        _LOOK.reset(token)


def current_look() -> tuple[int, int] | None:
    """``(look, max_looks)`` of the enclosing :func:`at_look`, or None outside one."""
    return _LOOK.get()


def look_level(confidence: float) -> float:
    """The level a design of overall two-sided ``confidence`` judges at here: ``confidence`` itself outside a
    sequential look, :func:`level` (look, max_looks, 1 - confidence) inside :func:`at_look`."""
    cur = _LOOK.get()
    return confidence if cur is None else level(cur[0], cur[1], 1.0 - confidence)


def levels(max_looks: int, alpha: float = ALPHA, fractions: Any = None, spending: str | None = None) -> list[float]:
    """:func:`level` at every look."""
    return [level(k + 1, max_looks, alpha, fractions, spending) for k in range(max_looks)]


@dataclass(frozen=True)
class Projection:
    """What an undecided row says it needs: ``batches_more`` further batches (``worlds_more`` worlds,
    ``queries_more`` queries) decide it at the observed effect and sd with power 0.8 at the level of the look
    that would decide it; None (``within_budget`` False) when no look up to ``max_looks`` reaches that power,
    with ``queries_needed`` the fixed-n figure at the last look's level."""

    batches_more: int | None
    worlds_more: int | None
    queries_more: int | None
    queries_needed: int | None
    within_budget: bool

    def text(self) -> str:
        if self.within_budget and self.batches_more is not None:
            return (f"needs ~ {self.batches_more} more batch{'es' if self.batches_more != 1 else ''} "
                    f"({self.worlds_more} world{'s' if self.worlds_more != 1 else ''}, {self.queries_more:,} queries) "
                    "at the observed effect and sd")
        if self.queries_needed is None:
            return "no number of worlds in reach decides it at the observed effect"
        return f"not within the budget: ~ {self.queries_needed:,} queries would decide it at the observed effect"


def project(estimate: float, threshold: float, sd: float | None, *, look: int, max_looks: int,
            worlds_per_batch: int, queries_per_world: float, alpha: float = ALPHA, power: float = 0.8
            ) -> Projection:
    """How many more batches would decide an undecided rule: the first look m > ``look`` whose cumulative
    queries reach :func:`registry.n_for_power` (sd ``sd`` per query, margin = the observed distance of the
    ``estimate`` from the ``threshold``, at ``1 - level(m)``)."""
    from hcrbench.protocol.registry import n_for_power

    _check(look, max_looks, alpha)
    gap = abs(estimate - threshold)
    per_batch = worlds_per_batch * queries_per_world
    need_last = n_for_power(sd, gap, power=power, alpha=1 - level(max_looks, max_looks, alpha)) if gap > 0 else None
    for m in range(look + 1, max_looks + 1):
        need = n_for_power(sd, gap, power=power, alpha=1 - level(m, max_looks, alpha)) if gap > 0 else None
        if need is not None and need <= m * per_batch:
            more = m - look
            return Projection(more, more * worlds_per_batch, round(more * per_batch), need, True)
    return Projection(None, None, None, need_last, False)


def decided_text(look: int, worlds: int, queries: int) -> str:
    """The evidence a decided row names: after how many batches, worlds and queries."""
    return (f"decided after {look} batch{'es' if look != 1 else ''} ({worlds} world{'s' if worlds != 1 else ''}, "
            f"{queries:,} queries)")


def _side(rule: Any, estimate: float) -> float | None:
    """The threshold an undecided estimate is heading for: the farther of the verdicts it sits on the side of
    (the one it reaches first as the interval narrows); None when it sits on no verdict's side."""
    s = 1.0 if rule.higher_is_better else -1.0
    sides = [t for t, ok in ((rule.go, s * estimate > s * rule.go), (rule.nogo, s * estimate < s * rule.nogo)) if ok]
    return max(sides, key=lambda t: abs(estimate - t)) if sides else None


def annotate(verdicts: dict[str, Any], *, look: int, max_looks: int, worlds: int, queries: int,
             worlds_per_batch: int, queries_per_world: float, alpha: float = ALPHA) -> dict[str, Any]:
    """Say, on every judged row of a ``verdicts.json`` document judged at look ``look`` of ``max_looks``
    (at :func:`level`), after how many batches, worlds and queries it was decided, or, for an undecided paired
    difference or mean, how many more batches would decide it (:func:`project` from the row's own interval,
    centre and n). Adds ``evidence["sequential"]`` and a sentence to ``text``; returns the document."""
    from hcrbench.protocol import registry as reg
    from hcrbench.protocol.rules import NOT_RUN, UNDECIDABLE, _num, at_confidence, pct, t_level, z_level

    lvl = level(look, max_looks, alpha)
    verdicts["sequential"] = {"look": look, "max_looks": max_looks, "level": lvl, "alpha": alpha, "worlds": worlds,
                              "queries": queries, "worlds_per_batch": worlds_per_batch}
    for row in (*verdicts.get("checkpoints", []), *verdicts.get("hypotheses", [])):
        word = row.get("status", row.get("verdict"))
        if word in (None, NOT_RUN):
            continue
        info: dict[str, Any] = {"look": look, "level": lvl}
        if word != UNDECIDABLE:
            info["text"] = decided_text(look, worlds, queries)
        else:
            rule = reg.REGISTRY.get(row.get("id", ""))
            iv, n = row.get("interval"), row.get("n")
            if rule is None or rule.kind not in ("difference", "mean") or not iv or not n:
                continue
            est = (iv[0] + iv[1]) / 2
            with at_confidence(lvl):
                sd = reg.sd_from(iv[0], iv[1], int(n))
                df = _num(((row.get("evidence") or {}).get("clusters") or {}).get("df"))
                if sd is not None and df is not None and df > 0:  # a t interval on few df: its half-width is t se
                    sd *= z_level() / float(t_level(df))
            thr = _side(rule, est)
            if thr is None or sd is None:
                continue
            p = project(est, thr, sd, look=look, max_looks=max_looks, worlds_per_batch=worlds_per_batch,
                        queries_per_world=queries_per_world, alpha=alpha)
            info.update({"text": p.text(), "batches_more": p.batches_more, "worlds_more": p.worlds_more,
                         "queries_more": p.queries_more, "queries_needed": p.queries_needed,
                         "within_budget": p.within_budget})
        row.setdefault("evidence", {})["sequential"] = info
        row["text"] = f"{row.get('text', '')} ({info['text']}; look {look} of {max_looks} at {pct(lvl)})"
    return verdicts
