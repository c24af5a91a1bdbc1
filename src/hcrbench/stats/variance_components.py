"""Variance components of per-query differences in a benchmark of worlds: how much of the spread of ``d_q = a_q -
b_q`` lies between worlds, between topics within a world, and within a topic.

Queries nest in topics, topics in worlds (a topic belongs to one world), so ``d = mu + W_world + T_topic + e`` with
independent zero-mean effects of variances ``between_worlds``, ``between_topics`` and ``within_topic``.
:func:`variance_components` estimates them by the method of moments of the unbalanced nested ANOVA (Searle,
Casella & McCulloch 1992, ch. 5: mean squares equated to their expectations, whose coefficients
:func:`_coefficients` computes for any imbalance); a negative estimate is reported as 0 beside its raw value. Each
component has a bootstrap standard error and percentile interval over worlds (whole worlds resampled, the unit that
is independent by construction). From the components: the design effect of the pooled mean (its variance over the
variance it would have if the same queries were independent) and the effective number of independent queries.
tests/stats/test_variance_components.py checks the estimates on simulated designs with known components and
against statsmodels' REML ``MixedLM`` on the same data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from hcrbench.errors import InputError
from hcrbench.stats._arrays import as_vector, check_seed

COMPONENTS = ("between_worlds", "between_topics", "within_topic")


@dataclass(frozen=True)
class Component:
    """One variance component: ``value`` (>= 0), ``raw`` (the moment estimate before truncation at 0), its
    bootstrap-over-worlds ``se`` and percentile interval ``low``..``high``, and its ``share`` of the total."""

    name: str
    value: float
    raw: float
    se: float | None
    low: float | None
    high: float | None
    share: float


@dataclass(frozen=True)
class VarianceComponents:
    mean: float
    n_queries: int
    n_worlds: int
    n_topics: int
    components: tuple[Component, ...]
    total: float
    design_effect: float
    effective_n: float
    #: the probability that two distinct queries of one world share a topic (pooled over worlds): what the topic
    #: component adds to a world's mean whatever its number of queries (:func:`allocation`)
    same_topic_rate: float
    #: ``between_worlds + same_topic_rate * between_topics`` from the raw (untruncated) estimates, then >= 0: what a
    #: world's mean keeps however many of its queries are used (:mod:`hcrbench.stats.allocation`'s ``B``), with its
    #: world-bootstrap percentile interval. Truncating the world component first would bias it upwards.
    world_floor: float
    world_floor_low: float | None
    world_floor_high: float | None
    n_boot: int
    method: str = "nested ANOVA method of moments; bootstrap over worlds"

    def component(self, name: str) -> Component:
        return next(c for c in self.components if c.name == name)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["components"] = {c["name"]: {k: v for k, v in c.items() if k != "name"} for c in out["components"]}
        return out


def _index(labels: Sequence[object]) -> np.ndarray:
    keys = {c: i for i, c in enumerate(dict.fromkeys(labels))}
    return np.asarray([keys[c] for c in labels], dtype=np.int64)


def _coefficients(world: np.ndarray, topic: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """Per world its query count ``n_i``; per topic its count ``n_ij``; ``(n_i, n_ij, N, a, B)``."""
    n_i = np.bincount(world).astype(float)
    n_ij = np.bincount(topic).astype(float)
    return n_i, n_ij, int(world.size), int(n_i.size), int(n_ij.size)


def _moments(d: np.ndarray, world: np.ndarray, topic: np.ndarray, topic_world: np.ndarray) -> np.ndarray:
    """The raw moment estimates ``[between_worlds, between_topics, within_topic]`` (may be negative; nan where a
    level has no degrees of freedom)."""
    n_i, n_ij, N, a, B = _coefficients(world, topic)
    mean = d.mean()
    m_i = np.bincount(world, weights=d) / n_i
    m_ij = np.bincount(topic, weights=d) / n_ij
    ss_a = float(np.sum(n_i * (m_i - mean) ** 2))
    ss_b = float(np.sum(n_ij * (m_ij - m_i[topic_world]) ** 2))
    ss_e = float(np.sum((d - m_ij[topic]) ** 2))
    df_a, df_b, df_e = a - 1, B - a, N - B
    ms_e = ss_e / df_e if df_e > 0 else float("nan")
    # E[MS_B] = s2_e + k1 s2_t;  E[MS_A] = s2_e + k2 s2_t + k3 s2_w  (unbalanced nested coefficients)
    sum_nij2_over_ni = float(np.sum(np.bincount(topic_world, weights=n_ij ** 2) / n_i))
    if df_b > 0:
        k1 = (N - sum_nij2_over_ni) / df_b
        s2_t = (ss_b / df_b - ms_e) / k1 if df_e > 0 else float("nan")
    else:
        s2_t = 0.0  # one topic per world: the topic component is not separable from the world's (reported as 0)
    if df_a > 0:
        k2 = (sum_nij2_over_ni - float(np.sum(n_ij ** 2)) / N) / df_a
        k3 = (N - float(np.sum(n_i ** 2)) / N) / df_a
        s2_w = (ss_a / df_a - ms_e - k2 * s2_t) / k3
    else:
        s2_w = float("nan")
    return np.array([s2_w, s2_t, ms_e])


def _same_topic_rate(world: np.ndarray, topic: np.ndarray) -> float:
    """P(two distinct queries of the same world share a topic), pooled over worlds' pairs."""
    n_i = np.bincount(world).astype(float)
    n_ij = np.bincount(topic).astype(float)
    pairs_world = float(np.sum(n_i * (n_i - 1)))
    return float(np.sum(n_ij * (n_ij - 1)) / pairs_world) if pairs_world > 0 else 0.0


def design_effect(values: Sequence[float], world: np.ndarray, topic: np.ndarray) -> float:
    """Variance of the pooled mean under the nested model over its variance if the N queries were independent
    with the same total variance."""
    s2_w, s2_t, s2_e = (max(0.0, float(v)) for v in values)
    total = s2_w + s2_t + s2_e
    if total <= 0:
        return 1.0
    n_i = np.bincount(world).astype(float)
    n_ij = np.bincount(topic).astype(float)
    N = float(world.size)
    var_mean = (s2_w * float(np.sum(n_i ** 2)) + s2_t * float(np.sum(n_ij ** 2)) + s2_e * N) / N ** 2
    return float(var_mean / (total / N))


def variance_components(d: Sequence[float] | np.ndarray, world: Sequence[object], topic: Sequence[object],
                        n_boot: int = 1000, seed: int = 0, confidence: float = 0.95) -> VarianceComponents:
    """The three variance components of ``d`` (one value per query) with ``world`` and ``topic`` labels per
    query; a topic label is read within its world (the same label in two worlds is two topics). Needs >= 2
    worlds and more queries than topics. ``n_boot`` world-bootstrap resamples (0: no standard errors)."""
    x = as_vector(d, "d")
    if len(world) != x.size or len(topic) != x.size:
        raise InputError(f"{x.size} differences but {len(world)} world and {len(topic)} topic labels",
                         field="labels")
    if not np.all(np.isfinite(x)):
        raise InputError("the differences must be finite numbers", field="d")
    check_seed(seed)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 0:
        raise InputError(f"must be a non-negative integer, got {n_boot!r}", field="n_boot")
    w = _index(list(world))
    t = _index([(wi, ti) for wi, ti in zip(w.tolist(), topic, strict=True)])
    a = int(w.max()) + 1
    if a < 2:
        raise InputError(f"needs queries from >= 2 worlds, got {a}", field="world")
    if t.max() + 1 >= x.size:
        raise InputError(f"needs more queries ({x.size}) than topics ({int(t.max()) + 1})", field="topic")
    topic_world = np.zeros(int(t.max()) + 1, dtype=np.int64)
    topic_world[t] = w
    raw = _moments(x, w, t, topic_world)
    est = np.maximum(raw, 0.0)
    boots = _bootstrap(x, w, t, n_boot, seed) if n_boot else np.empty((0, 4))
    alpha = (1.0 - confidence) / 2.0
    total = float(est.sum())
    comps = []
    for j, name in enumerate(COMPONENTS):
        col = np.maximum(boots[:, j][np.isfinite(boots[:, j])], 0.0) if boots.size else np.empty(0)
        ok = col.size >= 2
        comps.append(Component(
            name, float(est[j]), float(raw[j]),
            float(np.std(col, ddof=1)) if ok else None,
            float(np.quantile(col, alpha)) if ok else None,
            float(np.quantile(col, 1.0 - alpha)) if ok else None,
            float(est[j] / total) if total > 0 else 0.0))
    deff = design_effect(est, w, t)
    p = _same_topic_rate(w, t)
    floor = max(0.0, float(raw[0] + p * max(0.0, raw[1])))
    fl = boots[:, 3][np.isfinite(boots[:, 3])] if boots.size else np.empty(0)
    lo, hi = (float(np.quantile(fl, alpha)), float(np.quantile(fl, 1.0 - alpha))) if fl.size >= 2 else (None, None)
    return VarianceComponents(float(x.mean()), int(x.size), a, int(t.max()) + 1, tuple(comps), total, deff,
                              float(x.size / deff), p, floor, lo, hi, int(n_boot))


def _bootstrap(x: np.ndarray, w: np.ndarray, t: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Raw components and the world floor (:attr:`VarianceComponents.world_floor`) on ``n_boot`` resamples of whole
    worlds with replacement; a world drawn twice enters as two worlds (its topics relabelled)."""
    rng = np.random.default_rng(seed)
    a = int(w.max()) + 1
    rows = [np.flatnonzero(w == i) for i in range(a)]
    out = np.full((n_boot, 4), np.nan)
    for r in range(n_boot):
        pick = rng.integers(0, a, size=a)
        if np.unique(pick).size < 2:
            continue
        idx = np.concatenate([rows[i] for i in pick])
        wb = np.concatenate([np.full(rows[i].size, k) for k, i in enumerate(pick)])
        tb = _index(list(zip(wb.tolist(), t[idx].tolist(), strict=True)))
        if tb.max() + 1 >= idx.size:
            continue
        tw = np.zeros(int(tb.max()) + 1, dtype=np.int64)
        tw[tb] = wb
        m = _moments(x[idx], wb, tb, tw)
        out[r, :3] = m
        out[r, 3] = max(0.0, m[0] + _same_topic_rate(wb, tb) * max(0.0, m[1]))
    return out


def world_mean_check(d: Sequence[float] | np.ndarray, world: Sequence[object], topic: Sequence[object],
                     vc: VarianceComponents) -> dict[str, float]:
    """The observed variance of the worlds' mean differences beside the one the (truncated) components predict
    for worlds of these sizes and topic counts: an observed variance well below the prediction says the worlds
    are more alike than independent topics make them (a design that gives every world the same category shares
    does), so the between-world floor, not the topic component, decides what a world adds."""
    x = as_vector(d, "d")
    w = _index(list(world))
    t = _index([(wi, ti) for wi, ti in zip(w.tolist(), topic, strict=True)])
    n_i = np.bincount(w).astype(float)
    n_ij = np.bincount(t).astype(float)
    topic_world = np.zeros(n_ij.size, dtype=np.int64)
    topic_world[t] = w
    s2w, s2t, s2e = (c.value for c in vc.components)
    model = s2w + s2t * np.bincount(topic_world, weights=n_ij ** 2) / n_i ** 2 + s2e / n_i
    means = np.bincount(w, weights=x) / n_i
    return {"observed": float(np.var(means, ddof=1)) if means.size > 1 else float("nan"),
            "model": float(np.mean(model))}
