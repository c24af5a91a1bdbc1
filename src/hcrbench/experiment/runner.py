"""``hcrbench run CONFIG``: run every system of an experiment, score them, write one output folder.

Output folder (``output_dir`` of the config)::

    config.toml          verbatim copy of the config
    manifest.json        config, dataset hashes, per-system params/costs/timings, versions, git commit; "stages":
                         wall and CPU seconds per stage (load, system:<name>, scoring, gate+tree+verdicts)
    runs/<NAME>.trec     one TREC run per system
    eval.json            the ``hcrbench evaluate --json`` document (means, per-query, ledger, comparisons)
    per_query.csv        run, query_id, one column per metric, plus query strata (e.g. category); also
                         per_query.parquet when pyarrow is installed (hcrbench.data.per_query)
    logs/                routing log + tree of every tree retriever (hcr), as ``hcrbench retrieve`` writes them
    gate.json            with a [gate] table: the four-null gate, controls, verdicts vs the baseline (gate_step)
    tree_metrics.json    for systems with a routing log: the ``hcrbench tree-metrics --json`` document (tree_step)
    verdicts.json        with a [protocol] table: checkpoints and hypothesis verdicts (protocol)

Every paired comparison uses the config's declared Holm family (default: every system vs the baseline, per
metric, as ``hcrbench gate --baseline``), stated as ``"family"`` in eval.json, gate.json and verdicts.json.

Resume: a system whose run file exists, whose fingerprint (type, params, chunking, k, seed, dataset content)
matches its manifest entry and whose run file still has the recorded SHA-256 is loaded, not recomputed. The
manifest is rewritten after each finished system, and every file is written atomically, so an interrupted run
loses at most the system it was computing.

Engines: the systems to compute are cells handed to the engine of ``[execution]`` (``hcrbench run --engine``):
local (default, in this process) or Ray tasks (:mod:`hcrbench.experiment.engine`); either way the run files and
the manifest are written here, in the driver, as each cell finishes, so results are the same on both.

Ownership (:mod:`hcrbench.experiment.claim`): a folder that holds another experiment's results (another name, or
another config file with other contents) or files that are not hcrbench's is refused unless ``force=True``
(``hcrbench run --force``, which never deletes a file hcrbench did not write); editing and re-running the same
config file is the resume above. One run at a time per folder: a second one stops with one line naming the first.
At most one missing parent folder is created.
"""

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
from hcrbench.data.hashing import sha256_file
from hcrbench.data.outputs import releasing
from hcrbench.data.per_query import write_per_query
from hcrbench.data.trec import read_run, write_run
from hcrbench.data.types import Run
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.experiment.cell import Cell, CellInputError, CellOutput
from hcrbench.experiment.claim import (
    check_output_dir,
    claim_output_dir,
    derived_state,
    drop_reports,
    drop_stale_results,
)
from hcrbench.experiment.config import ExperimentConfig, SystemConfig, check_strata, load_config, locate
from hcrbench.experiment.cost import COST_TIMING, cost_table
from hcrbench.experiment.dataset import ExperimentData, load_data
from hcrbench.experiment.engine import make_engine
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
from hcrbench.experiment.progress import POST_STEPS, StageClock, current_job, with_job_progress
from hcrbench.experiment.reads import batches, fingerprint_with_reads, reads_entry, reads_of, resolved
from hcrbench.experiment.seeds import seed_aggregation
from hcrbench.experiment.steps import ProtocolHooks, after_scoring
from hcrbench.experiment.tree_step import log_rel
from hcrbench.retrieve.system_traits import traits


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


def system_fingerprint(system: SystemConfig, cfg: ExperimentConfig, data_key: str) -> str:
    """What decides a system's run: if any of it changes, the run is recomputed."""
    return sha256_json({
        "type": system.type,
        "params": system.params,
        "chunking": system.chunking.model_dump() if system.chunking else None,
        "k": cfg.k,
        "seed": cfg.seed,
        "dataset": data_key,
        **({"system_seed": system.seed} if system.seed is not None else {}),
        **({"policy": system.policy} if system.policy is not None else {}),  # absent: old fingerprints hold
        **_code_version(system.type),
        **_input_file(system),
        **_summarizer_identity(system),
    })


def _input_file(system: SystemConfig) -> dict[str, Any]:
    """A replayed run (``runfile``: ``path``, or ``paths`` per split) is its file: a changed file is a changed
    input (absent for other systems)."""
    replay = traits(system.type).stage == "replay"
    path = system.params.get("path") if replay else None
    paths = system.params.get("paths") if replay else None
    if isinstance(paths, dict):  # one file per split: each file is an input
        return {"input_sha256": {s: sha256_file(p) for s, p in sorted(paths.items())
                                 if isinstance(p, str) and Path(p).expanduser().is_file()}}
    return {"input_sha256": sha256_file(path)} if isinstance(path, str) and Path(path).is_file() else {}


def _summarizer_identity(system: SystemConfig) -> dict[str, Any]:
    """A tree system summarised by an LLM: the served model and prompt version (absent for the extractive one)."""
    if not traits(system.type).tree:  # only trees summarise (their nodes)
        return {}
    from hcrbench.retrieve.summarize_llm import summarizer_fingerprint

    try:
        return summarizer_fingerprint(system.params)
    except InputError as e:  # name the system: the config may have several tree systems
        raise InputError(f"system {system.name!r}: {e.problem}", field=e.field) from None


def _code_version(kind: str) -> dict[str, Any]:
    """Fixes to a system's own code that change its runs, as its type declares them (absent at version 1: old
    fingerprints hold)."""
    return traits(kind).fingerprint()


def _checkpoint(out: Path, cfg: ExperimentConfig, manifest: dict[str, Any], old_systems: dict[str, Any]) -> None:
    """Write the manifest with the systems done so far, and the old entries of those not done yet (resume)."""
    done = manifest["systems"]
    systems = {s.name: done.get(s.name, old_systems.get(s.name)) for s in cfg.systems
               if s.name in done or s.name in old_systems}
    write_manifest(out, {**manifest, "systems": systems})


def _reusable(entry: dict[str, Any] | None, fingerprint: str, run_path: Path) -> bool:
    return bool(
        entry
        and entry.get("fingerprint") == fingerprint
        and run_path.is_file()
        and entry.get("run_sha256") == sha256_file(run_path)
    )


def _per_query_frame(evaluation: Any, data: ExperimentData, strata: list[str]):
    df = evaluation.per_query.reset_index(drop=True)
    for key in strata:
        if any(key in data.queries.meta(q) for q in data.queries.query_ids):
            values = {q: data.queries.meta(q).get(key) for q in data.queries.query_ids}
            df[key] = [None if values.get(q) is None else str(values.get(q)) for q in df["query_id"]]
    return df


def _load_run(path: Path, name: str) -> Run:
    """A run file written by :func:`run_system`'s caller; a system that retrieved nothing wrote an empty file."""
    if path.stat().st_size == 0:
        return Run.from_dict({}, name=name)
    return read_run(path, name=name)


@releasing  # the output folder's lock (claim_output_dir) is released however this returns
@lock.withdrawing  # a look claimed at a locked split is withdrawn when the run fails before scoring
@with_job_progress  # one progress line for the whole job (experiment.progress), shared with an outer job
def run_experiment(config_path: str | Path, *, force_test: bool = False, only: list[str] | None = None,
                   progress: bool = True, force: bool = False,
                   execution: ExecutionConfig | None = None, fail_fast: bool | None = None,
                   protocol: ProtocolHooks | None = None, report_follows: bool = False) -> ExperimentResult:
    """Run (or resume) the experiment described by the TOML at ``config_path``; see the module docstring.

    ``report_follows``: the caller writes the report of a gated or judged run after this returns; the manifest
    then says ``"reporting"`` until the caller's :func:`~hcrbench.experiment.manifest.mark_complete`, so a run
    stopped while its report is written is not "complete" (``lock`` refuses it, ``verify`` flags it).

    ``force`` takes over an output folder that holds another experiment's results (see the module docstring).
    ``execution`` replaces the config's ``[execution]`` table (``hcrbench run --engine/--address``): which
    engine runs the cells that must be computed (:mod:`hcrbench.experiment.engine`).
    ``fail_fast`` (default: the config's ``protocol.fail_fast``) stops running systems at the first protocol
    checkpoint that says stop and diagnose (:mod:`hcrbench.protocol`); what ran is still scored.
    ``protocol``: the protocol stage's hooks (:mod:`hcrbench.experiment.steps`); without them a ``[protocol]``
    table is not judged.
    """
    from rich.console import Console

    from hcrbench.experiment.memo import take_reused
    from hcrbench.metrics import evaluate
    from hcrbench.stats import compare, evaluation_json
    from hcrbench.stats.compare import family_text

    config_path = Path(config_path)
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
    mark = clock.since("load", mark)
    check_strata(cfg, {k for q in data.queries.query_ids for k in data.queries.meta(q)}, config_path, text)
    cfg = chunk_runfiles(cfg, data)  # a runfile of context-chunk ids delivers those chunks (docs/context.md)
    check_run_ids(list(cfg.systems), data, config_path, text,  # a runfile's ids per split, before any work
                  subject=cfg.protocol.system if cfg.protocol is not None else None)
    console.print(f"[bold]{escape(cfg.name)}[/bold]: {len(data.corpus)} documents, {len(data.queries)} queries "
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
                    "n_documents": len(data.corpus), "n_queries": len(data.queries),
                    "n_judged_queries": len(data.qrels.query_ids)},
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
    computed: list[str] = []
    reused: list[str] = []
    skipped: list[str] = []
    runs: dict[str, Run] = {}
    cells, tags = [], {}
    stopped: str | None = None
    watch = None
    if cfg.protocol is not None and protocol is not None and (cfg.protocol.fail_fast if fail_fast is None
                                                              else fail_fast):
        watch = protocol.watch(cfg, data, out)
    fps: dict[str, str] = {}  # a reader's fingerprint folds in the one of the system it reads (experiment.reads)
    sources: dict[str, str] = {}
    for i, system in enumerate(cfg.systems, start=1):
        src = reads_of(system, [s.name for s in cfg.systems[: i - 1]])
        fp = fps[system.name] = fingerprint_with_reads(system_fingerprint(system, cfg, data.key), src, fps)
        if src is not None:
            sources[system.name], system = src, resolved(system, src, out)
        rel = f"runs/{system.name}.trec"
        prev = old_systems.get(system.name)
        tags[system.name] = tag = escape(f"[{i}/{len(cfg.systems)}] {system.name}")
        if _reusable(prev, fp, out / rel):
            runs[system.name] = _load_run(out / rel, system.name)
            manifest["systems"][system.name] = prev
            reused.append(system.name)
            console.print(f"{tag}: up to date (reused {rel})")
            if job:
                job.advance()
        elif only and system.name not in only:
            skipped.append(system.name)
            console.print(f"{tag}: [yellow]skipped[/yellow] (not in --only and no up-to-date run)")
            if job:
                job.advance()
        else:
            cells.append(Cell(i - 1, system, cfg.k, cfg.seed if system.seed is None else system.seed, fp,
                              log_path=str((out / log_rel(system.name)).resolve())))
    if cells:
        engine = make_engine(execution or cfg.execution, console)  # first: a bad engine or address changes nothing
        drop_stale_results(out)  # scores and reports on disk are stale from here on
        _checkpoint(out, cfg, manifest, old_systems)
        if job:
            job.begin(cells[0].name)
        mark = clock.mark()

        def on_done(cell: Cell, output: CellOutput) -> None:
            """Commit one finished cell (in the driver): its run file atomically, then the manifest."""
            rel = f"runs/{cell.name}.trec"
            write_run(output.run, out / rel, tag=cell.name)
            # Score what the file holds (empty rankings are not in it), so a resumed run scores the same object.
            runs[cell.name] = _load_run(out / rel, cell.name)
            entry = {"run": rel, **output.entry, "fingerprint": cell.fingerprint,
                     "run_sha256": sha256_file(out / rel), "execution": output.where,
                     **({"reads": reads_entry(sources[cell.name], out)} if cell.name in sources else {})}
            manifest["systems"][cell.name] = entry
            _checkpoint(out, cfg, manifest, old_systems)  # systems not reached yet keep their old entries
            computed.append(cell.name)
            where = f" on {output.where['hostname']}" if engine.name != "local" else ""
            again = f", attempt {output.where['attempts']}" if output.where.get("attempts", 1) > 1 else ""
            console.print(f"{tags[cell.name]}: done in {entry['seconds']:.2f}s{where}{again}")
            nonlocal mark
            mark = clock.since(f"system:{cell.name}", mark)  # local engine: this cell's time (Ray: the wait)
            if job:
                job.advance()
                left = [c.name for c in cells if c.name not in runs]
                if left:
                    job.begin(left[0])

        try:
            # With --fail-fast the cells go one at a time, in config order, each after the checkpoints.
            for batch in ([c] for c in cells) if watch is not None else batches(cells, sources):
                if watch is not None and runs:
                    stopped = watch.check(runs)
                    if stopped is not None:
                        console.print(f"[red]--fail-fast:[/red] {escape(stopped)}; not running the remaining "
                                      "systems")
                        skipped.extend(c.name for c in cells if c.name not in runs)
                        if job:
                            job.advance(sum(c.name not in runs for c in cells))
                        break
                engine.run(batch, data, on_done, tags)
        except CellInputError as e:
            if e.error.path is not None:
                raise e.error from None
            key = {"system": "type", "param": "params"}.get(e.error.field or "", e.error.field or "type")
            raise InputError(e.error.problem, path=config_path, line=locate(text, ("systems", e.cell.index, key)),
                             field=f"systems[{e.cell.index}].{key}") from None
        finally:
            engine.close()
    order = [s.name for s in cfg.systems]
    runs = {n: runs[n] for n in order if n in runs}
    computed.sort(key=order.index)
    manifest["systems"] = {n: manifest["systems"][n] for n in order if n in manifest["systems"]}

    if not runs:
        raise InputError("no system has a run to score", field="--only")
    baseline = cfg.baseline_name
    if baseline not in runs:
        warnings.warn(f"baseline {baseline!r} has no run yet; comparing against {next(iter(runs))!r}",
                      HcrbenchWarning, stacklevel=2)
        baseline = next(iter(runs))
    t_eval, mark = time.perf_counter(), clock.mark()
    if job:
        job.reserve(POST_STEPS)
        job.begin(f"{cfg.name}: scoring {len(runs)} runs" + (" and context" if cfg.budgets else ""))
    take_reused(out)  # from here on: this run's steps only
    lock.scoring_started(data.key)
    evaluation = evaluate(data.qrels, runs, list(cfg.metrics), rel_threshold=cfg.rel_threshold, missing="zero")
    comparisons = compare(evaluation, baseline=baseline, n_resamples=cfg.n_resamples, seed=cfg.seed,
                          family=cfg.family) \
        if len(runs) > 1 else []
    doc = evaluation_json(evaluation, comparisons)
    doc["family"] = family_text(cfg.family, baseline)
    doc.update(seed_aggregation(evaluation, cfg, baseline))
    sufficiency = None
    if cfg.budgets:
        from hcrbench.experiment.context_step import context_step

        console.print(f"context: selecting ({cfg.selection}) under budgets {cfg.budgets} + unconstrained...")
        sufficiency, ctx_timings = context_step(cfg, data, runs, baseline, out, config_path, text)
        doc["sufficiency"] = sufficiency
        manifest["timings"].update(ctx_timings)
    doc["cost"] = cost_table(manifest["systems"], runs, sufficiency)  # per query, every system (experiment.cost)
    doc["cost_timing"] = COST_TIMING  # ms_per_query is null in eval.json: the figures are in the manifest
    atomic_write_text(out / "eval.json", json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    frame = _per_query_frame(evaluation, data, cfg.strata)
    write_per_query(frame, out)
    manifest["timings"]["eval_seconds"] = round(time.perf_counter() - t_eval, 3)
    if stopped is None and watch is not None:
        stopped = watch.check(runs)  # the last system's checkpoints
    mark = clock.since("scoring", mark)
    if job:
        job.advance()
        job.begin(f"{cfg.name}: gate, tree metrics, checkpoints")
    data.new_look = bool(computed) or not old_systems  # every system reused as it was: the same look again
    steps = after_scoring(cfg, data, runs, evaluation, doc, baseline, out, console, stopped=stopped,
                          hooks=protocol)
    manifest["timings"].update(steps.pop("timings"))
    clock.since("gate+tree+verdicts", mark)
    manifest["memo"] = {"reused": list(dict.fromkeys(take_reused(out)))}  # inputs all unchanged (experiment.memo)
    if manifest["memo"]["reused"]:
        console.print(f"reused from {out / 'memo'} (nothing they read changed): "
                      f"{', '.join(manifest['memo']['reused'])}")
    manifest["stages"] = clock.stages  # stage -> {"wall_s", "cpu_s"} (experiment.progress.StageClock)
    if job:
        job.advance()
    if stopped is not None:
        manifest["stopped"] = stopped
    manifest["status"] = "complete" if not skipped else "partial"
    if report_follows and not skipped and (steps.get("gate") is not None or steps.get("verdicts") is not None):
        manifest["status"] = REPORTING
    manifest["scored_systems"] = list(runs)
    write_manifest(out, manifest)
    if derived_state(out) != derived_before:  # scores, gate or verdicts moved: a report left here is stale
        drop_reports(out)
    if locked:  # the look claimed before any work: confirmed, or withdrawn when every score was reused
        lock.finish_look(data.key, new_look=data.new_look, systems=list(runs))
    return ExperimentResult(out, manifest, evaluation, comparisons, computed, reused, skipped, sufficiency,
                            stopped=stopped, **steps)
