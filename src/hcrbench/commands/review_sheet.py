"""``hcrbench review-sheet DIR --n 30 --out sheet.csv``: a blind, category-stratified sheet for a human check."""

from __future__ import annotations

from pathlib import Path

import typer

from hcrbench.limits import check_seed


def review_sheet_command(
    folder: Path = typer.Argument(..., help="A folder written by 'hcrbench generate meridian'."),
    n: int = typer.Option(30, "--n", help="Queries to sample (stratified by category)."),
    out: Path = typer.Option(..., "--out", help="CSV to write; the generator's grades go to OUT.key.json."),
    seed: int = typer.Option(0, "--seed", help="Seed for the sample and the row order."),
) -> None:
    """Write queries, answers, evidence and graded documents with snippets for a person to grade 0-3."""
    from hcrbench.synth.checks.review import review_sheet

    check_seed(seed, "--seed")
    res = review_sheet(folder, out, n=n, seed=seed)
    cats = ", ".join(f"{c} {k}" for c, k in res["categories"].items())
    typer.echo(f"wrote {out}: {res['queries']} queries, {res['rows']} rows ({cats}); key in {res['key']}")
    typer.echo("next: fill human_grade (0-3) on every row and answer_ok (y/n) on each query's first row, "
               f"then run: hcrbench review-score {out}")


def register(app: typer.Typer) -> None:
    app.command("review-sheet")(review_sheet_command)
