"""``hcrbench tree-metrics ROUTING_LOG --dataset DIR``: routing error per level and tree quality, from files."""

from __future__ import annotations

from pathlib import Path

import typer

from hcrbench.errors import InputError


def tree_metrics_command(
    log: Path = typer.Argument(..., help="A routing log (RUN.routing.jsonl) written by the hcr retriever."),
    dataset: Path = typer.Option(..., "--dataset", help="The BEIR folder the run was made on (qrels, metadata)."),
    split: str = typer.Option("test", "--split", help="Qrels split."),
    tree: Path | None = typer.Option(None, "--tree", help="Tree file (default: beside the log, .tree.jsonl)."),
    rel_threshold: int = typer.Option(1, "--rel-threshold", help="Minimum grade that counts as relevant."),
    seed: int = typer.Option(0, "--seed", help="Seed of the sampled measures (dendrogram purity, reachability)."),
    json_path: Path | None = typer.Option(None, "--json", help="Also write the report as JSON here."),
) -> None:
    """Per-level eps, accuracy vs the (1 - eps)^d model, path agreement, tree quality and link coverage."""
    import json

    from hcrbench.data import atomic_write_text, load_beir
    from hcrbench.limits import check_seed
    from hcrbench.metrics.tree_files import tree_report_from_files
    from hcrbench.report.tree import render_tree_report

    check_seed(seed, "--seed")
    if not log.is_file():
        raise InputError("routing log not found", path=log)
    ds = load_beir(dataset, split)
    rep = tree_report_from_files(log, tree, ds.corpus, ds.queries, ds.qrels, world_path=dataset / "world.json",
                                 rel_threshold=rel_threshold, seed=seed)
    typer.echo(render_tree_report(rep))
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(rep, indent=2, default=float) + "\n")
        typer.echo(f"wrote {json_path}", err=True)


def register(app: typer.Typer) -> None:
    app.command("tree-metrics")(tree_metrics_command)
