"""The verdict step: the design's checkpoints, hypotheses and protocol controls from an experiment's results, the
overall verdict and its bottom line (``verdicts.json``, schema ``hcrbench.verdicts/1``).

The runner hands its results to :func:`judge_step` through :func:`hooks` (it never imports this stage).
Checkpoints 1-4, then H1a, H1b, H1c, the failure rate, the corpus-size rule and the single kill criterion; the
rules are pure functions (:mod:`checkpoints`, :mod:`hypotheses`), the same ones the controls are judged by
(:mod:`controls`); a control's verdict and the rules' replayed operating characteristics are shown beside the
rows and never change a verdict the rule's interval decided.

Overall: ``invalidated`` only through the single kill criterion at the full size; else ``stop and diagnose``
when a checkpoint fired; else the worst decided hypothesis (``no-go``: a component needs fixing, ``soft no-go``,
``inconclusive``, ``go``), and never ``go`` while the kill criterion is undecided (a smaller size says what it
decided and which command decides the rest). Every paired test uses the experiment's declared Holm family.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.protocol import checkpoints as cp
from hcrbench.protocol import controls as ctl
from hcrbench.protocol import field as fld
from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol import registry as reg
from hcrbench.protocol.cost_summary import UNCUT, cost_summary, depth_sensitive  # noqa: F401  (re-exported)
from hcrbench.protocol.gating import judge_operating, tree_only
from hcrbench.protocol.inputs import compare_runs, members, per_query, seed_group_of
from hcrbench.protocol.row import Row
from hcrbench.protocol.rules import (
    CONFIDENCE,
    DIAGNOSE,
    GO,
    HYPOTHESIS_ORDER,
    INCONCLUSIVE,
    INVALIDATED,
    KILL,
    NOGO,
    NOT_RUN,
    UNDECIDABLE,
    at_confidence,
    confidence,
    stops,
)
from hcrbench.protocol.subject import Context, Subject, failure_of, retrieval_failures

VERDICTS_FILE = "verdicts.json"
SCHEMA = "hcrbench.verdicts/1"


def system_subject(ctx: Context) -> Subject:
    """The real system: its seed group's averaged per-query scores and eval.json's comparison of them."""
    p, m = ctx.p, ctx.metric
    group = members(ctx.cfg, p.system, ctx.evaluation.runs)
    scores = per_query(ctx.evaluation, group, m)
    gname = next((s.seed_group for s in ctx.cfg.systems if s.name == p.system), None)
    row, tested_on = None, f"{p.system}: one run"
    if gname and p.kill_baseline == ctx.doc.get("baseline_name", p.kill_baseline):
        c = next((c for c in ctx.doc.get("seed_comparisons", []) if c["run"] == f"{gname} (seed mean)"
                  and c["metric"] == m and c["baseline"] == p.kill_baseline), None)
        if c is not None:
            from hcrbench.protocol.inputs import as_row

            row = as_row(c)
            tested_on = f"{gname} seed mean over {len(group)} seeds ({', '.join(group)}), " \
                        f"Holm family of {c.get('family_size') or '?'}"
            # eval.json's interval is at 95%; the rules judge (and print) at this look's level: the same
            # comparison's interval at that level, so no row prints a 95% interval as its own level's
            again = compare_runs(ctx.evaluation, ctx.cfg, m, p.kill_baseline, {p.system: scores}).get(p.system) \
                if scores is not None and p.kill_baseline in ctx.evaluation.runs else None
            if again is not None:
                row.update(ci_low=again["ci_low"], ci_high=again["ci_high"], ci_method=again["ci_method"])
    if row is None and p.system in ctx.evaluation.runs and p.kill_baseline in ctx.evaluation.runs:
        others = {n: ctx.evaluation.runs[n] for n in ctx.evaluation.runs if n != p.kill_baseline}
        row = compare_runs(ctx.evaluation, ctx.cfg, m, p.kill_baseline, others).get(p.system)
        if row is not None:
            tested_on = f"{p.system}: one run, Holm family of {row.get('family_size') or '?'}"
    rf = retrieval_failures(ctx, group)
    return Subject(p.system, scores, row, tested_on, ctx.suff(p.system) if scores is not None else None,
                   failure_of(ctx, group) if rf is None else (rf[0], rf[1]), ctx.routing, n_seeds=len(group),
                   failures=None if rf is None else rf[2])


def _architecture(hypotheses: list[dict]) -> dict | None:
    """The row of the rule whose verdict is on the architecture (``Rule.role == "architecture"``: the single kill
    criterion), or None."""
    arch = reg.with_role("architecture")
    return next((h for h in hypotheses if arch is not None and h.get("id") == arch.id), None)


def architecture_row(hypotheses: list[dict]) -> dict | None:
    """The single kill criterion's row among ``hypotheses`` (:func:`_architecture`), for the report's words."""
    return _architecture(hypotheses)


def kill_at_full_size(row: dict) -> bool:
    """Whether a kill-criterion row was judged at the full corpus size (rows written before the row decided at
    every size carry no ``scope`` and said kill only there)."""
    ev = row.get("evidence") or {}
    return bool(ev.get("full_size", True)) and not ev.get("scope")


def overall(checkpoints: list[dict], hypotheses: list[dict]) -> str:
    """``invalidated`` only via the single kill criterion at the full size; else ``stop and diagnose`` when a
    checkpoint fired; else the worst decided hypothesis (a kill at a smaller size counts as a no-go: the system
    loses to the kill baseline on worlds of that size), never ``go`` while the kill criterion is undecided;
    nothing decided: inconclusive."""
    kill = _architecture(hypotheses)
    if kill is not None and kill["verdict"] == KILL and kill_at_full_size(kill):
        return INVALIDATED
    if any(stops(c["status"]) for c in checkpoints):
        return DIAGNOSE
    ran = [NOGO if h is kill and h["verdict"] == KILL else h["verdict"] for h in hypotheses]
    ran = [v for v in ran if v in HYPOTHESIS_ORDER]
    for v in HYPOTHESIS_ORDER:
        if v in ran:
            if v == GO and (kill is None or kill["verdict"] != GO):
                return INCONCLUSIVE
            return v
    return INCONCLUSIVE


def bottom_line(v: dict[str, Any]) -> str:
    """One plain sentence: what decided the overall verdict, what this size cannot decide, what to run next (the
    rules by their human names, hcrbench.protocol.words)."""
    from hcrbench.protocol.words import plain, rule_name

    kill = _architecture(v["hypotheses"])
    o = v["overall"]
    parts: list[str] = []
    if o == INVALIDATED:
        parts.append(f"the single kill criterion at the full size: {plain(kill['text'])}")  # type: ignore[index]
    elif o == DIAGNOSE:
        comps = [c["status"].split(": ", 1)[-1] for c in v["checkpoints"] if stops(c["status"])]
        parts.append(f"a fail-fast checkpoint fired: diagnose {', '.join(comps)} (no verdict on the architecture)")
    else:
        small_kill = kill is not None and kill["verdict"] == KILL  # at a smaller size: a no-go (overall())
        bad = [rule_name(h["id"], h["name"]) + (f" ({h['component']})" if h.get("component") else "")
               for h in v["hypotheses"] if o in ("no-go", "soft no-go")
               and ((h["verdict"] == o and h is not kill) or (h is kill and small_kill and o == NOGO))]
        parts.append(f"{o} on {', '.join(bad)}" if bad else
                     "every decided rule says go" if o == GO else f"no rule decided for or against {v.get('system') or 'the system under test'}")
        if kill is not None and kill["verdict"] != NOT_RUN and not v.get("full_size") \
                and not kill_at_full_size(kill):
            # decided (or not) on this size's worlds; the architecture is judged at the full size
            parts.append(f"kill criterion at size {kill['evidence'].get('size')}: {kill['verdict']} (the "
                         f"architecture is judged at the full size: {hy.SIZES_COMMAND})")
        elif kill is not None and kill["verdict"] == UNDECIDABLE and not kill.get("before_controls") \
                and not v.get("full_size"):  # a document written before the row decided at every size
            prev = kill["evidence"].get("at_full_size_this_would_be")
            parts.append(f"size {kill['evidence'].get('size')} cannot decide the kill criterion"
                         + (f" (read at this size it would be {prev})" if prev and prev != UNDECIDABLE
                            else " (nor could it be read at this size)" if prev else "")
                         + f"; {hy.SIZES_COMMAND} decides it")
        elif kill is not None and kill["verdict"] != NOT_RUN:
            parts.append(f"kill criterion: {kill['verdict']}")
    from hcrbench.protocol.ruleset.corpus_size import bottom_line_part

    size_part = bottom_line_part(v["hypotheses"], overall=o)  # judged across sizes: its verdict is said
    if size_part:
        parts.append(size_part)
    parts += fld.bottom_line_parts(v)  # a kill baseline that is no barrier; the subject vs the best system
    cost = v.get("cost_line")
    if cost:
        parts.append(cost)
    gated = [f"{rule_name(r['id'], r.get('name'))} (needs n ~ {r['evidence']['operating']['needs_n']:,})"
             if (r.get("evidence") or {}).get("operating", {}).get("needs_n") else rule_name(r["id"], r.get("name"))
             for r in (*v["checkpoints"], *v["hypotheses"]) if r.get("before_operating")]
    if gated:  # a document written before the replay stopped voiding rows
        parts.append("not decidable at this n (power < 0.8 at the margin or false decisions above nominal, "
                     f"replayed on this run's data): {', '.join(gated)}")
    und = v.get("undecidable_rules") or []
    if und:
        parts.append("a control got an unexpected verdict on this run (shown beside the rule's row, not used to "
                     f"void it): {', '.join(rule_name(u) for u in und)}")
    return "; ".join(parts)


def judge(cfg: Any, data: Any, runs: dict[str, Any], evaluation: Any, doc: dict, tree_docs: dict | None, out: Path,
          *, growth: list[dict] | None = None, stopped: str | None = None, level: float | None = None
          ) -> dict[str, Any]:
    """The ``verdicts.json`` document for this experiment's results, every rule's interval at the two-sided
    ``level`` (default: :func:`protocol_level`: ``[protocol] confidence``, 0.95, or inside
    :func:`hcrbench.protocol.sequential.at_look` that look's level). A level other than 0.95 is recorded as
    ``confidence``."""
    level = protocol_level(cfg) if level is None else level
    with at_confidence(level):
        v = _judge(cfg, data, runs, evaluation, doc, tree_docs, out, growth=growth, stopped=stopped)
    if level != CONFIDENCE:
        v["confidence"] = level
    return v


def protocol_level(cfg: Any) -> float:
    """The level ``cfg`` is judged at: its ``[protocol] confidence`` (0.95 without a protocol table), or, inside
    :func:`hcrbench.protocol.sequential.at_look`, that look's level of the same overall confidence."""
    from hcrbench.protocol.sequential import look_level

    return look_level(float(getattr(getattr(cfg, "protocol", None), "confidence", CONFIDENCE)))


def _previous_new_look(out: Path) -> bool:
    """What the folder's verdicts said of their look before this warm re-run (False when there were none)."""
    try:
        prev = json.loads((Path(out) / "verdicts.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(((prev if isinstance(prev, dict) else {}).get("discipline") or {}).get("new_look"))


def _judge(cfg: Any, data: Any, runs: dict[str, Any], evaluation: Any, doc: dict, tree_docs: dict | None, out: Path,
           *, growth: list[dict] | None = None, stopped: str | None = None) -> dict[str, Any]:
    from hcrbench.data import splitlock
    from hcrbench.stats.compare import family_text

    p = cfg.protocol
    ctx = Context(cfg, data, evaluation, doc, tree_docs, out, stopped, growth)
    ctx.cache["kill_run"] = runs.get(p.kill_baseline)
    if p.system in evaluation.runs:
        cdata, log, why = cp.checkpoint_routing_log(cfg, data, out)
        ctx.routing = cp.easy_single_branch(log, cdata, cfg.rel_threshold, why)
        if cdata is not None:
            ctx.routing_where = f" of {cdata.split}"
    else:
        ctx.routing = (None, None, 0, f"{p.system} was not run")
    from hcrbench.protocol.devselect import dev_selection

    if p.system in evaluation.runs:  # H1b's single path, chosen on dev (or why not)
        ctx.cache["dev_selection"] = dev_selection(cfg, data, out)
    field = ctx.cache["field"] = fld.field_on_dev(cfg, data, out)  # flat chosen on dev; the barrier check
    ctx.cache["flat"] = field["flat"]
    s = system_subject(ctx)
    rules = reg.rules()
    rows = {r.id: r.judge_run(ctx, s) for r in rules}  # the judge walks the registry in order
    if s.n_seeds > 1:
        for r in rules:  # easy routing reads the first seed's routing only
            row = rows[r.id]
            if r.seed_mean_note and Row.word_of(row) != NOT_RUN:
                row["text"] += f" ({p.system}: mean over {s.n_seeds} seeds)"
    cps = [rows[r.id] for r in rules if r.stage == "checkpoint"]
    hs = [rows[r.id] for r in rules if r.stage == "hypothesis"]
    ctx.cache["system_scores"] = s.scores  # the noise controls are built from the system's own differences
    controls = ctl.run_controls(ctx)
    cps, hs = ctl.apply(cps, controls), ctl.apply(hs, controls)
    cps, hs = tree_only(cfg, cps), tree_only(cfg, hs)
    cps, hs, operating = judge_operating(ctx, s, cps, hs, overall)
    stopped_at = None
    for r in cps:  # --fail-fast: nothing after the first stop counts
        if stopped_at is not None and stopped is not None:
            r.update(status=NOT_RUN, value=None, text="not run: --fail-fast stopped at an earlier checkpoint")
        elif stops(r["status"]):
            stopped_at = r["id"]
    if stopped is not None:
        for h in hs:
            if h["verdict"] != NOT_RUN and any(n not in evaluation.runs for n in p.names().values()):
                h["text"] += " (--fail-fast stopped before every system ran)"
    locked = bool(cfg.dataset.locked or splitlock.is_locked(data.key))
    grp = [x for x in seed_group_of(cfg, p.system) if x.name in evaluation.runs]
    seeds = sorted({cfg.seed if x.seed is None else x.seed for x in grp})
    agg = None
    gname = grp[0].seed_group if grp and grp[0].seed_group else None
    if gname and gname in doc.get("seed_aggregates", {}):
        a = doc["seed_aggregates"][gname].get(p.metric)
        if a:
            agg = {"mean": a.get("mean"), "sd": a.get("sd"), "n_seeds": a.get("n_seeds"), "members": a.get("members")}
    arch = reg.with_role("architecture")
    kill_row = next((h for h in hs if arch is not None and h["id"] == arch.id), None) or {"evidence": {}}
    from hcrbench.experiment.cost import scored_unit

    by_name = {x.name: x for x in cfg.systems}
    units = tuple(scored_unit(x.type, x.chunking is not None) if x is not None else "chunks"
                  for x in (by_name.get(p.system), by_name.get(p.kill_baseline)))
    cost = cost_summary(doc, p.system, members(cfg, p.system, evaluation.runs), p.kill_baseline, p.metric,
                        (s.vs_kill or {}).get("delta"), list(evaluation.metrics),
                        units)  # type: ignore[arg-type]  # the cost is vs the kill baseline
    from hcrbench.retrieve import traits

    if any(x.name == p.system and traits(x.type).stage == "replay" for x in cfg.systems):  # cost spent elsewhere
        cost = {"system": None, "kill_baseline": None, "ratio": None, "depth_note": (cost or {}).get("depth_note"),
                "line": f"cost per query of {p.system}: unknown (a run file made outside hcrbench; replaying it "
                        "costs nothing comparable)"}
    v: dict[str, Any] = {
        "schema": SCHEMA, "overall": overall(cps, hs), "bottom_line": "",
        "system": p.system, "kill_baseline": p.kill_baseline, "flat": ctx.flat, "metric": p.metric,
        "family": family_text(cfg.family, p.kill_baseline), "seeds": seeds, "seed_aggregate": agg,
        "size": ctx.size, "full_size": ctx.full_size,
        "decided_by": {"test": kill_row["evidence"].get("tested_on"), "delta": kill_row["evidence"].get("delta"),
                       "p_holm": kill_row["evidence"].get("p_holm"), "ci": kill_row.get("interval"),
                       "n": kill_row.get("n"), "family": family_text(cfg.family, p.kill_baseline)
                       if "judged_against" not in kill_row["evidence"] else "its own (one comparison)",
                       "level": confidence(), "interval_kind": kill_row.get("interval_kind")},
        "checkpoints": cps, "hypotheses": hs, "controls": controls, "operating": operating,
        "undecidable_rules": ctl.undecidable_rules(controls), "stopped": stopped,
        "cost": cost, "cost_line": (cost or {}).get("line"), "depth_note": (cost or {}).get("depth_note"),
        "tuning": {"status": "none", "grid": {}, "chosen": {},
                   "text": "nothing tuned: every parameter is fixed in the config before the test split is scored",
                   "dev_selection": ctx.cache.get("dev_selection")},
        "dev_selection": ctx.cache.get("dev_selection"),
        "discipline": {"split": data.split, "locked": locked,
                       # this scoring is recorded in the lock registry right after the verdicts: count it
                       "times_scored": len(splitlock.scorings(data.key)) + (1 if locked and data.new_look else 0),
                       # whether the look that produced these numbers scored the split anew: a warm re-run (every
                       # score reused) is that same look, so it says what the look said (the same bytes)
                       "new_look": bool(data.new_look) or _previous_new_look(out),
                       "tuning": "none: every parameter is fixed in the config before the test split is scored"},
    }
    v["field"] = field
    v["vs_best"] = fld.vs_best(evaluation, cfg, p.metric, p.system, members(cfg, p.system, evaluation.runs),
                               s.scores)
    v["power_plan"] = fld.power_plan(cfg, data, out, len(data.queries)) if p.system in evaluation.runs else \
        {"status": "not run", "rules": {}, "text": f"power plan not run: {p.system} was not run"}
    gq = getattr(cfg.dataset, "generate_queries", None)
    if gq and cfg.dataset.generate == "meridian":  # the suite a config asked for (quickstart writes its own hook)
        v["power_plan"]["queries_hook"] = {
            "status": "configured", "queries": int(gq),
            "text": f"Meridian generated with a {gq}-query suite ([dataset] generate_queries = {gq}); "
                    f"{len(data.queries)} test queries"}
    v["bottom_line"] = bottom_line(v)
    return v


def apply_growth(v: dict[str, Any], points: list[dict[str, Any]], inputs: Any = None, seed: int = 0
                 ) -> dict[str, Any]:
    """``v`` with the corpus-size rule judged on ``points`` (growth.json's) and the overall verdict redone.
    ``inputs`` (:class:`operating.Inputs`: the medium size's per-query differences on the rule's queries) gates
    the row by its own operating characteristics, as every other rule is (``operating["corpus_size"]``)."""
    from hcrbench.protocol import operating as opc

    ops = dict(v.get("operating") or {})
    rule = reg.with_role("growth")
    hs = []
    for h in v["hypotheses"]:
        if rule is not None and h["id"] == rule.id:
            new = rule.judge_growth(points, h)  # type: ignore[attr-defined]
            op = opc.operating(rule, inputs, seed=seed) if inputs is not None and new["verdict"] != NOT_RUN else None
            if op is not None:
                op["controls"] = opc.control_frequencies(op, rule)
                ops[rule.id] = op
                new = opc.gate_rows([new], {rule.id: op})[0]
            h = rule.annotate_growth(points, new) if hasattr(rule, "annotate_growth") else new
        hs.append(h)
    v = {**v, "hypotheses": hs, "overall": overall(v["checkpoints"], hs), "operating": ops}
    v["bottom_line"] = bottom_line(v)
    return v


def with_tuning(v: dict[str, Any], tuning: dict[str, Any]) -> dict[str, Any]:
    """``v`` with the tune -> lock -> test record (``tuning.json``) in ``tuning`` and ``discipline.tuning``."""
    tuning = {**tuning, "dev_selection": v.get("dev_selection")}  # the dev split's choice between variants
    return {**v, "tuning": tuning, "discipline": {**(v.get("discipline") or {}), "tuning": tuning.get("text")}}


def write_verdicts(out: Path, v: dict[str, Any]) -> None:
    from hcrbench.stats.compare import _clean

    atomic_write_text(out / VERDICTS_FILE, json.dumps(_clean(v), indent=2, ensure_ascii=False, allow_nan=False)
                      + "\n")


# ------------------------------------------------------------------------------------------------ runner hooks


class FailFast:
    """``--fail-fast``: called between systems with the runs so far; returns why to stop at the first checkpoint
    that says stop and diagnose (tree sanity and easy routing once the system ran, the nDCG@10 margin once the
    kill baseline ran)."""

    def __init__(self, cfg: Any, data: Any, out: Path) -> None:
        self.cfg, self.data, self.out = cfg, data, out
        self.done: set[str] = set()

    def check(self, runs: dict[str, Any]) -> str | None:
        with at_confidence(protocol_level(self.cfg)):
            return self._check(runs)

    def _check(self, runs: dict[str, Any]) -> str | None:
        for i, rule in enumerate(reg.rules("checkpoint"), 1):  # each once its inputs are in (Rule.fail_fast)
            if rule.id in self.done:
                continue
            got = rule.fail_fast(self, runs)
            if got is None:
                continue
            self.done.add(rule.id)
            label, c = got
            if stops(c["status"]):
                return f"checkpoint {i} ({label}): {c['status']}: {c['text']}"
        return None


def judge_step(cfg: Any, data: Any, runs: dict[str, Any], evaluation: Any, doc: dict, tree: dict | None, out: Path,
               *, stopped: str | None = None) -> dict[str, Any]:
    """The runner's verdict hook: judge and write ``verdicts.json``."""
    verdicts = judge(cfg, data, runs, evaluation, doc, tree, out, stopped=stopped)
    write_verdicts(out, verdicts)
    return verdicts


def hooks() -> Any:
    """The :class:`~hcrbench.experiment.steps.ProtocolHooks` that make the runner judge a ``[protocol]`` table."""
    from hcrbench.experiment.steps import ProtocolHooks
    from hcrbench.protocol.prefetch import start

    return ProtocolHooks(watch=FailFast, judge=judge_step, prefetch=start)


__all__ = [
    "DIAGNOSE",
    "INVALIDATED",
    "VERDICTS_FILE",
    "FailFast",
    "apply_growth",
    "bottom_line",
    "growth_probe",
    "h1c_row",
    "hooks",
    "judge",
    "judge_step",
    "overall",
    "tree_sanity_row",
    "write_verdicts",
]


def __getattr__(name: str) -> Any:
    if name == "RULE_ORDER":  # the hypotheses' ids in the order the judge writes them (the registry's)
        return tuple(r.id for r in reg.rules("hypothesis"))
    raise AttributeError(name)


from hcrbench.protocol.ruleset.corpus_size import growth_probe  # noqa: E402  (re-exported)
from hcrbench.protocol.ruleset.h1c import h1c_row  # noqa: E402  (re-exported)
from hcrbench.protocol.ruleset.tree_sanity import tree_sanity_row  # noqa: E402  (re-exported)
