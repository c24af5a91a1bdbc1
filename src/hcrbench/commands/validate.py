"""``hcrbench validate RUN [--qrels Q] [--k K]``: lint a run file; exit 1 when any problem class is present."""

from __future__ import annotations

from pathlib import Path

import typer


def validate_command(
    run: Path = typer.Argument(..., help="Run file: TREC (gzip allowed), ranx JSON or parquet."),
    qrels: Path | None = typer.Option(None, "--qrels", help="Also report queries these qrels do not know."),
    k: int = typer.Option(1000, "--k", help="Deepest ranking expected per query (trec_eval's default is 1000)."),
) -> None:
    """Lint a run file beyond syntax: Q0 column, tags, ranks vs scores, depth, duplicates, unknown queries."""
    from hcrbench.cli import EXIT_CHECK_FAILED
    from hcrbench.data import read_qrels
    from hcrbench.data.run_check import check_run
    from hcrbench.data.run_formats import as_trec_file

    qr = read_qrels(qrels) if qrels is not None else None
    with as_trec_file(run) as text:  # a ranx JSON / parquet run is read by its format, then linted as TREC text
        report = check_run(text, qr, k=k)
    width = max(len(p.label) for p in report.problems)
    for p in report.problems:
        if not p.count:
            typer.echo(f"ok    {p.label:<{width}}  none")
            continue
        where = ", ".join(f"{run}:{n}" for n in p.first)
        ex = f" (e.g. {', '.join(p.examples)})" if p.examples else ""
        typer.echo(f"FAIL  {p.label:<{width}}  {p.count} {p.unit}{ex}; first: {where}")
    if qr is not None and report.qrels_missing:
        shown = ", ".join(report.qrels_missing[:5]) + (", ..." if len(report.qrels_missing) > 5 else "")
        typer.echo(f"info  {len(report.qrels_missing)} of {len(qr.query_ids)} qrels queries have no line in the run "
                   f"({shown}): evaluate scores them 0 (--missing zero) or skips them (--missing skip)")
    failed = report.failed
    if failed:
        typer.echo(f"{run}: {len(failed)} problem class(es) in {report.n_lines} lines over {report.n_queries} "
                   f"queries ({', '.join(p.key for p in failed)}): fix the producing system or the file before "
                   "scoring")
        raise typer.Exit(EXIT_CHECK_FAILED)
    typer.echo(f"{run}: clean ({report.n_lines} lines, {report.n_queries} queries, at most {k} per query): "
               "ready to score")


def register(app: typer.Typer) -> None:
    app.command("validate")(validate_command)
