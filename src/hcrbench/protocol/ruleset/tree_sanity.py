"""Checkpoint 1, tree sanity: the tree's siblings must be distinguishable (mean cosine distance >= 0.15): pass
when the whole normal interval of the mean lies above 0.15, stop and diagnose the tree construction when it lies
below, else not decidable."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import DIAGNOSE, NOT_RUN, PASS, UNDECIDABLE, _ci, _num, checkpoint, pct, z_level

ID = "tree_sanity"


class TreeSanity(reg.Rule):
    def judge_run(self, ctx: Any, s: Any) -> dict[str, Any]:
        return tree_sanity_row(ctx)

    def fail_fast(self, watch: Any, runs: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        from hcrbench.experiment.tree_step import system_tree_metrics
        from hcrbench.protocol.gating import gate_with
        from hcrbench.protocol.operating import Inputs

        cfg = watch.cfg
        if cfg.protocol.system not in runs:
            return None
        rep = system_tree_metrics(cfg.protocol.system, watch.data, watch.out, rel_threshold=cfg.rel_threshold,
                                  seed=cfg.seed)
        sd = ((rep or {}).get("tree", {}).get("sibling_distinctiveness") or {})
        c = tree_sanity(sd.get("mean"), sd.get("sd"), sd.get("n"))
        if sd.get("sd") and sd.get("n"):  # the same operating report as the verdict step
            c = gate_with(c, Inputs(n=int(sd["n"]), sd=float(sd["sd"])), cfg.seed)
        return self.display, c

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.operating import Inputs

        if not row.get("n") or not row.get("interval"):
            return None
        lo, hi = row["interval"]
        return Inputs(n=int(row["n"]), sd=(hi - lo) / 2 / z_level() * float(row["n"]) ** 0.5)


RULE = reg.register(TreeSanity(
    ID, "Tree sanity", "checkpoint", "mean sibling distinctiveness (cosine distance)", "mean", go=0.15, nogo=0.15,
    margin=0.05, positive=PASS, negative=DIAGNOSE, routing_log=True, component="tree construction", order=1,
    short="tree sanity", reads_subject=False))


def tree_sanity(mean: float | None, sd: float | None = None, n: int | None = None,
                why_missing: str = "no tree with routing vectors") -> dict:
    """The checkpoint on the tree's mean sibling distinctiveness, its sd and the number of sibling pairs."""
    rule = reg.get(ID)
    thr = rule.go
    crit = f"mean sibling distinctiveness >= {thr} (the whole {pct()} interval on one side)"
    v, s = _num(mean), _num(sd)
    if v is None:
        return checkpoint(ID, rule.name, crit, None, thr, NOT_RUN, f"not run: {why_missing}")
    lo = hi = None
    if s is not None and n:
        h = z_level() * s / n ** 0.5
        lo, hi = v - h, v + h
    code = reg.decide_one(rule, lo, hi)
    und = None
    if code == reg.NEG:
        status, text = f"{DIAGNOSE}: {rule.component}", f"siblings are too alike: mean cosine distance {v:.3f} " \
                                                         f"< {thr} ({_ci(lo, hi, False)})"
    elif code == reg.POS:
        status = PASS
        text = f"siblings are distinct enough: mean cosine distance {v:.3f} > {thr} " \
               f"({_ci(lo, hi, False)}, {n:,} sibling pairs)"
    else:
        status = UNDECIDABLE
        need = rule.n_needed(s) if s is not None else None
        und = reg.undecided(n, need, "sibling pairs")
        text = f"{reg.text_undecidable(n, need, 'sibling pairs')}: mean {v:.3f}, " + \
               (f"{_ci(lo, hi, False)} reaches {thr}" if lo is not None else "no sd: no interval")
    return checkpoint(ID, rule.name, crit, v, thr, status, text, n=n,
                      interval=(lo, hi) if lo is not None else None,
                      interval_kind=f"normal {pct()} (mean ± {z_level():.2f} sd / sqrt(pairs))",
                      component=rule.component, undecided=und)


def tree_sanity_row(ctx: Any) -> dict:
    """The checkpoint on the system's tree (``tree_metrics.json``)."""
    sysname = ctx.p.system
    t = (ctx.tree_docs or {}).get(sysname)
    sd = ((t or {}).get("tree") or {}).get("sibling_distinctiveness") or {}
    return tree_sanity(sd.get("mean"), sd.get("sd"), sd.get("n"),
                       f"{sysname} has no tree metrics" if t is None else "the tree file has no routing vectors")
