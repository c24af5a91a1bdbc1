"""``hcrbench policy-compare``: single-hop at K against multi-hop under the same budget, with costs and stats."""

from __future__ import annotations

from pathlib import Path

import typer

from hcrbench.errors import InputError
from hcrbench.limits import check_draws, check_seed


def policy_compare_command(
    dataset: Path = typer.Option(..., "--dataset", help="BEIR folder (Meridian, converted MultiHop-RAG, a code set)."),
    system: str = typer.Option(..., "--system", help="bm25 | dense | hybrid | rerank | a plugin."),
    budget: int = typer.Option(15, "--budget", help="Total units (documents or chunks) each policy examines."),
    max_hops: int = typer.Option(2, "--max-hops", help="Hops of the multi-hop policy."),
    chunks_per_hop: int = typer.Option(5, "--chunks-per-hop", help="Units kept per hop before the last."),
    multi_budget: float = typer.Option(1.0, "--multi-budget",
                                       help="Budget multiplier for multi-hop only (e.g. 1.5; its cost is reported)."),
    chunker: list[str] = typer.Option([], "--chunker",
                                      help="none | tokens[:N] | structure[:N] | lines[:W[:S]] | ast[:N]; "
                                           "repeatable (default: none for prose, lines and ast for code sets)."),
    expander: str | None = typer.Option(None, "--expander", help="prose | code (default: by dataset kind)."),
    split: str = typer.Option("test", "--split", help="Qrels split(s), comma-separated (e.g. tune,dev,test)."),
    param: list[str] = typer.Option([], "--param", help="System parameter KEY=VALUE (repeatable)."),
    json_path: Path | None = typer.Option(None, "--json", help="Write {config, samples, aggregate} here."),
    seed: int = typer.Option(0, "--seed", help="Seed for the permutation test and the bootstrap."),
    n_resamples: int = typer.Option(10_000, "--resamples", help="Permutation / bootstrap resamples."),
) -> None:
    """Compare 1-hop@K with H-hop@K on one system: metrics, costs, paired statistics, a bottom line."""
    check_seed(seed, "--seed")
    check_draws(n_resamples, "--resamples")
    if max_hops < 2:
        raise InputError(f"must be >= 2 (the single-hop policy is always run), got {max_hops}", field="--max-hops")
    import json
    import sys

    from rich.console import Console

    from hcrbench.commands.retrieve import parse_params
    from hcrbench.data import atomic_write_text
    from hcrbench.experiment.policy_compare import check_chunker, compare_policies, load_policy_bench
    from hcrbench.report.policy import print_policy_comparison
    from hcrbench.report.terminal import width
    from hcrbench.retrieve import make_retriever
    from hcrbench.retrieve.policy import Policy

    for c in chunker:
        check_chunker(c)
    params = parse_params(param)
    make_retriever(system, **params)  # fail fast on a bad system or parameter, before loading anything
    bench = load_policy_bench(dataset, split)
    exp = expander or ("code" if bench.kind == "code" else "prose")
    try:
        single = Policy(max_hops=1, total_budget=budget, chunks_per_hop=chunks_per_hop, expander=exp)
        multi = Policy(max_hops=max_hops, total_budget=budget, chunks_per_hop=chunks_per_hop,
                       budget_multiplier=multi_budget, expander=exp)
    except InputError as e:
        flag = {"total_budget": "--budget", "budget_multiplier": "--multi-budget",
                "chunks_per_hop": "--chunks-per-hop", "expander": "--expander"}.get(e.field or "", e.field)
        raise InputError(e.problem, field=flag) from None
    chunkers = list(chunker) or (["lines", "ast"] if bench.kind == "code" else ["none"])
    err = Console(stderr=True)
    doc = compare_policies(bench, lambda: make_retriever(system, **params), system, chunkers, single, multi,
                           seed=seed, n_resamples=n_resamples, params=params,
                           progress=lambda m: err.print(f"[dim]{m}[/dim]", highlight=False))
    print_policy_comparison(doc, console=Console(file=sys.stdout, width=width(200)))
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n")
        err.print(f"wrote {json_path}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("policy-compare")(policy_compare_command)
