"""``hcrbench run CONFIG``: run (or resume) an experiment described by a TOML file."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from hcrbench.commands import _failon

#: Re-running the same command resumes: finished systems are reused (see hcrbench.experiment.runner).
RESUMABLE = {"run"}


def run_command(
    config: Path = typer.Argument(..., help="Experiment TOML (see docs/experiments.md)."),
    force_test: bool = typer.Option(False, "--force-test",
                                    help="Score a locked test split again (the scoring is recorded)."),
    only: list[str] = typer.Option([], "--only",
                                   help="Compute only this system (repeatable); others are reused if up to date."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress output."),
    force: bool = typer.Option(False, "--force",
                               help="Write into an output folder that holds another experiment's results "
                                    "(they are replaced)."),
    engine: str | None = typer.Option(None, "--engine", metavar="local|ray",
                                      help="Where the cells run (overrides the \\[execution] engine; "
                                           "docs/scale.md)."),
    address: str | None = typer.Option(None, "--address", metavar="HOST:PORT",
                                       help="Ray cluster to run on (implies --engine ray; overrides "
                                            "the \\[execution] address; unset: start a local Ray on 127.0.0.1)."),
    fail_fast: bool | None = typer.Option(None, "--fail-fast/--no-fail-fast",
                                          help="Stop at the first protocol checkpoint that says stop and "
                                               "diagnose (default: the config's protocol.fail_fast)."),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="LEVEL", help=_failon.HELP),
) -> None:
    """Run every system of an experiment, score them and write the output folder (resumable)."""

    from rich.console import Console

    from hcrbench.cli import flush_warnings
    from hcrbench.experiment import run_experiment
    from hcrbench.protocol.verdicts import hooks as protocol_hooks
    from hcrbench.report.evaluation import print_evaluation, strata_table
    from hcrbench.report.terminal import width

    level = _failon.check_level(fail_on)
    err = Console(stderr=True, highlight=False)
    # Warnings go to stderr once each, above the tables (hcrbench.cli).
    from hcrbench.experiment.relock import read_lock, relock

    lock_before = read_lock(_output_dir(config))
    result = run_experiment(config, force_test=force_test, only=list(only) or None, progress=not quiet,
                            force=force, execution=execution_of(config, engine, address), fail_fast=fail_fast,
                            protocol=protocol_hooks(), report_follows=True)
    flush_warnings()  # above the tables
    console = Console(highlight=False, width=width())
    print_evaluation(result.evaluation, result.comparisons, console=console)
    from hcrbench.data.per_query import read_per_query

    strata = [s for s in result.manifest.get("config", {}).get("strata", []) or []]
    frame = read_per_query(result.output_dir, list(result.evaluation.metrics)) if strata else None
    if frame is not None:
        metric = result.evaluation.metrics[0]
        for field in strata:
            if field in frame.columns and frame[field].notna().any():
                console.print(strata_table(frame, metric, field))
    if result.sufficiency is not None:
        from hcrbench.report.curves import bottom_lines, sufficiency_table, write_curves

        files = write_curves(result.sufficiency, result.output_dir / "curves")
        console.print(sufficiency_table(result.sufficiency))
        for line in bottom_lines(result.sufficiency):
            console.print(escape(line))
        if files:
            console.print(escape("curves: " + ", ".join(str(result.output_dir / f) for f in files.values())))
    if result.gate is not None:
        from hcrbench.experiment.gate_step import gate_bottom_line

        console.print(escape(gate_bottom_line(result.gate)))
    if result.verdicts is not None:
        from hcrbench.commands.quickstart import print_cost
        from hcrbench.report.verdicts import print_protocol

        print_cost(console, result.output_dir, result.manifest, result.verdicts)  # ms per query: the manifest's
        print_protocol(console, result.verdicts)
    report = None
    if result.gate is not None or result.verdicts is not None:  # a protocol run: the report beside the results
        from hcrbench.experiment.manifest import mark_complete
        from hcrbench.report.document import make_report

        report = make_report(result.output_dir)
        result.manifest = mark_complete(result.output_dir) or result.manifest  # "complete": the report is written
        console.print(escape(f"report: {report.paths['html']}"))
        next_step = f"open {result.output_dir / 'report.html'}"
    else:
        next_step = f"hcrbench report {result.output_dir} for the full report"
    from hcrbench.report.console import print_tree_tables

    line = print_tree_tables(console, result.output_dir, report)
    console.print(f"[bold]bottom line:[/bold] {escape(f'{line}; next: {next_step}')}", soft_wrap=True)
    relocked = relock(result.output_dir, lock_before)
    if relocked:
        err.print(escape(relocked), soft_wrap=True)
    err.print(f"computed {len(result.computed)}, reused {len(result.reused)}"
              + (f", skipped {len(result.skipped)}" if result.skipped else "")
              + escape(f"; wrote {result.output_dir}"), soft_wrap=True)
    line = _failon.fails(result.verdicts, level)
    if line:
        err.print(line, soft_wrap=True)
        raise typer.Exit(1)


def _output_dir(config: Path) -> Path:
    """Where the experiment of ``config`` writes (read before the run, for its lock); the config's own errors are
    left to the run, which reports them."""
    try:
        from hcrbench.experiment import load_config
        from hcrbench.experiment.runner import output_dir_of

        cfg, _ = load_config(config)
        return output_dir_of(cfg, Path(config))
    except Exception:  # a bad config: the run says why, one line
        return Path(config).parent / ".no-output-dir"


def execution_of(config: Path, engine: str | None, address: str | None):
    """The config's ``[execution]`` table with ``--engine`` / ``--address`` applied; None when neither is given."""
    if engine is None and address is None:
        return None
    from hcrbench.errors import InputError
    from hcrbench.experiment import load_config
    from hcrbench.experiment.config import did_you_mean
    from hcrbench.experiment.execution import ENGINES

    if engine is not None and engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r} (expected: {', '.join(ENGINES)}){did_you_mean(engine, ENGINES)}",
                         field="--engine")
    if address is not None and not address.strip():
        raise InputError("must not be empty (leave it out to start a local Ray)", field="--address")
    cfg, _ = load_config(config)
    if engine is None:  # an address means a Ray cluster
        engine = "ray"
    return cfg.execution.with_overrides(engine=engine, address=address)


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)
