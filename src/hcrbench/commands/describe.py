"""``hcrbench describe DIR``: measure a Meridian folder against its design targets (prints and writes JSON)."""

from __future__ import annotations

from pathlib import Path

import typer


def describe_command(
    folder: Path = typer.Argument(..., help="A folder written by 'hcrbench generate meridian'."),
) -> None:
    """Print each measured property with its target and whether it is met, then the share of each category's
    queries feasible at 400 tokens in sentences and in deliverable chunks beside the design's; write
    FOLDER/describe.json. A folder of K worlds (generate meridian --worlds K) shows each world's row and the
    pooled properties (documents per world against the size, worlds per split, leakage across splits)."""
    import json

    from rich.console import Console

    from hcrbench.data import atomic_write_text
    from hcrbench.report.terminal import Table, width
    from hcrbench.synth import describe
    from hcrbench.synth.worlds import is_multiworld

    if is_multiworld(folder):
        _describe_worlds(folder)
        return
    result = describe(folder, write=False)
    table = _properties_table(f"Meridian: {folder} ({result['n_docs']:,} docs, {result['n_queries']} queries)",
                              result["properties"])
    console = Console(width=width(160))
    console.print(table)
    feas = _feasibility(folder)
    if feas is not None:
        result["deliverable_feasibility"] = feas
        console.print(_feasibility_table(feas, Table))
    atomic_write_text(folder / "describe.json", json.dumps(result, indent=1) + "\n")
    missed = result.get("missed", [])
    verdict = "all targets met" if result["all_met"] else f"{len(missed)} target(s) missed: {'; '.join(missed)}"
    if feas is not None and feas["all"]["n"]:
        a = feas["all"]
        verdict += (f"; feasible at {feas['budget']} tokens: {a['sentences']:.0%} in sentences, "
                    + ", ".join(f"{a[k]:.0%} in {k}" for k in feas["unit_sets"]))
    typer.echo(f"{verdict}; wrote {folder / 'describe.json'}")


def _describe_worlds(folder: Path) -> None:
    """A dataset of K worlds: one row per world (its own describe), then the pooled properties."""
    import json

    from rich.console import Console

    from hcrbench.data import atomic_write_text
    from hcrbench.report.terminal import Table, width
    from hcrbench.synth.checks.describe_worlds import describe_worlds

    result = describe_worlds(folder, write=False)
    console = Console(width=width(160))
    worlds = Table(title=f"Meridian: {folder} ({result['worlds']} worlds, {result['n_docs']:,} docs, "
                         f"{result['n_queries']} queries): each world")
    for col in ("world", "seed", "split", "docs", "queries", "targets missed"):
        worlds.add_column(col)
    for w in result["per_world"]:
        worlds.add_row(w["name"], str(w["seed"]), w["split"], f"{w['n_docs']:,}", str(w["n_queries"]),
                       "; ".join(w["missed"]) or "[green]none[/]")
    console.print(worlds)
    pooled = _properties_table("Pooled over the worlds", result["properties"])
    console.print(pooled)
    feas = _feasibility(folder)
    if feas is not None:
        result["deliverable_feasibility"] = feas
        console.print(_feasibility_table(feas, Table))
    atomic_write_text(folder / "describe.json", json.dumps(result, indent=1) + "\n")
    missed = result["missed"]
    verdict = ("pooled targets met" if result["all_met"]
               else f"{len(missed)} pooled target(s) missed: {'; '.join(missed)}")
    n_missing = sum(not w["all_met"] for w in result["per_world"])
    verdict += f"; {result['worlds'] - n_missing} of {result['worlds']} worlds meet every target of their own"
    typer.echo(f"{verdict}; wrote {folder / 'describe.json'}")


def _feasibility(folder: Path) -> dict | None:
    """Per-category deliverable feasibility, or None for a folder without evidence.jsonl (nothing to count)."""
    if not (folder / "evidence.jsonl").is_file():
        return None
    from hcrbench.experiment.context_feasibility import deliverable_feasibility

    return deliverable_feasibility(folder)


def _feasibility_table(feas: dict, Table):
    sets = list(feas["unit_sets"])
    t = Table(title=f"Feasible at {feas['budget']} tokens per category: the cheapest cover of the needed facts "
                    "(share of queries with facts)")
    for col in ("category", "queries", "design", "sentences", *sets):
        t.add_column(col)
    rows = [*feas["by_category"].items(), ("all", {**feas["all"], "design": None})]
    for cat, row in rows:
        design = "-" if row.get("design") is None else f"{row['design']:.2f}"
        t.add_row(cat, str(row["n"]), design, *(f"{row[k]:.2f}" for k in ("sentences", *sets)))
    return t


def register(app: typer.Typer) -> None:
    app.command("describe")(describe_command)


def _properties_table(title: str, properties: list[dict]):
    """One row per checked property: what was measured, the target, and whether it was met."""
    from hcrbench.report.terminal import Table

    table = Table(title=title)
    for col in ("property", "measured", "target", "met"):
        table.add_column(col)
    for p in properties:
        m = p["measured"]
        shown = ", ".join(f"{k} {v}" for k, v in m.items()) if isinstance(m, dict) else str(m)
        table.add_row(p["property"], shown, p["target"], "[green]✓[/]" if p["met"] else "[red]✗[/]")
    return table
