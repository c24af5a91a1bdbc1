"""The failure rate on budget-feasible queries at 400 tokens, decided on its Wilson interval: wholly <= 20% go,
wholly > 30% no-go (context selection needs fixing), wholly between soft no-go (concerning), else not decidable.
Judged only when the oracle context and the passage-level perfect retriever of the subject's delivery mode each
fail <= 5% (else a harness defect, not decidable); the perfect document ranking is reported, never a gate."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import GO, NOGO, NOT_RUN, SOFT, UNDECIDABLE, _num, hypothesis, pct, wilson
from hcrbench.protocol.ruleset._gates import harness_gate, oracle_gate

ID = "failure_rate"
GOOD, OK, CONCERN = 0.10, 0.20, 0.30


class FailureRate(reg.Rule):
    def judge(self, ctx: Any, s: Any, *, full_size: bool | None = None) -> dict[str, Any]:
        return failure_row(ctx, s)

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.operating import Inputs

        return Inputs(n=int(row["n"])) if row.get("n") else None

    def replay_inputs_from_out(self, folder: Any) -> Any | None:
        return folder.rate_inputs(self.id)

    def simulated(self, s: dict[str, Any]) -> str | None:
        return failure_rate(s["rate"], s["n"], oracle_failure=0.0)["verdict"]

    def pre_interval(self, s: dict[str, Any]) -> str | None:
        return "kill" if s["rate"] > self.nogo else "go" if s["rate"] <= self.go else "soft no-go"


RULE = reg.register(FailureRate(
    ID, "Failure rate on budget-feasible queries", "hypothesis",
    "share of budget-feasible queries whose context at 400 tokens is insufficient (Wilson 95%)", "proportion",
    go=OK, nogo=CONCERN, margin=0.05, higher_is_better=False, soft=SOFT, centre=(OK + CONCERN) / 2,
    controls={"oracle": (GO, UNDECIDABLE), "perfect": (GO, UNDECIDABLE)}, component="context selection",
    params={"good": GOOD}, order=8, short="failure rate", seed_mean_note=True, oracle_gated=True))


def failure_rate(rate: float | None, n: int = 0, system: str = "the system", oracle_failure: float | None = None,
                 why_missing: str = "no evidence-based sufficiency at 400 tokens", *,
                 perfect_failure: float | None = None, basis: str = "budget-feasible queries",
                 finding: str | None = None, passage_failure: float | None = None, passage: str = "passage") -> dict:
    """The failure rate of ``n`` budget-feasible queries (module docstring). ``basis`` says which failures are
    counted and on which queries; ``finding`` (the anatomy: retrieval / delivery / selection misses) is reported
    beside it."""
    rule = reg.get(ID)
    ok, concern = rule.go, rule.nogo
    crit = (f"{system} failure rate on {basis} @400, Wilson {pct()} CI: wholly <= {ok:.0%} go, wholly > "
            f"{concern:.0%} no-go, wholly between soft no-go")
    v = _num(rate)
    iv = wilson(v * n, n) if v is not None and n else None
    ev = {"failure_rate": v, "n_feasible": n, "oracle_failure@400": _num(oracle_failure),
          "passage_failure@400": _num(passage_failure), "perfect_failure@400": _num(perfect_failure),
          "basis": basis}
    if finding:
        ev["context selection"] = finding
    kw = dict(n=n or None, interval=iv, interval_kind=f"Wilson {pct()}", component=rule.component)
    name = rule.name
    if v is None:
        return hypothesis(ID, name, crit, NOT_RUN, f"not run: {why_missing}", ev, **kw)
    words = f"{system} fails {v:.0%} of {n} {basis} at 400 tokens " \
            f"(Wilson {pct()} [{iv[0]:.2f}, {iv[1]:.2f}])" if iv else f"{system} fails {v:.0%}"
    if finding:
        words += f"; {finding}"
    gate = oracle_gate(oracle_failure, n) or harness_gate(passage_failure, n, passage)
    if gate is not None:
        return hypothesis(ID, name, crit, UNDECIDABLE, f"{gate} ({words})", ev, **kw)
    code = reg.decide_one(rule, *(iv or (None, None)))
    if code == reg.POS:
        return hypothesis(ID, name, crit, GO, f"{words}: surely <= {ok:.0%}", ev, **kw)
    if code == reg.MID:
        return hypothesis(ID, name, crit, SOFT, f"{words}: concerning", ev, **kw)
    if code == reg.NEG:
        return hypothesis(ID, name, crit, NOGO, f"{words}: context selection needs fixing", ev, **kw)
    need = rule.n_needed()
    return hypothesis(ID, name, crit, UNDECIDABLE, f"{reg.text_undecidable(n, need)}: {words}", ev, **kw,
                      undecided=reg.undecided(n, need))


def failure_row(ctx: Any, s: Any) -> dict:
    """The failure rate as the design defines it (every insufficient context on a budget-feasible query: the
    system is its pipeline), the anatomy (retrieval / delivery / selection misses) reported beside it, gated by
    the passage-level control in the subject's own units (the same feasible queries)."""
    from hcrbench.protocol.inputs import oracle_failure
    from hcrbench.protocol.subject import _entry, passage_failure, perfect_failure

    of, _ = oracle_failure(ctx.sufficiency)
    rate, n = s.failure
    pf, _ = perfect_failure(ctx)
    gf, _gn, gname = passage_failure(ctx, s.name)
    us = _entry(ctx, s.name).get("unit_set")
    basis, finding = "budget-feasible queries" + (f" in {us}" if us else ""), None
    if s.failures is not None:
        if _num(s.failures.get("total")) is not None:
            rate = float(s.failures["total"])
        finding = s.failures.get("anatomy") or s.failures.get("finding")
    return failure_rate(rate, n, s.name, of, "no budgets, or no evidence.jsonl with budget_feasible flags",
                        perfect_failure=pf, basis=basis, finding=finding, passage_failure=gf,
                        passage=gname or "passage")
