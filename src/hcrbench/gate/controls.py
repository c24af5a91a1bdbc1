"""Positive and negative controls: runs whose gate outcome is known, to check the harness on a benchmark.

Each control is a real :class:`~hcrbench.data.Run` over the gate's queries (``k`` docs per query, scores
``k, k-1, ..., 1``), built from the qrels and the item pool with a seed:

- ``oracle`` — the query's relevant docs by grade (desc, then doc id), padded with random non-relevant docs.
  Expected: PASS (it beats every null by construction, unless the bench is single-class).
- ``partial_oracle`` — floor(|R|/2) of those relevant docs, plus one more with probability 1/2 when |R| is odd
  (so single-gold queries get the gold half the time), then random non-relevant docs. Expected: PASS.
- ``anti_oracle`` — only docs not relevant to the query: the most popular relevant-elsewhere docs first, then
  random ones. Scores 0. Expected: FAIL.
- ``random`` — ``k`` random pool docs. Expected: FAIL (it *is* null C).
- ``constant`` — the same ``k`` docs, the most often judged relevant, for every query. Expected: FAIL (null D
  matches its score in expectation).
- ``popularity`` — per query, the top ``k`` docs by leave-one-out relevance frequency (the query's own
  judgments removed, so it leaks nothing). Expected: FAIL (null D).
- ``shuffled`` — a real run's (default: the oracle's) rankings given to other queries by a random derangement.
  Expected: FAIL.

The harness is *trusted* on a benchmark when every control's gate outcome, on every metric gated, equals its
expectation; a harness that misclassifies a control reports itself as untrustworthy there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.data import Qrels, Run
from hcrbench.data.display import ResultDisplay
from hcrbench.errors import InputError
from hcrbench.gate._kernels import check_rel_threshold
from hcrbench.gate.core import as_qrels
from hcrbench.gate.strict import STRICT_METRIC, GatePair, gate_pairs

CONTROLS = ("oracle", "partial_oracle", "anti_oracle", "random", "constant", "popularity", "shuffled")
EXPECTED_PASS = {"oracle": True, "partial_oracle": True, "anti_oracle": False, "random": False,
                 "constant": False, "popularity": False, "shuffled": False}


def _relevant(qrels: Qrels, rel_threshold: int) -> dict[str, list[tuple[str, int]]]:
    """Per query with a relevant doc: its positive-grade docs sorted by grade desc then doc id."""
    out = {}
    for qid, docs in qrels.items():
        if any(g >= rel_threshold for g in docs.values()):
            out[qid] = sorted(((d, int(g)) for d, g in docs.items() if g > 0), key=lambda x: (-x[1], x[0]))
    return out


def build_controls(
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    item_pool: Iterable[str],
    *,
    k: int = 10,
    seed: int = 0,
    rel_threshold: int = 1,
    base_run: Run | None = None,
) -> dict[str, Run]:
    """The seven control runs (see the module docstring), each ``k`` docs deep, deterministic given ``seed``."""
    rel_threshold = check_rel_threshold(rel_threshold)
    q = as_qrels(qrels)
    pool = np.array(sorted({str(d) for d in item_pool}))
    if k < 1:
        raise InputError(f"must be >= 1, got {k}", field="k")
    rel = _relevant(q, rel_threshold)
    if not rel:
        raise InputError(f"no query has a document at grade >= {rel_threshold}", field="qrels")
    qids = sorted(rel)  # draws follow sorted ids, never the file's line order
    rng = np.random.default_rng([seed, 99])
    freq: dict[str, int] = {}
    for docs in rel.values():
        for d, _ in docs:
            freq[d] = freq.get(d, 0) + 1
    by_pop = sorted(freq, key=lambda d: (-freq[d], d))
    if pool.size < k + max(len(v) for v in rel.values()):
        raise InputError(f"item pool ({pool.size} docs) too small for k={k} controls", field="item_pool")

    def pad(q_docs: list[str], exclude: set[str]) -> list[str]:
        out, seen = list(q_docs[:k]), set(q_docs[:k])
        while len(out) < k:
            for d in pool[rng.choice(pool.size, size=min(pool.size, 2 * (k - len(out)) + 4), replace=False)].tolist():
                if d not in seen and d not in exclude and len(out) < k:
                    out.append(d)
                    seen.add(d)
        return out

    lists: dict[str, dict[str, list[str]]] = {c: {} for c in CONTROLS}
    for qid in qids:
        docs = [d for d, _ in rel[qid]]
        rset = set(docs)
        lists["oracle"][qid] = pad(docs, rset)
        n_keep = len(docs) // 2 + int(len(docs) % 2 == 1 and rng.random() < 0.5)
        lists["partial_oracle"][qid] = pad(docs[:n_keep], rset)
        lists["anti_oracle"][qid] = pad([d for d in by_pop[: k + len(docs)] if d not in rset], rset)
        lists["random"][qid] = pool[rng.choice(pool.size, size=k, replace=False)].tolist()
        lists["constant"][qid] = pad(by_pop[:k], set())
        loo = sorted(by_pop[: k + len(docs)], key=lambda d: (-(freq[d] - (d in rset)), d))
        lists["popularity"][qid] = pad(loo[:k], set())
    base = {qid: [d for d, _ in base_run.ranked(qid)[:k]] if base_run is not None and qid in base_run else []
            for qid in qids} if base_run is not None else lists["oracle"]
    lists["shuffled"] = {qid: base[qids[j]] for qid, j in zip(qids, _derangement(rng, len(qids)))}
    return {c: Run.from_ranked({qid: [(d, float(k - i)) for i, d in enumerate(v)] for qid, v in lists[c].items()},
                               name=c) for c in CONTROLS}


def _derangement(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random permutation with no fixed point (Sattolo's algorithm: one n-cycle); identity when n == 1."""
    perm = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = int(rng.integers(0, i))
        perm[i], perm[j] = perm[j], perm[i]
    return perm


@dataclass
class ControlsReport(ResultDisplay):
    """Expected vs observed gate outcome of every control, and whether the harness can be trusted."""

    pairs: dict[str, GatePair]
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def trusted(self) -> bool:
        return all(r["ok"] for r in self.rows)

    @property
    def misclassified(self) -> list[str]:
        return [f"{r['control']} ({r['metric']})" for r in self.rows if not r["ok"]]

    def to_dict(self) -> dict[str, Any]:
        return {"trusted": self.trusted, "rows": self.rows,
                "results": {c: p.to_dict() for c, p in self.pairs.items()}}


def run_controls(
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    item_pool: Iterable[str],
    *,
    metric: str = "nDCG@10",
    strict: bool = True,
    k: int = 10,
    n_trials: int = 200,
    tau: float = 0.01,
    alpha: float = 0.05,
    seed: int = 0,
    rel_threshold: int = 1,
    base_run: Run | None = None,
    tau_rel: float = 0.1,
) -> ControlsReport:
    """Build the controls, gate each (graded and, if ``strict``, strict) and compare with the expectation."""
    pool = list(item_pool)
    runs = build_controls(qrels, pool, k=k, seed=seed, rel_threshold=rel_threshold, base_run=base_run)
    pairs = gate_pairs(qrels, runs, metric=metric, strict=strict, item_pool=pool, n_trials=n_trials, tau=tau,
                       alpha=alpha, seed=seed, rel_threshold=rel_threshold, tau_rel=tau_rel,
                       expect_unjudged=("anti_oracle",))  # retrieves no doc judged for its query, by design
    rows = []
    for c in CONTROLS:
        for res in (pairs[c].graded, pairs[c].strict):
            if res is None:
                continue
            rows.append({"control": c, "metric": res.metric if res is pairs[c].graded else f"strict {STRICT_METRIC}",
                         "real": res.real_mean, "expected_pass": EXPECTED_PASS[c], "gate_pass": res.gate_pass,
                         "failed_nulls": res.failed_nulls, "ok": res.gate_pass == EXPECTED_PASS[c]})
    return ControlsReport(pairs, rows)
