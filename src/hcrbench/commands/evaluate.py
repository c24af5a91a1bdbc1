"""``hcrbench evaluate QRELS RUN [RUN ...]``: means, paired statistics against a baseline, the ledger."""

from __future__ import annotations

from pathlib import Path

import typer

from hcrbench.errors import InputError
from hcrbench.limits import check_draws, check_seed


def _run_names(paths: list[Path], runs: list) -> list[str]:
    """File stems, made unique with the parent folder where two runs share a stem."""
    names = [r.name for r in runs]
    if len(set(names)) < len(names):
        names = [f"{p.parent.name}/{n}" if names.count(n) > 1 else n for p, n in zip(paths, names)]
    if len(set(names)) < len(names):
        raise InputError("two runs have the same name; rename one of the files", field="RUN")
    return names


def evaluate_command(
    qrels: Path = typer.Argument(..., help="Qrels file: TREC (qid 0 docid rel) or BEIR TSV with header."),
    runs: list[Path] = typer.Argument(..., help="One or more TREC run files (gzip allowed)."),
    metrics: str = typer.Option("nDCG@10,R@100,RR,P@5,AP", "--metrics", "-m",
                                help="Comma-separated measures, e.g. 'nDCG@10,R@100,RR,P@5,AP'."),
    baseline: str | None = typer.Option(None, "--baseline", "-b",
                                        help="Run name to compare against (default: the first run)."),
    per_query: bool = typer.Option(False, "--per-query", "-q", help="Also print per-query values."),
    json_path: Path | None = typer.Option(None, "--json", help="Write the full result as JSON here."),
    rel_threshold: int = typer.Option(1, "--rel-threshold", "-l",
                                      help="Minimum grade that counts as relevant (nDCG uses raw grades)."),
    seed: int = typer.Option(0, "--seed", help="Seed for the permutation test and the bootstrap."),
    n_resamples: int = typer.Option(10_000, "--resamples", help="Permutation / bootstrap resamples."),
    missing: str = typer.Option("zero", "--missing",
                                help="Queries in qrels but not in a run: 'zero' counts them as 0 (trec_eval -c), "
                                     "'skip' leaves them out (trec_eval's default)."),
    dedupe: bool = typer.Option(False, "--dedupe",
                                help="Keep the first of duplicate (query, doc) lines instead of refusing the run."),
) -> None:
    """Score runs with trec_eval-exact metrics and compare each with a baseline (paired tests, Holm)."""
    from rich.console import Console

    from hcrbench.data import atomic_write_text, read_qrels, read_run
    from hcrbench.metrics import evaluate, parse_measures
    from hcrbench.report.evaluation import print_evaluation
    from hcrbench.stats import compare, evaluation_json

    if missing not in ("zero", "skip"):
        raise InputError(f"must be 'zero' or 'skip', got {missing!r}", field="--missing")
    check_draws(n_resamples, "--resamples")
    check_seed(seed, "--seed")
    try:
        measures = parse_measures(metrics)
    except ValueError as e:  # InputError included: name the flag
        raise InputError(getattr(e, "problem", str(e)), field="--metrics") from None
    err = Console(stderr=True)
    # Warnings (zero-filled queries, ignored queries, ...) go to stderr, once each (hcrbench.cli).
    qr = read_qrels(qrels)
    loaded = [read_run(p, dedupe=dedupe) for p in runs]
    names = _run_names(runs, loaded)
    loaded = [r.rename(n) for r, n in zip(loaded, names)]
    if baseline is not None and baseline not in names:
        raise InputError(f"no run named {baseline!r} (runs: {', '.join(names)})", field="--baseline")
    result = evaluate(qr, {r.name: r for r in loaded}, [m.name for m in measures],
                      rel_threshold=rel_threshold, missing=missing)
    comparisons = []
    if len(loaded) > 1:
        comparisons = compare(result, baseline=baseline or names[0], n_resamples=n_resamples, seed=seed)
    print_evaluation(result, comparisons, per_query=per_query)
    if json_path is not None:
        import json

        doc = evaluation_json(result, comparisons)
        atomic_write_text(json_path, json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        err.print(f"wrote {json_path}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("evaluate")(evaluate_command)
