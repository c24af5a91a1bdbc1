"""Paired comparison of every run against a baseline, per metric: the numbers behind a go/no-go.

For each non-baseline run x metric of an evaluation: the mean difference on the queries both runs were averaged
over, its CI (``ci_method``: the paired t interval at small n, BCa above, named in the output), the two-sided
permutation p-value, a paired t-test p-value, the Holm-adjusted p-value over the declared *family*, Cohen's d,
and how many queries the run helped, hurt or left tied (|diff| <= 1e-12). Each comparison draws its resamples
from a seed derived from (seed, run, baseline, metric) with sha256.

The family is declared, never implied by what else is on the command line. **The one definition every command
uses** (``evaluate``, ``run``, ``gate --baseline``, the protocol; :data:`DEFAULT_FAMILY`) is ``family="run"``:
(baseline, metric set) per system — Holm over the metrics compared for that system, so a verdict does not change
when another system is added or removed (issue #9, finding 4). Also available: ``family="metric"``, (baseline,
metric) over every system — ``run`` and ``gate --baseline`` then agree even when they score different metric sets;
``family="all"`` pools every system x metric of the call. Its size is stored beside every Holm p (``family_size``); :func:`family_text` states it.

``pairs="all"`` compares every pair of runs instead (run ``j`` against run ``i`` for ``i < j``, in evaluation order,
as ranx's ``compare``): the family ``run`` is then one pair's metric set, ``metric`` every pair on one metric, and
each row also carries Tukey's HSD p over all runs on that metric (``p_tukey``, scipy's ``tukey_hsd``, as ranx's
``stat_test="tukey"``). :func:`~hcrbench.stats.letters.significance_letters` turns either into ranx's superscripts.
Metric names are labels here: an evaluation that knows aliases canonicalises them (``metric_name``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hcrbench.data.display import ResultDisplay
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.stats._arrays import check_probability, check_resamples, check_seed, derive_seed, to_json_float
from hcrbench.stats.bootstrap import choose_method, paired_ci
from hcrbench.stats.comparisons import Comparisons
from hcrbench.stats.effect import cohens_d_paired
from hcrbench.stats.multiple import CORRECTIONS, adjust, holm
from hcrbench.stats.permutation import permutation_test
from hcrbench.stats.ttest import paired_ttest
from hcrbench.stats.tukey import tukey_hsd_pvalues
from hcrbench.stats.wilcoxon import wilcoxon_p

TIE_TOLERANCE = 1e-12
#: Which p decides significance (``compare(test=...)``): field of Comparison, and its name in legends.
TESTS = {"permutation": "p", "t": "t_p", "wilcoxon": "p_wilcoxon"}
TEST_NAMES = {"permutation": "paired permutation test", "t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test"}
FAMILIES = ("metric", "run", "all")
PAIRS = ("baseline", "all")
#: The Holm family of every command (see the module docstring).
DEFAULT_FAMILY = "run"


def family_text(family: str = DEFAULT_FAMILY, baseline: str | None = None, pairs: str = "baseline") -> str:
    """The declared Holm family in plain words, as printed and written beside every Holm p."""
    if pairs == "all":
        return {
            "metric": "Holm over every pair of systems, separately for each metric",
            "run": "Holm over the metrics compared for each pair of systems, separately for each pair",
            "all": "Holm over every (pair of systems, metric) of the comparison",
        }[family]
    base = f"the baseline {baseline!r}" if baseline else "the baseline"
    return {
        "metric": f"Holm over every system compared with {base}, separately for each metric",
        "run": f"Holm over the metrics compared for each system against {base}, separately for each system",
        "all": f"Holm over every (system, metric) pair compared with {base}",
    }[family]
JSON_KEYS = ("run", "baseline", "metric", "delta", "ci_low", "ci_high", "p", "p_holm", "cohens_d",
             "helped", "hurt", "tied")  # fmt: skip


@dataclass(frozen=True)
class Comparison(ResultDisplay):
    """One run against the baseline on one metric (``delta = mean(run) - mean(baseline)``)."""

    run: str
    baseline: str
    metric: str
    n: int
    delta: float
    ci_low: float
    ci_high: float
    p: float
    p_holm: float
    cohens_d: float
    helped: int
    hurt: int
    tied: int
    t_p: float = float("nan")
    mean_run: float = float("nan")
    mean_baseline: float = float("nan")
    confidence: float = 0.95
    ci_method: str = "percentile"
    family: str = "all"
    family_size: int = 0
    p_tukey: float | None = None  # all-pairs comparisons only (NaN would break equality of equal results)
    p_wilcoxon: float = float("nan")
    test: str = "permutation"  # whose p decides: permutation (p), t (t_p), wilcoxon (p_wilcoxon)
    correction: str = "holm"  # holm | bh | none, over the family
    p_adj: float = float("nan")  # the deciding p after the correction (= p_holm with the defaults)

    def significant(self, alpha: float = 0.05) -> bool:
        """The deciding p (``test``, adjusted by ``correction`` over the family) below ``alpha``; with the
        defaults, the Holm-adjusted permutation p (the family-wise error rate stays at ``alpha``)."""
        return bool((self.p_holm if np.isnan(self.p_adj) else self.p_adj) < alpha)

    def _display_title(self) -> str:
        verdict = "significant" if self.significant() else "not significant"
        return f"{self.run} vs {self.baseline} on {self.metric}: {self.delta:+.4f} ({verdict}: {self.legend()})"

    def legend(self, alpha: float = 0.05) -> str:
        """What a mark derived from :meth:`significant` means, in one sentence (exported tables print it)."""
        test = TEST_NAMES.get(self.test, self.test)
        how = {"holm": f"Holm-adjusted over a family of {self.family_size} (family '{self.family}')",
               "bh": f"Benjamini-Hochberg-adjusted over a family of {self.family_size} (family '{self.family}')",
               "none": "not adjusted for multiple comparisons"}.get(self.correction, self.correction)
        return f"{test}, two-sided, {how}, p < {alpha:g}"

    def to_dict(self) -> dict[str, Any]:
        """The ``comparisons`` entry of ``hcrbench evaluate --json``: plain Python numbers, None for NaN/inf."""
        out: dict[str, Any] = {"run": self.run, "baseline": self.baseline, "metric": self.metric}
        for key in ("delta", "ci_low", "ci_high", "p", "p_holm", "cohens_d"):
            out[key] = to_json_float(getattr(self, key))
        for key in ("helped", "hurt", "tied", "n"):
            out[key] = int(getattr(self, key))
        for key in ("t_p", "mean_run", "mean_baseline"):
            out[key] = to_json_float(getattr(self, key))
        out["ci_method"] = self.ci_method
        out["family"] = self.family
        out["family_size"] = int(self.family_size)
        if (self.test, self.correction) != ("permutation", "holm"):  # the default document stays as it was
            out["test"], out["correction"] = self.test, self.correction
            out["p_adj"] = to_json_float(self.p_holm if np.isnan(self.p_adj) else self.p_adj)
            out["p_wilcoxon"] = to_json_float(self.p_wilcoxon)
        if self.p_tukey is not None:  # all-pairs comparisons only
            out["p_tukey"] = to_json_float(self.p_tukey)
        return out


def _paired_values(evaluation: Any, run: str, baseline: str, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-query values of ``run`` and ``baseline`` for ``metric`` on the queries both were averaged over."""
    rb, rr = evaluation.runs[baseline], evaluation.runs[run]
    qb, qr = list(rb.query_ids), list(rr.query_ids)
    vb = np.asarray(rb.values[metric], dtype=np.float64)
    vr = np.asarray(rr.values[metric], dtype=np.float64)
    if qb == qr:
        return vr, vb
    pos = {q: i for i, q in enumerate(qr)}
    common = [q for q in qb if q in pos]
    warnings.warn(
        f"runs {run!r} and {baseline!r} were averaged over different queries ({len(qr)} vs {len(qb)}); "
        f"comparing on the {len(common)} they share",
        HcrbenchWarning,
        stacklevel=3,
    )
    if not common:
        raise InputError(f"runs {run!r} and {baseline!r} share no query", field="baseline")
    ib = {q: i for i, q in enumerate(qb)}
    return vr[[pos[q] for q in common]], vb[[ib[q] for q in common]]


def _canonical(evaluation: Any, name: str) -> str:
    """The evaluation's name for a measure (``ndcg_cut_10`` -> ``nDCG@10``) when the evaluation can say it
    (``metric_name``); otherwise the label as given (and then reported as not in the evaluation)."""
    namer = getattr(evaluation, "metric_name", None)
    return namer(name) if callable(namer) else name


def _pairs(names: list[str], baseline: str, pairs: str) -> list[tuple[str, str]]:
    """(run, baseline) of every comparison: each run against the baseline, or every pair (later vs earlier)."""
    if pairs == "all":
        return [(names[j], names[i]) for i in range(len(names)) for j in range(i + 1, len(names))]
    return [(run, baseline) for run in names if run != baseline]


def _tukey(evaluation: Any, names: list[str], chosen: list[str]) -> dict[tuple[str, str, str], float]:
    """Tukey's HSD p per (run, baseline, metric) over all runs, on the queries every run was averaged over."""
    if len(names) < 2:
        return {}
    common = set(evaluation.runs[names[0]].query_ids)
    for n in names[1:]:
        common &= set(evaluation.runs[n].query_ids)
    if len(common) < 2:
        return {}
    out: dict[tuple[str, str, str], float] = {}
    for metric in chosen:
        groups = []
        for n in names:
            r = evaluation.runs[n]
            pos = {q: i for i, q in enumerate(r.query_ids)}
            idx = [pos[q] for q in evaluation.runs[names[0]].query_ids if q in common]
            groups.append(np.asarray(r.values[metric], dtype=np.float64)[idx])
        pm = tukey_hsd_pvalues(groups)
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                out[(a, b, metric)] = float(pm[i, j])
    return out


def compare(
    evaluation: Any,
    baseline: str | None = None,
    metrics: Sequence[str] | str | None = None,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    ci_method: str = "auto",
    family: str = DEFAULT_FAMILY,
    pairs: str = "baseline",
    test: str = "permutation",
    correction: str = "holm",
) -> list[Comparison]:
    """Compare each run of ``evaluation`` (an ``EvaluationResult``) with ``baseline`` (default: the first run).

    ``metrics`` picks metric names (a list or comma-separated string; default: all of the evaluation). Returns
    one :class:`Comparison` per (run, metric), runs in evaluation order, metrics in the given order. Holm's
    family is ``family``: ``"metric"`` = every run's comparison on that metric, ``"run"`` = that run's
    comparisons over the metric set, ``"all"`` = this whole list.
    ``ci_method`` is ``auto`` (paired t below 300 queries, else BCa), ``bca``, ``percentile`` or ``t``.
    ``pairs="all"`` compares every pair of runs (``baseline`` is then ignored) and adds Tukey's HSD p per metric.
    ``test`` (permutation, t, wilcoxon) and ``correction`` (holm, bh, none) choose the p that decides
    :meth:`Comparison.significant` (``p_adj``); ``p_holm`` stays the Holm-adjusted permutation p whatever they are.
    A baseline or metric the evaluation lacks raises :class:`InputError`.
    """
    if test not in TESTS:
        raise InputError(f"must be one of {', '.join(TESTS)}; got {test!r}", field="test")
    if correction not in CORRECTIONS:
        raise InputError(f"must be one of {', '.join(CORRECTIONS)}; got {correction!r}", field="correction")
    if pairs not in PAIRS:
        raise InputError(f"must be one of {', '.join(PAIRS)}; got {pairs!r}", field="pairs")
    if family not in FAMILIES:
        raise InputError(f"must be one of {', '.join(FAMILIES)}; got {family!r}", field="family")
    choose_method(2, ci_method)  # validates the name
    n_resamples = check_resamples(n_resamples)
    seed = check_seed(seed)
    confidence = check_probability(confidence, "confidence")
    names = list(evaluation.runs)
    if not names:
        raise InputError("the evaluation holds no run", field="evaluation")
    if baseline is None:
        baseline = names[0]
    if baseline not in evaluation.runs:
        raise InputError(f"no run named {baseline!r} (runs: {', '.join(names)})", field="baseline")
    available = list(evaluation.metrics)
    if metrics is None:
        chosen = available
    else:
        chosen = [m.strip() for m in metrics.split(",")] if isinstance(metrics, str) else [str(m) for m in metrics]
        given = [m for m in chosen if m]
        chosen = [_canonical(evaluation, m) for m in given]
        unknown = [g if g == c else f"{g} (= {c})" for g, c in zip(given, chosen) if c not in available]
        if unknown or not chosen:
            raise InputError(
                f"not in the evaluation: {', '.join(unknown) or '(none given)'} (have: {', '.join(available)})",
                field="metrics",
            )
    rows: list[dict[str, Any]] = []
    for run, base in _pairs(names, baseline, pairs):
        for metric in chosen:
            a, b = _paired_values(evaluation, run, base, metric)
            diff = a - b
            perm = permutation_test(a, b, n_resamples=n_resamples, seed=derive_seed(seed, "perm", run, base, metric))
            ci = paired_ci(
                a, b, method=ci_method, n_resamples=n_resamples, confidence=confidence,
                seed=derive_seed(seed, "boot", run, base, metric),
            )
            row: dict[str, Any] = {"run": run, "baseline": base, "metric": metric, "n": int(diff.size)}
            row["delta"] = float(diff.mean())
            row["ci_low"], row["ci_high"] = small_n_interval(ci.low, ci.high, metric)
            row["p"] = perm.pvalue
            row["cohens_d"] = cohens_d_paired(a, b)
            row["helped"] = int(np.count_nonzero(diff > TIE_TOLERANCE))
            row["hurt"] = int(np.count_nonzero(diff < -TIE_TOLERANCE))
            row["tied"] = int(diff.size - row["helped"] - row["hurt"])
            row["t_p"] = paired_ttest(a, b).pvalue
            row["p_wilcoxon"] = wilcoxon_p(a, b)
            row["mean_run"], row["mean_baseline"] = float(a.mean()), float(b.mean())
            row["confidence"] = confidence
            row["ci_method"] = ci.method
            rows.append(row)
    warn_small_n(rows)
    groups: dict[Any, list[int]] = {}
    for i, r in enumerate(rows):
        key = {"run": (r["run"], r["baseline"]), "metric": r["metric"]}.get(family, "")
        groups.setdefault(key, []).append(i)
    adjusted = np.empty(len(rows))
    for idx in groups.values():
        adjusted[idx] = holm([rows[i]["p"] for i in idx])
        deciding = adjust([_p_or_one(rows[i][TESTS[test]]) for i in idx], correction)
        for i, pa in zip(idx, deciding):
            rows[i]["family_size"] = len(idx)
            rows[i]["p_adj"] = float(pa)
    tukey = _tukey(evaluation, names, chosen) if pairs == "all" else {}
    for r in rows:
        r["p_tukey"] = tukey.get((r["run"], r["baseline"], r["metric"]))
    return Comparisons(Comparison(p_holm=float(ph), family=family, test=test, correction=correction, **r)
                       for r, ph in zip(rows, adjusted))


def _p_or_one(p: float) -> float:
    """A p-value a correction can take: the t-test's NaN (every difference equal) counts as no evidence."""
    return 1.0 if p is None or np.isnan(p) else float(p)


#: Below this many queries an interval is reported with a warning (the t interval's width grows as 1/sqrt(n) times
#: a t quantile that is 12.7 at n = 2: wider than the metric's whole range).
SMALL_N = 10
#: Measure kinds whose per-query values lie in [0, 1], so a paired difference lies in [-1, 1].
UNIT_KINDS = frozenset({"nDCG", "AP", "RR", "P", "R", "Rprec", "nERR", "alpha_nDCG", "Success", "IPrec", "SetP",
                        "SetR", "SetF", "F1", "Judged", "RBP", "bpref", "infAP", "Unjudged"})


def difference_range(metric: str) -> tuple[float, float] | None:
    """The range of a paired difference on ``metric``: (-1, 1) for a measure in [0, 1], else None (unknown)."""
    try:
        from hcrbench.metrics.measures import parse_measure

        kind = parse_measure(metric).kind
    except (InputError, ValueError, KeyError):
        return None
    return (-1.0, 1.0) if kind in UNIT_KINDS else None


def small_n_interval(low: float, high: float, metric: str) -> tuple[float, float]:
    """``(low, high)`` kept inside the difference's range (a mean difference of values in [0, 1] cannot leave
    [-1, 1]); unchanged for a measure of unknown range."""
    rng = difference_range(metric)
    if rng is not None:
        low, high = max(low, rng[0]), min(high, rng[1])
    return float(low), float(high)


def warn_small_n(rows: list[dict[str, Any]]) -> None:
    """One warning for every comparison on fewer than :data:`SMALL_N` queries: how little its interval says."""
    small = [r for r in rows if r["n"] < SMALL_N]
    if not small:
        return
    ns = sorted({r["n"] for r in small})
    unknown = sorted({r["metric"] for r in small if difference_range(r["metric"]) is None})
    how = "kept inside [-1, 1] for measures in [0, 1]" + (f"; not cut for {', '.join(unknown)} (range not known)"
                                                           if unknown else "")
    warnings.warn(f"{len(small)} comparison(s) rest on {', '.join(map(str, ns))} queries: the 95% interval at this "
                  f"n says little ({how}); compare on at least {SMALL_N} queries", HcrbenchWarning, stacklevel=3)


def _clean(obj: Any) -> Any:
    """Deep copy with numpy scalars/arrays as plain Python values and NaN/inf as None (JSON has neither)."""
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_clean(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return to_json_float(obj)
    return obj


def evaluation_json(evaluation: Any, comparisons: Sequence[Comparison]) -> dict[str, Any]:
    """The ``hcrbench evaluate --json`` document: ``{"runs": evaluation.to_dict()["runs"], "comparisons": [...]}``.

    Numbers are plain Python ints/floats; a NaN or infinite value (e.g. Cohen's d of identical non-zero
    differences) is written as null, so the output is strict JSON.
    """
    runs = evaluation.to_dict()["runs"]
    return {"runs": _clean(runs), "comparisons": [c.to_dict() for c in comparisons]}
