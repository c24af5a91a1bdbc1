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

:func:`run_experiment` is the list of its stages (:mod:`hcrbench.experiment.stages`,
:mod:`hcrbench.experiment.execute_stage`): plan, execute, score, context, save the scores, gate, protocol, report.
"""

from __future__ import annotations

from pathlib import Path

from hcrbench.data import splitlock as lock
from hcrbench.data.outputs import releasing
from hcrbench.experiment import stages
from hcrbench.experiment.execute_stage import execute
from hcrbench.experiment.execution import ExecutionConfig
from hcrbench.experiment.fingerprint import system_fingerprint
from hcrbench.experiment.progress import with_job_progress
from hcrbench.experiment.stages import ExperimentResult, output_dir_of
from hcrbench.experiment.steps import ProtocolHooks
from hcrbench.retrieve.runtime import one_blas_thread_per_process

__all__ = ["ExperimentResult", "output_dir_of", "run_experiment", "system_fingerprint"]


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
    plan = stages.plan(Path(config_path), only=only, progress=progress, force=force, force_test=force_test,
                       execution=execution)
    ex = plan.execution or plan.cfg.execution
    with one_blas_thread_per_process(ex.engine == "local" and ex.workers != 1):  # cores shared by processes
        return _run(plan, fail_fast, protocol, report_follows)


def _run(plan: stages.Plan, fail_fast: bool | None, protocol: ProtocolHooks | None,
         report_follows: bool) -> ExperimentResult:
    pre = (protocol.prefetch(plan.cfg, plan.data, plan.out)
           if protocol is not None and protocol.prefetch is not None and plan.cfg.protocol is not None else None)
    try:
        ran = execute(plan, fail_fast=fail_fast, protocol=protocol)
        scores = stages.score(plan, ran)
        stages.context(plan, ran, scores)
        stages.save_scores(plan, ran, scores)
        steps = stages.gate(plan, ran, scores)
        if pre is not None:  # the judge reads what it computed
            pre.join()
        steps["verdicts"] = stages.protocol(plan, ran, scores, steps["tree_metrics"], protocol)
    finally:
        if pre is not None:
            pre.stop()
    return stages.report(plan, ran, scores, steps, report_follows=report_follows)
