"""Operating characteristics of every rule, replayed on the data it judges: P(go), P(no-go / kill / stop),
P(soft) and P(not decidable) when the truth is known. Reported beside each row, never used to change its verdict.

From the run's own per-query figures, known-truth systems are built and each rule is replayed on ``reps``
resamples at the n it was run on, with the same standard of evidence (:func:`registry.decide`):

- **sign-flip** (paired differences): the centred per-query differences resampled over queries, each query's
  sign flipped at random (system and baseline swapped on it, as the twin control), plus the truth: a null that
  keeps the shape of real differences (a sparse effect stays a few large differences of either sign);
- **re-centred** (paired differences): the same differences shifted to the truth without flips (their real skew:
  a power reading, not a null);
- **cluster sign-flip** / **cluster bootstrap** (clustered queries): clusters drawn with replacement, with and
  without one random sign per cluster, judged on the CR2 interval;
- **mixture** (paired differences with per-query scores): the kill baseline with a share of its queries given the
  oracle's score (truth > 0) or a random ranking's (truth < 0), the share chosen so the mean difference is the
  truth;
- **binomial** (rates: failure rate, routing error): counts drawn at the true rate, Wilson intervals;
- **normal** (a mean with its sd: tree sanity), **bivariate normal** (H1c's r over k conditions, Fisher z).

The truths are the rule's centre + {0, ±margin, ±2 margin} and its two boundaries (go, no-go) with the margin
past each. Each decision side is checked on its own side, on the null-shaped constructions (:data:`NULL_SHAPED`):
P(go) with the truth on the go boundary, P(no-go) with it on the no-go boundary, each with its Monte-Carlo 95%
interval. A decided row keeps its verdict whatever the replay finds: its interval's coverage is what makes the
decision stand, and a replay on one run's own sample is itself an estimate with large error (a per-run gate that
voided on it threw away correct decisions; docs/protocol.md). The row carries the replay of the side it decided on
(:func:`gate_rows`, :func:`side_check`); an undecided row names the n it needs. Everything is numpy over a
(reps x n) index matrix, one seeded generator per (rule, construction), so a rule on Meridian full takes
milliseconds (``benchmarks/protocol_operating.py``).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hcrbench.protocol import registry as reg
from hcrbench.protocol.operating_rows import mc_interval as _ci
from hcrbench.protocol.rules import UNDECIDABLE, confidence, t_level, z_level

REPS = 1000
MC_Z = 2.576  # Monte-Carlo error band: 99% two-sided
#: how :func:`needs_n` finds each kind's n (``operating[rule]["needs_n_how"]``)
NEEDS_HOW = {
    "difference": "paired t power 0.8 at the rule's margin (hcrbench.stats.power.required_n, noncentral t), sd of "
                  "the run's per-query differences",
    "mean": "paired t power 0.8 at the rule's margin (hcrbench.stats.power.required_n), the run's sd",
    "proportion": "Wilson-judged rate: power 0.8 a margin past each boundary (registry.n_for_power_proportion)",
    "correlation": "Fisher-z power 0.8 a margin past the go band (registry.n_for_power_r)",
}


@dataclass(frozen=True)
class Inputs:
    """What one rule's replay reads: the per-unit figures it resamples (``diffs``: paired differences; ``base``,
    ``high``, ``low``: the kill baseline's, the oracle's and a random ranking's per-query scores for the mixture;
    ``sd``: a mean's per-unit sd) and the n it was run on."""

    n: int
    diffs: np.ndarray | None = None
    base: np.ndarray | None = None
    high: np.ndarray | None = None
    low: np.ndarray | None = None
    sd: float | None = None
    extra_half: float = 0.0  # a fixed variance component added in quadrature to each side (the tree seeds')
    clusters: np.ndarray | None = None  # cluster index of each difference: the kill replay resamples clusters


def _rng(seed: int, *parts: Any) -> np.random.Generator:
    return np.random.default_rng([int(seed), zlib.crc32("|".join(map(str, parts)).encode())])


def _interval(rule: reg.Rule, x: np.ndarray, rng: np.random.Generator, extra: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise the interval ``rule`` decides on over independent queries: the paired t (a cluster-robust rule
    with each query its own cluster is exactly this; clustered draws go through :func:`replay_clustered`), each
    side widened in quadrature by ``extra`` (a fixed variance component)."""
    if rule.interval == "betting" and np.all(np.abs(x) <= 1 + 1e-12):  # beyond [-1, 1]: the row's own t interval
        return betting_decision_interval(rule, x)
    lo, hi = _t_interval(x)
    if extra > 0:
        m = x.mean(axis=1)
        lo, hi = m - np.hypot(m - lo, extra), m + np.hypot(hi - m, extra)
    return lo, hi


def betting_decision_interval(rule: reg.Rule, x: np.ndarray, valid: np.ndarray | None = None
                              ) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise stand-ins for the betting interval (:mod:`stats.bounded`) that :func:`registry.decide` reads
    exactly as the interval itself: the interval lies wholly past the rule's single threshold exactly when the
    hedged capital at the threshold reaches 1 / alpha, on the side of the row's mean (one capital per row instead
    of a bisection)."""
    from hcrbench.stats.bounded import rejects_rows

    if rule.go != rule.nogo:
        raise ValueError(f"rule {rule.id}: the betting replay needs one threshold")
    thr = float(rule.go)
    w = np.ones_like(x, dtype=bool) if valid is None else valid
    m = np.where(w, x, 0.0).sum(axis=1) / np.maximum(w.sum(axis=1), 1)
    rej = rejects_rows((np.clip(x, -1, 1) + 1) / 2, (thr + 1) / 2, w, confidence=confidence())
    eps = 1e-9
    up, down = rej & (m > thr), rej & (m < thr)
    lo = np.where(up, thr + eps, np.where(down, np.minimum(m, thr - eps), thr))
    hi = np.where(up, np.maximum(m, thr + eps), np.where(down, thr - eps, thr))
    return lo, hi


def _t_interval(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise paired t interval at :func:`rules.confidence` of a (reps x n) matrix (the protocol's interval
    below 300 queries)."""
    n = x.shape[1]
    m = x.mean(axis=1)
    if n < 2:
        return np.full_like(m, np.nan), np.full_like(m, np.nan)
    h = t_level(n - 1) * x.std(axis=1, ddof=1) / math.sqrt(n)
    return m - h, m + h


def wilson_np(k: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised Wilson interval at :func:`rules.confidence` (equal to :func:`rules.wilson`)."""
    p = np.clip(np.asarray(k, dtype=np.float64) / n, 0.0, 1.0)
    z = z_level()
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return np.maximum(0.0, centre - half), np.minimum(1.0, centre + half)


def fisher_np(r: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    if k <= 3:
        nan = np.full_like(r, np.nan)
        return nan, nan
    z = np.arctanh(np.clip(r, -0.999999, 0.999999))
    h = z_level() / math.sqrt(k - 3)
    return np.tanh(z - h), np.tanh(z + h)


# ------------------------------------------------------------------------------------------------ replays


def replay_recentred(rule: reg.Rule, diffs: np.ndarray, n: int, truth: float, reps: int,
                     rng: np.random.Generator, extra: float = 0.0) -> np.ndarray:
    """Verdict codes of ``rule`` on ``reps`` resamples of the re-centred differences at ``truth``."""
    d = np.asarray(diffs, dtype=np.float64)
    d = d - d.mean() + truth
    x = d[rng.integers(0, d.size, size=(reps, n))]
    return reg.decide(rule, *_interval(rule, x, rng, extra))


def replay_signflip(rule: reg.Rule, diffs: np.ndarray, n: int, truth: float, reps: int,
                    rng: np.random.Generator, extra: float = 0.0) -> np.ndarray:
    """Verdict codes of ``rule`` on ``reps`` null-shaped draws: the centred differences resampled over queries,
    each query's sign flipped at random (system and baseline swapped on it, as the twin control is built), plus
    ``truth``. A sparse real effect (a few large gains, most queries unchanged) stays a few large differences of
    either sign here; a constant shift of the centred differences would make it one heavy one-sided tail that no
    real system with that truth resembles."""
    d = np.asarray(diffs, dtype=np.float64)
    d = d - d.mean()
    x = d[rng.integers(0, d.size, size=(reps, n))] * np.where(rng.random((reps, n)) < 0.5, -1.0, 1.0) + truth
    return reg.decide(rule, *_interval(rule, x, rng, extra))


def replay_clustered(rule: reg.Rule, diffs: np.ndarray, clusters: np.ndarray, truth: float, reps: int,
                     rng: np.random.Generator, extra: float = 0.0, n_clusters: int | None = None,
                     flip: bool = False) -> np.ndarray:
    """Verdict codes on ``reps`` cluster-bootstrap draws (G clusters with replacement) of the re-centred
    differences, each judged on its CR2 cluster-robust t interval with the Bell-McCaffrey df
    (:func:`stats.cluster.cluster_ci`), as the kill rule judges clustered queries (:func:`subject.kill_row`);
    ``n_clusters`` draws that many clusters instead of G (a larger suite of the same clusters' spread);
    ``flip``: each drawn cluster's centred differences change sign together at random before ``truth`` is added
    (the null-shaped draw of :func:`replay_signflip`, one sign per cluster as the cluster permutation test)."""
    from hcrbench.stats.cluster import bm_df

    d = np.asarray(diffs, dtype=np.float64)
    d = d - d.mean()
    g = np.asarray(clusters)
    G = int(g.max()) + 1
    sums = np.bincount(g, weights=d, minlength=G)
    counts = np.bincount(g, minlength=G).astype(np.float64)
    idx = rng.integers(0, G, size=(reps, max(int(n_clusters or G), 2)))
    S, C = sums[idx], counts[idx]
    if flip:
        S = S * np.where(rng.random(S.shape) < 0.5, -1.0, 1.0)
    S = S + truth * C
    n = C.sum(axis=1)
    m = S.sum(axis=1) / n
    q = 1.0 / (1.0 - C / n[:, None])
    se = np.sqrt((q * (S - m[:, None] * C) ** 2).sum(axis=1)) / n
    h = t_level(bm_df(C)) * se
    lo, hi = m - h, m + h
    if extra > 0:
        lo, hi = m - np.hypot(h, extra), m + np.hypot(h, extra)
    return reg.decide(rule, lo, hi)


def replay_mixture(rule: reg.Rule, base: np.ndarray, high: np.ndarray, low: np.ndarray, n: int, truth: float,
                   reps: int, rng: np.random.Generator, extra: float = 0.0) -> np.ndarray | None:
    """Verdict codes when a share of the kill baseline's queries get the oracle's (truth > 0) or a random
    ranking's (truth < 0) score, the share making the expected difference ``truth`` (None when unreachable)."""
    b = np.asarray(base, dtype=np.float64)
    gain = (np.asarray(high, dtype=np.float64) if truth > 0 else np.asarray(low, dtype=np.float64)) - b
    room = float(gain.mean())
    if truth == 0 or room == 0 or truth / room <= 0 or truth / room > 1:
        return None  # the zero truth of a mixture is the kill baseline itself: no noise (the re-centred twin has)
    idx = rng.integers(0, b.size, size=(reps, n))
    x = gain[idx] * (rng.random((reps, n)) < truth / room)
    return reg.decide(rule, *_interval(rule, x, rng, extra))


def replay_rate(rule: reg.Rule, n: int, truth: float, reps: int, rng: np.random.Generator) -> np.ndarray:
    k = rng.binomial(n, min(max(truth, 0.0), 1.0), size=reps)
    return reg.decide(rule, *wilson_np(k, n))


def replay_mean(rule: reg.Rule, sd: float, n: int, truth: float, reps: int, rng: np.random.Generator) -> np.ndarray:
    se = sd / math.sqrt(n)
    m = rng.normal(truth, se, size=reps)
    z = z_level()
    return reg.decide(rule, m - z * se, m + z * se)


def replay_r(rule: reg.Rule, k: int, truth: float, reps: int, rng: np.random.Generator) -> np.ndarray:
    rho = min(max(truth, -0.999), 0.999)
    x = rng.standard_normal((reps, k))
    y = rho * x + math.sqrt(1 - rho * rho) * rng.standard_normal((reps, k))
    xc, yc = x - x.mean(axis=1, keepdims=True), y - y.mean(axis=1, keepdims=True)
    r = (xc * yc).sum(axis=1) / np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    return reg.decide(rule, *fisher_np(r, k))


def frequencies(codes: np.ndarray) -> dict[str, float]:
    reps = max(int(codes.size), 1)
    return {"p_go": float(np.sum(codes == reg.POS) / reps), "p_nogo": float(np.sum(codes == reg.NEG) / reps),
            "p_soft": float(np.sum(codes == reg.MID) / reps), "p_undecidable": float(np.sum(codes == reg.UND) / reps)}


# ------------------------------------------------------------------------------------------------ one rule


def truths_for(rule: reg.Rule) -> list[float]:
    """The table's truths: centre + {0, ±m, ±2m}, and each boundary with the margin past it."""
    m = rule.margin
    g, b = rule.go, rule.nogo
    s = 1.0 if rule.higher_is_better else -1.0
    extra = [g, g + s * m, b, b - s * m]
    return sorted({round(t, 10) for t in (*rule.truths(), *extra)})


def _replayer(rule: reg.Rule, x: Inputs) -> dict[str, Callable[[float, int, np.random.Generator], np.ndarray | None]]:
    out: dict[str, Callable[[float, int, np.random.Generator], np.ndarray | None]] = {}
    if rule.kind == "difference" and x.diffs is not None and np.asarray(x.diffs).size >= 2:
        if x.clusters is not None and rule.interval == "cluster-robust" and len(set(x.clusters.tolist())) >= 2:
            G = len(set(x.clusters.tolist()))
            k = max(2, round(x.n * G / x.clusters.size))  # clusters in a suite of x.n queries of this spread
            out["cluster bootstrap"] = lambda t, r, g: replay_clustered(rule, x.diffs, x.clusters, t, r,  # type: ignore
                                                                        g, x.extra_half, n_clusters=k)
            out["cluster sign-flip"] = lambda t, r, g: replay_clustered(rule, x.diffs, x.clusters, t, r,  # type: ignore
                                                                        g, x.extra_half, n_clusters=k, flip=True)
            return out
        out["sign-flip"] = lambda t, r, g: replay_signflip(rule, x.diffs, x.n, t, r, g,  # type: ignore[arg-type]
                                                           x.extra_half)
        out["re-centred"] = lambda t, r, g: replay_recentred(rule, x.diffs, x.n, t, r, g,  # type: ignore[arg-type]
                                                             x.extra_half)
        if x.base is not None and x.high is not None and x.low is not None:
            out["mixture"] = lambda t, r, g: replay_mixture(rule, x.base, x.high, x.low, x.n, t, r, g,  # type: ignore
                                                            x.extra_half)
    elif rule.kind == "proportion":
        out["binomial"] = lambda t, r, g: replay_rate(rule, x.n, t, r, g)
    elif rule.kind == "mean" and x.sd:
        out["normal"] = lambda t, r, g: replay_mean(rule, float(x.sd), x.n, t, r, g)  # type: ignore[arg-type]
    elif rule.kind == "correlation":
        out["bivariate normal"] = lambda t, r, g: replay_r(rule, x.n, t, r, g)
    return out


def needs_n(rule: reg.Rule, x: Inputs) -> int | None:
    """The n for power 0.8 at the rule's own margin, from the one implementation per kind in :mod:`registry`
    (paired differences and means: :func:`registry.n_for_power`, the noncentral t of
    :func:`hcrbench.stats.power.required_n`, with the sd of the run's per-unit figures)."""
    if rule.kind == "difference":
        ok = x.diffs is not None and np.asarray(x.diffs).size >= 2
        return rule.n_needed(float(np.std(x.diffs, ddof=1))) if ok else None  # type: ignore[arg-type]
    if rule.kind == "mean":
        return rule.n_needed(float(x.sd)) if x.sd else None
    return rule.n_needed()


#: constructions whose draws keep the shape of a real null (per-query or per-cluster sign flips, or the rate /
#: mean / r drawn at the truth): the side checks read their false decisions from these only
NULL_SHAPED = ("sign-flip", "cluster sign-flip", "binomial", "normal", "bivariate normal")


def check(rule: reg.Rule, x: Inputs, *, reps: int, seed: int, truths: Sequence[float] | None = None
          ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, float], bool, list[str]]:
    """``(tables, worst, decidable, why)``: the replay of ``rule`` at ``x.n`` over ``truths`` (default
    :func:`truths_for`), its false-decision rates (each side on its own boundary, from the null-shaped
    constructions, :data:`NULL_SHAPED`), its worst power over every construction, and whether the replay finds it
    decidable at this n (power not surely below 0.8). What the replay
    finds is reported beside a row, never used to change its verdict (:func:`gate_rows`)."""
    plays = _replayer(rule, x)
    s = 1.0 if rule.higher_is_better else -1.0
    g, b, m = rule.go, rule.nogo, rule.margin
    nominal = reg.nominal_one_sided()
    mc = MC_Z * math.sqrt(nominal * (1 - nominal) / reps)
    tables: dict[str, list[dict[str, Any]]] = {}
    worst: dict[str, float] = {"false_go": 0.0, "false_nogo": 0.0, "power_go": 1.0, "power_nogo": 1.0}
    for name, play in plays.items():
        rows = []
        null = name in NULL_SHAPED
        for t in (truths_for(rule) if truths is None else truths):
            codes = play(t, reps, _rng(seed, rule.id, name, t))
            if codes is None:
                continue
            f = frequencies(codes)
            rows.append({"truth": t, **f})
            if null and math.isclose(t, g):
                worst["false_go"] = max(worst["false_go"], f["p_go"])
            if null and math.isclose(t, b):
                worst["false_nogo"] = max(worst["false_nogo"], f["p_nogo"])
            if math.isclose(t, g + s * m):
                worst["power_go"] = min(worst["power_go"], f["p_go"])
            if math.isclose(t, b - s * m):
                worst["power_nogo"] = min(worst["power_nogo"], f["p_nogo"])
        tables[name] = rows
    false_ok = _false_ok(worst, nominal, mc)
    mc_power = MC_Z * math.sqrt(reg.POWER * (1 - reg.POWER) / reps)
    power_ok = min(worst["power_go"], worst["power_nogo"]) >= reg.POWER - mc_power  # not surely below 0.8
    why = []
    if not false_ok:
        why.append(f"false decisions {max(worst['false_go'], worst['false_nogo']):.1%} > nominal {nominal:.1%} "
                   f"(+ Monte-Carlo error {mc:.1%})")
    if not power_ok:
        why.append(f"power at the margin {min(worst['power_go'], worst['power_nogo']):.0%} < {reg.POWER:.0%}")
    return tables, worst, bool(false_ok and power_ok), why


def _false_ok(worst: dict[str, float], nominal: float, mc: float) -> bool:
    """False go and false no-go both within the nominal one-sided rate (beyond Monte-Carlo error)."""
    return worst["false_go"] <= nominal + mc and worst["false_nogo"] <= nominal + mc


def operating(rule: reg.Rule, x: Inputs, *, reps: int = REPS, seed: int = 0, search: bool = True
              ) -> dict[str, Any] | None:
    """``rule``'s operating characteristics at ``x.n``: per construction and truth, P(go / no-go / soft / not
    decidable); each side's false-decision rate with its Monte-Carlo interval; power; the n it needs."""
    if not _replayer(rule, x) or x.n < 1:
        return None
    g, b, m = rule.go, rule.nogo, rule.margin
    nominal = reg.nominal_one_sided()
    mc = MC_Z * math.sqrt(nominal * (1 - nominal) / reps)
    tables, worst, decidable, why = check(rule, x, reps=reps, seed=seed)
    need, need_how = None, None
    if not decidable and search:
        need, need_how = needs_n(rule, x), NEEDS_HOW.get(rule.kind)
    first = next((tables[k] for k in ("sign-flip", "cluster sign-flip") if k in tables), None) or \
        tables.get("re-centred") or next(iter(tables.values()), [])
    null = next((k for k in NULL_SHAPED if k in tables), None)
    # what this run's row says at each truth: the rule's own frequencies (no replay turns a verdict its interval
    # decided into "not decidable")
    return {"rule": rule.id, "n": int(x.n), "reps": int(reps), "seed": int(seed), "margin": m,
            "reported": [dict(r) for r in first],
            "thresholds": {"go": g, "nogo": b}, "higher_is_better": rule.higher_is_better,
            "verdict_words": {"go": rule.positive, "nogo": rule.negative, "soft": rule.soft},
            "constructions": tables, "false_go": worst["false_go"], "false_nogo": worst["false_nogo"],
            "false_go_ci": _ci(worst["false_go"], reps), "false_nogo_ci": _ci(worst["false_nogo"], reps),
            "null": null, "nominal": nominal, "mc_error": mc, "power_go": worst["power_go"],
            "power_nogo": worst["power_nogo"], "decidable": decidable,
            "decisions_trusted": _false_ok(worst, nominal, mc), "voids": False, "needs_n": need,
            "needs_n_how": need_how, "why": "; ".join(why)}


def control_frequencies(op: dict[str, Any], rule: reg.Rule) -> dict[str, Any]:
    """The known-truth controls' verdict frequencies over resamples: the twin (truth 0 on the kill baseline's
    noise), the systems placed at +margin and -margin (re-centred construction), with the verdicts each must
    get (:mod:`registry`)."""
    cons = op["constructions"]
    rows = next((cons[k] for k in ("sign-flip", "cluster sign-flip") if k in cons), None) or \
        cons.get("re-centred") or next(iter(cons.values()), [])
    at = {round(r["truth"], 10): r for r in rows}
    c = rule.truth_centre
    out = {}
    for name, t in (("twin", c), ("plus_margin", c + rule.margin), ("minus_margin", c - rule.margin)):
        r = at.get(round(t, 10))
        if r is None:
            continue
        exp = rule.controls.get(name)
        p_exp = None
        if exp:
            p_exp = sum(r[k] for k, w in (("p_go", rule.positive), ("p_nogo", rule.negative),
                                          ("p_soft", rule.soft), ("p_undecidable", UNDECIDABLE)) if w in exp)
        out[name] = {"truth": t, **{k: r[k] for k in ("p_go", "p_nogo", "p_soft", "p_undecidable")},
                     "expected": " or ".join(exp) if exp else None, "p_expected": p_exp}
    return out


# ------------------------------------------------------------------------------------------------ all rules


def operating_all(inputs: dict[str, Inputs], *, reps: int = REPS, seed: int = 0, search: bool = True
                  ) -> dict[str, dict[str, Any]]:
    """``{rule id: operating}`` for every registered rule with inputs (``search``: the replayed n each undecidable
    rule needs, :func:`needs_n`)."""
    out = {}
    for rid, x in inputs.items():
        rule = reg.get(rid)
        op = operating(rule, x, reps=reps, seed=seed, search=search)
        if op is not None:
            op["controls"] = control_frequencies(op, rule)
            out[rid] = op
    return out


def operating_overall(*args: Any, **kw: Any) -> dict[str, Any] | None:
    """The overall verdict's frequencies under known truths (:func:`operating_overall.operating_overall`)."""
    from hcrbench.protocol.operating_overall import operating_overall as _overall

    return _overall(*args, **kw)


from hcrbench.protocol.operating_rows import gate_rows, side_check  # noqa: E402, F401  (re-exported)
from hcrbench.protocol.operating_table import markdown  # noqa: E402, F401  (re-exported: the published table)
