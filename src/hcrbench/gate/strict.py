"""Strict + graded pairing: gate a system on the graded metric and on a strict single-gold metric.

The seed paper's NFCorpus case study found that graded nDCG@10 alone cannot separate real systems from
cheaters; it recommends reporting a strict single-gold metric beside it. The strict metric here is recall@5 of
each query's *top-graded* relevant docs: every doc at the query's highest grade is gold (``ties="all"``), so
strict R@5 is the share of them in the top 5 — the mean over the tied golds, never an id-order tie-break, so
the number does not depend on how doc ids are spelled. With one top-graded doc per query it is falsify-eval's
single-gold setting; ``ties="smallest_id"`` keeps the old one-doc rule. Gated against the same four nulls on
these qrels. Disagreement is flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hcrbench.data import Qrels
from hcrbench.gate._kernels import check_rel_threshold
from hcrbench.gate.core import GateResult, as_qrels, as_runs, gate_runs

STRICT_METRIC = "R@5"


STRICT_TIES = ("all", "smallest_id")


def strict_qrels(qrels: Qrels | Mapping[str, Mapping[str, int]], rel_threshold: int = 1, *,
                 ties: str = "all") -> Qrels:
    """The gold docs of each query: every relevant doc at its highest grade (``ties="all"``), grade kept.

    ``ties="smallest_id"`` keeps one doc, the smallest id among them (the pre-0.2 rule, spelling-dependent).
    """
    from hcrbench.errors import InputError

    if ties not in STRICT_TIES:
        raise InputError(f"must be one of {', '.join(STRICT_TIES)}; got {ties!r}", field="ties")
    q = as_qrels(qrels)
    out: dict[str, dict[str, int]] = {}
    vocab = q.doc_vocab
    for i, qid in enumerate(q.query_ids):
        s = slice(int(q.offsets[i]), int(q.offsets[i + 1]))
        grades = q.grades[s]
        ok = grades >= rel_threshold
        if not ok.any():
            continue
        docs = [vocab[c] for c in q.doc_index[s][ok].tolist()]
        g = grades[ok].tolist()
        top = max(g)
        if ties == "all":
            out[qid] = {d: int(gr) for d, gr in zip(docs, g) if gr == top}
        else:
            best = min(range(len(docs)), key=lambda j: (-g[j], docs[j]))
            out[qid] = {docs[best]: int(g[best])}
    return Qrels.from_dict(out, name=f"{q.name}-strict")


@dataclass
class GatePair:
    """A system's gate on the graded metric and on the strict single-gold metric."""

    graded: GateResult
    strict: GateResult | None

    @property
    def disagree(self) -> bool:
        return self.strict is not None and self.graded.gate_pass != self.strict.gate_pass

    def to_dict(self) -> dict[str, Any]:
        return {"graded": self.graded.to_dict(), "strict": None if self.strict is None else self.strict.to_dict(),
                "disagree": self.disagree}


def gate_pairs(
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    runs: Any,
    *,
    metric: str = "nDCG@10",
    strict: bool = True,
    strict_metric: str = STRICT_METRIC,
    item_pool: Iterable[str] | None = None,
    n_trials: int = 200,
    tau: float = 0.01,
    alpha: float = 0.05,
    k: int | None = None,
    seed: int = 0,
    rel_threshold: int = 1,
    tau_rel: float = 0.1,
    expect_unjudged: Iterable[str] = (),
) -> dict[str, GatePair]:
    """Gate every run on ``metric`` and (``strict``) on ``strict_metric`` over single-gold qrels.

    Null C retrieves ``k`` docs for the graded metric (default its cutoff) and the strict metric's cutoff for
    the strict one.
    """
    rel_threshold = check_rel_threshold(rel_threshold)
    q = as_qrels(qrels)
    rs = as_runs(runs)
    pool = None if item_pool is None else list(item_pool)
    common = dict(item_pool=pool, n_trials=n_trials, tau=tau, alpha=alpha, seed=seed, rel_threshold=rel_threshold,
                  tau_rel=tau_rel, expect_unjudged=tuple(expect_unjudged))
    graded = gate_runs(q, rs, metric=metric, k=k, **common)
    strict_res: dict[str, GateResult | None] = dict.fromkeys(rs)
    if strict:
        strict_res = dict(gate_runs(strict_qrels(q, rel_threshold), rs, metric=strict_metric, **common))
    return {name: GatePair(graded[name], strict_res[name]) for name in rs}


def agreement_table(pairs: Mapping[str, GatePair]) -> list[dict[str, Any]]:
    """One row per system: graded and strict real means and gate outcomes, and whether they disagree."""
    rows = []
    for name, p in pairs.items():
        rows.append({"system": name, "graded_metric": p.graded.metric, "graded_real": p.graded.real_mean,
                     "graded_pass": p.graded.gate_pass,
                     "strict_real": None if p.strict is None else p.strict.real_mean,
                     "strict_pass": None if p.strict is None else p.strict.gate_pass,
                     "disagree": p.disagree})
    return rows
