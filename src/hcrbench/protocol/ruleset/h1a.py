"""H1a, sufficiency under a 400-token budget: go when the interval of system - flat+reranker @400 lies above
-0.05 (non-inferior), the Wilson interval of the system's rate above 55% and the interval of system - flat@600
above -0.05; no-go (the context component needs fixing) when the interval of system - flat+reranker lies wholly
below -0.05; soft no-go when a go clause is surely missed; else not decidable. Judged only when the oracle context
and the passage-level perfect retriever each fail <= 5% of the budget-feasible queries."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import (
    GO,
    INCONCLUSIVE,
    NOGO,
    NOT_RUN,
    SOFT,
    UNDECIDABLE,
    _ci,
    _num,
    hypothesis,
    pct,
    wilson,
)
from hcrbench.protocol.ruleset._gates import harness_gate, oracle_gate, unpaired

ID = "H1a"
TOLERANCE, MIN_RATE = 0.05, 0.55


class H1a(reg.Rule):
    def judge(self, ctx: Any, s: Any, *, full_size: bool | None = None) -> dict[str, Any]:
        return h1a_row(ctx, s)

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.operating_inputs import dict_diff_inputs

        return dict_diff_inputs(s.suff400, ctx.suff(ctx.p.kill_baseline))

    def rate_rule(self) -> reg.Rule:
        """The rate clause: the Wilson interval of the system's sufficiency@400 above ``min_rate``."""
        r = float(self.params["min_rate"])
        return reg.Rule("H1a:rate", f"sufficiency@400 >= {r:.0%}", "clause", "sufficiency@400 (Wilson 95%)",
                        "proportion", go=r, nogo=r, margin=0.05)

    def simulated(self, s: dict[str, Any]) -> str | None:
        return h1a(s["a"], s["b"], s["b"], s["lo"], s["hi"], s["n"], 0.0, s["n"])["verdict"]

    def pre_interval(self, s: dict[str, Any]) -> str | None:
        gap = s["a"] - s["b"]
        if gap < self.go:
            return "kill"
        return "go" if gap >= 0 and s["a"] >= self.params["min_rate"] and s["a"] >= s["b"] else "soft no-go"


RULE = reg.register(H1a(
    ID, "Sufficiency under a 400-token budget", "hypothesis",
    "system sufficiency@400 - kill baseline sufficiency@400 (paired normal 95%); go also needs the "
    f"Wilson interval of the rate above {MIN_RATE:.0%} and non-inferiority to flat@600",
    "difference", go=-TOLERANCE, nogo=-TOLERANCE, margin=TOLERANCE, centre=-TOLERANCE,
    controls={"oracle": (GO, SOFT, UNDECIDABLE), "perfect": (GO, SOFT, UNDECIDABLE),
              "clone": (GO, SOFT, INCONCLUSIVE, UNDECIDABLE), "degraded": (NOGO, SOFT, UNDECIDABLE)},
    component="context selection", params={"min_rate": MIN_RATE}, order=5, short="sufficiency at 400 tokens (H1a)",
    seed_mean_note=True, oracle_gated=True))


def h1a(hcr_400: float | None, rerank_400: float | None, flat_600: float | None, low: float | None = None,
        high: float | None = None, n: int | None = None, oracle_failure: float | None = None,
        n_feasible: int | None = None, why_missing: str = "no sufficiency results", *, system: str = "the system",
        perfect_failure: float | None = None, passage_failure: float | None = None, passage: str = "passage",
        basis: str | None = None) -> dict:
    """H1a on one standard of evidence (module docstring). The perfect document ranking (``perfect_failure``) is
    reported, never a gate. ``basis``: the one query set both systems are compared on (stated in the row)."""
    rule = reg.get(ID)
    tol, min_rate = -rule.go, rule.params["min_rate"]
    crit = (f"{system}@400 - flat+reranker@400: {pct()} CI > -{tol} with Wilson CI of {system}@400 > "
            f"{min_rate:.0%} and CI of {system}@400 - flat@600 > -{tol}: go; CI wholly < -{tol}: "
            f"no-go; a go clause surely missed: soft no-go")
    h, r, f6, lo, hi = _num(hcr_400), _num(rerank_400), _num(flat_600), _num(low), _num(high)
    ev = {"hcr@400": h, "flat+reranker@400": r, "flat@600": f6, "oracle_failure@400": _num(oracle_failure),
          "passage_failure@400": _num(passage_failure), "perfect_failure@400": _num(perfect_failure)}
    if basis:
        ev["basis"] = basis
    kw = dict(n=n, interval=(lo, hi) if lo is not None else None,
              interval_kind=f"normal {pct()} of the per-query paired difference ({system} - flat+reranker @400)",
              component=rule.component)
    name = rule.name
    if h is None or r is None:
        return hypothesis(ID, name, crit, NOT_RUN, f"not run: {why_missing}", ev, **kw)
    gate = oracle_gate(oracle_failure, n_feasible) or harness_gate(passage_failure, n_feasible, passage)
    if gate is not None:
        return hypothesis(ID, name, crit, UNDECIDABLE, f"{gate} ({system}@400 {h:.3f} vs flat + reranker@400 "
                                                       f"{r:.3f})", ev, **kw)
    gap = h - r
    words = f"{system}@400 {h:.3f} vs flat + reranker@400 {r:.3f} ({gap:+.3f}, {_ci(lo, hi)}, n {n}" \
            + (f", on {basis})" if basis else ")")
    code = reg.decide_one(rule, lo, hi)
    if code == reg.NEG:
        return hypothesis(ID, name, crit, NOGO, f"{words}: surely more than {tol:.0%} below; the context "
                                                f"component needs fixing", ev, **kw)
    clauses = {f"non-inferior to flat+reranker (CI > -{tol})": code}
    w = wilson(h * n, n) if n else None
    clauses[f">= {min_rate:.0%} (Wilson {_ci(*w, signed=False) if w else '—'})"] = \
        reg.decide_one(rule.rate_rule(), *(w or (None, None)))
    if f6 is not None and n:
        u = unpaired(h, f6, n)
        ev["flat@600 interval"] = [u[0], u[1]]
        clauses[f"non-inferior to flat@600 {f6:.3f} (unpaired {_ci(*u)})"] = reg.decide_one(rule, *u)
    missed = [k for k, c in clauses.items() if c == reg.NEG]
    open_ = [k for k, c in clauses.items() if c == reg.UND]
    need = rule.n_needed(reg.sd_from(lo, hi, n))
    if missed:
        return hypothesis(ID, name, crit, SOFT, f"{words}: surely missed: " + "; ".join(missed), ev, **kw)
    if open_:
        return hypothesis(ID, name, crit, UNDECIDABLE, f"{reg.text_undecidable(n, need)}: {words}; open: "
                          + "; ".join(open_), ev, **kw, undecided=reg.undecided(n, need))
    if f6 is None:
        return hypothesis(ID, name, crit, INCONCLUSIVE, f"{words}: flat@600 not run (the other clauses hold)",
                          ev, **kw)
    return hypothesis(ID, name, crit, GO, f"{words}: every clause's interval holds: " + "; ".join(clauses), ev,
                      **kw)


def h1a_row(ctx: Any, s: Any) -> dict:
    """H1a on one query set: the queries feasible at 400 for the system, the kill baseline and the flat system
    (each in its own units), gated by the passage-level control of the system's delivery mode."""
    from hcrbench.protocol.inputs import group_suff, oracle_failure, paired_diff, suff_rate
    from hcrbench.protocol.subject import (
        _common,
        _group,
        _mean,
        one_query_set,
        passage_failure,
        perfect_failure,
    )

    kill, flat = ctx.p.kill_baseline, ctx.flat
    f600 = group_suff(ctx.out, _group(ctx, flat), ctx.kind, 600) if ctx.sufficiency else None
    (a, b, c), basis = one_query_set(ctx, [s.name, kill, flat], s.suff400, ctx.suff(kill), f600)
    _d, lo, hi, n = paired_diff(a, b)
    of, on = oracle_failure(ctx.sufficiency)
    why = "the config sets no budgets (sufficiency@B)" if not ctx.sufficiency else \
        f"{s.name} or {kill} has no per-query sufficiency at 400 tokens"
    pf, _pn = perfect_failure(ctx)
    gf, _gn, gname = passage_failure(ctx, s.name)
    flat600 = _mean(c) if c is not None else suff_rate(ctx.sufficiency, flat, 600)
    return h1a(_mean(_common(a, b)), _mean(_common(b, a)), flat600, lo, hi, n, of, on, why,
               system=ctx.p.system, perfect_failure=pf, passage_failure=gf, passage=gname or "passage",
               basis=basis)
