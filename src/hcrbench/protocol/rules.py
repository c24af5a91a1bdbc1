"""What every protocol rule shares: the verdict words, the design's thresholds, intervals and the significance test.

Semantics (docs/protocol.md has the table, rule by rule; :mod:`registry` holds each rule and the one standard of
evidence, :func:`registry.decide`):

- A **checkpoint** is a fail-fast check: ``pass``, ``stop and diagnose: <component>`` (never a verdict on the
  architecture), ``not decidable`` (its interval reaches the threshold: the text gives the n that would decide
  it) or ``not run``. Pass and stop each need the whole 95% interval on their side of the threshold.
- A **hypothesis** is ``go`` / ``soft no-go`` / ``no-go`` (a component needs fixing) / ``inconclusive`` /
  ``not decidable`` / ``not run``; only the single kill criterion says ``kill``, and only at the full corpus size.
  Every decided verdict needs its interval wholly past its threshold.
- Improvements are raw differences judged on their interval against the design's margins; Cohen's d is reported,
  never required. :func:`significant` and :func:`improvement` are the pre-#33 readings, kept for callers; no rule
  uses them.
- Every row carries ``n`` (the queries, pairs or conditions behind it) and ``interval`` (``[low, high]`` of the
  95% interval of the figure it judges, or null) with ``interval_kind`` (the method actually used).

Rates and nDCG are in [0, 1]; "within 5%" is 5 percentage points (0.05).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from statistics import NormalDist
from typing import Any

from hcrbench.protocol.verdict import Verdict

# the verdict words every row writes (plain strings: hcrbench.protocol.verdict.Verdict carries their severity,
# console word and style)
GO, SOFT, NOGO, KILL = Verdict.GO.value, Verdict.SOFT.value, Verdict.NOGO.value, Verdict.KILL.value
INCONCLUSIVE, NOT_RUN, UNDECIDABLE = Verdict.INCONCLUSIVE.value, Verdict.NOT_RUN.value, Verdict.UNDECIDABLE.value
PASS, DIAGNOSE, INVALIDATED = Verdict.PASS.value, Verdict.DIAGNOSE.value, Verdict.INVALIDATED.value
#: worst first, among decided hypotheses
HYPOTHESIS_ORDER = tuple(v.value for v in sorted((Verdict.NOGO, Verdict.SOFT, Verdict.INCONCLUSIVE, Verdict.GO),
                                                 key=lambda v: -v.severity))

ORACLE_MAX_FAIL = 0.05   # H1a and the failure rate need the oracle context to fail <= 5% of feasible queries
MIN_D = 0.3              # Cohen's d for any claimed improvement
ALPHA = 0.05
Z95 = 1.959963984540054
MAX_N = 1_000_000        # the largest n a "would decide at n" estimate reports
CONFIDENCE = 0.95        # the design's two-sided level ([protocol] confidence)

#: The design's thresholds by their old names: each is read from its rule's object (hcrbench.protocol.ruleset),
#: the one place it lives (``(rule id, field)``; a field of ``params`` by its key).
THRESHOLDS = {
    "TREE_SANITY_MIN": ("tree_sanity", "go"), "EASY_EPS_MAX": ("easy_routing", "go"),
    "MIN_EASY": ("easy_routing", "min_queries"), "KILL_MARGIN": ("vs_kill_baseline", "-go"),
    "H1A_MIN_RATE": ("H1a", "min_rate"), "H1A_SOFT": ("H1a", "-go"), "H1B_OVER_SINGLE": ("H1b", "nogo"),
    "H1B_OVER_RERANK": ("H1b", "over_rerank"), "H1B_ENTITY": ("H1b", "entity"), "H1C_GO_R": ("H1c", "go"),
    "H1C_KILL_R": ("H1c", "nogo"), "LINKS_GAIN": ("H1c", "links_gain"), "MODEL_TOL": ("H1c", "model_tol"),
    "MIN_CONDITIONS": ("H1c", "min_conditions"), "FAIL_GOOD": ("failure_rate", "good"),
    "FAIL_OK": ("failure_rate", "go"), "FAIL_CONCERN": ("failure_rate", "nogo"),
}


def __getattr__(name: str) -> Any:
    if name not in THRESHOLDS:
        raise AttributeError(name)
    from hcrbench.protocol import registry as reg

    rid, key = THRESHOLDS[name]
    rule = reg.get(rid)
    v = -getattr(rule, key[1:]) if key.startswith("-") else getattr(rule, key) if key in ("go", "nogo", "margin") \
        else rule.params[key]
    return int(v) if name in ("MIN_EASY", "MIN_CONDITIONS") else v


_LEVEL: ContextVar[float] = ContextVar("hcrbench_protocol_confidence", default=CONFIDENCE)


def confidence() -> float:
    """The two-sided confidence level every rule's decision interval is computed at in this context (the
    ``[protocol] confidence`` of the run being judged, or a sequential look's level; 0.95 by default)."""
    return _LEVEL.get()


def check_confidence(level: Any) -> float:
    v = _num(level)
    if v is None or not 0.5 <= v < 1.0:
        raise ValueError(f"confidence must be in [0.5, 1), got {level!r}")
    return v


@contextmanager
def at_confidence(level: float) -> Iterator[float]:
    """Judge every rule inside the block at the two-sided ``level`` (z, t, Wilson, Fisher, CR2, betting and the
    power figures alike); the level in force before is restored on exit."""
    token = _LEVEL.set(check_confidence(level))
    try:
        yield _LEVEL.get()
    finally:
        _LEVEL.reset(token)


def z_level(level: float | None = None) -> float:
    """The two-sided normal quantile of ``level`` (default: :func:`confidence`); exactly :data:`Z95` at 0.95."""
    c = confidence() if level is None else level
    return Z95 if c == CONFIDENCE else NormalDist().inv_cdf(0.5 + c / 2)


def t_level(df: Any, level: float | None = None) -> Any:
    """The two-sided t quantile of ``level`` on ``df`` (scalars or arrays)."""
    from scipy import stats as sps

    c = confidence() if level is None else level
    return sps.t.ppf(0.5 + c / 2, df)


def alpha_level() -> float:
    """The two-sided error of :func:`confidence` (exactly :data:`ALPHA` at 0.95): a test's p must fall below it
    where a rule reads one beside its interval."""
    c = confidence()
    return ALPHA if c == CONFIDENCE else 1.0 - c


def pct(level: float | None = None) -> str:
    """The level as the rows write it: ``95%``, ``99%``, ``95.61%``."""
    c = confidence() if level is None else level
    return f"{round(c * 100, 4):g}%"


def _num(x: Any) -> float | None:
    """A finite float, or None (missing, NaN, inf)."""
    if x is None or isinstance(x, bool):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _f(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _p(p: float | None, label: str = "Holm") -> str:
    if p is None:
        return f"{label} p = —"
    return f"{label} p < 0.001" if p < 0.001 else f"{label} p = {p:.3f}"


def _ci(lo: float | None, hi: float | None, signed: bool = True) -> str:
    if lo is None or hi is None:
        return f"{pct()} CI —"
    return f"{pct()} CI [{lo:+.3f}, {hi:+.3f}]" if signed else f"{pct()} CI [{lo:.3f}, {hi:.3f}]"


# ------------------------------------------------------------------------------------------------ intervals


def wilson(k: float, n: int, level: float | None = None) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion ``k / n`` at ``level`` (default :func:`confidence`; None for
    n = 0)."""
    if n <= 0:
        return None
    p = min(max(k / n, 0.0), 1.0)
    z = z_level(level)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def n_to_decide_rate(rate: float, threshold: float) -> int | None:
    """The smallest n at which a proportion observed at ``rate`` gets a Wilson interval wholly on its side of
    ``threshold`` (None when the rate sits on the threshold or it needs more than a million)."""
    if rate == threshold:
        return None

    def decided(n: int) -> bool:
        lo, hi = wilson(rate * n, n)  # type: ignore[misc]
        return lo > threshold if rate > threshold else hi < threshold

    if not decided(MAX_N):
        return None
    lo, hi = 1, MAX_N
    while lo < hi:
        mid = (lo + hi) // 2
        if decided(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def n_to_decide_mean(estimate: float, low: float, high: float, n: int, threshold: float) -> int | None:
    """The n at which an interval ``[low, high]`` around ``estimate`` from ``n`` pairs, shrinking as 1/sqrt(n),
    would lie wholly on the estimate's side of ``threshold`` (None when the estimate sits on it)."""
    gap = abs(estimate - threshold)
    half = (high - low) / 2
    if gap <= 0 or n <= 0 or half <= 0:
        return None
    need = math.ceil(n * (half / gap) ** 2) + 1
    return need if need <= MAX_N else None


def mean_ci(values: Sequence[float]) -> tuple[float, float, float, int] | None:
    """Mean of ``values`` with its normal interval at :func:`confidence` (mean ± 1.96 sd / sqrt(n) at 95%); None
    for no values."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return None
    m = sum(xs) / n
    if n == 1:
        return m, m, m, 1
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = z_level() * sd / math.sqrt(n)
    return m, m - h, m + h, n


def fisher_ci(r: float, n: int) -> tuple[float, float] | None:
    """The Fisher-z interval of a Pearson r from ``n`` points at :func:`confidence` (None for n <= 3)."""
    if n <= 3:
        return None
    rr = max(min(r, 0.999999), -0.999999)
    z = math.atanh(rr)
    h = z_level() / math.sqrt(n - 3)
    return math.tanh(z - h), math.tanh(z + h)


def significant(p_holm: float | None, low: float | None, high: float | None, sign: int = 0) -> bool:
    """Holm p < 0.05 within the declared family AND the 95% CI excluding zero (``sign`` +1: above it, -1: below
    it, 0: either side)."""
    p, lo, hi = _num(p_holm), _num(low), _num(high)
    if p is None or p >= ALPHA or lo is None or hi is None:
        return False
    return lo > 0 if sign > 0 else hi < 0 if sign < 0 else (lo > 0 or hi < 0)


def improvement(delta: float | None, p_holm: float | None, low: float | None, high: float | None,
                d: float | None, need: float) -> tuple[bool, str]:
    """Is ``delta`` a claimable improvement of at least ``need``: delta >= need, significant (Holm p < 0.05 and
    the CI above zero) and Cohen's d >= 0.3? Returns (ok, the reason in words)."""
    dl, dd = _num(delta), _num(d)
    if dl is None:
        return False, "not run"
    why = []
    if dl < need or dl <= 0:  # no difference is no improvement, whatever an (inconsistent) interval says
        why.append(f"+{need:.2f} needed, got {dl:+.3f}" if dl < need else f"a positive difference needed, got {dl:+.3f}")
    if not significant(p_holm, low, high, +1):
        why.append(f"not significant ({_p(_num(p_holm))}, {_ci(_num(low), _num(high))})")
    if dd is None or dd < MIN_D:
        why.append(f"Cohen's d {_f(dd, 2)} < {MIN_D}")
    return not why, "; ".join(why) or f"{dl:+.3f} ({_p(_num(p_holm))}, {_ci(_num(low), _num(high))}, " \
                                      f"d = {_f(dd, 2)})"


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson r, or None with fewer than 2 points or no variance."""
    if len(x) < 2 or len(x) != len(y):
        return None
    xs = [float(v) for v in x]
    ys = [float(v) for v in y]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((a - mx) * (b - my) for a, b in zip(xs, ys))
    sxx = sum((a - mx) ** 2 for a in xs)
    syy = sum((b - my) ** 2 for b in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)


# ------------------------------------------------------------------------------------------------ rows


def _interval(interval: Sequence[float | None] | None) -> list[float] | None:
    if interval is None:
        return None
    lo, hi = (_num(v) for v in interval)
    return None if lo is None or hi is None else [lo, hi]


def checkpoint(cid: str, name: str, criterion: str, value: float | None, threshold: float, status: str,
               text: str, *, n: int | None = None, interval: Sequence[float | None] | None = None,
               interval_kind: str | None = None, component: str | None = None,
               undecided: dict[str, Any] | None = None) -> dict[str, Any]:
    row = {"id": cid, "name": name, "criterion": criterion, "value": value, "threshold": threshold,
           "status": status, "text": text, "n": n, "interval": _interval(interval),
           "interval_kind": interval_kind, "component": component}
    if undecided is not None:
        row["undecided"] = dict(undecided)
    return row


def hypothesis(hid: str, name: str, criterion: str, verdict: str, text: str,
               evidence: dict[str, Any] | None = None, *, n: int | None = None,
               interval: Sequence[float | None] | None = None, interval_kind: str | None = None,
               component: str | None = None, undecided: dict[str, Any] | None = None) -> dict[str, Any]:
    row = {"id": hid, "name": name, "criterion": criterion, "verdict": verdict, "text": text,
           "evidence": dict(evidence or {}), "n": n, "interval": _interval(interval),
           "interval_kind": interval_kind, "component": component}
    if undecided is not None:
        row["undecided"] = dict(undecided)
    return row


def stops(status: str) -> bool:
    """Does a checkpoint status say stop and diagnose?"""
    return status.startswith(DIAGNOSE)
