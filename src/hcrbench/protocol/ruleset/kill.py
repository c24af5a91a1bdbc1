"""The single kill criterion: one pre-specified test in a family of its own. The kill baseline beats the system at
the FULL corpus size (p < 0.05 and the whole interval below zero): kill, the architecture is invalidated; the
whole interval above zero (p < 0.05): go (Cohen's d reported, not required); otherwise not decidable (needs ~ M
for power 0.8 at 0.03). At a smaller size the row decides the same way on its own interval, for the worlds of that
size (``evidence.scope``), and names the command that judges the full size; only a kill at the full size
invalidates the architecture (:func:`hcrbench.protocol.verdicts.overall`: a kill at a smaller size is a no-go).
Its interval is the CR2 cluster-robust t of the per-query differences (:func:`subject.kill_row`), with the tree
seeds' variance component."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import (
    GO,
    INCONCLUSIVE,
    KILL,
    NOT_RUN,
    UNDECIDABLE,
    _ci,
    _f,
    _num,
    _p,
    alpha_level,
    hypothesis,
    pct,
)
from hcrbench.protocol.ruleset._gates import SIZES_COMMAND
from hcrbench.protocol.words import leads_words

ID = "kill"


class KillCriterion(reg.Rule):
    def judge(self, ctx: Any, s: Any, *, full_size: bool | None = None) -> dict[str, Any]:
        from hcrbench.protocol.subject import kill_row

        return kill_row(ctx, s, full_size)

    def judge_run(self, ctx: Any, s: Any) -> dict[str, Any]:
        from hcrbench.protocol.field import against_strongest

        return against_strongest(ctx, s, self.judge(ctx, s), ctx.cache["field"])

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.operating_inputs import kill_inputs, system_vs_kill

        x = system_vs_kill(ctx, s)
        # the kill interval carries the tree-seed component (subject.seed_component)
        return None if x is None else kill_inputs(ctx, s, row, x, ctx.cache.get("oracle_scores"))

    def replay_inputs_from_out(self, folder: Any) -> Any | None:
        return folder.kill_inputs(self.id)

    def power_plan(self, plan: Any) -> list[Any]:
        return [plan.entry(self.id, plan.kill_pair, self.margin, order=2)]

    def simulated(self, s: dict[str, Any]) -> str | None:
        return single_kill(s["delta"], s["p"], s["lo"], s["hi"], s["d"], n=s["n"], full_size=True)["verdict"]

    def pre_interval(self, s: dict[str, Any]) -> str | None:
        if s["delta"] < 0 and s["p"] < 0.05:
            return "kill"
        return "go" if s["delta"] > 0 and s["p"] < 0.05 and s["d"] >= 0.3 else "inconclusive"


RULE = reg.register(KillCriterion(
    ID, "Single kill criterion", "hypothesis",
    "system - kill baseline on nDCG@10 at the full size (its own family of one)", "difference", go=0.0, nogo=0.0,
    margin=0.03, negative=KILL, centre=0.0, interval="cluster-robust",
    controls={"oracle": (GO, UNDECIDABLE), "clone": (UNDECIDABLE, INCONCLUSIVE), "degraded": (KILL, UNDECIDABLE),
              "twin": (UNDECIDABLE, INCONCLUSIVE), "plus_margin": (GO, UNDECIDABLE),
              "minus_margin": (KILL, UNDECIDABLE)},
    component="architecture", order=10, short="kill criterion", role="architecture"))


def single_kill(delta: float | None, p_holm: float | None, low: float | None = None, high: float | None = None,
                d: float | None = None, *, n: int | None = None, size: str = "?", full_size: bool = False,
                baseline: str = "flat + reranker", metric: str = "nDCG@10", tested_on: str = "",
                system: str = "the system", interval_kind: str = "paired t 95% (the kill test, its own family)",
                sd: float | None = None, worlds: int | None = None, world_sd: float | None = None,
                df: float | None = None) -> dict:
    """The criterion on the system - kill baseline difference, its own p (``p_holm``: a family of one) and its
    interval (module docstring). ``sd``: the per-query sd behind the interval (its standard error x sqrt(n)) when
    the interval is a t on few df, whose half-width over z would overstate it (t(1) = 12.7 at two worlds).
    ``worlds`` / ``world_sd``: the test worlds its queries come from and the sd of one world's mean
    (:func:`registry.world_sd`); with them "needs ~ M" is sized in worlds (:func:`registry.undecided_worlds`: a t on
    worlds - 1 df, which is what the interval over worlds is), M their queries. Without worlds (the topic
    interval, or the paired t) "needs ~ M" is sized in queries given the ones in hand, on the interval's ``df``
    (:func:`hcrbench.protocol.needs_given.n_given_queries`; default n - 1)."""
    rule = reg.get(ID)
    crit = f"{baseline} beats {system} on {metric} at the full corpus size (p < {alpha_level():.3g}, {pct()} CI " \
           f"wholly < {rule.nogo:g}): kill; CI wholly > {rule.go:g}: go"
    dl, pp, lo, hi, dd = _num(delta), _num(p_holm), _num(low), _num(high), _num(d)
    ev = {"delta": dl, "p_holm": pp, "ci_low": lo, "ci_high": hi, "cohens_d": dd, "size": size,
          "full_size": bool(full_size), "tested_on": tested_on}
    kw = dict(n=n, interval=(lo, hi) if lo is not None else None, interval_kind=interval_kind,
              component=rule.component)
    name = rule.name
    if dl is None:
        return hypothesis(ID, name, crit, NOT_RUN, f"not run: {system} or the kill baseline has no scores", ev,
                          **kw)
    words = f"{leads_words(system, baseline, dl, metric)} ({_p(pp, 'kill-test')}, " \
            f"{_ci(lo, hi)}, d = {_f(dd, 2)}, n {n}{', ' + tested_on if tested_on else ''})"
    code = reg.decide_one(rule, lo, hi)
    sig = pp is not None and pp < alpha_level()
    lost, ok = code == reg.NEG and sig, code == reg.POS and sig

    # below the full size the row decides the same way on its interval, scoped to this size (never voided by it):
    # the architecture is invalidated only at the full size (overall()); its undecided text names no command, so
    # the console sends the user to more test worlds of this size before --sizes
    killed, won, open_ = "kill, the architecture is invalidated", "", ""
    if not full_size:
        ev["at_full_size_this_would_be"] = "kill" if lost else "go" if ok else "not decidable"  # kept: a contract
        ev["scope"] = f"size {size}"
        scope = f"at size {size}; the architecture is judged at the full size (`{SIZES_COMMAND}`)"
        killed, won = f"kill {scope}", f" {scope}"
        open_ = f" (at size {size}; the full size, --sizes small,medium,full, judges the architecture)"
    if lost:
        return hypothesis(ID, name, crit, KILL, f"{words}: {killed}", ev, **kw)
    if ok:
        return hypothesis(ID, name, crit, GO, f"{words}: {system} beats the kill baseline{won}", ev, **kw)
    if worlds and world_sd is not None:  # "needs ~ M": only an undecided row pays for it
        need, und = reg.undecided_worlds(rule, n, world_sd, worlds)
    else:
        from hcrbench.protocol.needs_given import n_given_queries

        per_q = sd if sd is not None else reg.sd_from(lo, hi, n)
        need = n_given_queries(rule, dl, n, per_q, df)
        if need is None:
            need = rule.n_needed(per_q)
        und = reg.undecided(n, need)
    return hypothesis(ID, name, crit, UNDECIDABLE, f"{reg.text_undecidable(n, need)}: {words}: the interval "
                      f"reaches 0{open_}", ev, **kw, undecided=und)
