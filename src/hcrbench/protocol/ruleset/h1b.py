"""H1b, the dual path: the dual path against each single path (margin 0.03), flat + reranker (0.05) and flat +
reranker on entity-spanning queries (0.08), each a raw nDCG@10 difference judged on its interval (Cohen's d
reported, not required). Go: every interval above zero; no-go (the dual path needs fixing): vs a single path the
interval lies wholly below +0.03 without being surely positive; soft no-go: another clause surely misses its
margin; else not decidable."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import GO, NOGO, NOT_RUN, SOFT, UNDECIDABLE, _ci, _f, _num, _p, hypothesis, pct
from hcrbench.protocol.ruleset._gates import ci_method

ID = "H1b"
OVER_SINGLE, OVER_RERANK, ENTITY = 0.03, 0.05, 0.08


class H1b(reg.Rule):
    def judge(self, ctx: Any, s: Any, *, full_size: bool | None = None) -> dict[str, Any]:
        return h1b_row(ctx, s)

    def clauses(self) -> dict[str, reg.Rule]:
        """The three clause rules the H1b row combines, each at its own margin."""
        rerank, entity = self.params["over_rerank"], self.params["entity"]
        return {
            "single": reg.Rule("H1b:single", "dual vs single path", "clause", "dual - best single path", "difference",
                               go=0.0, nogo=self.nogo, margin=self.margin, soft=SOFT),
            "rerank": reg.Rule("H1b:rerank", "dual vs flat+reranker", "clause", "dual - flat+reranker", "difference",
                               go=0.0, nogo=rerank, margin=rerank, soft=SOFT),
            "entity": reg.Rule("H1b:entity", "entity-spanning", "clause", "dual - flat+reranker, entity-spanning",
                               "difference", go=0.0, nogo=entity, margin=entity, soft=SOFT),
        }

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.operating import Inputs
        from hcrbench.protocol.operating_inputs import aligned

        singles = [n for n in (ctx.p.beam_only, ctx.p.collapsed_only) if n is not None and n in ctx.evaluation.runs]
        if s.scores is None or ctx.evaluation.runs.get(ctx.p.kill_baseline) is None or not singles:
            return None
        chosen = (ctx.cache.get("dev_selection") or {}).get("chosen")
        sp = chosen if chosen in singles else singles[0]
        a, b = aligned(s.scores, ctx.evaluation.runs[sp], ctx.metric)
        return Inputs(n=int(a.size), diffs=a - b) if a.size >= 2 else None

    def power_plan(self, plan: Any) -> list[Any]:
        if not plan.tree:  # the dual path is a tree's rule: not run for this subject
            return []
        c = self.clauses()
        return [plan.entry("H1b vs flat+reranker", plan.kill_pair, c["rerank"].margin, order=3),
                plan.entry("H1b vs single path", plan.single_pair, c["single"].margin, order=4)]


RULE = reg.register(H1b(
    ID, "Dual path", "hypothesis",
    f"dual - best single path (margin {OVER_SINGLE}), dual - flat+reranker ({OVER_RERANK}), "
    f"entity-spanning ({ENTITY}): raw nDCG@10 differences", "difference", go=0.0, nogo=OVER_SINGLE,
    margin=OVER_SINGLE, soft=SOFT, centre=0.0, routing_log=True, controls={"oracle": (GO, SOFT, UNDECIDABLE)},
    component="dual path", params={"over_rerank": OVER_RERANK, "entity": ENTITY}, order=6, short="dual path (H1b)"))


def _clause(c: dict[str, Any] | None, which: str) -> tuple[int, str]:
    """One H1b clause judged on its interval (raw difference vs its margin): (code, words)."""
    rule = reg.get(ID).clauses()[which]  # type: ignore[attr-defined]
    if not c or _num(c.get("delta")) is None:
        return reg.UND, "not run"
    lo, hi = _num(c.get("ci_low")), _num(c.get("ci_high"))
    code = reg.decide_one(rule, lo, hi)
    d = _num(c.get("d"))
    what = {reg.POS: "surely positive", reg.NEG: f"surely short of +{rule.nogo:.2f}",
            reg.MID: f"surely positive but surely short of +{rule.nogo:.2f}",
            reg.UND: f"interval reaches 0 and +{rule.nogo:.2f}"}[code]
    return code, f"{_num(c['delta']):+.3f} ({_ci(lo, hi)}, d = {_f(d, 2)} reported; {what})"


def h1b(vs_single: dict[str, dict[str, Any]], vs_rerank: dict[str, Any] | None,
        entity_over_rerank: float | dict[str, Any] | None,
        why_missing: str = "the single-path ablations were not run", chosen: str | None = None) -> dict:
    """H1b (module docstring). ``vs_single``: ``{single path: {"delta", "p_holm", "ci_low", "ci_high", "d",
    "n"}}``; ``vs_rerank`` the same against flat + reranker; ``entity_over_rerank`` the same on entity-spanning
    queries (a bare float has no interval and cannot decide). ``chosen``: the single path the dev split chose
    (:mod:`devselect`): the dual path is then judged against it alone, and the vs-each-path results stay as
    supporting evidence."""
    rule = reg.get(ID)
    cl = rule.clauses()  # type: ignore[attr-defined]
    over_single, over_rerank, entity = cl["single"].nogo, cl["rerank"].nogo, cl["entity"].nogo
    crit = (f"dual - each single path, dual - flat+reranker, entity-spanning dual - flat+reranker (raw nDCG@10): "
            f"every {pct()} CI > 0 go; vs a single path CI wholly < +{over_single}: no-go; a CI wholly below "
            f"+{over_rerank} / +{entity}: soft no-go (Cohen's d reported)")
    ev: dict[str, Any] = {}
    for name, c in vs_single.items():
        ev[f"dual - {name}"] = _num(c.get("delta"))
        ev[f"Holm p (vs {name})"] = _num(c.get("p_holm"))
        ev[f"Cohen's d (vs {name})"] = _num(c.get("d"))
    vr = vs_rerank or {}
    ent = entity_over_rerank if isinstance(entity_over_rerank, dict) else \
        ({"delta": entity_over_rerank} if entity_over_rerank is not None else None)
    e = _num((ent or {}).get("delta"))
    ev.update({"dual - flat+reranker": _num(vr.get("delta")), "Holm p (vs flat+reranker)": _num(vr.get("p_holm")),
               "entity-spanning: dual - flat+reranker": e})
    singles = {n: c for n, c in vs_single.items() if _num(c.get("delta")) is not None}
    if not singles:
        return hypothesis(ID, rule.name, crit, NOT_RUN, f"not run: {why_missing}", ev, component=rule.component)
    basis = ""
    if chosen in singles:  # dev chose the single path: one comparison on test
        ev["single path chosen on dev"] = chosen
        ev["vs each single path (Holm, supporting)"] = "; ".join(
            f"{n}: {_num(c.get('delta')):+.3f} ({_p(_num(c.get('p_holm')))})" for n, c in singles.items())
        singles = {chosen: singles[chosen]}
        basis = f"vs {chosen} (chosen on dev; one comparison): "
    closest = min(singles, key=lambda n: singles[n]["delta"])  # shown as the row's interval
    c = singles[closest]
    kw = dict(n=c.get("n"), interval=(c.get("ci_low"), c.get("ci_high")),
              interval_kind=f"{ci_method(c.get('ci_method'))} {pct()} (dual - {closest})", component=rule.component)
    got = {n: _clause(sc, "single") for n, sc in singles.items()}
    g2 = _clause(vr, "rerank")
    g3 = _clause(ent, "entity")
    firsts = (basis + got[chosen][1]) if basis else "; ".join(f"vs {n}: {t}" for n, (_, t) in got.items())
    text = firsts + f"; vs flat + reranker: {g2[1]}; entity-spanning: {g3[1] if e is not None else 'not run'}"
    worse = [n for n, (k, _) in got.items() if k == reg.NEG]
    if worse:
        ev["decided_by"] = ", ".join(f"vs {n}" for n in worse)
        return hypothesis(ID, rule.name, crit, NOGO, f"decided by {ev['decided_by']} (the dual path surely "
                          f"short of +{over_single} over it): " + text, ev, **kw)
    if e is None and all(k == reg.POS for k, _ in got.values()):
        return hypothesis(ID, rule.name, crit, NOT_RUN, "not run: no entity-spanning queries (the design's third "
                          f"clause); vs {closest}: {got[closest][1]}", ev, **kw)
    named = [(f"vs {n}", k) for n, (k, _) in got.items()] + [("vs flat + reranker", g2[0]), ("entity-spanning", g3[0])]
    codes = [k for _, k in named]
    if all(k == reg.POS for k in codes):
        ev["decided_by"] = "every clause"
        return hypothesis(ID, rule.name, crit, GO, "decided by every clause: the dual path pays: " + text, ev, **kw)
    if any(k in (reg.NEG, reg.MID) for k in codes):
        ev["decided_by"] = ", ".join(w for w, k in named if k in (reg.NEG, reg.MID))
        return hypothesis(ID, rule.name, crit, SOFT, f"decided by {ev['decided_by']}: a clause surely misses "
                          "its margin: " + text, ev, **kw)
    if _num(c.get("world_sd")) and c.get("n_worlds"):  # an interval over worlds: sized in worlds
        need, und = reg.undecided_worlds(cl["single"], c.get("n"), _num(c["world_sd"]), int(c["n_worlds"]))
    else:
        need = cl["single"].n_needed(_num(c.get("sd")) or reg.sd_from(_num(c.get("ci_low")), _num(c.get("ci_high")),
                                                                      c.get("n")))
        und = reg.undecided(c.get("n"), need)
    return hypothesis(ID, rule.name, crit, UNDECIDABLE, f"{reg.text_undecidable(c.get('n'), need)}: " + text,
                      ev, **kw, undecided=und)


def h1b_row(ctx: Any, s: Any) -> dict:
    """H1b of subject ``s``: against each single path (Holm over the single paths), flat + reranker and flat +
    reranker on the entity-spanning queries."""
    from hcrbench.protocol.inputs import ENTITY_CATEGORY, category_qids, subset

    p, m = ctx.p, ctx.metric
    singles = [n for n in (p.beam_only, p.collapsed_only) if n is not None and n in ctx.evaluation.runs]
    vs_single: dict[str, dict] = {}
    if s.scores is not None and singles:
        # none of the single paths is picked on the test split
        from types import SimpleNamespace

        from hcrbench.protocol.inputs import family_metrics
        from hcrbench.protocol.rules import confidence
        from hcrbench.protocol.subject import clustered_interval
        from hcrbench.stats import compare

        for sp in singles:
            ev = SimpleNamespace(metrics=list(ctx.evaluation.metrics), runs={sp: ctx.evaluation.runs[sp],
                                                                            s.name: s.scores})
            comps = compare(ev, sp, family_metrics(ctx.evaluation, ctx.cfg, m), n_resamples=ctx.cfg.n_resamples,
                            seed=ctx.cfg.seed, family=ctx.cfg.family, confidence=confidence())
            row = next(c for c in comps if c.metric == m)
            vs_single[sp] = {"delta": row.delta, "p": row.p, "ci_low": row.ci_low, "ci_high": row.ci_high,
                             "d": row.cohens_d, "n": row.n, "ci_method": row.ci_method}
            # two claims at two thresholds (above 0, short of +0.03): each holds its own tail, which the
            # differences' skew would tilt (sparse gains: a false "short of +0.03"), so the interval is skew-corrected
            vs_single[sp].update(clustered_interval(ctx, s.scores, ctx.evaluation.runs[sp], m, skew=True) or {})
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
            from hcrbench.protocol.rules import mean_ci

            pos = {q: i for i, q in enumerate(b.query_ids)}
            diffs = [float(a.values[m][i]) - float(b.values[m][pos[q]]) for i, q in enumerate(a.query_ids)
                     if q in pos]
            got = mean_ci(diffs)
            if got is not None:
                ent = {"delta": got[0], "ci_low": got[1] if got[3] > 1 else None,
                       "ci_high": got[2] if got[3] > 1 else None, "n": got[3]}
    why = "no beam-only / collapsed-only system in [protocol]" if not singles else "not scored"
    return h1b(vs_single, s.vs_kill, ent, why, (ctx.cache.get("dev_selection") or {}).get("chosen"))
