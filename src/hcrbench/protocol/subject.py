"""The system a rule judges, as the rules see it (a :class:`Subject`), and every rule applied to one.

The real system and each protocol control (:mod:`controls`) are subjects: per-query scores, their comparison
with the kill baseline, per-query sufficiency at 400 tokens, the failure rate on feasible queries and the
routing errors on the easiest single-branch queries. :func:`judge_subject` runs the rules that read a subject,
so the controls are judged by exactly the code that judges the system.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.protocol import checkpoints as cp
from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol.inputs import (
    ENTITY_CATEGORY,
    category_qids,
    compare_runs,
    group_suff,
    members,
    oracle_failure,
    paired_diff,
    subset,
    suff_rate,
)
from hcrbench.protocol.rules import _num


@dataclass
class Context:
    """Everything the protocol reads from one experiment's results."""

    cfg: Any
    data: Any
    evaluation: Any
    doc: dict
    tree_docs: dict | None
    out: Path
    stopped: str | None = None
    growth: list[dict] | None = None
    routing: tuple[list[float] | None, list[int] | None, int, str] = (None, None, 0, "not computed")
    routing_where: str = ""
    cache: dict = field(default_factory=dict)

    @property
    def p(self) -> Any:
        return self.cfg.protocol

    @property
    def metric(self) -> str:
        return self.cfg.protocol.metric

    @property
    def sufficiency(self) -> dict | None:
        return self.doc.get("sufficiency")

    @property
    def kind(self) -> str | None:
        return (self.sufficiency or {}).get("headline")

    @property
    def flat(self) -> str:
        """The flat system: chosen on dev (``[protocol] flat = "auto"``, :mod:`hcrbench.protocol.field`) or named."""
        chosen = self.cache.get("flat")
        if chosen:
            return chosen
        return self.p.flat if self.p.flat not in (None, "auto") else self.p.kill_baseline

    @property
    def size(self) -> str:
        return str(self.cfg.dataset.size) if self.cfg.dataset.generate else "as given"

    @property
    def full_size(self) -> bool:
        """The full corpus size: ``[protocol] full_size`` when set; else Meridian ``full``; a dataset that is not
        generated is taken whole (its one size is its full size)."""
        if self.p.full_size is not None:
            return bool(self.p.full_size)
        return self.cfg.dataset.generate != "meridian" or str(self.cfg.dataset.size) == "full"

    def suff(self, name: str) -> dict[str, float] | None:
        key = ("suff", name)
        if key not in self.cache:
            self.cache[key] = group_suff(self.out, members(self.cfg, name, self.evaluation.runs), self.kind)
        return self.cache[key]


@dataclass
class Subject:
    """What the rules read about the system judged (the real one or a control)."""

    name: str
    scores: Any | None  # per-query metric values (query_ids, values), seed-averaged
    vs_kill: dict | None  # the comparison with the kill baseline (rules' plain dict)
    tested_on: str = ""
    suff400: dict[str, float] | None = None
    failure: tuple[float | None, int] = (None, 0)
    routing: tuple[list[float] | None, list[int] | None, int, str] | None = None
    n_seeds: int = 1


def compare_subject(ctx: Context, name: str, scores: Any) -> dict | None:
    """``scores`` against the kill baseline, alone in the declared family's structure (as eval.json's seed
    comparisons)."""
    kill = ctx.p.kill_baseline
    if scores is None or kill not in ctx.evaluation.runs:
        return None
    return compare_runs(ctx.evaluation, ctx.cfg, ctx.metric, kill, {name: scores}).get(name)


def checkpoint_rows(ctx: Context, s: Subject) -> list[dict]:
    """Checkpoints 2-4 for subject ``s`` (checkpoint 1, tree sanity, reads the real tree only)."""
    m, kill = ctx.metric, ctx.p.kill_baseline
    rows = []
    eps, n_at, n, why = s.routing if s.routing is not None else (None, None, 0, f"{s.name} has no routing log")
    rows.append(cp.easy_routing(eps, n_at, n, why, where=ctx.routing_where))
    c = s.vs_kill or {}
    rows.append(cp.kill_baseline_margin(c.get("delta"), c.get("ci_low"), c.get("ci_high"), c.get("n"), kill, m,
                                        f"{s.name if s.scores is None else kill} was not run"))
    flat = ctx.flat
    d, lo, hi, nq = paired_diff(s.suff400, ctx.suff(flat))
    rows.append(cp.token_efficiency(d, lo, hi, nq, _mean(s.suff400), suff_rate(ctx.sufficiency, flat, 400) if
                                    ctx.suff(flat) is None else _mean(ctx.suff(flat)), flat,
                                    "the config sets no 400-token budget" if not ctx.sufficiency else
                                    f"{s.name} or {flat} has no per-query sufficiency at 400 tokens"))
    return rows


def _mean(d: dict[str, float] | None) -> float | None:
    return sum(d.values()) / len(d) if d else None


def h1a_row(ctx: Context, s: Subject) -> dict:
    kill, flat = ctx.p.kill_baseline, ctx.flat
    _d, lo, hi, n = paired_diff(s.suff400, ctx.suff(kill))
    of, on = oracle_failure(ctx.sufficiency)
    why = "the config sets no budgets (sufficiency@B)" if not ctx.sufficiency else \
        f"{s.name} or {kill} has no per-query sufficiency at 400 tokens"
    return hy.h1a(_mean(s.suff400), _mean(ctx.suff(kill)), suff_rate(ctx.sufficiency, flat, 600), lo, hi, n, of, on,
                  why)


def failure_row(ctx: Context, s: Subject) -> dict:
    of, _ = oracle_failure(ctx.sufficiency)
    rate, n = s.failure
    return hy.failure_rate(rate, n, s.name, of, "no budgets, or no evidence.jsonl with budget_feasible flags")


def kill_row(ctx: Context, s: Subject, full_size: bool | None = None) -> dict:
    c = s.vs_kill or {}
    return hy.single_kill(c.get("delta"), c.get("p_holm"), c.get("ci_low"), c.get("ci_high"), c.get("d"),
                          n=c.get("n"), size=ctx.size, full_size=ctx.full_size if full_size is None else full_size,
                          baseline=ctx.p.kill_baseline, metric=ctx.metric, tested_on=s.tested_on)


def h1b_row(ctx: Context, s: Subject) -> dict:
    p, m = ctx.p, ctx.metric
    singles = [n for n in (p.beam_only, p.collapsed_only) if n is not None and n in ctx.evaluation.runs]
    vs_single: dict[str, dict] = {}
    if s.scores is not None and singles:
        # the subject against each single path, Holm over the single paths (none is picked on the test split)
        from types import SimpleNamespace

        from hcrbench.protocol.inputs import family_metrics
        from hcrbench.stats import compare

        for sp in singles:
            ev = SimpleNamespace(metrics=list(ctx.evaluation.metrics), runs={sp: ctx.evaluation.runs[sp],
                                                                            s.name: s.scores})
            comps = compare(ev, sp, family_metrics(ctx.evaluation, ctx.cfg, m), n_resamples=ctx.cfg.n_resamples,
                            seed=ctx.cfg.seed, family=ctx.cfg.family)
            row = next(c for c in comps if c.metric == m)
            vs_single[sp] = {"delta": row.delta, "p": row.p, "ci_low": row.ci_low, "ci_high": row.ci_high,
                             "d": row.cohens_d, "n": row.n}
        from hcrbench.stats import holm

        adj = holm([vs_single[sp]["p"] for sp in singles])
        for sp, ph in zip(singles, adj):
            vs_single[sp]["p_holm"] = float(ph)
    ents = category_qids(ctx.data, ENTITY_CATEGORY)
    ent = None
    kill = ctx.p.kill_baseline
    if s.scores is not None and ents and kill in ctx.evaluation.runs:
        a, b = subset(s.scores, ents), subset(ctx.evaluation.runs[kill], ents)
        if len(a.query_ids):
            import numpy as np

            ent = float(np.mean(a.values[m]) - np.mean(b.values[m]))
    why = "no beam-only / collapsed-only system in [protocol]" if not singles else "not scored"
    return hy.h1b(vs_single, s.vs_kill, ent, why, (ctx.cache.get("dev_selection") or {}).get("chosen"))


def judge_subject(ctx: Context, s: Subject, rules: set[str], full_size: bool | None = None) -> dict[str, dict]:
    """``{rule id: row}`` for each rule of ``rules`` that reads a subject."""
    out: dict[str, dict] = {}
    if rules & {"easy_routing", "vs_kill_baseline", "token_efficiency"}:
        for r in checkpoint_rows(ctx, s):
            if r["id"] in rules:
                out[r["id"]] = r
    if "H1a" in rules:
        out["H1a"] = h1a_row(ctx, s)
    if "H1b" in rules:
        out["H1b"] = h1b_row(ctx, s)
    if "failure_rate" in rules:
        out["failure_rate"] = failure_row(ctx, s)
    if "kill" in rules:
        out["kill"] = kill_row(ctx, s, full_size)
    return out


def failure_of(ctx: Context, names: list[str]) -> tuple[float | None, int]:
    frs = [(((ctx.sufficiency or {}).get("systems") or {}).get(n) or {}).get("failure_on_feasible") for n in names]
    if not frs or not all(frs):
        return None, 0
    rates = [_num(f.get("rate")) for f in frs]
    if any(r is None for r in rates):
        return None, 0
    return sum(rates) / len(rates), int(frs[0].get("n") or 0)  # type: ignore[arg-type]
