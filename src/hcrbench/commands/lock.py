"""``hcrbench lock DIR`` and ``hcrbench verify DIR``: bind an experiment's scores to hashes, check them later.

``verify`` exits 1 on any drift (a changed byte in data, config, a run, a report or any other file hcrbench wrote,
a changed stored score, a truncated manifest or lock), printing one line per problem; 0 when intact; 2 for bad
input (no lock file, not a directory). docs/reliability.md lists what the lock covers.
"""

from __future__ import annotations

from pathlib import Path

import typer


def lock_command(
    directory: Path = typer.Argument(..., help="Experiment output directory (manifest.json, runs/, eval.json)."),
    lock_test: bool = typer.Option(False, "--lock-test",
                                   help="Declare the dataset split locked: runners refuse to score it again "
                                        "without --force-test."),
) -> None:
    """Write DIR/hcrbench.lock: SHA-256 of the data and of every file hcrbench wrote in DIR, the scores, the
    hcrbench version and git commit."""
    from hcrbench.gate import LOCK_NAME, lock_experiment

    # the cost block and the report's numbers must come from the (re-derived) results, or a lock would vouch
    # for them
    lock = lock_experiment(directory, lock_test=lock_test, derived_check=_derived_drift)
    n = len(lock["files"]) + len(lock["dataset"]["files"])
    typer.echo(f"locked {n} files and {sum(len(v) for v in lock['means'].values())} means -> {directory / LOCK_NAME}")
    if lock_test:
        typer.echo(f"split {lock['dataset']['split']!r} of {lock['dataset']['path']} declared locked")


def verify_command(
    directory: Path = typer.Argument(..., help="Experiment output directory holding hcrbench.lock."),
    strict_code: bool = typer.Option(False, "--strict-code", help="Also fail when hcrbench's version/commit moved."),
    no_reevaluate: bool = typer.Option(False, "--no-reevaluate", help="Only check hashes."),
) -> None:
    """Recompute every hash and re-evaluate every run; exit 1 on any drift."""
    from hcrbench.gate import verify_experiment

    rep = verify_experiment(directory, strict_code=strict_code, reevaluate=not no_reevaluate,
                            derived_check=_derived_drift)
    for note in rep.notes:
        typer.echo(f"note: {note}")
    for p in rep.problems:
        typer.echo(f"DRIFT: {p}")
    if not rep.ok:
        typer.echo(f"verify: {len(rep.problems)} problem(s) in {directory}")
        raise typer.Exit(1)
    typer.echo(f"verify: {directory} intact (hashes and re-evaluated scores match the lock)")


def _derived_drift(directory: Path) -> list[str]:
    """What a higher stage derived and the gate cannot re-derive itself: eval.json's cost block
    (:func:`hcrbench.experiment.cost.cost_drift`), then the report's numbers."""
    from hcrbench.experiment.cost import cost_drift

    return (cost_drift(directory) if directory.is_dir() else []) + _report_drift(directory)


def _report_drift(directory: Path) -> list[str]:
    """Report files whose numbers differ from a fresh rendering (:func:`hcrbench.report.document.report_drift`);
    a folder the report cannot be rendered from is left to lock / verify's own checks."""
    from hcrbench.errors import InputError

    if not directory.is_dir():
        return []
    try:
        from hcrbench.report.document import report_drift

        return report_drift(directory)
    except (InputError, OSError, KeyError, TypeError, ValueError):
        return []


def register(app: typer.Typer) -> None:
    app.command("lock")(lock_command)
    app.command("verify")(verify_command)
