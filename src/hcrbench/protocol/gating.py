"""The steps that turn the rules' rows into what a run may say: tree-only rules without a routing log, and the
operating-characteristics report (:mod:`operating`) beside every judged row, at the verdict step and at
``--fail-fast``. Kept apart from :mod:`verdicts` (which assembles the document) so each stays small."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hcrbench.protocol.row import Row
from hcrbench.protocol.rules import NOT_RUN
from hcrbench.protocol.subject import Context, Subject


def writes_routing_log(cfg: Any) -> bool:
    """Does the protocol's system write a routing log (a retriever that declares a tree: HCR, RAPTOR)?"""
    from hcrbench.retrieve import traits

    me = next((x for x in cfg.systems if x.name == cfg.protocol.system), None)
    return me is not None and traits(me.type).tree


def tree_only(cfg: Any, rows: list[dict]) -> list[dict]:
    """The tree-only rules (routing, tree sanity, dual path, cross-links: :func:`registry.needs_routing_log`) are
    "not run: <system> writes no routing log" when the subject writes none."""
    from hcrbench.protocol import registry as reg

    if writes_routing_log(cfg):
        return rows
    why = f"not run: {cfg.protocol.system} writes no routing log"
    tree_rules = reg.needs_routing_log()
    return [Row.of(r).as_dict(r, word=NOT_RUN, text=why, interval=None, undecided=None) if r["id"] in tree_rules
            else r for r in rows]


def judge_operating(ctx: Context, s: Subject, cps: list[dict], hs: list[dict],
                    overall: Callable[[list[dict], list[dict]], str]
                    ) -> tuple[list[dict], list[dict], dict[str, Any]]:
    """Every judged rule's operating characteristics on this run's own data (:mod:`operating`), reported beside
    each row (never changing its verdict), and the overall verdict's frequencies under known truths
    (``verdicts.json["operating"]``)."""
    from hcrbench.protocol import operating as opc
    from hcrbench.protocol import registry as reg
    from hcrbench.protocol.operating_inputs import aligned, cluster_index, gather, judged_baseline

    seed = int(ctx.cfg.seed)
    ops = opc.operating_all(gather(ctx, s, {r["id"]: r for r in (*cps, *hs)}), seed=seed)
    cps, hs = opc.gate_rows(cps, ops), opc.gate_rows(hs, ops)
    kill_run = ctx.evaluation.runs.get(ctx.p.kill_baseline)
    if s.scores is not None and kill_run is not None:
        a, b = aligned(s.scores, kill_run, ctx.metric)
        arch = reg.with_role("architecture")
        judged = ctx.evaluation.runs[judged_baseline(ctx, next((h for h in hs if arch is not None
                                                                 and h["id"] == arch.id), None))]
        ka, kb = aligned(s.scores, judged, ctx.metric)
        agg = opc.operating_overall(hs, cps, a - b, int(a.size), full_size=ctx.full_size, overall_fn=overall,
                                    seed=seed, extra=float((ctx.cache.get("kill_seed") or {}).get("half") or 0.0),
                                    kill_diffs=ka - kb if ka.size == a.size else None,
                                    clusters=cluster_index(ctx, s.scores, kill_run))
        if agg is not None:
            ops["overall"] = agg
    return cps, hs, ops


def gate_one(row: dict, scores: Any, base: Any, metric: str, seed: int) -> dict:
    """Checkpoint 3's row with its operating characteristics on these scores beside it (as in :func:`judge`), so
    ``--fail-fast`` reads the row the verdict step writes."""
    from hcrbench.protocol import operating as opc
    from hcrbench.protocol.operating_inputs import aligned

    if scores is None:
        return row
    a, b = aligned(scores, base, metric)
    if a.size < 2:
        return row
    ops = opc.operating_all({"vs_kill_baseline": opc.Inputs(n=int(a.size), diffs=a - b)}, seed=int(seed))
    return opc.gate_rows([row], ops)[0]


def gate_with(row: dict, inputs: Any, seed: int) -> dict:
    """``row`` with its rule's operating characteristics on ``inputs`` beside it (as the verdict step does)."""
    from hcrbench.protocol import operating as opc

    return opc.gate_rows([row], opc.operating_all({row["id"]: inputs}, seed=int(seed)))[0]
