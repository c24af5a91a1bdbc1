"""The field a system is judged against: the best flat first-stage system chosen on dev, the kill baseline's
barrier check, the subject against the best system of the run, and the power plan (``verdicts.json["field"]``,
``["vs_best"]``, ``["power_plan"]``).

- **Flat** (``[protocol] flat = "auto"``): the flat first-stage systems of the config (types that declare
  ``stage = "first"`` and no tree, :class:`hcrbench.retrieve.Traits`: ``bm25``, ``dense``, ``hybrid``; document-
  or chunk-level, no policy) are run on the dataset's ``dev`` split (runs kept under
  ``logs/dev/``, reused while their fingerprint holds) and the best by the protocol metric is "flat" (ties: the
  first in the config). Without a dev split: the first 200 judged queries of tune, else of train (SciFact); with
  none of them, the first flat first-stage system of the config, said so. Never the test split.
- **Barrier**: the kill baseline (hybrid candidates -> HCR's reranker at HCR's depth) runs on dev too, at the
  depth HCR's own dev routing log gives it. The kill criterion may judge only when the kill baseline is at least as
  good as the best flat first-stage system on dev (point estimates: the rule is that the barrier is not visibly
  lower than a system without a reranker); otherwise the kill row says "kill baseline weaker than <system>: not a
  value barrier" and the criterion is judged against that system.
- **Vs best**: every bottom line states the subject against the best other system of the run (its seed group
  excluded), with the paired interval; the best is picked on the split it is scored on, so the line is
  descriptive, never a verdict.
- **Power plan**: per-query differences subject - kill baseline (and - the chosen single path) on the tune and dev
  splits give the sd; per rule, the n a paired t test needs to see the rule's own margin (the registry's) with
  power 0.8 at alpha 0.05 (:func:`registry.n_for_power`, the protocol's one "n needed"), beside the n of the
  test split.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hcrbench.experiment.protocol_config import AUTO
from hcrbench.retrieve.system_traits import traits

DEV_SPLIT, TUNE_SPLIT = "dev", "tune"
FIELD_SPLITS = ("dev", "tune", "train")  # where flat is chosen: the first the dataset has (never test)
MAX_FIELD_QUERIES = 200  # a tune / train split is cut to its first 200 judged queries (dev is used whole)
POWER, ALPHA = 0.8, 0.05
#: the pilot pairs a power-plan entry sizes: system - kill baseline, system - the single path chosen on dev
KILL_PAIR, SINGLE_PAIR = "kill_baseline", "single_path"


# --------------------------------------------------------------------------------------------- pure choices


def flat_candidates(cfg: Any) -> list[str]:
    """The flat first-stage systems of the config, in config order (no reranker, no tree, no policy)."""
    return [s.name for s in cfg.systems if traits(s.type).is_flat_first_stage() and s.policy is None]


def best_of(scores: dict[str, float], order: list[str]) -> str | None:
    """The best-scoring name (ties: the first in ``order``); None when ``scores`` is empty."""
    names = [n for n in order if n in scores]
    return max(names, key=lambda n: (scores[n], -names.index(n))) if names else None


def barrier(kill: str, kill_score: float | None, best: str | None, best_score: float | None,
            split: str = DEV_SPLIT) -> dict[str, Any]:
    """Is the kill baseline at least as good as the best flat first-stage system on ``split``?

    ``{"status": "passes" | "fails" | "not checked", "judge_against": name, "text": ...}``; ``judge_against`` is
    the kill baseline unless it fails, then the best flat system."""
    if kill_score is None or best is None or best_score is None:
        why = f"no {split} scores for the kill baseline or the flat systems"
        return {"status": "not checked", "judge_against": kill, "kill_baseline": kill, "best_flat": best,
                "text": f"barrier not checked: {why}"}
    words = f"{kill} {kill_score:.3f} vs best flat first-stage system {best} {best_score:.3f} on {split}"
    if kill_score + 1e-12 >= best_score:
        return {"status": "passes", "judge_against": kill, "kill_baseline": kill, "best_flat": best,
                "kill_score": kill_score, "best_flat_score": best_score,
                "text": f"the kill baseline is a value barrier ({words})"}
    return {"status": "fails", "judge_against": best, "kill_baseline": kill, "best_flat": best,
            "kill_score": kill_score, "best_flat_score": best_score,
            "text": f"kill baseline weaker than {best}: not a value barrier ({words}); the kill criterion is "
                    f"judged against {best}"}


def n_needed(sd: float, margin: float, *, power: float = POWER, alpha: float = ALPHA) -> int | None:
    """Queries a two-sided paired t test at ``alpha`` needs to detect a true mean difference of ``margin`` with
    ``power``, when the per-query differences have standard deviation ``sd``: :func:`registry.n_for_power` at the
    protocol's power and alpha (one implementation, :func:`hcrbench.stats.power.required_n`)."""
    from hcrbench.protocol import registry as reg

    return reg.n_for_power(sd, margin, power=power, alpha=alpha)


# --------------------------------------------------------------------------------------------- dev runs


def _means(sdata: Any, runs: dict[str, Any], metric: str, rel_threshold: int) -> dict[str, Any]:
    """``{name: per-query values}`` of ``runs`` on ``sdata`` (an unjudged or missing query scores 0)."""
    import numpy as np

    from hcrbench.metrics import evaluate

    if not runs:
        return {}
    ev = evaluate(sdata.qrels, runs, [metric], rel_threshold=rel_threshold, missing="zero")
    return {n: (list(ev.runs[n].query_ids), np.asarray(ev.runs[n].values[metric], dtype=float)) for n in runs}


def reranker_note(cfg: Any) -> str | None:
    """A sentence when the kill baseline does not rerank with the reranker the system uses (a reranking kill
    baseline against a tree system, each naming its reranker in the parameter its type declares:
    ``Traits.reranker_param``, e.g. ``method`` of ``rerank`` against ``rerank`` of ``hcr``), else None."""
    by = {s.name: s for s in cfg.systems}
    me, kill = by.get(cfg.protocol.system), by.get(cfg.protocol.kill_baseline)
    if me is None or kill is None:
        return None
    mt, kt = traits(me.type), traits(kill.type)
    if not mt.tree or kt.stage != "rerank" or mt.reranker_param is None or kt.reranker_param is None:
        return None
    mine, theirs = (me.params or {}).get(*mt.reranker_param), (kill.params or {}).get(*kt.reranker_param)
    if mine == theirs:
        return None
    return (f"the kill baseline reranks with {theirs}, {me.name} with {mine}: not the same reranker (the kill "
            "baseline is meant to be HCR's own parts without the tree)")


def field_split(data: Any) -> Any | None:
    """The split the field is chosen on: dev whole, else the first ``MAX_FIELD_QUERIES`` judged queries of tune,
    else of train (SciFact has only train); None when the dataset has none of them."""
    import hashlib

    from hcrbench.experiment.dataset import ExperimentData
    from hcrbench.protocol.devselect import split_data

    for split in FIELD_SPLITS:
        sdata = split_data(data, split)
        if sdata is None:
            continue
        if split == DEV_SPLIT or len(sdata.queries) <= MAX_FIELD_QUERIES:
            return sdata
        keep = [q for q in sdata.qrels.query_ids if q in sdata.queries][:MAX_FIELD_QUERIES]
        files = {**sdata.files, "queries-used": hashlib.sha256("\n".join(keep).encode()).hexdigest()}
        return ExperimentData(sdata.corpus, sdata.queries.subset(keep), sdata.qrels.subset(keep), split,
                              sdata.root, files)
    return None


def field_on_dev(cfg: Any, data: Any, out: Path) -> dict[str, Any]:
    """``verdicts.json["field"]``: the flat first-stage systems and the kill baseline on dev (or tune / train:
    :func:`field_split`), the flat system (configured or chosen) and the barrier check (module docstring)."""
    from hcrbench.protocol.devselect import split_runs

    p = cfg.protocol
    m = p.metric
    cands = flat_candidates(cfg)
    names = [s.name for s in cfg.systems]
    configured = p.flat if p.flat not in (None, AUTO) else None
    doc: dict[str, Any] = {"split": None, "metric": m, "candidates": cands, "rule": p.flat or AUTO,
                           "scores": {}, "n_queries": 0}
    ddata = field_split(data)
    if ddata is None:
        flat = configured or (cands[0] if cands else p.kill_baseline)
        doc.update(status="no dev split", flat=flat, best_flat=None,
                   barrier=barrier(p.kill_baseline, None, None, None),
                   text=f"flat = {flat} ({'configured' if configured else 'the first flat first-stage system of the config'}"
                        f": the dataset has no {' / '.join(FIELD_SPLITS)} split to choose on); the kill "
                        "baseline's barrier is not checked")
        return doc
    want = [*cands, *([p.kill_baseline] if p.kill_baseline in names else [])]
    failed: dict[str, str] = {}
    split = ddata.split
    runs = split_runs(cfg, ddata, out / "logs" / split, want, failed)
    vals = _means(ddata, runs, m, cfg.rel_threshold)
    scores = {n: round(float(v.mean()), 6) for n, (_q, v) in vals.items()}
    best = best_of({n: scores[n] for n in cands if n in scores}, names)
    flat = configured or best or p.kill_baseline
    b = barrier(p.kill_baseline, scores.get(p.kill_baseline), best, scores.get(best) if best else None, split)
    words = ", ".join(f"{n} {scores[n]:.3f}" for n in want if n in scores)
    how = f"configured ({configured})" if configured else f"chosen on {split}: {flat}"
    if failed:
        b["text"] += f"; not run on {split}: " + "; ".join(f"{n} ({why})" for n, why in failed.items())
    note = reranker_note(cfg)
    doc.update(status="chosen" if not configured else "configured", split=split, flat=flat, best_flat=best,
               scores=scores, n_queries=len(ddata.queries), barrier=b, not_run=failed, reranker_note=note,
               text=f"flat {how} ({m} on {len(ddata.queries)} {split} queries: {words}); {b['text']}"
                    + (f"; {note}" if note else ""))
    return doc


# --------------------------------------------------------------------------------------------- power plan


@dataclass(frozen=True)
class PlanEntry:
    """One row of the power plan: ``label`` (its key), the pilot ``pair`` whose per-query differences give the
    sd (:data:`KILL_PAIR`: system - kill baseline; :data:`SINGLE_PAIR`: system - the single path chosen on dev),
    the rule's ``margin``, the difference in words and where the row stands."""

    label: str
    pair: str
    margin: float
    what: str
    order: float = 0.0


@dataclass(frozen=True)
class Pilot:
    """What a rule's power-plan entry may read: the names of the pair it sizes and whether the system is a
    tree."""

    system: str
    kill_baseline: str
    single: str | None
    tree: bool

    kill_pair = KILL_PAIR
    single_pair = SINGLE_PAIR

    def entry(self, label: str, pair: str, margin: float, *, order: float = 0.0) -> PlanEntry:
        other = self.kill_baseline if pair == KILL_PAIR else self.single
        return PlanEntry(label, pair, margin, f"{self.system} - {other}", order)


def power_plan(cfg: Any, data: Any, out: Path, n_test: int) -> dict[str, Any]:
    """``verdicts.json["power_plan"]``: per rule, the sd of the per-query differences on tune + dev and the n
    needed at the design's margin (see the module docstring)."""
    import numpy as np

    from hcrbench.protocol import registry as reg
    from hcrbench.protocol.devselect import split_data, split_runs

    p = cfg.protocol
    m = p.metric
    names = [s.name for s in cfg.systems]
    if p.system not in names or p.kill_baseline not in names:
        return {"status": "not run", "rules": {}, "text": "power plan not run: no system or kill baseline"}
    single = None
    dev_sel = [n for n in (p.beam_only, p.collapsed_only) if n in names]
    diffs: dict[str, list[float]] = {KILL_PAIR: [], SINGLE_PAIR: []}
    used: dict[str, int] = {}
    for split in (TUNE_SPLIT, DEV_SPLIT):
        sdata = split_data(data, split)
        if sdata is None:
            continue
        want = [p.system, p.kill_baseline, *(dev_sel if split == DEV_SPLIT else [])]
        failed: dict[str, str] = {}
        runs = split_runs(cfg, sdata, out / "logs" / split, want, failed)
        if p.system not in runs or p.kill_baseline not in runs:
            continue  # a system pinned to the test queries (a run file) has no pilot on this split
        vals = _means(sdata, runs, m, cfg.rel_threshold)
        used[split] = len(sdata.queries)
        sys_v = vals[p.system][1]
        diffs[KILL_PAIR] += (sys_v - vals[p.kill_baseline][1]).tolist()
        if split == DEV_SPLIT and dev_sel and all(n in vals for n in dev_sel):
            single = max(dev_sel, key=lambda n: (float(vals[n][1].mean()), -dev_sel.index(n)))
            diffs[SINGLE_PAIR] += (sys_v - vals[single][1]).tolist()
    if not used:
        return {"status": "not run", "rules": {}, "text": "power plan not run: no tune or dev split on which "
                f"both {p.system} and {p.kill_baseline} run"}
    rows: dict[str, dict[str, Any]] = {}
    from hcrbench.protocol.gating import writes_routing_log

    pilot = Pilot(p.system, p.kill_baseline, single, writes_routing_log(cfg))
    # each rule's entries at its own margin (the one place the replay, the rows' "needs n" and this plan read it)
    entries = sorted((e for r in reg.rules() for e in r.power_plan(pilot)), key=lambda e: e.order)
    for e in entries:
        d = np.asarray(diffs[e.pair], dtype=float)
        if len(d) < 2:
            continue
        sd = float(np.std(d, ddof=1))
        need = n_needed(sd, e.margin)
        rows[e.label] = {"difference": e.what, "margin": e.margin, "sd": round(sd, 6), "n_pilot": len(d),
                         "n_needed": need, "n_test": int(n_test),
                         "enough": None if need is None else bool(n_test >= need)}
    short = [f"{r} needs ~{x['n_needed']}" for r, x in rows.items() if x["enough"] is False]
    pilot = " + ".join(f"{s} ({n})" for s, n in used.items())
    text = (f"power plan ({m}, paired t, power {POWER}, alpha {ALPHA}, sd from {pilot} queries): "
            + "; ".join(f"{r} at margin {x['margin']}: n {x['n_needed']}" for r, x in rows.items())
            + f"; the test split has {n_test}" + (f" ({', '.join(short)})" if short else " (enough for each)"))
    from hcrbench.protocol.words import plain

    text = plain(text)  # the rules by their names, not their keys (vs_kill_baseline -> vs the kill baseline)
    return {"status": "planned", "metric": m, "power": POWER, "alpha": ALPHA, "pilot": used, "rules": rows,
            "n_test": int(n_test), "queries_wanted": max([x["n_needed"] or 0 for x in rows.values()] or [0]),
            "text": text}


# --------------------------------------------------------------------------------------------- on the test split


def vs_best(evaluation: Any, cfg: Any, metric: str, subject: str, group: list[str], scores: Any) -> dict | None:
    """The subject (seed-averaged ``scores``) against the best other system of the run (``group`` excluded),
    paired, in the declared family of exactly this pair: ``{"best", "best_mean", "delta", "ci_low", ...,
    "line"}``."""
    import numpy as np

    from hcrbench.protocol.inputs import compare_runs

    if scores is None:
        return None
    others = {n: float(np.mean(np.asarray(evaluation.runs[n].values[metric], dtype=float)))
              for n in evaluation.runs if n not in group and n != subject}
    best = best_of(others, list(evaluation.runs))
    if best is None:
        return None
    row = compare_runs(evaluation, cfg, metric, best, {subject: scores}).get(subject) or {}
    d, lo, hi = row.get("delta"), row.get("ci_low"), row.get("ci_high")
    if d is None:
        return None
    from hcrbench.protocol.rules import confidence, pct
    from hcrbench.protocol.words import signed_diff

    level = confidence()  # compare_runs' level: the look's, on per-query differences (no clusters, no sequence)
    kind = f"fixed-n {pct(level)} per-query interval" + (f" ({row['ci_method']})" if row.get("ci_method") else "")
    ci = f"{kind} [{lo:+.3f}, {hi:+.3f}]" if lo is not None and hi is not None else "no interval"
    mine = float(np.mean(np.asarray(scores.values[metric], dtype=float)))
    return {"subject": subject, "best": best, "best_mean": round(others[best], 6), "subject_mean": round(mine, 6),
            "delta": d, "ci_low": lo, "ci_high": hi, "p": row.get("p"), "n": row.get("n"), "level": level,
            "ci_method": row.get("ci_method"),
            "line": f"{subject} vs the best other system of this run, {best} ({others[best]:.3f}): {signed_diff(d)} "
                    f"{metric}, {ci} (picked on this split: descriptive, decides nothing)"}


def against_strongest(ctx: Any, s: Any, kill_row: dict, field: dict) -> dict:
    """The kill row, judged against the strongest flat system when the kill baseline is not a value barrier
    (else ``kill_row`` with the barrier's words)."""
    from hcrbench.protocol.inputs import compare_runs

    b = (field or {}).get("barrier") or {}
    kill_row["evidence"]["barrier"] = b.get("status", "not checked")
    other = b.get("judge_against")
    if b.get("status") != "fails" or other is None or other not in ctx.evaluation.runs or s.scores is None:
        return kill_row
    from hcrbench.protocol.subject import kill_row as subject_kill_row

    c = compare_runs(ctx.evaluation, ctx.cfg, ctx.metric, other, {s.name: s.scores}).get(s.name) or {}
    # the same test as against the kill baseline (cluster-robust interval, clusters, tree seeds): only the baseline changes
    row = subject_kill_row(ctx, s, baseline=other, vs=c, tested_on=f"{s.name} vs {other} (one comparison)")
    row["text"] = f"kill baseline weaker than {other}: not a value barrier; judged against {other}: {row['text']}"
    row["evidence"].update(barrier="fails", judged_against=other, kill_baseline=ctx.p.kill_baseline)
    return row


def bottom_line_parts(v: dict[str, Any]) -> list[str]:
    """What the field adds to a bottom line: a failed barrier and the subject against the best system."""
    parts = []
    b = ((v.get("field") or {}).get("barrier") or {})
    if b.get("status") == "fails":
        parts.append(f"kill baseline weaker than {b['judge_against']}: not a value barrier (kill criterion judged "
                     f"against {b['judge_against']})")
    line = (v.get("vs_best") or {}).get("line")
    if line:
        parts.append(line)
    return parts


def no_tree(cfg: Any) -> list[str]:
    """Systems of a tree type switched flat (HCR's cascade with ``flat = true``, A1: the type's
    ``Traits.flat_param``): baselines, not routing conditions."""
    return [s.name for s in cfg.systems if traits(s.type).tree and not traits(s.type).runs_tree(s.params)]


def with_cross_encoder(text: str, model: str) -> str:
    """The rendered quickstart config with cross-encoder weights configured (``--cross-encoder PATH``): every tree
    system that reranks (HCR) reranks with them, the kill baseline (a reranking stage using MaxSim) is switched to
    the cross-encoder with them (the same reranker HCR uses), and ``<kill baseline>-maxsim`` (the MaxSim pipeline
    at the same depth) is reported beside it. The config is parsed, each changed system's ``params`` re-rendered
    from the parsed values (the parameters its type declares: :class:`hcrbench.retrieve.Traits`); every other
    line, comments included, is kept as written."""
    import tomllib

    from hcrbench.errors import InputError

    if not model.strip():
        raise InputError("give the cross-encoder's folder or name", field="--cross-encoder")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:  # e.g. a tuned parameter a system also sets
        raise InputError(f"cannot configure the cross-encoder: the rendered config is not valid TOML ({e})",
                         field="--cross-encoder") from None
    systems = doc.get("systems", [])
    kill = (doc.get("protocol") or {}).get("kill_baseline")
    head, *blocks = text.split("[[systems]]\n")
    if len(blocks) != len(systems):  # a [[systems]] inside a string or a comment: no block to re-render
        raise InputError("cannot configure the cross-encoder: the config's [[systems]] headers do not match its "
                         "systems", field="--cross-encoder")
    out = [head]
    for block, system in zip(blocks, systems):
        t, params = traits(system.get("type")), dict(system.get("params") or {})
        if t.reranker_param is None or t.reranker_model_param is None:
            out.append(block)
            continue
        key, default = t.reranker_param
        if t.tree:
            out.append(_with_params(block, {key: "cross-encoder", t.reranker_model_param: model, **params}))
        elif system.get("name") == kill and t.stage == "rerank" and params.get(key, default) == "maxsim":
            rest = block.split("\n", 1)[1]
            twin = f'name = "{kill}-maxsim"                     # MaxSim beside the cross-encoder kill baseline\n'
            switched = {k: v for k0, v0 in params.items()
                        for k, v in ([(key, "cross-encoder"), (t.reranker_model_param, model)] if k0 == key
                                     else [(k0, v0)])}
            out += [_with_params(block, switched if key in params else {key: "cross-encoder",
                                                                        t.reranker_model_param: model, **params}),
                    twin + rest]
        else:
            out.append(block)
    return "[[systems]]\n".join(out)


def _with_params(block: str, params: dict[str, Any]) -> str:
    """One ``[[systems]]`` block's text with its ``params`` line rendered from ``params`` (added after ``type``
    when it has none)."""
    from hcrbench.protocol.tuning import toml_value

    lines = block.split("\n")
    line = f"params = {toml_value(params)}"
    at = next((i for i, ln in enumerate(lines) if ln.split("=", 1)[0].strip() == "params"), None)
    if at is not None:
        lines[at] = line
    else:
        at = next((i for i, ln in enumerate(lines) if ln.split("=", 1)[0].strip() == "type"), 0)
        lines.insert(at + 1, line)
    return "\n".join(lines)
