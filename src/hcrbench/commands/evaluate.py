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


def _columns(path: Path) -> int | None:
    """Fields on the first data line of ``path`` (gzip allowed; blank and '#' lines skipped); None if unreadable."""
    from hcrbench.data.compressed import STREAM_ERRORS, bounded_lines, open_input

    try:
        with open_input(path) as fh:  # capped, like every reader (data.compressed)
            for n, raw in enumerate(bounded_lines(fh, path)):
                text = raw.decode("utf-8", "replace").strip()
                if text and not text.startswith("#"):
                    return len(text.split())
                if n > 1000:
                    break
    except STREAM_ERRORS:  # InputError (a bomb, an endless line) included
        return None
    return None


_SWAP = "did you swap them? The qrels come first: hcrbench evaluate QRELS RUN [RUN ...]"


def _read_inputs(qrels: Path, runs: list[Path], dedupe: bool):
    """Read the qrels and runs; when a file has the other format's column count, say they look swapped."""
    from hcrbench.data import read_qrels, read_run

    if str(qrels).startswith("irds:"):  # an ir_datasets id (hcrbench.data.irds)
        from hcrbench.data.irds import irds_qrels

        return irds_qrels(str(qrels)), [read_run(p, dedupe=dedupe) for p in runs]
    qc = _columns(qrels)
    rc = _columns(runs[0]) if runs else None
    if qc == 6 and rc in (3, 4):
        raise InputError(f"QRELS has 6 columns like a run, and {runs[0]} has {rc} like qrels: {_SWAP}",
                         path=qrels, line=1)
    try:
        qr = read_qrels(qrels)
    except InputError as e:
        if qc == 6:
            raise InputError(f"{e.problem} (6 columns is a run file: {_SWAP})", path=e.path, line=e.line,
                             field=e.field) from None
        raise
    loaded = []
    for p in runs:
        try:
            loaded.append(read_run(p, dedupe=dedupe))
        except InputError as e:
            if _columns(p) in (3, 4) and e.line is not None:
                raise InputError(f"{e.problem} (this looks like a qrels file: {_SWAP})", path=e.path,
                                 line=e.line, field=e.field) from None
            raise
    return qr, loaded


def evaluate_command(
    qrels: Path = typer.Argument(..., help="Qrels file: TREC (qid 0 docid rel) or BEIR TSV with header; or "
                                           "irds:<id> (an ir_datasets id, e.g. irds:beir/scifact/test)."),
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
    family: str = typer.Option("run", "--family",
                               help="Holm family: 'run' (default, as run and gate) = (baseline, metric set) per run; "
                                    "'metric' = every run per metric; 'all' = every run x metric."),
    dedupe: bool = typer.Option(False, "--dedupe",
                                help="Keep the first of duplicate (query, doc) lines instead of refusing the run."),
    max_docs: int | None = typer.Option(None, "--max-docs", "-M",
                                        help="Score only each query's top N retrieved docs (trec_eval -M)."),
    judged_only: bool = typer.Option(False, "--judged-only", "-J",
                                     help="Drop retrieved docs without a judgment before scoring (trec_eval -J)."),
    subtopics: Path | None = typer.Option(None, "--subtopics",
                                          help="Subtopic qrels (qid subtopic docid rel) for alpha_nDCG@k."),
    all_pairs: bool = typer.Option(False, "--all-pairs",
                                   help="Compare every pair of runs (Holm over --family, Tukey's HSD) and mark "
                                        "means with ranx's significance letters."),
    letters_by: str = typer.Option("holm", "--letters",
                                   help="With --all-pairs, which p decides a letter (p <= 0.05): 'holm' "
                                        "(Holm-adjusted permutation), 'tukey' (Tukey's HSD), 't' (paired t-test)."),
) -> None:
    """Score runs with trec_eval-exact metrics and compare each with a baseline (paired tests, Holm)."""
    from rich.console import Console

    from hcrbench.cli import flush_warnings
    from hcrbench.data import atomic_write_text
    from hcrbench.data.outputs import ensure_parent
    from hcrbench.metrics import evaluate, parse_measures
    from hcrbench.report.evaluation import print_evaluation
    from hcrbench.stats import compare, evaluation_json

    if missing not in ("zero", "skip"):
        raise InputError(f"must be 'zero' or 'skip', got {missing!r}", field="--missing")
    check_draws(n_resamples, "--resamples")
    if family not in ("metric", "run", "all"):
        raise InputError(f"must be 'metric', 'run' or 'all', got {family!r}", field="--family")
    check_seed(seed, "--seed")
    if letters_by not in LETTER_TESTS:
        raise InputError(f"must be one of {', '.join(LETTER_TESTS)}, got {letters_by!r}", field="--letters")
    if max_docs is not None and max_docs < 1:
        raise InputError(f"must be a positive integer, got {max_docs}", field="--max-docs")
    try:
        measures = parse_measures(metrics)
    except ValueError as e:  # InputError included: name the flag
        raise InputError(getattr(e, "problem", str(e)), field="--metrics") from None
    err = Console(stderr=True)
    # Warnings (zero-filled queries, ignored queries, ...) go to stderr once each, above the tables (hcrbench.cli).
    if json_path is not None:
        ensure_parent(json_path, field="--json")
    qr, loaded = _read_inputs(qrels, runs, dedupe)
    names = _run_names(runs, loaded)
    loaded = [r.rename(n) for r, n in zip(loaded, names)]
    if baseline is not None and baseline not in names:
        raise InputError(f"no run named {baseline!r} (runs: {', '.join(names)})", field="--baseline")
    result = evaluate(qr, {r.name: r for r in loaded}, [m.name for m in measures],
                      rel_threshold=rel_threshold, missing=missing, max_docs=max_docs,
                      judged_only=judged_only, subtopics=_read_subtopics(subtopics, measures, qrels))
    comparisons = []
    if len(loaded) > 1:
        comparisons = compare(result, baseline=baseline or names[0], n_resamples=n_resamples, seed=seed,
                              family=family, pairs="all" if all_pairs else "baseline")
    letters, note = _letters(comparisons, names, letters_by) if all_pairs else (None, None)
    flush_warnings()  # above the tables
    print_evaluation(result, comparisons, per_query=per_query, letters=letters, letters_note=note)
    if json_path is not None:
        import json

        doc = evaluation_json(result, comparisons)
        if all_pairs:  # ranx's letters, plain: {"by", "alpha", "runs": {run: {metric: letters it beats}}}
            doc["letters"] = _letters_json(comparisons, names, letters_by)
        atomic_write_text(json_path, json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        err.print(f"wrote {json_path}", highlight=False)


LETTER_TESTS = {"holm": ("p_holm", "Holm-adjusted permutation p"), "tukey": ("p_tukey", "Tukey's HSD p"),
                "t": ("t_p", "paired t-test p")}


def _letters(comparisons: list, names: list[str], by: str) -> tuple[dict | None, str | None]:
    """ranx's superscripts for the means table and the line that says what they mean."""
    from hcrbench.stats import significance_letters
    from hcrbench.stats.letters import letter

    if by not in LETTER_TESTS:
        raise InputError(f"must be one of {', '.join(LETTER_TESTS)}, got {by!r}", field="--letters")
    field, label = LETTER_TESTS[by]
    letters = significance_letters(comparisons, names, alpha=0.05, p=field)
    beats = sum(1 for v in letters.values() if v)
    key = ", ".join(f"{letter(i)} = {n}" for i, n in enumerate(names))
    note = (f"Superscripts: the mean is significantly above that run's ({label} <= 0.05); {key}. "
            f"{beats} of {len(letters)} means beat at least one other run.")
    return letters, note


def _letters_json(comparisons: list, names: list[str], by: str) -> dict:
    from hcrbench.stats import significance_letters
    from hcrbench.stats.letters import letter

    plain = significance_letters(comparisons, names, alpha=0.05, p=LETTER_TESTS[by][0], superscript=False)
    runs: dict[str, dict[str, str]] = {n: {} for n in names}
    for (n, m), v in plain.items():
        runs[n][m] = v
    return {"by": LETTER_TESTS[by][0], "alpha": 0.05, "letter": {n: letter(i) for i, n in enumerate(names)},
            "runs": runs}


def _read_subtopics(path: Path | None, measures: list, qrels: Path) -> object:
    """Read --subtopics when given; else, for alpha_nDCG, the qrels file's second column is the subtopic (ndeval)."""
    if path is not None:
        from hcrbench.data.subtopics import read_subtopic_qrels

        return read_subtopic_qrels(path)
    if any(m.kind == "alpha_nDCG" for m in measures):
        from hcrbench.metrics.evaluate import subtopics_from_qrels_file

        return subtopics_from_qrels_file(qrels)
    return None


def register(app: typer.Typer) -> None:
    app.command("evaluate")(evaluate_command)
