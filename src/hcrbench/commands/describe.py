"""``hcrbench describe DIR``: measure a Meridian folder against its design targets (prints and writes JSON)."""

from __future__ import annotations

from pathlib import Path

import typer


def describe_command(
    folder: Path = typer.Argument(..., help="A folder written by 'hcrbench generate meridian'."),
) -> None:
    """Print each measured property with its target and whether it is met; write FOLDER/describe.json."""
    from rich.console import Console

    from hcrbench.report.terminal import Table, width
    from hcrbench.synth import describe

    result = describe(folder)
    table = Table(title=f"Meridian: {folder} ({result['n_docs']:,} docs, {result['n_queries']} queries)")
    for col in ("property", "measured", "target", "met"):
        table.add_column(col)
    for p in result["properties"]:
        m = p["measured"]
        shown = ", ".join(f"{k} {v}" for k, v in m.items()) if isinstance(m, dict) else str(m)
        table.add_row(p["property"], shown, p["target"], "[green]✓[/]" if p["met"] else "[red]✗[/]")
    Console(width=width(160)).print(table)
    missed = result.get("missed", [])
    verdict = "all targets met" if result["all_met"] else f"{len(missed)} target(s) missed: {'; '.join(missed)}"
    typer.echo(f"{verdict}; wrote {folder / 'describe.json'}")


def register(app: typer.Typer) -> None:
    app.command("describe")(describe_command)
