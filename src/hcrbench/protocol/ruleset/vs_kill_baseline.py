"""Checkpoint 3, the system vs the kill baseline: the system must not trail the kill baseline on nDCG@10 by more
than 0.02: stop and diagnose retrieval quality when the whole interval of the paired difference lies below
-0.02, pass when it lies above, else not decidable. Judged on the betting interval of the per-query differences
(valid at every n; the paired t interval passed 26% of systems truly on the -0.02 boundary)."""

from __future__ import annotations

from typing import Any

import numpy as np

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import (
    DIAGNOSE,
    NOT_RUN,
    PASS,
    UNDECIDABLE,
    _ci,
    _num,
    checkpoint,
    confidence,
    pct,
)
from hcrbench.protocol.words import leads_words

ID = "vs_kill_baseline"
BETTING_KIND = "betting {pct} (Waudby-Smith & Ramdas 2023 hedged capital, per-query differences in [-1, 1]; valid " \
               "at every n, no normal approximation)"


class VsKillBaseline(reg.Rule):
    def judge(self, ctx: Any, s: Any, *, full_size: bool | None = None) -> dict[str, Any]:
        m, kill = ctx.metric, ctx.p.kill_baseline
        c = s.vs_kill or {}
        lo, hi, kind, diffs = margin_inputs(s.scores, ctx.evaluation.runs.get(kill), m, c)
        return kill_baseline_margin(c.get("delta"), lo, hi, c.get("n"), kill, m,
                                    f"{s.name if s.scores is None else kill} was not run", system=ctx.p.system,
                                    interval_kind=kind, diffs=diffs)

    def fail_fast(self, watch: Any, runs: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        from hcrbench.metrics import evaluate
        from hcrbench.protocol.gating import gate_one
        from hcrbench.protocol.inputs import compare_runs, mean_of, per_query, seed_group_of, seed_mean

        cfg, p = watch.cfg, watch.cfg.protocol
        group = [x.name for x in seed_group_of(cfg, p.system)]  # every seed: the margin is on the mean
        if not all(n in runs for n in (*group, p.kill_baseline)):
            return None
        ev = evaluate(watch.data.qrels, {n: runs[n] for n in (*group, p.kill_baseline)}, [p.metric],
                      rel_threshold=cfg.rel_threshold, missing="zero")
        scores = per_query(ev, group, p.metric)
        row = compare_runs(ev, cfg, p.metric, p.kill_baseline, {p.system: scores}).get(p.system) or {}
        a = seed_mean([mean_of(ev, n, p.metric) for n in group])
        lo, hi, kind, diffs = margin_inputs(scores, ev.runs[p.kill_baseline], p.metric, row)
        c = kill_baseline_margin(row.get("delta") if a is not None else None, lo, hi, row.get("n"),
                                 p.kill_baseline, p.metric, system=p.system, interval_kind=kind, diffs=diffs)
        return f"{p.system} vs {p.kill_baseline}", gate_one(c, scores, ev.runs[p.kill_baseline], p.metric, cfg.seed)

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.operating_inputs import system_vs_kill

        return system_vs_kill(ctx, s)

    def replay_inputs_from_out(self, folder: Any) -> Any | None:
        return folder.system_vs_kill()

    def power_plan(self, plan: Any) -> list[Any]:
        return [plan.entry(self.id, plan.kill_pair, self.margin, order=1)]

    def simulated(self, s: dict[str, Any]) -> str | None:
        from hcrbench.stats.bounded import betting_ci_diff

        _m, lo, hi = betting_ci_diff(np.clip(s["x"], -1.0, 1.0), confidence=confidence())
        return kill_baseline_margin(s["delta"], lo, hi, s["n"])["status"]

    def pre_interval(self, s: dict[str, Any]) -> str | None:
        return "kill" if s["delta"] < self.go else "pass"


RULE = reg.register(VsKillBaseline(
    ID, "System vs the kill baseline", "checkpoint", "system - kill baseline on nDCG@10 (paired 95% interval)",
    "difference", go=-0.02, nogo=-0.02, margin=0.03, positive=PASS, negative=DIAGNOSE,
    # the betting interval is valid at every n and wide at small n: the oracle may be "not decidable" there (never
    # stopped)
    controls={"oracle": (PASS, UNDECIDABLE), "clone": (PASS, UNDECIDABLE), "degraded": (DIAGNOSE, UNDECIDABLE),
              "twin": (PASS, UNDECIDABLE), "plus_margin": (PASS, UNDECIDABLE), "minus_margin": (DIAGNOSE, UNDECIDABLE)},
    component="retrieval quality", interval="betting", order=3, short="vs the kill baseline", seed_mean_note=True,
    role="margin"))


def kill_baseline_margin(delta: float | None, low: float | None = None, high: float | None = None,
                         n: int | None = None, baseline: str = "flat + reranker", metric: str = "nDCG@10",
                         why_missing: str = "the system or the kill baseline was not run", system: str = "the system",
                         interval_kind: str = "paired t 95% (the experiment's comparison)",
                         diffs: Any = None) -> dict:
    """The checkpoint on the paired difference system - kill baseline and its interval. ``diffs``: the per-query
    differences its betting interval was computed on (in order); with them an undecided row's "needs ~ M" is the
    betting interval's own power given those queries (:func:`hcrbench.protocol.needs_given.n_given_queries_betting`),
    else the half-width / z reading of the interval (:func:`registry.sd_from`)."""
    rule = reg.get(ID)
    allowed = -rule.go
    crit = f"{system} - {baseline} on {metric} >= -{allowed} (the whole {pct()} interval on one side)"
    d, lo, hi = _num(delta), _num(low), _num(high)
    name = f"{system} vs {baseline}"
    if d is None:
        return checkpoint(ID, name, crit, None, rule.go, NOT_RUN, f"not run: {why_missing}",
                          component=rule.component)
    code = reg.decide_one(rule, lo, hi)
    words = f"{leads_words(system, baseline, d, metric)} ({_ci(lo, hi)}, n {n})"
    und = None
    if code == reg.NEG:
        status, text = f"{DIAGNOSE}: {rule.component}", f"{words}: beyond the {allowed} margin"
    elif code == reg.POS:
        status, text = PASS, f"{words}: surely within the {allowed} margin"
    else:
        status = UNDECIDABLE
        from hcrbench.protocol.needs_given import n_given_queries_betting

        need = n_given_queries_betting(rule, diffs) if diffs is not None else None
        if need is None:
            need = rule.n_needed(reg.sd_from(lo, hi, n))
        und = reg.undecided(n, need)
        text = f"{reg.text_undecidable(n, need)}: {words}: its {pct()} interval reaches the -{allowed} margin"
    return checkpoint(ID, name, crit, d, rule.go, status, text, n=n, interval=(lo, hi) if lo is not None else None,
                      interval_kind=interval_kind, component=rule.component, undecided=und)


def margin_inputs(scores: Any, base: Any, metric: str, c: dict | None) -> tuple[Any, Any, str, np.ndarray | None]:
    """The checkpoint's interval (:func:`margin_interval`) and the per-query differences its betting interval was
    computed on, in order (None where it is not the betting interval, or on fewer than 2 queries), aligned once."""
    from hcrbench.protocol.subject import interval_kind

    c = c or {}
    if scores is not None and base is not None:
        from hcrbench.protocol.operating_inputs import aligned
        from hcrbench.stats.bounded import betting_ci_diff

        a, b = aligned(scores, base, metric)
        if a.size >= 1 and np.all(np.abs(a - b) <= 1 + 1e-12):
            _m, lo, hi = betting_ci_diff(a, b, confidence=confidence())
            return lo, hi, BETTING_KIND.format(pct=pct()), (a - b if a.size >= 2 else None)
    return c.get("ci_low"), c.get("ci_high"), interval_kind(c), None


def margin_interval(scores: Any, base: Any, metric: str, c: dict | None) -> tuple[Any, Any, str]:
    """The checkpoint's interval: the betting interval of the per-query differences (:mod:`stats.bounded`), else
    the comparison's own."""
    return margin_inputs(scores, base, metric, c)[:3]
