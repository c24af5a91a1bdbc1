"""``hcrbench check --baseline baseline.json [CONFIG]``: re-run the suite; exit 1 on a regression."""

from __future__ import annotations

from pathlib import Path

import typer


def check_command(
    config: Path | None = typer.Argument(None, help="Experiment TOML to re-run (default: the one the baseline "
                                                    "names)."),
    baseline: Path = typer.Option(..., "--baseline", help="Baseline JSON written by hcrbench freeze."),
    metric: str = typer.Option("nDCG@10", "--metric", help="Metric whose drop fails the check."),
    max_drop: float = typer.Option(0.02, "--max-drop", help="Largest tolerated drop of the metric's mean."),
    smoke: bool = typer.Option(False, "--smoke",
                               help="Insist on the smoke suite (the default is the suite the baseline was frozen "
                                    "from)."),
    reuse: bool = typer.Option(False, "--reuse",
                               help="Resume into the config's own output folder instead of recomputing every "
                                    "system (faster; does not see code changes)."),
    allow_dataset_change: bool = typer.Option(False, "--allow-dataset-change",
                                              help="Compare the common queries when the dataset's files changed "
                                                   "(default: exit 2)."),
    json_path: Path | None = typer.Option(None, "--json", help="Write the check result as JSON here."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress output."),
) -> None:
    """Re-run the configured suite and compare it with a frozen baseline (exit 1 on a regression)."""
    import json

    from rich.console import Console

    from hcrbench.cli import flush_warnings
    from hcrbench.data.atomic import atomic_write_text
    from hcrbench.data.outputs import ensure_parent
    from hcrbench.experiment.check import check
    from hcrbench.report.check import check_table
    from hcrbench.report.terminal import width

    if json_path is not None:
        ensure_parent(json_path, field="--json")
    result = check(baseline, config, metric=metric, max_drop=max_drop, smoke=True if smoke else None, reuse=reuse,
                   allow_dataset_change=allow_dataset_change, progress=not quiet)
    flush_warnings()
    console = Console(highlight=False, width=width())
    console.print(check_table(result))
    for note in result.notes:
        console.print(f"note: {note}", soft_wrap=True)
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n")
    console.print(f"check: {result.bottom_line}", soft_wrap=True)
    if not result.passed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("check")(check_command)
