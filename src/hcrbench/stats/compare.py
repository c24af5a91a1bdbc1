"""Paired comparison of every run against a baseline, per metric: the numbers behind a go/no-go.

For each non-baseline run x metric of an evaluation: the mean difference on the queries both runs were averaged
over, its CI (``ci_method``: the paired t interval at small n, BCa above, named in the output), the two-sided
permutation p-value, a paired t-test p-value, the Holm-adjusted p-value over the declared *family*, Cohen's d,
and how many queries the run helped, hurt or left tied (|diff| <= 1e-12). Each comparison draws its resamples
from a seed derived from (seed, run, baseline, metric) with sha256.

The family is declared, never implied by what else is on the command line. **The one definition every command
uses** (``evaluate``, ``run``, ``gate --baseline``, the protocol; :data:`DEFAULT_FAMILY`) is ``family="run"``:
(baseline, metric set) per system — Holm over the metrics compared for that system, so a verdict does not change
when another system is added or removed. Also available: ``family="metric"``, (baseline,
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
from hcrbench.stats.multiple import CORRECTIONS, DESCRIPTIONS, adjust, correction_name, holm
from hcrbench.stats.permutation import permutation_test
from hcrbench.stats.simultaneous import simultaneous_level
from hcrbench.stats.small_n import SMALL_N, UNIT_KINDS, difference_range, small_n_interval, warn_small_n
from hcrbench.stats.spellings import TEST_NAMES, TESTS, ranx_keywords, test_name
from hcrbench.stats.ttest import paired_ttest
from hcrbench.stats.tukey import tukey_hsd_pvalues
from hcrbench.stats.wilcoxon import wilcoxon_p

TIE_TOLERANCE = 1e-12
__all__ = ["CORRECTIONS", "DEFAULT_ALL_PAIRS_FAMILY", "DEFAULT_FAMILY", "FAMILIES", "JSON_KEYS", "PAIRS", "SMALL_N",
           "TESTS", "TEST_NAMES", "TIE_TOLERANCE", "UNIT_KINDS", "Comparison", "compare", "default_family",
           "difference_range", "evaluation_json", "family_text", "small_n_interval", "warn_small_n"]
FAMILIES = ("metric", "run", "all")
PAIRS = ("baseline", "all")
#: The Holm family of every command (see the module docstring).
DEFAULT_FAMILY = "run"
#: The family of all-pairs comparisons: every pair of runs on one metric (the claims one column's letters make,
#: and Tukey's HSD family), so the correction is across pairs, not over one pair's metrics (often a family of 1).
DEFAULT_ALL_PAIRS_FAMILY = "metric"


def default_family(pairs: str = "baseline") -> str:
    """The family ``compare`` uses when none is declared: ``run`` against a baseline, ``metric`` all-pairs."""
    return DEFAULT_ALL_PAIRS_FAMILY if pairs == "all" else DEFAULT_FAMILY


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
    test: str = "permutation"  # whose p decides: permutation (p), t (t_p), wilcoxon (p_wilcoxon), tukey (p_tukey)
    correction: str = "holm"  # multiple.CORRECTIONS (statsmodels' names), over the family
    p_adj: float = float("nan")  # the deciding p after the correction (= p_holm with the defaults)
    alpha: float = 0.05  # significant()'s level when none is given (ranx's max_p)
    simultaneous: bool = False  # sim_low / sim_high computed (a correction was asked)
    sim_low: float = float("nan")  # simultaneous interval: Bonferroni level over the family (stats.simultaneous)
    sim_high: float = float("nan")
    sim_confidence: float = float("nan")

    def significant(self, alpha: float | None = None) -> bool:
        """The deciding p (``test``, adjusted by ``correction`` over the family) below ``alpha`` (default: the
        ``alpha`` of the compare call, 0.05); with the defaults, the Holm-adjusted permutation p (the family-wise
        error rate stays at ``alpha``)."""
        level = self.alpha if alpha is None else alpha
        return bool((self.p_holm if np.isnan(self.p_adj) else self.p_adj) < level)

    def _display_title(self) -> str:
        verdict = "significant" if self.significant() else "not significant"
        return f"{self.run} vs {self.baseline} on {self.metric}: {self.delta:+.4f} ({verdict}: {self.legend()})"

    def legend(self, alpha: float | None = None) -> str:
        """What a mark derived from :meth:`significant` means, in one sentence (exported tables print it)."""
        level = self.alpha if alpha is None else alpha
        test = TEST_NAMES.get(self.test, self.test)
        if self.correction == "none" and self.test == "tukey":
            how = "not adjusted further (Tukey's HSD holds the family-wise error over every pair of runs)"
        elif self.correction == "none":
            how = "not adjusted for multiple comparisons"
        else:
            how = (f"{DESCRIPTIONS.get(self.correction, self.correction)} over a family of {self.family_size} "
                   f"(family '{self.family}')")
        return f"{test}, two-sided, {how}, p < {level:g}"

    def interval_note(self) -> str:
        """Which interval is which, in one sentence: the CI is per comparison (unadjusted); the simultaneous one,
        when computed, holds at Bonferroni's level over the family."""
        pct = f"{100 * self.confidence:g}%"
        if not self.simultaneous:
            return f"{pct} CI per comparison, not adjusted for multiple comparisons"
        return (f"{pct} CI per comparison, not adjusted; simultaneous CI at Bonferroni's level 1 - "
                f"{1 - self.confidence:g}/m over its family (m = family size)")

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
        if self.simultaneous or "correction" in out:  # a choice was made: say the CI is not adjusted
            out["ci_adjusted"] = False
        if self.simultaneous:
            out["sim_ci_low"], out["sim_ci_high"] = to_json_float(self.sim_low), to_json_float(self.sim_high)
            out["sim_confidence"] = to_json_float(self.sim_confidence)
            out["sim_method"] = "bonferroni"
        if self.alpha != 0.05:
            out["alpha"] = float(self.alpha)
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
    family: str | None = None,
    pairs: str = "baseline",
    test: str | None = None,
    correction: str | None = None,
    alpha: float | None = None,
    simultaneous: bool | None = None,
    **ranx: Any,
) -> list[Comparison]:
    """Compare each run of ``evaluation`` (an ``EvaluationResult``) with ``baseline`` (default: the first run).

    ``metrics`` picks metric names (a list or comma-separated string; default: all of the evaluation). Returns
    one :class:`Comparison` per (run, metric), runs in evaluation order, metrics in the given order. Holm's
    family is ``family``: ``"metric"`` = every run's comparison on that metric, ``"run"`` = that run's
    comparisons over the metric set, ``"all"`` = this whole list; undeclared, ``"run"`` against a baseline and
    ``"metric"`` with ``pairs="all"`` (every pair on one metric: see :func:`default_family`).
    ``ci_method`` is ``auto`` (paired t below 300 queries, else BCa), ``bca``, ``percentile`` or ``t``.
    ``pairs="all"`` compares every pair of runs (``baseline`` is then ignored) and adds Tukey's HSD p per metric.
    ``test`` (permutation, t, wilcoxon, tukey; ranx's student and fisher) and ``correction`` (statsmodels' names:
    holm (default), bonferroni, sidak, holm-sidak, hommel, fdr_bh, fdr_by; bh, none) choose the p that decides
    :meth:`Comparison.significant` (``p_adj``; Tukey's HSD controls the family-wise error itself, so its default
    correction is none); ``p_holm`` stays the Holm-adjusted permutation p whatever they are. ``alpha`` is the level
    :meth:`Comparison.significant` uses by default. ``simultaneous`` adds Bonferroni simultaneous intervals over
    each family (:mod:`hcrbench.stats.simultaneous`); by default they are computed when a correction other than
    none is passed. ranx's keywords work too (``stat_test``, ``max_p``, ``n_permutations``, ``random_seed``:
    :mod:`hcrbench.stats.spellings`). A baseline or metric the evaluation lacks raises :class:`InputError`.
    """
    given = ranx_keywords(ranx, {"test": test, "alpha": alpha, "n_resamples": n_resamples, "seed": seed},
                          {"n_resamples": 10_000, "seed": 0})
    test, alpha, n_resamples, seed = given["test"], given["alpha"], given["n_resamples"], given["seed"]
    test = "permutation" if test is None else test_name(test)
    asked = correction is not None
    correction = ("none" if test == "tukey" else "holm") if correction is None else correction_name(correction)
    if simultaneous is None:
        simultaneous = asked and correction != "none"
    alpha = 0.05 if alpha is None else check_probability(alpha, "alpha")
    if pairs not in PAIRS:
        raise InputError(f"must be one of {', '.join(PAIRS)}; got {pairs!r}", field="pairs")
    family = default_family(pairs) if family is None else family
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
    pairs_of_values: list[tuple[np.ndarray, np.ndarray]] = []
    for run, base in _pairs(names, baseline, pairs):
        for metric in chosen:
            a, b = _paired_values(evaluation, run, base, metric)
            pairs_of_values.append((a, b))
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
        deciding = adjust([_p_or_one(rows[i].get(TESTS[test])) for i in idx], correction)  # tukey: below
        for i, pa in zip(idx, deciding):
            rows[i]["family_size"] = len(idx)
            rows[i]["p_adj"] = float(pa)
    tukey = _tukey(evaluation, names, chosen) if pairs == "all" or test == "tukey" else {}
    for r in rows:
        r["p_tukey"] = tukey.get((r["run"], r["baseline"], r["metric"]))
    if test == "tukey":  # the deciding p is Tukey's, known only now
        if not tukey:
            raise InputError("Tukey's HSD needs at least two runs sharing two queries", field="test")
        for idx in groups.values():
            for i, pa in zip(idx, adjust([_p_or_one(rows[i]["p_tukey"]) for i in idx], correction)):
                rows[i]["p_adj"] = float(pa)
    if simultaneous:
        for r, (a, b) in zip(rows, pairs_of_values):
            _add_simultaneous(r, a, b, ci_method, n_resamples, seed)
    return Comparisons(Comparison(p_holm=float(ph), family=family, test=test, correction=correction, alpha=alpha,
                                  simultaneous=bool(simultaneous), **r) for r, ph in zip(rows, adjusted))


def _add_simultaneous(row: dict[str, Any], a: np.ndarray, b: np.ndarray, ci_method: str, n_resamples: int,
                      seed: int) -> None:
    """The row's simultaneous interval at Bonferroni's level over its family, from the same method and seed."""
    level = simultaneous_level(row["confidence"], row["family_size"])
    row["sim_confidence"] = level
    if row["family_size"] <= 1:
        row["sim_low"], row["sim_high"] = row["ci_low"], row["ci_high"]
        return
    ci = paired_ci(a, b, method=ci_method, n_resamples=n_resamples, confidence=level,
                   seed=derive_seed(seed, "boot", row["run"], row["baseline"], row["metric"]))
    row["sim_low"], row["sim_high"] = small_n_interval(ci.low, ci.high, row["metric"])


def _p_or_one(p: float) -> float:
    """A p-value a correction can take: the t-test's NaN (every difference equal) counts as no evidence."""
    return 1.0 if p is None or np.isnan(p) else float(p)


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
