"""H1c, routing explains quality: Pearson r (routing accuracy, nDCG@10) across >= 3 conditions of distinct
routing accuracy, with its Fisher interval: wholly >= 0.7 go; wholly < 0.3 no-go (routing does not explain
quality); wholly between soft no-go; else not decidable at n conditions. Cross-links (>= 15% on entity-spanning
queries) and the observed accuracy vs the (1 - eps)^d model are reported beside it: without an interval they
decide nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import (
    GO,
    NOGO,
    NOT_RUN,
    SOFT,
    UNDECIDABLE,
    _num,
    fisher_ci,
    hypothesis,
    pct,
    pearson,
)

ID = "H1c"


class H1c(reg.Rule):
    def judge_run(self, ctx: Any, s: Any) -> dict[str, Any]:
        return h1c_row(ctx)

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.operating import Inputs

        return Inputs(n=int(row["n"])) if row.get("n") else None

    def replay_inputs_from_out(self, folder: Any) -> Any | None:
        return folder.rate_inputs(self.id, scaled=False)  # conditions: a larger suite adds none


RULE = reg.register(H1c(
    ID, "Routing explains quality", "hypothesis",
    "Pearson r(routing accuracy, nDCG@10) over conditions of distinct accuracy (Fisher-z 95%)", "correlation",
    go=0.7, nogo=0.3, margin=0.2, soft=SOFT, centre=0.5, routing_log=True, component="routing",
    params={"links_gain": 0.15, "model_tol": 0.10, "min_conditions": 3}, order=7,
    short="routing explains quality (H1c)", reads_subject=False))


def distinct_conditions(names: Sequence[str], accuracy: Sequence[float], ndcg: Sequence[float], digits: int = 3
                        ) -> tuple[list[str], list[float], list[float]]:
    """Conditions with distinct routing accuracy (rounded to ``digits``): conditions sharing one accuracy (one
    tree, the same routing) are one point, their nDCG averaged, so r measures only what routing can explain."""
    groups: dict[float, list[int]] = {}
    for i, a in enumerate(accuracy):
        if _num(a) is not None and _num(ndcg[i]) is not None:
            groups.setdefault(round(float(a), digits), []).append(i)
    keys = sorted(groups)
    return ([" = ".join(names[i] for i in groups[k]) for k in keys], [float(k) for k in keys],
            [sum(float(ndcg[i]) for i in groups[k]) / len(groups[k]) for k in keys])


def h1c(accuracy: Sequence[float], ndcg: Sequence[float], links_gain: float | None = None,
        observed: float | None = None, predicted: float | None = None, names: Sequence[str] | None = None,
        links_basis: str | None = None) -> dict:
    """H1c on the conditions' routing accuracy and nDCG@10 (module docstring)."""
    rule = reg.get(ID)
    go_r, kill_r = rule.go, rule.nogo
    links_min, model_tol, min_cond = rule.params["links_gain"], rule.params["model_tol"], \
        int(rule.params["min_conditions"])
    crit = (f"Pearson r(routing accuracy, nDCG@10) across conditions of distinct accuracy: Fisher CI wholly >= "
            f"{go_r} go, wholly < {kill_r} no-go, wholly between soft no-go; reported: cross-links >= "
            f"+{links_min:.0%} sufficiency@400 on entity-spanning; "
            f"observed accuracy not > {model_tol:.0%} below (1 - eps)^d")
    names = list(names) if names is not None else [f"c{i}" for i in range(len(accuracy))]
    conds, acc, nd = distinct_conditions(names, accuracy, ndcg)
    r = pearson(acc, nd) if len(acc) >= min_cond else None
    iv = fisher_ci(r, len(acc)) if r is not None else None
    o, pr = _num(observed), _num(predicted)
    shortfall = (pr - o) / pr if o is not None and pr is not None and pr > 0 else None
    lg = _num(links_gain)
    ev = {"conditions": len(accuracy), "distinct_conditions": len(acc), "condition_groups": "; ".join(conds),
          "pearson_r": r, "links_gain_entity_spanning": lg, "observed_accuracy": o, "predicted_(1-eps)^d": pr,
          "model_shortfall": shortfall}
    extras = []
    basis = links_basis or "relative nDCG@10 on entity-spanning (answer accuracy is not measured)"
    ev["links_gain_basis"] = basis
    if lg is not None:
        extras.append(f"cross-links {lg:+.0%} {basis} ({'>=' if lg >= links_min else '<'} {links_min:.0%})")
    elif links_basis:
        extras.append(f"cross-links: {basis}")
    if shortfall is not None:
        extras.append(f"observed accuracy {o:.3f} vs (1 - eps)^d {pr:.3f} ("
                      + ("on the model" if abs(shortfall) < 0.005 else f"{shortfall:.0%} below" if shortfall > 0
                         else f"{-shortfall:.0%} above: a positive finding")
                      + ")")
    tail = ("; " + "; ".join(extras)) if extras else ""
    kw = dict(n=len(acc), interval=iv, interval_kind=f"Fisher-z {pct()} of r", component=rule.component)
    name = rule.name
    if r is None:
        why = (f"{len(acc)} condition(s) of distinct routing accuracy ({len(accuracy)} logged); the correlation "
               f"needs >= {min_cond}" if len(acc) < min_cond else "no variance across conditions")
        return hypothesis(ID, name, crit, NOT_RUN, f"not run: {why}{tail}", ev, **kw)
    ivs = f"Fisher {pct()} [{iv[0]:+.2f}, {iv[1]:+.2f}]" if iv else "no interval with 3 points"
    words = f"r = {r:.2f} over {len(acc)} conditions of distinct routing accuracy ({ivs})"
    code = reg.decide_one(rule, *(iv or (None, None)))
    if code == reg.NEG:
        return hypothesis(ID, name, crit, NOGO, f"{words}: routing accuracy does not explain quality{tail}", ev,
                          **kw)
    if code == reg.MID:
        return hypothesis(ID, name, crit, SOFT, f"{words}: surely between {kill_r} and {go_r}{tail}", ev, **kw)
    if code == reg.UND:
        need = rule.n_needed()
        return hypothesis(ID, name, crit, UNDECIDABLE, f"{reg.text_undecidable(len(acc), need, 'conditions')}: "
                          f"{words}{tail}", ev, **kw, undecided=reg.undecided(len(acc), need, "conditions"))
    # cross-links and the (1 - eps)^d model are point figures without an interval: findings, not deciders
    return hypothesis(ID, name, crit, GO, f"{words}{tail}" + (" (cross-links and the model are reported, not "
                      "decided: no interval)" if extras else ""), ev, **kw)


def h1c_row(ctx: Any) -> dict:
    """H1c over the run's routing conditions (every system with a routing log but the baselines)."""
    from hcrbench.protocol import field as fld
    from hcrbench.protocol.inputs import ENTITY_CATEGORY, category_qids, mean_of, subset_mean

    m, p = ctx.metric, ctx.p
    docs = ctx.tree_docs or {}
    skip = {p.kill_baseline, ctx.flat, *fld.no_tree(ctx.cfg)}  # baselines (a flat stand-in may log routing) are
    # not routing conditions
    conds = [n for n, t in docs.items() if n in ctx.evaluation.runs and n not in skip
             and _num((t.get("routing") or {}).get("accuracy")) is not None]
    acc = [float(docs[n]["routing"]["accuracy"]) for n in conds]
    nd = [mean_of(ctx.evaluation, n, m) or 0.0 for n in conds]
    links, basis = None, None
    ents = category_qids(ctx.data, ENTITY_CATEGORY)
    if p.no_links is not None and ents:
        # the design's cross-link effect is on answer accuracy: its proxy without an LLM is the exact evidence-
        # coverage sufficiency at 400 tokens (hcr vs hcr-no-links, entity-spanning queries); nDCG@10 only when
        # the config sets no budgets
        sa, sb = ctx.suff(p.system), ctx.suff(p.no_links)
        qs = sorted(q for q in ents if sa and sb and q in sa and q in sb)
        if qs:
            a, b = sum(sa[q] for q in qs) / len(qs), sum(sb[q] for q in qs) / len(qs)
            basis = f"relative sufficiency@400 (exact evidence coverage, the answer-accuracy proxy; {a:.3f} vs " \
                    f"{b:.3f} on {len(qs)} entity-spanning queries)"
        else:
            a, b = subset_mean(ctx.evaluation, p.system, m, ents), subset_mean(ctx.evaluation, p.no_links, m, ents)
            basis = f"relative {m} on entity-spanning (no sufficiency@400: answer accuracy not measured)"
        links = (a - b) / b if a is not None and b is not None and b > 0 else None
        if links is None and a is not None and b is not None:
            basis += ": not a ratio (the no-links figure is 0)"
    rt = (docs.get(p.system) or {}).get("routing") or {}
    row = h1c(acc, nd, links, rt.get("accuracy"), rt.get("predicted_power"), names=conds, links_basis=basis)
    row["evidence"]["condition_names"] = ", ".join(conds)
    return row
