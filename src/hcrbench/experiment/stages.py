"""The stages of :func:`hcrbench.experiment.runner.run_experiment`, in order: :func:`plan` (read and check the
config, load the data, claim the folder, start the manifest), :func:`~hcrbench.experiment.execute_stage.execute` (compute or reuse each system's run),
:func:`score` (evaluate and compare), :func:`context` (contexts under budgets), :func:`save_scores` (eval.json,
per-query tables), :func:`gate` (gate and tree metrics), :func:`protocol` (verdicts) and :func:`report` (the
manifest's last word, stale reports dropped, the split's look settled). Each takes what the stages before it made,
as the typed records below, so what a stage may read is visible in its signature."""

from __future__ import annotations

import json
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.markup import escape

from hcrbench.data import splitlock as lock
from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.per_query import write_per_query
from hcrbench.data.trec import read_run
from hcrbench.data.types import Run
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.experiment.claim import (
    check_output_dir,
    claim_output_dir,
    derived_state,
    drop_reports,
)
from hcrbench.experiment.config import ExperimentConfig, check_strata, load_config, locate
from hcrbench.experiment.cost import COST_TIMING, cost_table
from hcrbench.experiment.dataset import ExperimentData, load_data
from hcrbench.experiment.execution import ExecutionConfig
from hcrbench.experiment.manifest import (
    REPORTING,
    git_commit,
    hcrbench_commit,
    package_versions,
    sha256_json,
    write_manifest,
)
from hcrbench.experiment.precheck import check_run_ids, check_systems, chunk_runfiles
from hcrbench.experiment.progress import POST_STEPS, StageClock, current_job
from hcrbench.experiment.seeds import seed_aggregation
from hcrbench.experiment.steps import ProtocolHooks, gate_stage, protocol_stage


@dataclass
class ExperimentResult:
    """What :func:`run_experiment` did: where it wrote, which systems it computed or reused, the scores."""

    output_dir: Path
    manifest: dict[str, Any]
    evaluation: Any
    comparisons: list[Any]
    computed: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    sufficiency: dict[str, Any] | None = None  # eval.json's "sufficiency" (when the config sets budgets)
    gate: dict[str, Any] | None = None  # gate.json (when the config has a [gate] table)
    tree_metrics: dict[str, Any] | None = None  # tree_metrics.json (when a tree system wrote a routing log)
    verdicts: dict[str, Any] | None = None  # verdicts.json (when the config has a [protocol] table)
    stopped: str | None = None  # why --fail-fast stopped before every system ran


@dataclass
class Plan:
    """What :func:`plan` settled before any system runs: the checked config, the loaded data, the claimed output
    folder, the manifest being written, and the job's console, progress line and stage clock."""

    config_path: Path
    cfg: ExperimentConfig
    text: str
    out: Path
    data: ExperimentData
    manifest: dict[str, Any]
    old_systems: dict[str, Any]
    locked: bool
    derived_before: Any
    execution: ExecutionConfig | None
    only: list[str] | None
    console: Any
    job: Any
    clock: StageClock
    mark: Any = None  # the stage clock's last mark (StageClock.mark / since)


@dataclass
class Execution:
    """What :func:`execute` left: every system's run (computed now or reused), in config order, and why it
    stopped early (``--fail-fast``)."""

    runs: dict[str, Run] = field(default_factory=dict)
    computed: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    stopped: str | None = None
    watch: Any = None


@dataclass
class Scores:
    """What :func:`score` computed: the evaluation, the comparisons against ``baseline`` and eval.json's
    document (completed by :func:`context` and :func:`save_scores`)."""

    baseline: str
    evaluation: Any
    comparisons: list[Any]
    doc: dict[str, Any]
    started: float  # perf_counter at the start of scoring (the manifest's eval_seconds)
    sufficiency: dict[str, Any] | None = None


def output_dir_of(cfg: ExperimentConfig, config_path: Path) -> Path:
    """The experiment's output folder: ``output_dir`` relative to the config file (default ``runs/<name>``)."""
    out = Path(cfg.output_dir or f"runs/{cfg.name}").expanduser()
    return Path(os.path.normpath(out if out.is_absolute() else config_path.parent / out))


def _path_from(out: Path, root: Path) -> dict[str, str]:
    """``{"path_from_output": ...}``: the dataset folder relative to the output folder, so a locked folder moved
    together with its dataset (or holding it) still finds it (:func:`hcrbench.gate.integrity.dataset_dir`)."""
    try:
        return {"path_from_output": Path(os.path.relpath(Path(root).resolve(), Path(out).resolve())).as_posix()}
    except ValueError:  # another drive: no relative path
        return {}


def commit_manifest(out: Path, cfg: ExperimentConfig, manifest: dict[str, Any], old_systems: dict[str, Any]) -> None:
    """Write the manifest with the systems done so far, and the old entries of those not done yet (resume)."""
    done = manifest["systems"]
    systems = {s.name: done.get(s.name, old_systems.get(s.name)) for s in cfg.systems
               if s.name in done or s.name in old_systems}
    write_manifest(out, {**manifest, "systems": systems})


def _per_query_frame(evaluation: Any, data: ExperimentData, strata: list[str]):
    df = evaluation.per_query.reset_index(drop=True)
    for key in strata:
        if any(key in data.queries.meta(q) for q in data.queries.query_ids):
            values = {q: data.queries.meta(q).get(key) for q in data.queries.query_ids}
            df[key] = [None if values.get(q) is None else str(values.get(q)) for q in df["query_id"]]
    return df


def load_run(path: Path, name: str) -> Run:
    """A run file written by :func:`run_system`'s caller; a system that retrieved nothing wrote an empty file."""
    if path.stat().st_size == 0:
        return Run.from_dict({}, name=name)
    return read_run(path, name=name)


def plan(config_path: Path, *, only: list[str] | None, progress: bool, force: bool, force_test: bool,
         execution: ExecutionConfig | None) -> Plan:
    """Read and check the config and every system, load and check the data, claim the look at a locked split
    and the output folder, and start the manifest: every mistake is named before any work."""
    from rich.console import Console

    cfg, text = load_config(config_path)
    job, clock = current_job(), StageClock()
    console = Console(file=job.stream(), quiet=not progress, highlight=False) if job and job.live \
        else Console(stderr=True, quiet=not progress, highlight=False)
    names = [s.name for s in cfg.systems]
    for n in only or []:
        if n not in names:
            raise InputError(f"no system named {n!r} (systems: {', '.join(names)})", field="--only")
    out = output_dir_of(cfg, config_path)
    if out.exists() and not out.is_dir():
        raise InputError(f"output path exists and is not a folder: {out}", path=config_path,
                         line=locate(text, ("output_dir",)), field="output_dir")
    check_output_dir(out, cfg, config_path, text, force=force)  # refuse a folder not ours before the slow work
    check_systems(list(cfg.systems), config_path, text)  # every system's type and parameters, before any work

    t_load, mark = time.perf_counter(), clock.mark()
    if job:
        job.reserve(len(cfg.systems) + POST_STEPS)
        job.begin(f"{cfg.name}: loading the data")
    data = load_data(cfg.dataset, config_path.parent, config_path, text)
    load_seconds = time.perf_counter() - t_load
    clock.since("load", mark)
    check_strata(cfg, {k for q in data.queries.query_ids for k in data.queries.meta(q)}, config_path, text)
    cfg = chunk_runfiles(cfg, data)  # a runfile of context-chunk ids delivers those chunks (docs/context.md)
    check_run_ids(list(cfg.systems), data, config_path, text,  # a runfile's ids per split, before any work
                  subject=cfg.protocol.system if cfg.protocol is not None else None)
    ws = data.worlds
    docs = (f"{len(ws)} world{'s' if len(ws) > 1 else ''} ({', '.join(ws)}) of "
            f"{'/'.join(sorted({str(len(c)) for c, _ in ws.values()}))} documents" if ws else
            f"{len(data.corpus)} documents")
    console.print(f"[bold]{escape(cfg.name)}[/bold]: {docs}, {len(data.queries)} queries "
                  f"({escape(cfg.dataset.split)}), {len(cfg.systems)} systems -> {escape(str(out))}")
    locked = cfg.dataset.locked or lock.is_locked(data.key)
    if locked:  # checked and recorded in one locked step, before any work (data.splitlock)
        lock.claim_look(data.key, split=data.split, dataset=str(data.root), files=data.files, experiment=cfg.name,
                        output_dir=out.resolve(), force=force_test, config_path=config_path,
                        line=locate(text, ("dataset", "locked")))

    old = claim_output_dir(out, cfg, config_path, text, force=force)  # creates it, marks it, holds its lock
    derived_before = derived_state(out)
    atomic_write_text(out / "config.toml", text)
    old_systems = old.get("systems") if isinstance(old.get("systems"), dict) else {}
    manifest: dict[str, Any] = {
        "name": cfg.name,
        "status": "partial",
        "config": cfg.model_dump(mode="json"),
        "config_sha256": sha256_json(text),
        "config_path": str(config_path.resolve()),
        "dataset": {"path": str(data.root), **_path_from(out, data.root), "split": data.split,
                    "locked": cfg.dataset.locked, "files": data.files, "key": data.key,
                    "n_documents": len(data.split_corpus()), "n_queries": len(data.queries),
                    "n_judged_queries": len(data.qrels.query_ids),
                    **({"worlds": data.world_info()} if data.worlds else {})},
        "systems": {},
        "metrics": list(cfg.metrics),
        "rel_threshold": cfg.rel_threshold,
        "seed": cfg.seed,
        "k": cfg.k,
        "baseline": cfg.baseline_name,
        "versions": package_versions(),
        "git_commit": git_commit(config_path.parent),
        "hcrbench_commit": hcrbench_commit(),
        "timings": {"load_seconds": round(load_seconds, 3)},
        "execution": (execution or cfg.execution).model_dump(mode="json"),  # the engine this run used
    }
    return Plan(config_path, cfg, text, out, data, manifest, old_systems, locked, derived_before, execution, only,
                console, job, clock)


def score(p: Plan, ex: Execution) -> Scores:
    """Every run scored on the dataset's qrels and compared with the baseline (the config's, else the first run
    when it has none yet) in the config's Holm family: eval.json's document, without the context yet."""
    from hcrbench.experiment.memo import take_reused
    from hcrbench.metrics import evaluate
    from hcrbench.stats import compare, evaluation_json
    from hcrbench.stats.compare import family_text

    cfg, runs = p.cfg, ex.runs
    if not runs:
        raise InputError("no system has a run to score", field="--only")
    baseline = cfg.baseline_name
    if baseline not in runs:
        warnings.warn(f"baseline {baseline!r} has no run yet; comparing against {next(iter(runs))!r}",
                      HcrbenchWarning, stacklevel=3)
        baseline = next(iter(runs))
    started, p.mark = time.perf_counter(), p.clock.mark()
    if p.job:
        p.job.reserve(POST_STEPS)
        p.job.begin(f"{cfg.name}: scoring {len(runs)} runs" + (" and context" if cfg.budgets else ""))
    take_reused(p.out)  # from here on: this run's steps only
    lock.scoring_started(p.data.key)
    evaluation = evaluate(p.data.qrels, runs, list(cfg.metrics), rel_threshold=cfg.rel_threshold, missing="zero")
    comparisons = compare(evaluation, baseline=baseline, n_resamples=cfg.n_resamples, seed=cfg.seed,
                          family=cfg.family) \
        if len(runs) > 1 else []
    doc = evaluation_json(evaluation, comparisons)
    doc["family"] = family_text(cfg.family, baseline)
    doc.update(seed_aggregation(evaluation, cfg, baseline))
    return Scores(baseline, evaluation, comparisons, doc, started)


def context(p: Plan, ex: Execution, s: Scores) -> None:
    """With budgets: every run's contexts selected and judged (:mod:`hcrbench.experiment.context_step`), with
    the protocol's roles handed in; eval.json's ``"sufficiency"``."""
    if not p.cfg.budgets:
        return
    from hcrbench.experiment.context_step import ContextRoles, context_step

    cfg = p.cfg
    p.console.print(f"context: selecting ({cfg.selection}) under budgets {cfg.budgets} + unconstrained...")
    s.sufficiency, ctx_timings = context_step(cfg, p.data, ex.runs, s.baseline, p.out, p.config_path, p.text,
                                              roles=ContextRoles.of(cfg.protocol, s.baseline))
    s.doc["sufficiency"] = s.sufficiency
    p.manifest["timings"].update(ctx_timings)


def save_scores(p: Plan, ex: Execution, s: Scores) -> None:
    """eval.json (with every system's cost per query) and the per-query tables; the last fail-fast check."""
    s.doc["cost"] = cost_table(p.manifest["systems"], ex.runs, s.sufficiency)  # per query (experiment.cost)
    s.doc["cost_timing"] = COST_TIMING  # ms_per_query is null in eval.json: the figures are in the manifest
    atomic_write_text(p.out / "eval.json", json.dumps(s.doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    write_per_query(_per_query_frame(s.evaluation, p.data, p.cfg.strata), p.out)
    p.manifest["timings"]["eval_seconds"] = round(time.perf_counter() - s.started, 3)
    if ex.stopped is None and ex.watch is not None:
        ex.stopped = ex.watch.check(ex.runs)  # the last system's checkpoints
    p.mark = p.clock.since("scoring", p.mark)
    if p.job:
        p.job.advance()
        p.job.begin(f"{p.cfg.name}: gate, tree metrics, checkpoints")


def gate(p: Plan, ex: Execution, s: Scores) -> dict[str, Any]:
    """The gate and the tree metrics (:func:`hcrbench.experiment.steps.gate_stage`)."""
    p.data.new_look = bool(ex.computed) or not p.old_systems  # every system reused as it was: the same look again
    steps = gate_stage(p.cfg, p.data, ex.runs, s.baseline, p.out, p.console)
    p.manifest["timings"].update(steps.pop("timings"))
    return steps


def protocol(p: Plan, ex: Execution, s: Scores, tree: dict[str, Any] | None,
             hooks: ProtocolHooks | None) -> dict[str, Any] | None:
    """The verdicts of a ``[protocol]`` table through the protocol's hooks
    (:func:`hcrbench.experiment.steps.protocol_stage`)."""
    verdicts, timings = protocol_stage(p.cfg, p.data, ex.runs, s.evaluation, s.doc, s.baseline, tree, p.out,
                                       stopped=ex.stopped, hooks=hooks)
    p.manifest["timings"].update(timings)
    p.clock.since("gate+tree+verdicts", p.mark)
    return verdicts


def report(p: Plan, ex: Execution, s: Scores, steps: dict[str, Any], *, report_follows: bool) -> ExperimentResult:
    """The manifest's last word (memo reuse, stage times, status: complete, partial, or reporting when the caller
    writes the report next), reports made stale by moved scores dropped, and the look at a locked split settled."""
    from hcrbench.experiment.memo import take_reused

    manifest, out = p.manifest, p.out
    manifest["memo"] = {"reused": list(dict.fromkeys(take_reused(out)))}  # inputs all unchanged (experiment.memo)
    if manifest["memo"]["reused"]:
        p.console.print(f"reused from {out / 'memo'} (nothing they read changed): "
                        f"{', '.join(manifest['memo']['reused'])}")
    manifest["stages"] = p.clock.stages  # stage -> {"wall_s", "cpu_s"} (experiment.progress.StageClock)
    if p.job:
        p.job.advance()
    if ex.stopped is not None:
        manifest["stopped"] = ex.stopped
    manifest["status"] = "complete" if not ex.skipped else "partial"
    if report_follows and not ex.skipped and (steps.get("gate") is not None or steps.get("verdicts") is not None):
        manifest["status"] = REPORTING
    manifest["scored_systems"] = list(ex.runs)
    write_manifest(out, manifest)
    if derived_state(out) != p.derived_before:  # scores, gate or verdicts moved: a report left here is stale
        drop_reports(out)
    if p.locked:  # the look claimed before any work: confirmed, or withdrawn when every score was reused
        lock.finish_look(p.data.key, new_look=p.data.new_look, systems=list(ex.runs))
    return ExperimentResult(out, manifest, s.evaluation, s.comparisons, ex.computed, ex.reused, ex.skipped,
                            s.sufficiency, stopped=ex.stopped, **steps)
