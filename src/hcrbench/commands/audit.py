"""``hcrbench audit DATASET [--split S] [--run RUN] [--json F]``: a benchmark linter for any BEIR folder."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def audit_command(
    dataset: Path = typer.Argument(..., help="BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)."),
    split: str = typer.Option("test", "--split", help="Qrels split to audit (the others are checked for leakage)."),
    run: Path | None = typer.Option(None, "--run", help="Also report the unjudged share of this run's top 10."),
    json_path: Path | None = typer.Option(None, "--json", help="Write every check's figures and examples here."),
) -> None:
    """Lint a benchmark's labels: false negatives, duplicates, split leakage, graded twins, oracle ceilings."""
    from hcrbench.audit import audit
    from hcrbench.cli import EXIT_CHECK_FAILED
    from hcrbench.data import atomic_write_text, read_run
    from hcrbench.data.outputs import ensure_parent

    if json_path is not None:
        ensure_parent(json_path, field="--json")
    loaded = read_run(run) if run is not None else None
    results = audit(dataset, split, loaded)
    width = max(len(c.name) for c in results)
    for c in results:
        typer.echo(f"{c.status:<4}  {c.name:<{width}}  {c.summary}")
        for ex in c.examples:
            typer.echo(f"      {'':<{width}}  e.g. {ex}")
    if json_path is not None:
        doc = {"dataset": str(dataset), "split": split, "run": str(run) if run else None,
               "checks": [c.to_dict() for c in results]}
        atomic_write_text(json_path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        typer.echo(f"wrote {json_path}", err=True)
    failed = [c.name for c in results if c.status == "FAIL"]
    ran = sum(c.status != "skip" for c in results)
    if failed:
        typer.echo(f"{dataset} ({split}): {len(failed)} of {ran} checks fail ({', '.join(failed)}): read the examples "
                   "before trusting scores on these labels")
        raise typer.Exit(EXIT_CHECK_FAILED)
    typer.echo(f"{dataset} ({split}): all {ran} checks pass")


def register(app: typer.Typer) -> None:
    app.command("audit")(audit_command)
