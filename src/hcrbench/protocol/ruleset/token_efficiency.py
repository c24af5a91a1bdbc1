"""Checkpoint 4, token efficiency: the system's sufficiency at 400 tokens must beat the flat system's: stop and
diagnose context selection when the whole interval of the per-query paired difference lies below zero, pass when
it lies above, else not decidable. When the two deliver differently (units vs documents) the checkpoint compares
delivery modes, not retrievers, and a loss cannot stop the run on its own."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import DIAGNOSE, NOT_RUN, PASS, UNDECIDABLE, _ci, _num, checkpoint, pct

ID = "token_efficiency"


class TokenEfficiency(reg.Rule):
    def judge(self, ctx: Any, s: Any, *, full_size: bool | None = None) -> dict[str, Any]:
        from hcrbench.protocol.inputs import paired_diff, suff_rate
        from hcrbench.protocol.subject import _common, _mean, delivery_mode, one_query_set

        flat = ctx.flat
        (a, b), basis = one_query_set(ctx, [s.name, flat], s.suff400, ctx.suff(flat))
        d, lo, hi, nq = paired_diff(a, b)
        modes = (delivery_mode(ctx, s.name), delivery_mode(ctx, flat))
        return token_efficiency(d, lo, hi, nq, _mean(_common(a, b)), suff_rate(ctx.sufficiency, flat, 400) if
                                b is None else _mean(_common(b, a)), flat,
                                "the config sets no 400-token budget" if not ctx.sufficiency else
                                f"{s.name} or {flat} has no per-query sufficiency at 400 tokens",
                                system=ctx.p.system, modes=modes, basis=basis)

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.operating_inputs import dict_diff_inputs

        return dict_diff_inputs(s.suff400, ctx.suff(ctx.flat))

    def simulated(self, s: dict[str, Any]) -> str | None:
        return token_efficiency(s["delta"], s["lo"], s["hi"], s["n"], s["a"], s["b"])["status"]

    def pre_interval(self, s: dict[str, Any]) -> str | None:
        return "pass" if s["a"] > s["b"] else "kill"


RULE = reg.register(TokenEfficiency(
    ID, "Token efficiency", "checkpoint", "system sufficiency@400 - flat sufficiency@400 (paired normal 95%)",
    "difference", go=0.0, nogo=0.0, margin=0.05, positive=PASS, negative=DIAGNOSE,
    controls={"oracle": (PASS, UNDECIDABLE)}, component="context selection", order=4, short="token efficiency",
    seed_mean_note=True))


def token_efficiency(diff: float | None, low: float | None = None, high: float | None = None,
                     n: int | None = None, hcr_400: float | None = None, flat_400: float | None = None,
                     flat: str = "flat", why_missing: str = "no sufficiency at 400 tokens", system: str = "the system",
                     *, modes: tuple[str | None, str | None] = (None, None), basis: str | None = None) -> dict:
    """The checkpoint on the paired difference of sufficiency@400 (``modes``: what each delivers, ``units`` /
    ``documents``; ``basis``: the one query set compared)."""
    rule = reg.get(ID)
    crit = f"{system} sufficiency@400 > {flat} sufficiency@400 (the whole {pct()} interval on one side)"
    d, lo, hi = _num(diff), _num(low), _num(high)
    if d is None:
        return checkpoint(ID, rule.name, crit, None, rule.go, NOT_RUN, f"not run: {why_missing}",
                          component=rule.component)
    code = reg.decide_one(rule, lo, hi)
    words = f"{system}@400 {_num(hcr_400) or 0:.3f} vs {flat}@400 {_num(flat_400) or 0:.3f} ({d:+.3f}, " \
            f"{_ci(lo, hi)}, n {n}" + (f", on {basis})" if basis else ")")
    crossed = None not in modes and modes[0] != modes[1]
    if crossed:
        words += (f"; compares delivery modes ({system} delivers {modes[0]}, {flat} delivers {modes[1]}), not "
                  f"retrievers of one mode")
    und = None
    if code == reg.NEG and crossed:
        status = UNDECIDABLE
        text = f"not decidable across delivery modes: {words}: a loss here cannot stop the run on its own"
    elif code == reg.NEG:
        status, text = f"{DIAGNOSE}: {rule.component}", f"{words}: {system} does not beat flat retrieval"
    elif code == reg.POS:
        status, text = PASS, f"{words}: {system} gives sufficient context more often"
    else:
        status = UNDECIDABLE
        need = rule.n_needed(reg.sd_from(lo, hi, n))
        und = reg.undecided(n, need)
        text = f"{reg.text_undecidable(n, need)}: {words}"
    row = checkpoint(ID, rule.name, crit, d, rule.go, status, text, n=n,
                     interval=(lo, hi) if lo is not None else None,
                     interval_kind=f"normal {pct()} of the per-query paired difference", component=rule.component,
                     undecided=und)
    if None not in modes:
        row["delivery_modes"] = {system: modes[0], flat: modes[1]}
    if basis:
        row["basis"] = basis
    return row
