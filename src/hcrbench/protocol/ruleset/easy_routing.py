"""Checkpoint 2, routing on the easiest single-branch queries: routing error eps <= 0.10 at every level, on >= 50
queries of the tune and dev splits (never test), each level's eps with its Wilson interval: stop and diagnose the
routing when a level's whole interval lies above 0.10, pass when every level's lies below, else not decidable."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import DIAGNOSE, NOT_RUN, PASS, UNDECIDABLE, _num, checkpoint, pct, wilson

ID = "easy_routing"


class EasyRouting(reg.Rule):
    def judge(self, ctx: Any, s: Any, *, full_size: bool | None = None) -> dict[str, Any]:
        eps, n_at, n, why = s.routing if s.routing is not None else (None, None, 0, f"{s.name} has no routing log")
        return easy_routing(eps, n_at, n, why, where=ctx.routing_where)

    def fail_fast(self, watch: Any, runs: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        from hcrbench.protocol import checkpoints as cp
        from hcrbench.protocol.gating import gate_with
        from hcrbench.protocol.operating import Inputs

        cfg = watch.cfg
        if cfg.protocol.system not in runs:
            return None
        cdata, log, why = cp.checkpoint_routing_log(cfg, watch.data, watch.out)
        eps, n_at, n, why = cp.easy_single_branch(log, cdata, cfg.rel_threshold, why)
        c = easy_routing(eps, n_at, n, why)
        if n_at:
            c = gate_with(c, Inputs(n=int(min(n_at))), cfg.seed)
        return "easy routing", c

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.operating import Inputs

        _eps, n_at, _n, _why = ctx.routing
        return Inputs(n=int(min(n_at))) if n_at else None

    def replay_inputs_from_out(self, folder: Any) -> Any | None:
        return folder.rate_inputs(self.id)

    def simulated(self, s: dict[str, Any]) -> str | None:
        return easy_routing([s["eps"]], [s["n"]], s["n"])["status"]

    def pre_interval(self, s: dict[str, Any]) -> str | None:
        return "kill" if s["eps"] > self.go else "pass"


RULE = reg.register(EasyRouting(
    ID, "Routing on easy single-branch queries", "checkpoint", "routing error eps at the worst level (Wilson 95%)",
    "proportion", go=0.10, nogo=0.10, margin=0.05, higher_is_better=False, positive=PASS, negative=DIAGNOSE,
    routing_log=True, controls={"oracle": (PASS, UNDECIDABLE), "perfect": (PASS, UNDECIDABLE),
                                "degraded": (DIAGNOSE, UNDECIDABLE)},
    component="routing", params={"min_queries": 50}, order=2, short="routing on easy queries"))


def _needs(n_needed: int | None) -> str:
    return f"needs n ~ {n_needed:,} for power 0.8 at the design's margin" if n_needed else "no n in reach decides it"


def easy_routing(eps_per_level: list[float | None] | None, n_per_level: list[int] | None = None,
                 n_queries: int = 0, why_missing: str = "no routing log", where: str = "") -> dict:
    """The checkpoint on each level's routing error and its number of queries."""
    rule = reg.get(ID)
    thr, min_q = rule.go, int(rule.params["min_queries"])
    crit = f"eps <= {thr} at every level on >= {min_q} easiest single-branch queries (tune + dev), " \
           f"each level's Wilson {pct()} interval wholly on one side"
    levels = [(_num(e), int(k)) for e, k in zip(eps_per_level or [], n_per_level or [])]
    levels = [(e, k) for e, k in levels if e is not None and k > 0]
    if not levels or n_queries == 0:
        return checkpoint(ID, rule.name, crit, None, thr, NOT_RUN, f"not run: {why_missing}", n=n_queries or None,
                          component=rule.component)
    ivs = [wilson(e * k, k) for e, k in levels]
    codes = [reg.decide_one(rule, iv[0], iv[1]) for iv in ivs]  # type: ignore[index]
    per = ", ".join(f"L{i + 1} {e:.3f} [{iv[0]:.3f}, {iv[1]:.3f}] (n {k})"  # type: ignore[index]
                    for i, ((e, k), iv) in enumerate(zip(levels, ivs)))
    small = f"; only {n_queries} queries (the design asks for {min_q})" if n_queries < min_q else ""
    fired = [i for i, c in enumerate(codes) if c == reg.NEG]
    open_ = [i for i, c in enumerate(codes) if c != reg.POS]
    worst = max(range(len(levels)), key=lambda i: ivs[i][1])  # type: ignore[index]
    pick = fired[0] if fired else (max(open_, key=lambda i: levels[i][0]) if open_ else worst)
    e, k = levels[pick]
    iv = ivs[pick]
    und = None
    if fired:
        status, text = f"{DIAGNOSE}: {rule.component}", f"routing fails where it should be easiest: level " \
                                                       f"{pick + 1} eps {e:.3f}, Wilson {pct()} [{iv[0]:.3f}, " \
                                                       f"{iv[1]:.3f}] > {thr}"
    elif open_:
        status = UNDECIDABLE
        need = rule.n_needed()
        und = reg.undecided(k, need)
        text = f"{reg.text_undecidable(k, need)}: level {pick + 1} eps {e:.3f}, its Wilson {pct()} interval " \
               f"[{iv[0]:.3f}, {iv[1]:.3f}] reaches {thr}; {_needs(need)}"
    else:
        status, text = PASS, f"routing holds: every level's Wilson {pct()} interval lies below {thr} (worst " \
                             f"eps {levels[worst][0]:.3f})"
    text += f" ({per}; {n_queries} queries{where}){small}"
    return checkpoint(ID, rule.name, crit, e, thr, status, text, n=n_queries, interval=iv,
                      interval_kind=f"Wilson {pct()} (the level judged)", component=rule.component, undecided=und)
