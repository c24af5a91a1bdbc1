"""The system a rule judges, as the rules see it (a :class:`Subject`), and every rule applied to one.

The real system and each protocol control (:mod:`controls`) are subjects: per-query scores, their comparison
with the kill baseline, per-query sufficiency at 400 tokens, the failure rate on feasible queries and the
routing errors on the easiest single-branch queries. :func:`judge_subject` runs the rules that read a subject,
so the controls are judged by exactly the code that judges the system.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol.inputs import compare_runs, group_suff, members
from hcrbench.protocol.rules import _num, confidence, pct, t_level


@dataclass
class Context:
    """Everything the protocol reads from one experiment's results."""

    cfg: Any
    data: Any
    evaluation: Any
    doc: dict
    tree_docs: dict | None
    out: Path
    stopped: str | None = None
    growth: list[dict] | None = None
    routing: tuple[list[float] | None, list[int] | None, int, str] = (None, None, 0, "not computed")
    routing_where: str = ""
    cache: dict = field(default_factory=dict)

    @property
    def p(self) -> Any:
        return self.cfg.protocol

    @property
    def metric(self) -> str:
        return self.cfg.protocol.metric

    @property
    def sufficiency(self) -> dict | None:
        return self.doc.get("sufficiency")

    @property
    def kind(self) -> str | None:
        return (self.sufficiency or {}).get("headline")

    @property
    def flat(self) -> str:
        """The flat system: chosen on dev (``[protocol] flat = "auto"``, :mod:`hcrbench.protocol.field`) or named."""
        chosen = self.cache.get("flat")
        if chosen:
            return chosen
        return self.p.flat if self.p.flat not in (None, "auto") else self.p.kill_baseline

    @property
    def size(self) -> str:
        return str(self.cfg.dataset.size) if self.cfg.dataset.generate else "as given"

    @property
    def full_size(self) -> bool:
        """The full corpus size: ``[protocol] full_size`` when set; else Meridian ``full``; a dataset that is not
        generated is taken whole (its one size is its full size)."""
        if self.p.full_size is not None:
            return bool(self.p.full_size)
        return self.cfg.dataset.generate != "meridian" or str(self.cfg.dataset.size) == "full"

    def suff(self, name: str) -> dict[str, float] | None:
        key = ("suff", name)
        if key not in self.cache:
            self.cache[key] = group_suff(self.out, members(self.cfg, name, self.evaluation.runs), self.kind)
        return self.cache[key]


@dataclass
class Subject:
    """What the rules read about the system judged (the real one or a control)."""

    name: str
    scores: Any | None  # per-query metric values (query_ids, values), seed-averaged
    vs_kill: dict | None  # the comparison with the kill baseline (rules' plain dict)
    tested_on: str = ""
    suff400: dict[str, float] | None = None
    failure: tuple[float | None, int] = (None, 0)
    routing: tuple[list[float] | None, list[int] | None, int, str] | None = None
    n_seeds: int = 1
    failures: dict | None = None  # delivery's split of the failures (retrieval / delivery / selection), when given


def compare_subject(ctx: Context, name: str, scores: Any) -> dict | None:
    """``scores`` against the kill baseline, alone in the declared family's structure (as eval.json's seed
    comparisons)."""
    kill = ctx.p.kill_baseline
    if scores is None or kill not in ctx.evaluation.runs:
        return None
    return compare_runs(ctx.evaluation, ctx.cfg, ctx.metric, kill, {name: scores}).get(name)


def checkpoint_rows(ctx: Context, s: Subject) -> list[dict]:
    """Checkpoints 2-4 for subject ``s`` (checkpoint 1, tree sanity, reads the real tree only)."""
    from hcrbench.protocol import registry as reg

    return [r.judge(ctx, s) for r in reg.rules("checkpoint") if r.reads_subject]  # type: ignore[misc]


def _group(ctx: Context, name: str) -> list[str]:
    return members(ctx.cfg, name, ctx.evaluation.runs) if getattr(ctx.cfg, "systems", None) is not None else [name]


def _entry(ctx: Context, name: str) -> dict:
    """The sufficiency row of ``name`` (its seed group's first member; a protocol control built from the kill
    baseline's contexts reads the kill baseline's)."""
    systems = (ctx.sufficiency or {}).get("systems") or {}
    for n in [*_group(ctx, name), name, ctx.p.kill_baseline]:
        if isinstance(systems.get(n), dict):
            return systems[n]
    return {}


def delivery_mode(ctx: Context, name: str) -> str | None:
    """``"units"`` or ``"documents"``: what ``name`` hands a reader (eval.json's sufficiency row), None unknown."""
    return _entry(ctx, name).get("delivers")


def feasible_queries(ctx: Context, name: str) -> set[str] | None:
    """The queries budget-feasible at 400 tokens in the units ``name`` delivers (every seed-group member's), or
    None when the sufficiency step did not count them."""
    systems = (ctx.sufficiency or {}).get("systems") or {}
    names = [n for n in _group(ctx, name) if n in systems] or ([name] if name in systems else [])
    sets = [{q for q, v in (systems[n].get("budget_feasible") or {}).items() if v} for n in names
            if isinstance(systems[n].get("budget_feasible"), dict)]
    if not sets:
        row = _entry(ctx, name)
        bf = row.get("budget_feasible")
        return {q for q, v in bf.items() if v} if isinstance(bf, dict) else None
    return set.intersection(*sets)


def one_query_set(ctx: Context, names: list[str], *per_query: dict[str, float] | None
                  ) -> tuple[list[dict[str, float] | None], str]:
    """``per_query`` cut to one query set: the queries budget-feasible at 400 for every one of ``names`` (each in
    its own units), else every query both have (stated): ``([dict, ...], basis)``."""
    sets = [feasible_queries(ctx, n) for n in names]
    if any(x is None for x in sets):
        return list(per_query), "all queries both were judged on (no budget feasibility counted)"
    common = set.intersection(*sets)  # type: ignore[arg-type]
    units = sorted({str(_entry(ctx, n).get("unit_set")) for n in names})
    return ([None if d is None else {q: v for q, v in d.items() if q in common} for d in per_query],
            f"the {len(common)} queries budget-feasible at 400 for {' and '.join(dict.fromkeys(names))} (each in "
            f"its own units: {', '.join(units)})")


def _common(a: dict[str, float] | None, b: dict[str, float] | None) -> dict[str, float] | None:
    if a is None or b is None:
        return a
    return {q: v for q, v in a.items() if q in b}


def interval_kind(c: dict | None, what: str = "the experiment's comparison") -> str:
    """The interval's method as computed (eval.json's ``ci_method``: ``t`` below 300 queries, BCa above)."""
    method = {"t": "paired t", "bca": "paired BCa bootstrap", "percentile": "paired percentile bootstrap"}.get(
        str((c or {}).get("ci_method") or "t"), str((c or {}).get("ci_method")))
    return f"{method} {pct()} ({what})"


def _mean(d: dict[str, float] | None) -> float | None:
    return sum(d.values()) / len(d) if d else None


def passage_failure(ctx: Context, name: str | None = None) -> tuple[float | None, int | None, str | None]:
    """The gate of the sufficiency rules for subject ``name``: the failure rate on feasible queries at 400 of the
    passage-level perfect control in the units ``name`` delivers under its own selection
    (``sufficiency["passage_by_selection"][unit set][selection]``), else the one in those units
    (``sufficiency["passage_controls"][unit set]``), else the one in the context chunks (``sufficiency["passage"]``,
    ``entry["control"] == "passage"``): ``(rate, n, control row)``, or (None, None, None) when the run has none."""
    suff = ctx.sufficiency or {}
    systems = suff.get("systems") or {}
    entry = _entry(ctx, name) if name is not None else {}
    us = entry.get("unit_set")
    own = ((suff.get("passage_by_selection") or {}).get(us) or {}).get(entry.get("selection"))
    cand = [own, (suff.get("passage_controls") or {}).get(us), suff.get("passage"),
            next((k for k, e in systems.items() if isinstance(e, dict) and e.get("control") == "passage"
                  and e.get("unit_set") == us), None),
            next((k for k, e in systems.items() if isinstance(e, dict) and e.get("control") == "passage"), None)]
    row = next((n for n in cand if n in systems), None)
    if row is None:
        return None, None, None
    f = (systems[row] or {}).get("failure_on_feasible") or {}
    return _num(f.get("rate")), f.get("n"), row


def perfect_failure(ctx: Context) -> tuple[float | None, str | None]:
    """The failure rate on feasible queries of the perfect document ranking (``entry["control"] == "perfect"`` in
    eval.json's sufficiency systems, or the one ``sufficiency["perfect"]`` names), or None: reported beside the
    rules, never their gate (:func:`passage_failure` is)."""
    systems = (ctx.sufficiency or {}).get("systems") or {}
    name = (ctx.sufficiency or {}).get("perfect")
    if name not in systems:
        name = next((k for k, e in systems.items() if isinstance(e, dict) and e.get("control") == "perfect"), None)
    if name is None:
        return None, None
    f = (systems[name] or {}).get("failure_on_feasible") or {}
    return _num(f.get("rate")), name


def seed_component(ctx: Context, s: Subject, base: Any) -> dict | None:
    """The tree-seed variance component of the system's mean difference from the kill baseline
    (:func:`stats.seeds.seed_component`: what seeds add beyond the seed-averaged query spread, no residual counted
    twice), with the sd over seeds of each seed's mean difference beside it (None for one seed)."""
    from hcrbench.protocol.operating_inputs import aligned
    from hcrbench.stats.seeds import seed_component as component

    group = members(ctx.cfg, ctx.p.system, ctx.evaluation.runs)
    if len(group) < 2:
        return None
    rows = []
    for name in group:
        a, b = aligned(ctx.evaluation.runs[name], base, ctx.metric)
        if a.size:
            rows.append(a - b)
    if len(rows) < 2 or len({r.size for r in rows}) != 1 or rows[0].size < 2:
        return None
    comp = component(np.vstack(rows))
    means = [float(np.mean(r)) for r in rows]
    return {"k": comp.k, "sd_between_seeds": float(np.std(means, ddof=1)), "seed_means": means,
            "var": comp.var, "ms_seed": comp.ms_seed, "ms_resid": comp.ms_resid, "component": comp}


def query_cluster_ids(ctx: Context, scores: Any, base: Any) -> tuple[list[Any], bool]:
    """``(ids, known)``: the cluster of each query both ``scores`` and ``base`` judged, in ``scores``' order
    (:func:`inputs.cluster_labels`: a query without a cluster label is its own cluster); ``known`` False when no
    query carries one (each query its own cluster: the paired t)."""
    from hcrbench.protocol.inputs import cluster_labels

    pos = {q: i for i, q in enumerate(base.query_ids)}
    return cluster_labels(ctx.data, [q for q in scores.query_ids if q in pos])


def query_worlds(scores: Any, base: Any) -> list[Any] | None:
    """The world of each query both ``scores`` and ``base`` judged (in ``scores``' order) when they come from two
    worlds or more (the kill interval then takes the worlds as its clusters: stats.cluster), else None."""
    from hcrbench.synth.worlds import world_of

    pos = set(base.query_ids)
    worlds = [world_of(str(q)) for q in scores.query_ids if q in pos]
    return worlds if None not in worlds and len(set(worlds)) >= 2 else None


def one_world(scores: Any, base: Any) -> bool:
    """Whether every query both judged comes from one and the same world of a multi-world dataset (its id
    prefixed, ``w03-...``): the interval is then over that world's topics, and the evidence more test worlds add is
    sized in worlds (:func:`registry.undecided_worlds`)."""
    from hcrbench.synth.worlds import world_of

    pos = set(base.query_ids)
    worlds = {world_of(str(q)) for q in scores.query_ids if q in pos}
    return len(worlds) == 1 and None not in worlds


def world_words(cl: Any) -> str:
    """The interval kind's words on the worlds (empty for one world)."""
    return f"; its {cl.n_worlds} worlds as the clusters" if cl.by_world else ""


def clustered_interval(ctx: Context, scores: Any, base: Any, metric: str | None = None, *, skew: bool = False
                       ) -> dict[str, Any] | None:
    """The kill rule's interval (CR2 over the queries' topic clusters, over their worlds when they come from two
    worlds or more) of ``scores - base`` on their common queries, for the other paired-difference
    rules that judge queries (H1b's clauses, the corpus-size rule): ``{"ci_low", "ci_high", "sd", "ci_method"}``
    (``sd``: the per-query sd behind it, its standard error x sqrt(n); where its queries' worlds are known,
    ``n_worlds`` and ``world_sd``, the sd of one world's mean that "needs ~ n" is sized on in worlds:
    :func:`registry.undecided_worlds`); None
    when neither topic clusters nor several worlds are known (the rule's own paired interval stands). ``skew``:
    both ends moved for the differences' skew (:func:`hcrbench.stats.cluster.skew_shift`), for a rule whose two
    claims sit at different thresholds, so that each claim has one tail of its own to hold."""
    from hcrbench.protocol.operating_inputs import aligned
    from hcrbench.stats.cluster import cluster_ci

    a, b = aligned(scores, base, metric or ctx.metric)
    if a.size < 3:
        return None
    ids, known = query_cluster_ids(ctx, scores, base)
    worlds = query_worlds(scores, base)
    if not known and worlds is None:
        return None
    from hcrbench.protocol import registry as reg

    cl = cluster_ci(a - b, None, ids, confidence=confidence(), worlds=worlds, skew=skew)
    w = cl.n_worlds or (1 if one_world(scores, base) else 0)
    sized = {"n_worlds": w, "world_sd": reg.world_sd(cl.se, cl.topic_se, w)} if w >= 1 else {}
    return {"ci_low": cl.low, "ci_high": cl.high, "sd": cl.se * cl.n ** 0.5, **sized,
            "ci_method": f"cluster-robust CR2 t ({cl.n_clusters} clusters, df {cl.df:.1f}{world_words(cl)}"
                         f"{f', skew-corrected by {cl.skew_shift:+.4f}' if skew else ''})"}


def cluster_row(ctx: Context, scores: Any, base: Any) -> Any | None:
    """The cluster-robust interval of the per-query differences when >= 2 clusters of queries are known
    (:func:`inputs.query_clusters`), else None."""
    ids, known = query_cluster_ids(ctx, scores, base)
    if not known:
        return None
    from hcrbench.protocol.operating_inputs import aligned
    from hcrbench.stats.cluster import cluster_ci

    a, b = aligned(scores, base, ctx.metric)
    return cluster_ci(a - b, None, ids, confidence=confidence())


def kill_row(ctx: Context, s: Subject, full_size: bool | None = None, baseline: str | None = None,
             vs: dict | None = None, tested_on: str | None = None) -> dict:
    """The single kill criterion's row: the subject against the kill baseline (or ``baseline``, with ``vs`` its
    comparison, when the kill baseline is no value barrier: protocol/field.py), on the same test either way."""
    base_name = baseline or ctx.p.kill_baseline
    c = (vs if baseline is not None else s.vs_kill) or {}
    # the single pre-specified kill test is a family of its own (never Holm'd with secondary metrics), decided on
    # one path: the CR2 cluster-robust t interval of the per-query differences on Bell-McCaffrey df, each query its
    # own cluster when no clusters are known (where CR2 is exactly the paired t); the tree seeds add their variance
    # component on Welch-Satterthwaite df. The operating table replays exactly this.
    p = c.get("p") if c.get("p") is not None else c.get("p_holm")
    lo, hi, kind = c.get("ci_low"), c.get("ci_high"), interval_kind(c, "the kill test, its own family")
    sd_q = None  # the per-query sd behind the clustered interval (its "needs ~ n" reads it, not the half-width)
    n_worlds = wsd = None  # its test worlds and one world's mean's sd: "needs ~ n" sized in worlds
    df_q = None  # the interval's df ("needs ~ n" in queries is a t on them)
    base = ctx.evaluation.runs.get(base_name)
    if s.scores is not None and base is not None:
        from scipy import stats as sps

        from hcrbench.protocol.operating_inputs import aligned
        from hcrbench.stats.cluster import cluster_ci

        a, b = aligned(s.scores, base, ctx.metric)
        if a.size >= 2:
            ids, known = query_cluster_ids(ctx, s.scores, base)
            cl = cluster_ci(a - b, None, ids, confidence=confidence(), worlds=query_worlds(s.scores, base))
            m0, var_q, df = cl.mean, cl.se ** 2, cl.df
            lo, hi = cl.low, cl.high
            if known:
                kind = f"cluster-robust CR2 t {pct()} ({cl.n_clusters} clusters, Bell-McCaffrey df {cl.df:.1f}, " \
                       f"effective n {cl.effective_n:.1f} of {cl.n}{world_words(cl)}; the kill test, its own family)"
                ctx.cache["kill_clusters"] = {"n_clusters": cl.n_clusters, "effective_n": cl.effective_n,
                                              "design_effect": cl.design_effect, "ci": [cl.low, cl.high],
                                              "df": cl.df, "variance": "CR2", "worlds": cl.n_worlds,
                                              "by_world": cl.by_world}
            else:
                kind = f"cluster-robust CR2 t {pct()} (no clusters known: each of the {cl.n} queries its own cluster, " \
                       f"the paired t on {cl.df:.0f} df{world_words(cl)}; the kill test, its own family)"
            seed = seed_component(ctx, s, base) if s.name == ctx.p.system else None
            if seed is not None:  # tree seeds as a variance component, on Welch-Satterthwaite df
                comp = seed.pop("component")
                lo, hi, df, se = comp.combine(m0, var_q, cl.df, confidence=confidence())
                # the seeds' share of the half-width on the same t: the replays add it in quadrature
                seed["half"] = float(t_level(df)) * comp.var ** 0.5
                seed["df"] = df
                kind += f" with the tree-seed variance component ({comp.var ** 0.5:.4f} sd of the mean over " \
                        f"{seed['k']} seeds; Welch-Satterthwaite df {df:.1f})"
                ctx.cache["kill_seed"] = seed
                var_q = se ** 2
            p = float(2 * sps.t.sf(abs(m0) / var_q ** 0.5, df)) if var_q > 0 else (1.0 if m0 == 0 else 0.0)
            sd_q = (var_q * cl.n) ** 0.5 if var_q > 0 else None
            df_q = df
            if cl.n_worlds >= 1 or one_world(s.scores, base):  # the tree seeds' share, if any, averages over
                from hcrbench.protocol import registry as reg  # worlds as the worlds' own does

                extra = max(var_q - cl.se ** 2, 0.0)
                n_worlds = cl.n_worlds or 1
                wsd = reg.world_sd((cl.se ** 2 + extra) ** 0.5, (cl.topic_se ** 2 + extra) ** 0.5, n_worlds)
    row = hy.single_kill(c.get("delta"), p, lo, hi, c.get("d"), sd=sd_q, worlds=n_worlds, world_sd=wsd, df=df_q,
                         n=c.get("n"), size=ctx.size, full_size=ctx.full_size if full_size is None else full_size,
                         baseline=base_name, metric=ctx.metric, tested_on=tested_on or s.tested_on,
                         system=ctx.p.system, interval_kind=kind)
    if ctx.cache.get("kill_clusters") and s.name == ctx.p.system:
        row["evidence"]["clusters"] = ctx.cache["kill_clusters"]
        row["evidence"]["effective_n"] = ctx.cache["kill_clusters"]["effective_n"]
    if s.n_seeds > 1 and s.name == ctx.p.system:
        row["evidence"]["tree_seeds"] = ctx.cache.get("kill_seed") or {"k": s.n_seeds}
    return row


def judge_subject(ctx: Context, s: Subject, rules: set[str], full_size: bool | None = None) -> dict[str, dict]:
    """``{rule id: row}`` for each rule of ``rules`` that reads a subject, in the registry's order."""
    from hcrbench.protocol import registry as reg

    return {r.id: r.judge(ctx, s, full_size=full_size) for r in reg.rules()  # type: ignore[misc]
            if r.id in rules and r.reads_subject}


def failure_of(ctx: Context, names: list[str]) -> tuple[float | None, int]:
    frs = [(((ctx.sufficiency or {}).get("systems") or {}).get(n) or {}).get("failure_on_feasible") for n in names]
    if not frs or not all(frs):
        return None, 0
    rates = [_num(f.get("rate")) for f in frs]
    if any(r is None for r in rates):
        return None, 0
    return sum(rates) / len(rates), int(frs[0].get("n") or 0)  # type: ignore[arg-type]


def retrieval_failures(ctx: Context, names: list[str]) -> tuple[float, int, dict] | None:
    """The retriever's own failure rate, ``failures["retrieval"] / failures["n_feasible"]`` (seed mean), when
    context delivery reports the failures apart (eval.json ``sufficiency.systems.<name>.failures``), with the
    delivery + selection misses as a "context selection" finding; None when any member lacks it."""
    systems = (ctx.sufficiency or {}).get("systems") or {}
    fs = [(systems.get(n) or {}).get("failures") for n in names]
    if not fs or not all(isinstance(f, dict) and _num(f.get("n_feasible")) and _num(f.get("retrieval")) is not None
                         for f in fs):
        return None
    rates = [float(f["retrieval"]) / float(f["n_feasible"]) for f in fs]
    n = int(fs[0]["n_feasible"])
    deliv = sum(float(_num(f.get("delivery")) or 0.0) for f in fs) / len(fs)
    sel = sum(float(_num(f.get("selection")) or 0.0) for f in fs) / len(fs)
    ret = sum(float(f["retrieval"]) for f in fs) / len(fs)
    finding = (f"context selection: {deliv + sel:.3g} of {n} feasible queries missed after retrieval found the "
               f"evidence ({deliv:.3g} in delivery, {sel:.3g} in selection)")
    anatomy = (f"anatomy of the misses on {n} feasible queries: retrieval {ret:.3g}, delivery {deliv:.3g}, "
               f"selection {sel:.3g}")
    totals = [(float(_num(f.get("insufficient")) or 0.0)) / float(f["n_feasible"]) for f in fs
              if _num(f.get("insufficient")) is not None]
    total = sum(totals) / len(totals) if len(totals) == len(fs) else None
    return sum(rates) / len(rates), n, {"finding": finding, "anatomy": anatomy, "delivery": deliv,
                                       "selection": sel, "retrieval": ret, "total": total,
                                       "by_category": fs[0].get("by_category")}


from hcrbench.protocol.ruleset.failure_rate import failure_row  # noqa: E402, F401  (re-exported)
from hcrbench.protocol.ruleset.h1a import h1a_row  # noqa: E402, F401  (re-exported)
from hcrbench.protocol.ruleset.h1b import h1b_row  # noqa: E402, F401  (re-exported)
from hcrbench.protocol.ruleset.vs_kill_baseline import BETTING_KIND, margin_interval  # noqa: E402, F401
