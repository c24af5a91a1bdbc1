"""``hcrbench report FOLDER``: write report.html (self-contained), report.md and tables.tex for an experiment
folder, from whatever of its result files exist; ends with the bottom line and the report's path.

It takes the folder's run lock (``.hcrbench-busy``, :class:`hcrbench.data.outputs.FolderLock`) while it writes:
a report of a folder that ``hcrbench run`` is writing stops with one line naming the holder (exit 2)."""

from __future__ import annotations

from pathlib import Path

import typer


def report_command(
    folder: Path = typer.Argument(..., help="An experiment output folder (what hcrbench run / quickstart write)."),
) -> None:
    """Write the HTML / Markdown / LaTeX report of an experiment folder; missing parts show as "not run"."""
    from hcrbench.cli import flush_warnings
    from hcrbench.data.outputs import FolderLock
    from hcrbench.report.document import make_report

    if folder.is_dir():  # a run writing the folder holds this lock: a report now would mix old and new results
        with FolderLock(folder, field="FOLDER"):
            res = make_report(folder)
    else:
        res = make_report(folder)  # its own one-line error for a missing folder
    flush_warnings()
    if res.not_run:
        typer.echo(f"not run (no input for them): {', '.join(res.not_run)}")
    typer.echo(f"wrote {res.paths['html']}, {res.paths['md']}, {res.paths['tex']}")
    typer.echo(f"bottom line: {res.bottom_line}")
    typer.echo(f"open {res.paths['html']}")


def register(app: typer.Typer) -> None:
    app.command("report")(report_command)
