"""``hcrbench run CONFIG``: run (or resume) an experiment described by a TOML file."""

from __future__ import annotations

from pathlib import Path

import typer


def run_command(
    config: Path = typer.Argument(..., help="Experiment TOML (see docs/experiments.md)."),
    force_test: bool = typer.Option(False, "--force-test",
                                    help="Score a locked test split again (the scoring is recorded)."),
    only: list[str] = typer.Option([], "--only",
                                   help="Compute only this system (repeatable); others are reused if up to date."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress output."),
) -> None:
    """Run every system of an experiment, score them and write the output folder (resumable)."""
    import warnings

    from rich.console import Console
    from rich.table import Table

    from hcrbench.errors import HcrbenchWarning
    from hcrbench.experiment import run_experiment

    err = Console(stderr=True, highlight=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HcrbenchWarning)
        result = run_experiment(config, force_test=force_test, only=list(only) or None, progress=not quiet)
    for w in caught:
        if issubclass(w.category, HcrbenchWarning):
            err.print(f"[yellow]warning:[/yellow] {w.message}")
    means = result.evaluation.means
    metrics = list(result.evaluation.metrics)
    table = Table(title=f"{result.manifest['name']} ({len(result.evaluation.runs)} systems)")
    table.add_column("system")
    for m in metrics:
        table.add_column(m, justify="right")
    for name, row in means.items():
        table.add_row(name, *(f"{row[m]:.4f}" for m in metrics))
    Console(highlight=False).print(table)
    err.print(f"computed {len(result.computed)}, reused {len(result.reused)}"
              + (f", skipped {len(result.skipped)}" if result.skipped else "")
              + f"; wrote {result.output_dir}")


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)
