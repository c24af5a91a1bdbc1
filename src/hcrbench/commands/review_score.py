"""``hcrbench review-score sheet.csv``: agreement between a reader's grades and Meridian's (kappa, Kendall's tau)."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def review_score_command(
    sheet: Path = typer.Argument(..., help="A sheet written by 'hcrbench review-sheet' and filled in by a person."),
    key: Path | None = typer.Option(None, "--key", help="The key file (default: SHEET.key.json beside the sheet)."),
    json_path: Path | None = typer.Option(None, "--json", help="Also write the scores as JSON here."),
) -> None:
    """Print Cohen's kappa, weighted kappa, Kendall's tau-b and the answer-correct share, with a verdict."""
    from hcrbench.data import atomic_write_text
    from hcrbench.synth.checks.review import TAU_TARGET, review_score

    s = review_score(sheet, key)
    typer.echo(f"{s.n_graded} graded rows of {s.n_rows} ({s.n_queries} queries)")
    typer.echo(f"exact agreement {s.exact_agreement:.3f}  Cohen's kappa {s.kappa:.3f}  "
               f"linear-weighted kappa {s.kappa_linear:.3f}  Kendall's tau-b {s.tau:.3f} (p={s.tau_p:.2g})")
    if s.answer_ok is not None:
        typer.echo(f"answers judged correct: {s.answer_ok:.1%}")
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(s.to_dict(), indent=1) + "\n")
    met = s.tau >= TAU_TARGET
    typer.echo(f"{'labels hold' if met else 'labels questioned'}: tau {s.tau:.2f} "
               f"{'>=' if met else '<'} {TAU_TARGET} (the design's bar for 30 queries)")


def register(app: typer.Typer) -> None:
    app.command("review-score")(review_score_command)
