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
    """Read the qrels and runs (TREC, ranx JSON or parquet, by content: hcrbench.data.run_formats); when a TREC
    file has the other format's column count, say they look swapped."""
    from hcrbench.data.run_formats import read_any_qrels as read_qrels
    from hcrbench.data.run_formats import read_any_run as read_run
    from hcrbench.data.run_formats import sniff

    if str(qrels).startswith("irds:"):  # an ir_datasets id (hcrbench.data.irds)
        from hcrbench.data.irds import irds_qrels

        return irds_qrels(str(qrels)), [read_run(p, dedupe=dedupe) for p in runs]
    qc = _columns(qrels) if sniff(qrels) == "trec" else None
    rc = _columns(runs[0]) if runs and sniff(runs[0]) == "trec" else None
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
            if sniff(p) == "trec" and _columns(p) in (3, 4) and e.line is not None:
                raise InputError(f"{e.problem} (this looks like a qrels file: {_SWAP})", path=e.path,
                                 line=e.line, field=e.field) from None
            raise
    return qr, loaded


def evaluate_command(
    qrels: Path = typer.Argument(..., help="Qrels file: TREC (qid 0 docid rel) or BEIR TSV with header; or "
                                           "irds:<id> (an ir_datasets id, e.g. irds:beir/scifact/test)."),
    runs: list[Path] = typer.Argument(..., help="One or more TREC run files (gzip allowed), or folders of them."),
    metrics: str = typer.Option("nDCG@10,R@100,RR,P@5,AP", "--metrics", "-m",
                                help="Comma-separated measures, e.g. 'nDCG@10,R@100,RR,P@5,AP'."),
    baseline: str | None = typer.Option(None, "--baseline", "-b",
                                        help="Run name to compare against (default: the first run)."),
    per_query: bool = typer.Option(False, "--per-query", "-q", help="Also print per-query values."),
    json_path: Path | None = typer.Option(None, "--json", help="Write the full result as JSON here."),
    out_path: Path | None = typer.Option(None, "--out",
                                         help="Also write the values here, by extension: .csv / .parquet = one row "
                                              "per (run, query), a column per metric; anything else (.txt) = "
                                              "trec_eval's text (its per-query lines with -q)."),
    fmt: str = typer.Option("table", "--format",
                            help="What stdout shows: 'table' (rich tables, default) or 'trec' (trec_eval's text: "
                                 "per-query lines with -q, then the 'all' lines; comparisons are left out)."),
    complete: bool = typer.Option(False, "-c", help="trec_eval's -c: queries in the qrels but not in a run count "
                                                    "as 0 (the default; = --missing zero)."),
    rel_threshold: int = typer.Option(1, "--rel-threshold", "-l",
                                      help="Minimum grade that counts as relevant (nDCG uses raw grades)."),
    seed: int = typer.Option(0, "--seed", help="Seed for the permutation test and the bootstrap."),
    n_resamples: int = typer.Option(10_000, "--resamples", help="Permutation / bootstrap resamples."),
    missing: str = typer.Option("zero", "--missing",
                                help="Queries in qrels but not in a run: 'zero' counts them as 0 (trec_eval -c), "
                                     "'skip' leaves them out (trec_eval's default)."),
    family: str | None = typer.Option(None, "--family",
                                      help="The correction's family: 'run' = (baseline, metric set) per run (the "
                                           "default against a baseline, as run and gate); 'metric' = every run per "
                                           "metric (the default with --all-pairs: every pair on one metric); 'all' "
                                           "= every run x metric."),
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
    test: str = typer.Option("permutation", "--test",
                             help="Whose p decides significance: permutation (paired, default; ranx's fisher) | t "
                                  "(paired t-test; ranx's student) | wilcoxon (signed-rank, scipy's) | tukey "
                                  "(Tukey's HSD over every run; correction none unless given)."),
    correction: str | None = typer.Option(None, "--correction",
                                          help="Multiple-comparison correction over --family, by statsmodels' names: "
                                               "holm (default; family-wise error) | bonferroni | sidak | holm-sidak | "
                                               "hommel | fdr_bh (= bh; false discovery rate) | fdr_by | none. Unless "
                                               "none, each comparison also gets a simultaneous CI (Bonferroni's "
                                               "level over its family); the plain CI is per comparison."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level of the marks and letters (0-1)."),
    letters_by: str = typer.Option("holm", "--letters",
                                   help="With --all-pairs, which p decides a letter (p <= --alpha): 'holm' "
                                        "(Holm-adjusted permutation), 'tukey' (Tukey's HSD), 't' (paired t-test), 'adj' "
                                        "(--test's p after --correction)."),
    stream: bool | None = typer.Option(None, "--stream/--no-stream",
                                       help="Read each run a batch of whole queries at a time, in bounded memory "
                                            "(same numbers; scattered queries are spilled to a temporary folder). "
                                            "Default: on when the run files total more than 2 GiB."),
    engine: str = typer.Option("local", "--engine",
                               help="'local', or 'ray': each run file a Ray task (a private Ray on 127.0.0.1, or "
                                    "the cluster at --address); the same numbers."),
    address: str | None = typer.Option(None, "--address", help="With --engine ray: the Ray cluster's address."),
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
    if fmt not in ("table", "trec"):
        raise InputError(f"must be 'table' or 'trec', got {fmt!r}", field="--format")
    if complete and missing != "zero":
        raise InputError("-c counts missing queries as 0; it contradicts --missing skip", field="-c")
    check_draws(n_resamples, "--resamples")
    if family is not None and family not in ("metric", "run", "all"):
        raise InputError(f"must be 'metric', 'run' or 'all', got {family!r}", field="--family")
    check_seed(seed, "--seed")
    if letters_by not in LETTER_TESTS:
        raise InputError(f"must be one of {', '.join(LETTER_TESTS)}, got {letters_by!r}", field="--letters")
    from hcrbench.stats.multiple import correction_name
    from hcrbench.stats.spellings import test_name

    test = test_name(test, field="--test")
    correction = correction_name(correction, field="--correction") if correction is not None else None
    simultaneous = (correction or ("none" if test == "tukey" else "holm")) != "none"
    if not 0 < alpha < 1:
        raise InputError(f"must be in (0, 1), got {alpha}", field="--alpha")
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
    if out_path is not None:
        ensure_parent(out_path, field="--out")
    from hcrbench.commands._evaluate_scale import expand_runs, scaled_evaluation, scaled_wanted

    runs = expand_runs(runs)
    if scaled_wanted(stream, engine, runs, address):  # streamed and/or on Ray: the same result, computed elsewhere
        result, names = scaled_evaluation(qrels, runs, measures, baseline, stream=stream, engine=engine,
                                          address=address, dedupe=dedupe, rel_threshold=rel_threshold,
                                          missing=missing, max_docs=max_docs, judged_only=judged_only,
                                          subtopics=_read_subtopics(subtopics, measures, qrels))
    else:
        qr, loaded = _read_inputs(qrels, runs, dedupe)
        names = _run_names(runs, loaded)
        loaded = [r.rename(n) for r, n in zip(loaded, names)]
        if baseline is not None and baseline not in names:
            raise InputError(f"no run named {baseline!r} (runs: {', '.join(names)})", field="--baseline")
        result = evaluate(qr, {r.name: r for r in loaded}, [m.name for m in measures],
                          rel_threshold=rel_threshold, missing=missing, max_docs=max_docs,
                          judged_only=judged_only, subtopics=_read_subtopics(subtopics, measures, qrels))
    comparisons = []
    if len(names) > 1:
        comparisons = compare(result, baseline=baseline or names[0], n_resamples=n_resamples, seed=seed,
                              family=family, pairs="all" if all_pairs else "baseline", test=test,
                              correction=correction, alpha=alpha, simultaneous=simultaneous)
    letters, note = _letters(comparisons, names, letters_by, alpha) if all_pairs else (None, None)
    flush_warnings()  # above the tables
    if fmt == "trec":  # a trec_eval drop-in: its text on stdout, nothing else
        from hcrbench.metrics.trec_text import trec_eval_text

        typer.echo(trec_eval_text(result, per_query=per_query, run_ids=_run_ids(runs, names)), nl=False)
    else:
        print_evaluation(result, comparisons, per_query=per_query, letters=letters, letters_note=note, alpha=alpha,
                         p_field=LETTER_TESTS[letters_by][0] if all_pairs else None)
    if json_path is not None:
        import json

        doc = evaluation_json(result, comparisons)
        if all_pairs:  # ranx's letters, plain: {"by", "alpha", "runs": {run: {metric: letters it beats}}}
            doc["letters"] = _letters_json(comparisons, names, letters_by, alpha)
        atomic_write_text(json_path, json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        err.print(f"wrote {json_path}", highlight=False)
    if out_path is not None:
        what = _write_values(result, out_path, per_query, _run_ids(runs, names))
        err.print(f"wrote {out_path} ({what})", highlight=False)


def _run_ids(paths: list[Path], names: list[str]) -> dict[str, str]:
    """Each run's ``runid`` as trec_eval prints it: its file's run tag (the name for a JSON / parquet run)."""
    from hcrbench.data.run_formats import run_tag

    return {n: run_tag(p) or n for p, n in zip(paths, names)}


def _write_values(result, path: Path, per_query: bool, run_ids: dict[str, str] | None = None) -> str:
    """--out: per-query CSV / parquet, or trec_eval's text; atomically."""
    from hcrbench.data import atomic_write_text
    from hcrbench.data.atomic import atomic_open

    suffix = path.suffix.lower()
    if suffix in (".csv", ".parquet"):
        frame = result.per_query
        if suffix == ".csv":
            atomic_write_text(path, frame.to_csv(index=False, lineterminator="\n"))
        else:
            from hcrbench.data.per_query import has_pyarrow

            if not has_pyarrow():
                raise InputError("writing parquet needs pyarrow: pip install 'hcrbench[parquet]'", field="--out")
            with atomic_open(path, "wb") as fh:
                frame.to_parquet(fh, index=False)
        return f"{len(frame)} rows: run, query_id, {', '.join(result.metrics)}"
    from hcrbench.metrics.trec_text import trec_eval_text

    atomic_write_text(path, trec_eval_text(result, per_query=per_query, run_ids=run_ids))
    return "trec_eval text" + (", per query (-q)" if per_query else "")


LETTER_TESTS = {"holm": ("p_holm", "Holm-adjusted permutation p"), "tukey": ("p_tukey", "Tukey's HSD p"),
                "t": ("t_p", "paired t-test p"), "adj": ("p_adj", "the --test p adjusted by --correction")}


def _letters(comparisons: list, names: list[str], by: str, alpha: float = 0.05) -> tuple[dict | None, str | None]:
    """ranx's superscripts for the means table and the line that says what they mean."""
    from hcrbench.stats import significance_letters
    from hcrbench.stats.letters import letter

    if by not in LETTER_TESTS:
        raise InputError(f"must be one of {', '.join(LETTER_TESTS)}, got {by!r}", field="--letters")
    field, label = LETTER_TESTS[by]
    letters = significance_letters(comparisons, names, alpha=alpha, p=field)
    beats = sum(1 for v in letters.values() if v)
    key = ", ".join(f"{letter(i)} = {n}" for i, n in enumerate(names))
    note = (f"Superscripts: the mean is significantly above that run's ({label} <= {alpha:g}: the p of the "
            f"comparisons table below); {key}. "
            f"{beats} of {len(letters)} means beat at least one other run.")
    return letters, note


def _letters_json(comparisons: list, names: list[str], by: str, alpha: float = 0.05) -> dict:
    from hcrbench.stats import significance_letters
    from hcrbench.stats.letters import letter

    plain = significance_letters(comparisons, names, alpha=alpha, p=LETTER_TESTS[by][0], superscript=False)
    runs: dict[str, dict[str, str]] = {n: {} for n in names}
    for (n, m), v in plain.items():
        runs[n][m] = v
    return {"by": LETTER_TESTS[by][0], "alpha": alpha, "letter": {n: letter(i) for i, n in enumerate(names)},
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
