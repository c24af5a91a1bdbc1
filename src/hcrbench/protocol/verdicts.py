"""The protocol step: the design's fail-fast checkpoints and hypothesis verdicts, from an experiment's results.

After scoring, the runner (:func:`protocol_steps`) gates the runs (``[gate]``: ``gate.json``, :mod:`gate_step`),
computes tree metrics for systems with a routing log (``tree_metrics.json``, :mod:`tree_step`) and, with a
``[protocol]`` table, judges them (``verdicts.json``): four checkpoints in the design's order — tree sanity,
routing on the easiest single-branch queries, HCR vs flat + reranker, token efficiency — then H1a, H1b, H1c, the
failure rate on budget-feasible queries, the corpus-size criterion and the single kill criterion. The rules are
pure functions in :mod:`hypotheses`; this module only gathers their inputs, and a missing condition gives
"not run" with its reason. Every paired test uses the experiment's one Holm family (``family``), stated in the
output; a system in a ``seed_group`` is reported as mean ± sd over its seeds and tested on its seed-averaged
per-query scores. ``--fail-fast`` (:class:`FailFast`) evaluates the checkpoints while systems run and stops at the
first kill.

Tune / test discipline: the protocol has no tuned parameter (every setting is fixed in the config before the test
split is read); the split scored, whether it is locked and how often it was scored are recorded in the output.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from hcrbench.data.atomic import atomic_write_text
from hcrbench.experiment.dataset import ExperimentData
from hcrbench.experiment.tree_step import log_rel, system_tree_metrics
from hcrbench.protocol import rules as hy

VERDICTS_FILE = "verdicts.json"
SCHEMA = "hcrbench.verdicts/1"
ENTITY_CATEGORY = "entity_spanning"
MIN_EASY = 5  # easiest single-branch queries the routing checkpoint needs


# ------------------------------------------------------------------------------------------------ inputs


def _mean(evaluation: Any, name: str | None, metric: str) -> float | None:
    if name is None or name not in evaluation.runs:
        return None
    return hy._num(np.mean(np.asarray(evaluation.runs[name].values[metric], dtype=np.float64)))


def _subset_mean(evaluation: Any, name: str, metric: str, qids: set[str]) -> float | None:
    r = evaluation.runs.get(name)
    if r is None:
        return None
    vals = [float(v) for q, v in zip(r.query_ids, r.values[metric]) if q in qids]
    return float(np.mean(vals)) if vals else None


class Comparisons:
    """Paired comparisons of runs against one baseline, in the experiment's declared Holm family, memoised: the
    family of ``vs(x, base)`` is the config's: its metric set for that system (``family="run"``, as eval.json) or every
    scored system on the metric (``family="metric"``)."""

    def __init__(self, evaluation: Any, cfg: Any, metric: str) -> None:
        self.evaluation, self.cfg, self.metric = evaluation, cfg, metric
        self._by_base: dict[str, dict[str, Any]] = {}

    def vs(self, run: str | None, base: str | None) -> Any:
        from hcrbench.stats import compare

        ev = self.evaluation
        if run is None or base is None or run not in ev.runs or base not in ev.runs or run == base:
            return None
        if base not in self._by_base:
            comps = compare(ev, base, self._family_metrics(), n_resamples=self.cfg.n_resamples, seed=self.cfg.seed,
                            family=self.cfg.family)
            self._by_base[base] = {c.run: c for c in comps if c.metric == self.metric}
        return self._by_base[base].get(run)

    def _family_metrics(self) -> list[str]:
        """The metrics compared together: the experiment's metric set under ``family="run"`` (as in eval.json),
        else the one metric (its family then spans the systems)."""
        if self.cfg.family != "run":
            return [self.metric]
        names = [m for m in self.evaluation.metrics if m != self.metric]
        return [self.metric, *names]

    def pair(self, run: str | None, base: str | None) -> Any:
        """``run`` vs ``base`` alone (a family of one): for the ablation contrasts of H1b."""
        from hcrbench.stats import compare

        ev = self.evaluation
        if run is None or base is None or run not in ev.runs or base not in ev.runs or run == base:
            return None
        ms = self._family_metrics()
        sub = SimpleNamespace(metrics=list(ev.metrics), runs={base: ev.runs[base], run: ev.runs[run]})
        return next(c for c in compare(sub, base, ms, n_resamples=self.cfg.n_resamples, seed=self.cfg.seed,
                                       family=self.cfg.family) if c.metric == self.metric)


def seed_group_of(cfg: Any, name: str) -> list[Any]:
    """The systems of ``name``'s seed group (itself alone when it has none)."""
    me = next((s for s in cfg.systems if s.name == name), None)
    if me is None or not me.seed_group:
        return [me] if me is not None else []
    return [s for s in cfg.systems if s.seed_group == me.seed_group]


def members(cfg: Any, name: str, present: Any) -> list[str]:
    """The scored systems of ``name``'s seed group (``[name]`` without a group): a stochastic system's figures
    are the mean over its seeds."""
    return [s.name for s in seed_group_of(cfg, name) if s.name in present] or [name]


def _seed_mean(values: list[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return float(np.mean(got)) if got and len(got) == len(values) else None


def _suff(sufficiency: dict | None, system: str | None, budget: int) -> float | None:
    if not sufficiency or system is None or not sufficiency.get("headline"):
        return None
    try:
        return hy._num(sufficiency["systems"][system]["rates"][str(budget)][sufficiency["headline"]]["rate"])
    except KeyError:
        return None


def single_target_queries(data: ExperimentData, rel_threshold: int = 1, min_queries: int = MIN_EASY
                          ) -> tuple[dict[str, dict[str, int]], str]:
    """The easiest single-branch queries: those with one top-graded relevant document (their target, the one
    branch routing must find), of difficulty ``easy`` — widened to ``medium`` when fewer than ``min_queries`` are
    easy (queries without a difficulty all count). Returns ``({query: {target: grade}}, tiers used)``."""
    targets: dict[str, tuple[str, int]] = {}
    for q in data.queries.query_ids:
        if q not in data.qrels:
            continue
        judged = {d: g for d, g in data.qrels[q].items() if g >= rel_threshold}
        if not judged:
            continue
        top = max(judged.values())
        best = [d for d, g in judged.items() if g == top]
        if len(best) == 1:
            targets[q] = (best[0], top)
    tiers: list[str] = []
    chosen: dict[str, dict[str, int]] = {}
    for tier in ("easy", "medium"):
        if tiers and len(chosen) >= min_queries:
            break
        tiers.append(tier)
        for q, (d, g) in targets.items():
            if data.queries.meta(q).get("difficulty", tier) == tier:
                chosen[q] = {d: g}
    return chosen, "+".join(tiers)


def easy_single_branch(out: Path, system: str, data: ExperimentData, rel_threshold: int = 1
                       ) -> tuple[list[float] | None, int, str]:
    """Per-level eps (any correct node in the beam) on the easiest single-branch queries, a node being correct
    when it holds a chunk of the query's one target document. Returns (eps per level, n queries, why when none)."""
    from hcrbench.data.tree import read_routing_log, read_tree
    from hcrbench.metrics.tree import routing_errors
    from hcrbench.metrics.tree_files import tree_path_for

    log = out / log_rel(system)
    if not log.is_file() or not tree_path_for(log).is_file():
        return None, 0, f"{system} wrote no routing log"
    qrels, tiers = single_target_queries(data, rel_threshold)
    records = [r for r in read_routing_log(log) if r.query_id in qrels and r.levels]
    if len(records) < MIN_EASY:
        return None, len(records), (f"{len(records)} single-target {tiers} queries with routing levels; "
                                    f"the checkpoint needs >= {MIN_EASY}")
    err = routing_errors(read_tree(tree_path_for(log)), records, qrels, rel_threshold)
    return [float(e) for e in err.eps_any], err.n_queries, ""


# ------------------------------------------------------------------------------------------------ rules


def checkpoints(cfg: Any, data: ExperimentData, evaluation: Any, sufficiency: dict | None,
                tree_docs: dict | None, out: Path, stopped: str | None = None) -> list[dict[str, Any]]:
    """The four checkpoints in the design's order; after a kill under ``--fail-fast`` the rest are "not run"."""
    p = cfg.protocol
    m = p.metric
    sysname, kill = p.system, p.kill_baseline
    rows: list[dict[str, Any]] = []
    tdoc = (tree_docs or {}).get(sysname)
    sd = (tdoc or {}).get("tree", {}).get("sibling_distinctiveness", {}).get("mean") if tdoc else None
    rows.append(hy.tree_sanity(sd, f"{sysname} has no tree metrics" if tdoc is None else
                               "the tree file has no routing vectors"))
    if sysname in evaluation.runs:
        eps, n, why = easy_single_branch(out, sysname, data, cfg.rel_threshold)
    else:
        eps, n, why = None, 0, f"{sysname} was not run"
    rows.append(hy.easy_routing(eps, n, why))
    group = members(cfg, sysname, evaluation.runs)
    a = _seed_mean([_mean(evaluation, n, m) for n in group])
    b = _mean(evaluation, kill, m)
    rows.append(hy.kill_baseline_margin(None if a is None or b is None else a - b, kill, m,
                                        f"{sysname if a is None else kill} was not run"))
    flat = p.flat or kill
    rows.append(hy.token_efficiency(_seed_mean([_suff(sufficiency, n, 400) for n in group]),
                                    _suff(sufficiency, flat, 400), flat,
                                    "the config sets no 400-token budget" if not sufficiency else
                                    f"{sysname} or {flat} has no sufficiency at 400 tokens"))
    if len(group) > 1:
        for r in rows[2:]:
            if r["status"] != hy.NOT_RUN:
                r["text"] += f" (HCR: mean over {len(group)} seeds)"
    killed = False
    for r in rows:  # --fail-fast: nothing after the first kill counts
        if killed and stopped is not None:
            r.update(status=hy.NOT_RUN, value=None, text="not run: --fail-fast stopped at an earlier checkpoint")
        killed = killed or r["status"] == hy.KILL
    return rows


def _entity_qids(data: ExperimentData) -> set[str]:
    return {q for q in data.queries.query_ids if data.queries.meta(q).get("category") == ENTITY_CATEGORY}


def hypotheses(cfg: Any, data: ExperimentData, evaluation: Any, doc: dict, sufficiency: dict | None,
               tree_docs: dict | None, growth: list[dict] | None = None) -> list[dict[str, Any]]:
    """H1a, H1b, H1c, failure rate, corpus size, single kill criterion (see :mod:`hypotheses`)."""
    p = cfg.protocol
    m = p.metric
    sysname, kill, flat = p.system, p.kill_baseline, p.flat or p.kill_baseline
    comps = Comparisons(evaluation, cfg, m)
    out: list[dict[str, Any]] = []
    no_budget = "the config sets no budgets (sufficiency@B)" if not sufficiency else \
        f"{sysname} or {kill} has no sufficiency at 400 tokens"
    group = members(cfg, sysname, evaluation.runs)
    out.append(hy.h1a(_seed_mean([_suff(sufficiency, n, 400) for n in group]), _suff(sufficiency, kill, 400),
                      _suff(sufficiency, flat, 600), no_budget))
    # H1b: dual path (the system) vs the best single path and vs the kill baseline
    singles = {n: _mean(evaluation, n, m) for n in (p.beam_only, p.collapsed_only) if n is not None}
    singles = {n: v for n, v in singles.items() if v is not None}
    best = max(singles, key=lambda n: singles[n]) if singles else None
    c1, c2 = comps.pair(sysname, best), comps.vs(sysname, kill)
    ents = _entity_qids(data)
    es_a, es_b = _subset_mean(evaluation, sysname, m, ents), _subset_mean(evaluation, kill, m, ents)
    out.append(hy.h1b(c1.delta if c1 else None, c1.p if c1 else None, c1.cohens_d if c1 else None,
                      c2.delta if c2 else None, c2.p_holm if c2 else None, c2.cohens_d if c2 else None,
                      None if es_a is None or es_b is None else es_a - es_b,
                      "no beam-only / collapsed-only system in [protocol]" if not singles else "not scored"))
    if best is not None:
        out[-1]["evidence"]["best single path"] = best
    # H1c: routing accuracy vs nDCG@10 across the conditions that logged routing
    conds = [n for n, t in (tree_docs or {}).items() if n in evaluation.runs
             and hy._num(t.get("routing", {}).get("accuracy")) is not None]
    acc = [float(tree_docs[n]["routing"]["accuracy"]) for n in conds]  # type: ignore[index]
    nd = [_mean(evaluation, n, m) or 0.0 for n in conds]
    links = None
    if p.no_links is not None and ents:
        a, b = _subset_mean(evaluation, sysname, m, ents), _subset_mean(evaluation, p.no_links, m, ents)
        links = (a - b) / b if a is not None and b is not None and b > 0 else None
    rt = ((tree_docs or {}).get(sysname) or {}).get("routing", {})
    out.append(hy.h1c(acc, nd, links, rt.get("accuracy"), rt.get("predicted_power")))
    out[-1]["evidence"]["condition_names"] = ", ".join(conds)
    # failure rate on budget-feasible queries (HCR at the reference budget)
    frs = [((sufficiency or {}).get("systems", {}).get(n) or {}).get("failure_on_feasible") for n in group]
    fr = {"rate": _seed_mean([f["rate"] for f in frs]), "n": frs[0]["n"]} if all(frs) else None
    out.append(hy.failure_rate(fr["rate"] if fr else None, fr["n"] if fr else 0, sysname,
                               "no budgets, or no evidence.jsonl with budget_feasible flags" if not fr else ""))
    if len(group) > 1:
        for h in (out[0], out[-1]):  # H1a and the failure rate: seed means
            if h["verdict"] != hy.NOT_RUN:
                h["text"] += f" (HCR: mean over {len(group)} seeds)"
    out.append(hy.corpus_size(growth))
    out.append(single_kill_from(cfg, data, evaluation, doc, comps))
    return out


def single_kill_from(cfg: Any, data: ExperimentData, evaluation: Any, doc: dict, comps: Comparisons) -> dict:
    """The single kill criterion on the seed-averaged scores when the system has seeds, else on its one run."""
    p = cfg.protocol
    m, sysname, kill = p.metric, p.system, p.kill_baseline
    size = str(cfg.dataset.size) if cfg.dataset.generate else "as given"
    full = p.full_size if p.full_size is not None else (cfg.dataset.generate == "meridian"
                                                        and str(cfg.dataset.size) == "full")
    group = next((s.seed_group for s in cfg.systems if s.name == sysname), None)
    row = None
    if group and kill == doc.get("baseline_name", kill):
        row = next((c for c in doc.get("seed_comparisons", []) if c["run"] == f"{group} (seed mean)"
                    and c["metric"] == m and c["baseline"] == kill), None)
    if row is not None:
        res = hy.single_kill(row["delta"], row["p_holm"], row["cohens_d"], size=size, full_size=full,
                             baseline=kill, metric=m)
        res["evidence"].update(ci_low=row["ci_low"], ci_high=row["ci_high"],
                               tested_on=f"{group}: seed-averaged per-query scores")
        return res
    c = comps.vs(sysname, kill)
    res = hy.single_kill(c.delta if c else None, c.p_holm if c else None, c.cohens_d if c else None, size=size,
                         full_size=full, baseline=kill, metric=m)
    if c is not None:
        res["evidence"].update(ci_low=c.ci_low, ci_high=c.ci_high, tested_on=f"{sysname}: one run")
    return res


def bottom_line(v: dict[str, Any]) -> str:
    """One plain sentence: the kill comparison, then the overall verdict and what decided it."""
    kill = next((h for h in v["hypotheses"] if h["id"] == "kill"), None)
    head = kill["text"].removesuffix(": kill") if kill and kill["verdict"] != hy.NOT_RUN else \
        f"{v['system']} vs {v['kill_baseline']}: not compared"
    deciding = [f"checkpoint {c['name'].lower()}" for c in v["checkpoints"] if c["status"] == hy.KILL] + \
        [f"{h['id']} {h['name'].lower()}" if h["id"].startswith("H") else h["name"].lower()
         for h in v["hypotheses"] if h["verdict"] == v["overall"] and h["id"] != "kill"]
    if v["overall"] == hy.INCONCLUSIVE or not deciding:
        return f"{head}: {v['overall']}"
    return f"{head}; overall {v['overall']}, decided by: {', '.join(deciding[:3])}" \
           f"{', ...' if len(deciding) > 3 else ''}"


def judge(cfg: Any, data: ExperimentData, evaluation: Any, doc: dict, tree_docs: dict | None, out: Path, *,
          growth: list[dict] | None = None, stopped: str | None = None) -> dict[str, Any]:
    """The ``verdicts.json`` document (schema ``hcrbench.verdicts/1``) for this experiment's results."""
    from hcrbench.data import splitlock
    from hcrbench.stats.compare import family_text

    p = cfg.protocol
    locked = bool(cfg.dataset.locked or splitlock.is_locked(data.key))
    sufficiency = doc.get("sufficiency")
    cps = checkpoints(cfg, data, evaluation, sufficiency, tree_docs, out, stopped)
    hs = hypotheses(cfg, data, evaluation, doc, sufficiency, tree_docs, growth)
    members = [s for s in seed_group_of(cfg, p.system) if s.name in evaluation.runs]
    seeds = sorted({cfg.seed if s.seed is None else s.seed for s in members})
    agg = None
    group = members[0].seed_group if members and members[0].seed_group else None
    if group and group in doc.get("seed_aggregates", {}):
        a = doc["seed_aggregates"][group].get(p.metric)
        if a:
            agg = {"mean": a.get("mean"), "sd": a.get("sd"), "n_seeds": a.get("n_seeds"), "members": a.get("members")}
    v: dict[str, Any] = {
        "schema": SCHEMA, "overall": hy.overall(cps, hs), "bottom_line": "",
        "system": p.system, "kill_baseline": p.kill_baseline, "flat": p.flat or p.kill_baseline, "metric": p.metric,
        "family": family_text(cfg.family, p.kill_baseline), "seeds": seeds, "seed_aggregate": agg,
        "checkpoints": cps, "hypotheses": hs, "stopped": stopped,
        "discipline": {"split": data.split, "locked": locked,
                       # this scoring is recorded in the lock registry right after the verdicts: count it
                       "times_scored": len(splitlock.scorings(data.key)) + (1 if locked else 0),
                       "tuning": "none: every parameter is fixed in the config before the test split is scored"},
    }
    if stopped is not None:
        for h in hs:
            if h["verdict"] != hy.NOT_RUN and any(n not in evaluation.runs for n in p.names().values()):
                h["text"] += " (--fail-fast stopped before every system ran)"
    v["bottom_line"] = bottom_line(v)
    return v


def apply_growth(v: dict[str, Any], points: list[dict[str, Any]]) -> dict[str, Any]:
    """``v`` with the corpus-size criterion judged on ``points`` (growth.json's) and the overall verdict redone."""
    hs = [hy.corpus_size(points) if h["id"] == "corpus_size" else h for h in v["hypotheses"]]
    v = {**v, "hypotheses": hs, "overall": hy.overall(v["checkpoints"], hs)}
    v["bottom_line"] = bottom_line(v)
    return v


def write_verdicts(out: Path, v: dict[str, Any]) -> None:
    from hcrbench.stats.compare import _clean

    atomic_write_text(out / VERDICTS_FILE, json.dumps(_clean(v), indent=2, ensure_ascii=False, allow_nan=False)
                      + "\n")


# ------------------------------------------------------------------------------------------------ runner hooks


class FailFast:
    """``--fail-fast``: called between systems with the runs so far; returns why to stop at the first checkpoint
    that kills (tree sanity and easy routing once the system ran, the nDCG@10 margin once the kill baseline ran)."""

    def __init__(self, cfg: Any, data: ExperimentData, out: Path) -> None:
        self.cfg, self.data, self.out = cfg, data, out
        self.done: set[str] = set()

    def check(self, runs: dict[str, Any]) -> str | None:
        from hcrbench.metrics import evaluate

        p = self.cfg.protocol
        if p.system in runs and "tree" not in self.done:
            self.done.add("tree")
            rep = system_tree_metrics(p.system, self.data, self.out, rel_threshold=self.cfg.rel_threshold,
                                      seed=self.cfg.seed)
            sd = ((rep or {}).get("tree", {}).get("sibling_distinctiveness") or {}).get("mean")
            c = hy.tree_sanity(sd)
            if c["status"] == hy.KILL:
                return f"checkpoint 1 (tree sanity) kills: {c['text']}"
            eps, n, why = easy_single_branch(self.out, p.system, self.data, self.cfg.rel_threshold)
            c = hy.easy_routing(eps, n, why)
            if c["status"] == hy.KILL:
                return f"checkpoint 2 (easy routing) kills: {c['text']}"
        group = [s.name for s in seed_group_of(self.cfg, p.system)]  # every seed: the margin is on the mean
        if all(n in runs for n in (*group, p.kill_baseline)) and "margin" not in self.done:
            self.done.add("margin")
            ev = evaluate(self.data.qrels, {n: runs[n] for n in (*group, p.kill_baseline)}, [p.metric],
                          rel_threshold=self.cfg.rel_threshold, missing="zero")
            a = _seed_mean([_mean(ev, n, p.metric) for n in group])
            b = _mean(ev, p.kill_baseline, p.metric)
            c = hy.kill_baseline_margin(None if a is None or b is None else a - b, p.kill_baseline, p.metric)
            if c["status"] == hy.KILL:
                return f"checkpoint 3 (HCR vs {p.kill_baseline}) kills: {c['text']}"
        return None


def judge_step(cfg: Any, data: ExperimentData, runs: dict[str, Any], evaluation: Any, doc: dict, tree: dict | None,
               out: Path, *, stopped: str | None = None) -> dict[str, Any]:
    """The runner's verdict hook: judge and write ``verdicts.json``."""
    verdicts = judge(cfg, data, evaluation, doc, tree, out, stopped=stopped)
    write_verdicts(out, verdicts)
    return verdicts


def hooks() -> Any:
    """The :class:`~hcrbench.experiment.steps.ProtocolHooks` that make the runner judge a ``[protocol]`` table."""
    from hcrbench.experiment.steps import ProtocolHooks

    return ProtocolHooks(watch=FailFast, judge=judge_step)
