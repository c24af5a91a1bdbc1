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

    import numpy as np

    from hcrbench.data import atomic_write_text, load_beir
    from hcrbench.data.tree import read_routing_log, read_tree
    from hcrbench.limits import check_seed
    from hcrbench.metrics.tree import tree_report, world_surface_forms
    from hcrbench.report.tree import render_tree_report

    check_seed(seed, "--seed")
    if not log.is_file():
        raise InputError("routing log not found", path=log)
    tree = tree or log.with_name(log.name.replace(".routing.jsonl", ".tree.jsonl"))
    if not tree.is_file():
        raise InputError("tree file not found (pass --tree)", path=tree)
    t = read_tree(tree)
    records = read_routing_log(log)
    ds = load_beir(dataset, split)
    by_doc = {d: ds.corpus.metadata[i] for i, d in enumerate(ds.corpus.doc_ids)}
    unknown = [d for d in t.chunk_docs if d not in by_doc]
    if unknown:
        raise InputError(f"the tree names document {unknown[0]!r}, which {dataset} does not hold", path=tree,
                         field="chunk_docs")
    labels = [str(by_doc[d].get("domain")) for d in t.chunk_docs] \
        if all("domain" in by_doc[d] for d in t.chunk_docs) else None
    ents = {d: list(m["entities"]) for d, m in by_doc.items() if isinstance(m.get("entities"), list)} or None
    world = dataset / "world.json"
    forms = world_surface_forms(json.loads(world.read_text(encoding="utf-8"))) if world.is_file() else None
    vec_path = tree.with_name(tree.name.removesuffix(".jsonl") + ".npz")
    vecs = np.load(vec_path) if vec_path.is_file() else None
    cats = {q: str(ds.queries.meta(q).get("category", "all")) for q in ds.queries.query_ids}
    rep = tree_report(t, records, ds.qrels.to_dict(), categories=cats, labels=labels,
                      routing_vectors=None if vecs is None else vecs["routing_vectors"],
                      centroids=None if vecs is None else vecs["centroids"], doc_entities=ents, forms=forms,
                      rel_threshold=rel_threshold, seed=seed)
    typer.echo(render_tree_report(rep))
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(rep, indent=2, default=float) + "\n")
        typer.echo(f"wrote {json_path}", err=True)


def register(app: typer.Typer) -> None:
    app.command("tree-metrics")(tree_metrics_command)
