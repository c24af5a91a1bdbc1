"""The falsification gate: a system's real mean against four null distributions, with calibrated p-values.

For each null (see :mod:`hcrbench.gate.nulls`) the gate draws ``n_trials`` seeded trials, each giving the mean
metric over all queries, and reports the null's mean, its 95% interval (2.5/97.5 percentiles of the trial
means), the delta ``real - null mean`` and the empirical p-value ``(b + 1) / (B + 1)`` where b counts trials
whose mean reaches the real mean. A null is passed when ``delta >= tau`` AND ``delta >= tau_rel x (oracle -
null mean)`` (the system closes at least that share of the gap between the null and the perfect ranking, on
this metric and bench: a margin that means the same on nDCG@10 and strict R@5) AND its Holm-adjusted p (over
the four nulls) is below ``alpha``; the gate passes when all four are. Several systems gated together see the
same null trials (common random numbers), so their results are comparable trial by trial. Queries are taken in
sorted id order and docs are coded by sorted id, so shuffling the lines of the qrels, run or pool files changes
no number.
"""

from __future__ import annotations

import os
import warnings as _warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.data import Qrels, Run, interop
from hcrbench.data.display import ResultDisplay
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.gate._kernels import (
    GateMetric,
    KeyedQrels,
    QueryConstants,
    RankedIndex,
    check_rel_threshold,
    metric_values,
    parse_gate_metric,
    ranked_matrix,
)
from hcrbench.gate.nulls import NULLS, Relevance, null_c_ranked
from hcrbench.limits import check_draws
from hcrbench.stats.multiple import holm as _holm


@dataclass
class NullResult(ResultDisplay):
    """One null: its trial means and the test of the real mean against them."""

    name: str
    mean: float
    ci_low: float
    ci_high: float
    delta: float
    p: float
    p_holm: float
    passed: bool
    trials: np.ndarray = field(repr=False)
    gap_share: float = float("nan")   # delta / (oracle - null mean): share of the null-to-oracle gap closed
    margin: float = float("nan")      # max(tau, tau_rel x (oracle - null mean)): the delta needed to pass

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high, "delta": self.delta,
                "p": self.p, "p_holm": self.p_holm, "passed": self.passed,
                "gap_share": _finite(self.gap_share), "margin": _finite(self.margin)}


@dataclass
class GateResult(ResultDisplay):
    """The gate verdict for one system on one metric."""

    system: str
    metric: str
    real_mean: float
    nulls: dict[str, NullResult]
    gate_pass: bool
    tau: float
    alpha: float
    n_trials: int
    k: int
    seed: int
    query_ids: list[str]
    real_values: np.ndarray = field(repr=False)
    warnings: list[str] = field(default_factory=list)
    tau_rel: float = 0.0
    oracle_mean: float = float("nan")  # the metric of the ideal ranking (every relevant doc, by grade) on this bench

    @property
    def failed_nulls(self) -> list[str]:
        return [x for x in NULLS if not self.nulls[x].passed]

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "metric": self.metric, "n_queries": len(self.query_ids),
                "real_mean": self.real_mean, "nulls": {x: r.to_dict() for x, r in self.nulls.items()},
                "gate_pass": self.gate_pass, "tau": self.tau, "alpha": self.alpha, "n_trials": self.n_trials,
                "k": self.k, "seed": self.seed, "warnings": list(self.warnings), "tau_rel": self.tau_rel,
                "oracle_mean": _finite(self.oracle_mean)}


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def holm(pvalues: Iterable[float]) -> np.ndarray:
    """Holm step-down adjusted p-values (same order as given): :func:`hcrbench.stats.multiple.holm`."""
    return _holm(list(pvalues))


def empirical_p(real: float, trials: np.ndarray) -> float:
    """``(b + 1) / (B + 1)``: b = trials whose mean is at least the real mean (ties count against the system)."""
    b = int(np.count_nonzero(trials >= real - 1e-12))
    return (b + 1) / (trials.size + 1)


# ------------------------------------------------------------------------------------------ the problem


def as_qrels(qrels: Any) -> Qrels:
    """Qrels from anything :func:`hcrbench.data.interop.as_qrels` takes (dicts, paths, ranx, DataFrames, ...)."""
    return interop.as_qrels(qrels)


def as_runs(runs: Any) -> dict[str, Run]:
    """Normalise a run (a Run, ``{qid: {doc: score}}``, a path, a ranx Run, a DataFrame, ScoredDoc records), a
    list of runs or ``{name: run}`` to ``{name: Run}`` (:mod:`hcrbench.data.interop`)."""
    if isinstance(runs, (Run, str, os.PathLike)) or interop.is_foreign_run(runs):
        run = interop.as_run(runs)
        return {run.name: run}
    if isinstance(runs, list):
        out: dict[str, Run] = {}
        for i, r in enumerate(runs):
            run = interop.as_run(r) if not isinstance(r, Mapping) else interop.as_run(r, name=f"run{i}")
            if run.name in out:
                raise InputError(f"two runs are named {run.name!r}", field="runs")
            out[run.name] = run
        return out
    if isinstance(runs, Mapping):
        vals = list(runs.values())
        if vals and all(isinstance(v, Run) or interop.is_foreign_run(v) for v in vals):
            return {str(k): interop.as_run(v, name=str(k)) for k, v in runs.items()}
        if vals and all(isinstance(v, Mapping) for v in vals) and all(
                all(isinstance(x, Mapping) for x in v.values()) for v in vals if v):
            return {str(k): interop.as_run(v, name=str(k)) for k, v in runs.items()}
        return {"run": interop.as_run(runs, name="run")}
    raise InputError(f"runs must be a run ({interop.RUN_ACCEPTED}), a list of runs or {{name: run}}; got "
                     f"{type(runs).__name__}", field="runs")


@dataclass
class GateProblem:
    """Everything the trials need, on one sorted global doc vocabulary."""

    qrels: Qrels              # restricted to the gate's queries
    query_ids: list[str]
    vocab: np.ndarray         # sorted doc ids (codes are ranks, so code order = doc id order)
    relevance: Relevance
    pool: np.ndarray | None   # item pool codes
    rel_threshold: int

    @classmethod
    def build(cls, qrels: Qrels, runs: Iterable[Run], item_pool: Iterable[str] | None,
              rel_threshold: int) -> GateProblem:
        has_rel = qrels.n_relevant(rel_threshold) > 0
        # sorted: every null draw and row index follows the ids, not the file's line order
        qids = sorted(q for q, ok in zip(qrels.query_ids, has_rel) if ok)
        if not qids:
            raise InputError(f"no query has a document at grade >= {rel_threshold}", field="qrels")
        sub = qrels.subset(qids)
        pool_arr = None if item_pool is None else np.asarray([str(d) for d in item_pool])
        parts = [np.asarray(sub.doc_vocab, dtype=str)] + [np.asarray(r.doc_vocab, dtype=str) for r in runs]
        if pool_arr is not None:
            if pool_arr.size == 0:
                raise InputError("the item pool is empty", field="item_pool")
            parts.append(pool_arr)
        vocab = np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=str)
        codes = np.searchsorted(vocab, np.asarray(sub.doc_vocab, dtype=str)).astype(np.int64)
        rel = Relevance.build(sub.entry_query_index(), codes[sub.doc_index], sub.grades.astype(np.int64), len(qids))
        pool = None if pool_arr is None else np.unique(np.searchsorted(vocab, pool_arr))
        return cls(sub, qids, vocab, rel, pool, rel_threshold)

    def codes_of(self, doc_ids: Iterable[str]) -> np.ndarray:
        return np.searchsorted(self.vocab, np.asarray(list(doc_ids), dtype=str)).astype(np.int64)

    def ranked(self, run: Run, depth: int) -> np.ndarray:
        """The run's top-``depth`` codes per gate query in trec_eval order (queries absent: empty rows)."""
        pos = {q: i for i, q in enumerate(self.query_ids)}
        qrow = np.array([pos.get(q, -1) for q in run.query_ids], dtype=np.int64)
        rows = np.repeat(qrow, run.lengths())
        docs = np.searchsorted(self.vocab, np.asarray(run.doc_vocab, dtype=str)).astype(np.int64)[run.doc_index]
        keep = rows >= 0
        return ranked_matrix(rows[keep], docs[keep], run.scores[keep], len(self.query_ids), depth)


def real_per_query(qrels: Qrels, run: Run, metric: GateMetric, rel_threshold: int,
                   query_ids: list[str], expect_unjudged: bool = False) -> np.ndarray:
    """Per-query values of ``run`` from :func:`hcrbench.metrics.evaluate`, aligned with ``query_ids``.

    ``expect_unjudged``: the caller built the run to retrieve no judged document (a control such as the gate's
    anti-oracle), so evaluate's "none of its retrieved documents is judged" warning is expected and silenced."""
    from hcrbench.metrics import evaluate

    if not set(run.query_ids) <= set(query_ids):
        run = run.subset(query_ids)  # queries outside the gate's set are not scored (and not warned about)
    with _warnings.catch_warnings():
        if expect_unjudged:
            _warnings.filterwarnings("ignore", message=r".*none of its \d+ retrieved documents is judged",
                                     category=HcrbenchWarning)
        res = evaluate(qrels, {run.name: run}, [metric.name], rel_threshold=rel_threshold, missing="zero")
    pq = res[run.name].per_query[metric.name]
    return np.array([float(pq.get(q, 0.0)) for q in query_ids])


def _depth(metric: GateMetric, runs: Iterable[Run]) -> int:
    if metric.cutoff is not None:
        return metric.cutoff
    return max([int(r.lengths().max(initial=0)) for r in runs] + [1])


def gate_runs(
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    runs: Run | Mapping[str, Any] | list,
    *,
    metric: str = "nDCG@10",
    item_pool: Iterable[str] | None = None,
    n_trials: int = 200,
    tau: float = 0.01,
    alpha: float = 0.05,
    k: int | None = None,
    seed: int = 0,
    rel_threshold: int = 1,
    emit_warnings: bool = True,
    null_seeds: Mapping[str, int] | None = None,
    iid_null_d: bool = False,
    tau_rel: float = 0.1,
    expect_unjudged: Iterable[str] = (),
) -> dict[str, GateResult]:
    """Gate every run in ``runs`` against nulls A-D on ``metric``; returns ``{name: GateResult}``.

    ``item_pool`` (the corpus doc ids) is required for null C; ``k`` is how many random docs null C retrieves
    (default: the metric cutoff, else 10). Warnings (single-class bench, sparse marginal, too few trials for
    Holm to reach ``alpha``) are issued as :class:`HcrbenchWarning` and kept in each result's ``warnings``.
    Null X draws from ``numpy.random.default_rng([seed, i])`` (i = 0..3 for A..D) unless ``null_seeds`` names
    its seed (the falsify-eval drop-in uses seed, seed+1, seed+2, seed+3 as falsify-eval does); ``iid_null_d``
    selects falsify-eval's iid draw for null D instead of the frequency-preserving deal. ``tau_rel`` (default
    0.1) is the share of the gap between each null's mean and the oracle's mean a system must close.
    ``expect_unjudged`` names runs built to retrieve no judged document (controls), whose "nothing judged"
    warning is expected.
    """
    m = parse_gate_metric(metric)
    rel_threshold = check_rel_threshold(rel_threshold)
    q = as_qrels(qrels)
    rs = as_runs(runs)
    if item_pool is None:
        raise InputError("null C needs the item pool (the corpus doc ids): pass --dataset or --item-pool",
                         field="item_pool")
    n_trials = check_draws(n_trials, "n_trials")
    if not 0.0 < float(alpha) < 1.0:
        raise InputError(f"must be in (0, 1), got {alpha!r}", field="alpha")
    if not np.isfinite(tau):
        raise InputError(f"must be a finite number, got {tau!r}", field="tau")
    if not (isinstance(tau_rel, (int, float)) and np.isfinite(tau_rel) and 0.0 <= tau_rel <= 1.0):
        raise InputError(f"must be a number in [0, 1], got {tau_rel!r}", field="tau_rel")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"must be a non-negative integer, got {seed!r}", field="seed")
    kc = int(k) if k is not None else (m.cutoff or 10)
    prob = GateProblem.build(q, rs.values(), item_pool, rel_threshold)
    gate_qids = set(prob.query_ids)
    for name, run in rs.items():
        if not gate_qids.intersection(run.query_ids):  # mismatched ids: every value would be 0
            raise InputError(f"run {name!r} shares no query with the gate's queries (first run ids: "
                             f"{_preview(run.query_ids)}; first gate query ids: {_preview(prob.query_ids)})",
                             field="query_id")
    if prob.pool.size < kc:
        raise InputError(f"k={kc} > item pool size {prob.pool.size}: null C draws k docs without replacement",
                         field="k")
    if kc < 1:
        raise InputError(f"must be >= 1, got {kc}", field="k")
    warns = _problem_warnings(prob, n_trials, alpha)
    if emit_warnings:
        for w in warns:
            _warnings.warn(w, HcrbenchWarning, stacklevel=2)

    rel = prob.relevance
    const = QueryConstants.build(rel.rows, rel.grades, len(prob.query_ids), m, rel_threshold)
    depth = _depth(m, rs.values())
    ranked = {name: RankedIndex.build(prob.ranked(run, depth), prob.vocab.size) for name, run in rs.items()}
    trials = {name: {x: np.empty(n_trials) for x in NULLS} for name in rs}
    gens = {x: np.random.default_rng(null_seeds[x] if null_seeds else [seed, i]) for i, x in enumerate(NULLS)}
    draw = {"A": rel.null_a, "B": rel.null_b, "D": rel.null_d_iid if iid_null_d else rel.null_d}
    real_keyed = KeyedQrels.build(rel.rows, rel.docs, rel.grades, prob.vocab.size)
    for t in range(n_trials):
        for x in ("A", "B", "D"):
            rows, docs, grades = draw[x](gens[x])
            for name in rs:
                g = ranked[name].gains(rows, docs, grades, prob.vocab.size)
                trials[name][x][t] = metric_values(g, m, const, rel_threshold).mean()
        rand = null_c_ranked(gens["C"], len(prob.query_ids), kc, prob.pool)
        c_mean = metric_values(real_keyed.gains(rand), m, const, rel_threshold).mean()
        for name in rs:
            trials[name]["C"][t] = c_mean

    oracle = oracle_mean(rel, m, const, rel_threshold)
    out: dict[str, GateResult] = {}
    for name, run in rs.items():
        values = real_per_query(prob.qrels, run, m, rel_threshold, prob.query_ids,
                                expect_unjudged=name in set(expect_unjudged))
        out[name] = _result(name, m, values, trials[name], prob.query_ids, tau, alpha, n_trials, kc, seed, warns,
                            float(tau_rel), oracle)
    return out


def oracle_mean(rel: Relevance, m: GateMetric, const: QueryConstants, rel_threshold: int) -> float:
    """Mean metric of the ideal ranking: each query's positive-grade docs by grade, descending."""
    sizes = rel.sizes
    depth = max(int(m.cutoff or 0), int(sizes.max(initial=1)), 1)
    gains = np.zeros((rel.n_rows, depth), dtype=np.int64)
    order = np.lexsort((-rel.grades, rel.rows))
    r, g = rel.rows[order], rel.grades[order]
    starts = np.searchsorted(r, np.arange(rel.n_rows))
    rank = np.arange(r.size) - starts[r]
    keep = rank < depth
    gains[r[keep], rank[keep]] = g[keep]
    return float(metric_values(gains, m, const, rel_threshold).mean())


def gate(qrels, run, **kwargs) -> GateResult:
    """Gate one run (see :func:`gate_runs` for the arguments)."""
    rs = as_runs(run)
    if len(rs) != 1:
        raise InputError(f"gate() takes one run, got {len(rs)}; use gate_runs()", field="run")
    return next(iter(gate_runs(qrels, rs, **kwargs).values()))


def _result(name: str, m: GateMetric, values: np.ndarray, trials: dict[str, np.ndarray], qids: list[str],
            tau: float, alpha: float, n_trials: int, k: int, seed: int, warns: list[str], tau_rel: float = 0.0,
            oracle: float = float("nan")) -> GateResult:
    real = float(values.mean())
    ps = [empirical_p(real, trials[x]) for x in NULLS]
    ph = holm(ps)
    nulls = {}
    for i, x in enumerate(NULLS):
        tr = trials[x]
        lo, hi = np.quantile(tr, [0.025, 0.975])
        delta = real - float(tr.mean())
        gap = oracle - float(tr.mean()) if np.isfinite(oracle) else float("nan")
        margin = max(tau, tau_rel * gap) if np.isfinite(gap) else tau
        share = delta / gap if np.isfinite(gap) and gap > 0 else float("nan")
        nulls[x] = NullResult(x, float(tr.mean()), float(lo), float(hi), delta, ps[i], float(ph[i]),
                              bool(delta >= margin and ph[i] < alpha), tr.copy(), share, float(margin))
    return GateResult(name, m.name, real, nulls, all(r.passed for r in nulls.values()), float(tau),
                      float(alpha), int(n_trials), k, int(seed), list(qids), values, list(warns), float(tau_rel),
                      float(oracle))


def _preview(ids: list[str], n: int = 3) -> str:
    return ", ".join(repr(q) for q in ids[:n]) + (", ..." if len(ids) > n else "") if ids else "none"


def _problem_warnings(prob: GateProblem, n_trials: int, alpha: float) -> list[str]:
    rel = prob.relevance
    out = []
    if rel.labels.size == 1:
        out.append("single-class benchmark: every query has the same relevant doc, so null A is the identity "
                   "and nulls A and D collapse to the same distribution; treat them as one test, not two")
    if rel.docs.size < 2 * rel.labels.size:
        out.append(f"sparse marginal: {rel.docs.size} relevant judgments over {rel.labels.size} distinct "
                   "relevant docs; null D's frequency estimate is close to uniform, so D behaves like B")
    floor = min(1.0, len(NULLS) / (n_trials + 1))
    if floor >= alpha:
        need = int(np.floor(len(NULLS) / alpha))
        out.append(f"n_trials={n_trials} is too few: the smallest Holm-adjusted p is {floor:.3g} >= "
                   f"alpha={alpha}, so no null can pass; use n_trials >= {need}")
    missing = np.setdiff1d(rel.labels, prob.pool).size if prob.pool is not None else 0
    if missing:
        out.append(f"{missing} relevant doc(s) are not in the item pool; null C can never retrieve them")
    return out
