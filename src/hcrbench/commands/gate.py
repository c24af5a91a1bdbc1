"""``hcrbench gate [RUN ...] --dataset DIR | --qrels FILE --item-pool FILE``: the four-null falsification gate.

Prints, per system, the real mean and each null's mean, 95% interval, delta, p and Holm p, and whether it
passes; with ``--controls`` also the positive/negative controls and whether the harness can be trusted on this
benchmark. With ``--baseline NAME`` every other run is compared with it (paired, Holm) and given a verdict
(HIT / UNDER-NS / MISS / NULL-FAIL); ``--stratify FIELD`` splits the deltas by a query metadata field and
``--calibration PATH`` plots CI width against bench size. Exit 0 when every run passes (and, with ``--controls``,
the harness is trusted), 1 when a run fails the gate or a control is misclassified, 2 for bad input. Warnings go
to stderr.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from hcrbench.errors import InputError
from hcrbench.limits import check_draws, check_seed


def _read_pool(path: Path) -> list[str]:
    if not path.is_file():
        raise InputError("file not found", path=path, field="--item-pool")
    from hcrbench.data.structured import MAX_JSON_BYTES, parse_json, read_text

    text = read_text(path, max_bytes=MAX_JSON_BYTES, what="item pool", field="--item-pool").strip()
    if text.startswith(("[", "{")):  # JSON: a list of ids, nothing else (an object's keys are not a pool)
        ids = parse_json(text, path=path, field="--item-pool")
        if not isinstance(ids, list) or not all(isinstance(x, (str, int)) and not isinstance(x, bool)
                                                for x in ids):
            raise InputError("expected a JSON list of document ids (strings), or one id per line; got "
                             f"{'a JSON object' if isinstance(ids, dict) else 'a list holding other values'}",
                             path=path, line=1, field="--item-pool")
        ids = [str(x) for x in ids]
    else:
        ids = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not ids:
        raise InputError("the item pool is empty", path=path, line=1, field="--item-pool")
    return ids


def _load(dataset: Path | None, split: str, qrels_path: Path | None, pool_path: Path | None):
    from hcrbench.data import load_beir, read_qrels
    from hcrbench.data.interop import as_qrels

    if dataset is None and qrels_path is None:
        raise InputError("give --dataset DIR (BEIR folder) or --qrels FILE with --item-pool FILE", field="--dataset")
    qrels = pool = queries = None
    if dataset is not None:
        if not str(dataset).startswith("irds:") and not dataset.is_dir():  # irds:<id>: hcrbench.data.irds
            raise InputError("not a directory", path=dataset, field="--dataset")
        ds = load_beir(dataset, split)
        qrels, pool, queries = ds.qrels, list(ds.corpus.doc_ids), ds.queries
    if qrels_path is not None:
        qrels = read_qrels(qrels_path) if not str(qrels_path).startswith("irds:") else as_qrels(str(qrels_path))
    if pool_path is not None:
        pool = _read_pool(pool_path)
    if pool is None:
        raise InputError("null C needs the item pool: give --dataset DIR or --item-pool FILE", field="--item-pool")
    return qrels, pool, queries


def _fmt(x: float) -> str:
    return f"{x:.4f}"


def _print_result(console, res, title: str) -> None:
    from hcrbench.gate import NULL_TITLES
    from hcrbench.report.terminal import Table

    verdict = "[green]PASS[/]" if res.gate_pass else "[red]FAIL[/]"
    t = Table(title=f"{escape(title)} — {escape(res.metric)}: real {_fmt(res.real_mean)} over {len(res.query_ids)} queries, oracle "
                    f"{_fmt(res.oracle_mean)} — gate {verdict} (pass: delta >= max(tau {res.tau:g}, tau_rel "
                    f"{res.tau_rel:g} x gap to oracle), Holm p < {res.alpha:g})", title_justify="left")
    from hcrbench.report.legend import p_header

    for col in ("null", "mean", "95% interval", "delta", "needed", "gap share", p_header(len(res.nulls)), "pass"):
        t.add_column(col, justify="left" if col == "null" else "right")
    for x, r in res.nulls.items():
        share = "—" if r.gap_share != r.gap_share else f"{r.gap_share:.3f}"
        t.add_row(f"{x} {NULL_TITLES[x]}", _fmt(r.mean), f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]",
                  f"{r.delta:+.4f}", _fmt(r.margin), share, f"{r.p_holm:.4f}", "✓" if r.passed else "✗")
    console.print(t)


def gate_command(
    runs: list[Path] = typer.Argument(None, help="TREC run files to gate (optional with --controls)."),
    dataset: Path | None = typer.Option(None, "--dataset", "-d", help="BEIR folder: qrels + corpus (item pool)."),
    split: str = typer.Option("test", "--split", help="Qrels split of the BEIR folder."),
    qrels_path: Path | None = typer.Option(None, "--qrels", help="Qrels file (overrides the dataset's)."),
    pool_path: Path | None = typer.Option(None, "--item-pool", help="Doc ids, one per line (or a JSON list)."),
    metric: str = typer.Option("nDCG@10", "--metric", "--metrics", "-m",
                               help="The graded metric to gate: nDCG@k, P@k, R@k, RR, AP (-m / --metrics as in "
                                    "evaluate, with one metric: the gate judges one)."),
    strict: bool = typer.Option(True, "--strict/--no-strict", help="Also gate strict recall@5 of the top gold."),
    controls: bool = typer.Option(False, "--controls", help="Build and gate the positive/negative controls."),
    n_trials: int = typer.Option(200, "--n-trials", help="Trials per null (>= 80 for Holm to reach 0.05)."),
    tau: float = typer.Option(0.01, "--tau", help="Minimum delta over every null mean."),
    tau_rel: float = typer.Option(0.1, "--tau-rel",
                                  help="Minimum share of each null-to-oracle gap the system must close (0-1)."),
    alpha: float = typer.Option(0.05, "--alpha", help="Level of the Holm-adjusted empirical p-values."),
    k: int | None = typer.Option(None, "--k", help="Docs null C retrieves / control depth (default: cutoff, 10)."),
    seed: int = typer.Option(0, "--seed", help="Seed of every random draw."),
    rel_threshold: int = typer.Option(1, "--rel-threshold", "-l", help="Minimum grade that counts as relevant."),
    json_path: Path | None = typer.Option(None, "--json", help="Write every result as JSON here."),
    baseline: str | None = typer.Option(None, "--baseline", "-b",
                                        help="Run name to compare every other run with: paired deltas and verdicts."),
    min_delta: float = typer.Option(0.01, "--min-delta", help="Smallest delta that matters (verdict MISS/UNDER-NS)."),
    n_resamples: int = typer.Option(10_000, "--resamples", "--n-resamples",
                                    help="Bootstrap/permutation resamples (--baseline)."),
    stratify: list[str] = typer.Option(None, "--stratify",
                                       help="Query metadata field for per-stratum deltas (repeatable; --baseline)."),
    calibration: Path | None = typer.Option(None, "--calibration",
                                            help="Plot CI width vs bench size here (.png/.svg/.pdf; --baseline)."),
    family: str = typer.Option("run", "--family",
                               help="Holm family (--baseline): 'run' (default, as hcrbench run) = (baseline, metric "
                                    "set) per run; 'metric' = every run per metric; 'all' pools runs and metrics."),
    pool_pairings: bool = typer.Option(False, "--pool-pairings",
                                       help="One Holm family for graded + strict (default: separate families)."),
) -> None:
    """Gate runs against four null predictors (calibrated p-values, Holm) and check the harness with controls."""
    from rich.console import Console

    from hcrbench.cli import flush_warnings
    from hcrbench.data import atomic_write_text, read_run
    from hcrbench.gate import agreement_table, gate_pairs, run_controls
    from hcrbench.gate._kernels import check_rel_threshold, parse_gate_metric
    from hcrbench.report.terminal import width

    if len([t for t in metric.split(",") if t.strip()]) > 1:
        raise InputError(f"the gate judges one graded metric (strict R@5 is added); got {metric!r}: run the gate "
                         "once per metric", field="--metrics")
    m = parse_gate_metric(metric)
    check_rel_threshold(rel_threshold, field="--rel-threshold")
    check_draws(n_trials, "--n-trials")
    if not 0 < alpha < 1:
        raise InputError(f"must be in (0, 1), got {alpha}", field="--alpha")
    check_seed(seed, "--seed")
    if k is not None and k < 1:
        raise InputError(f"must be >= 1, got {k}", field="--k")
    runs = runs or []
    stratify = [f.strip() for f in (stratify or [])]
    if not runs and not controls:
        raise InputError("nothing to gate: give RUN files and/or --controls", field="RUN")
    if json_path is not None:
        from hcrbench.data.outputs import ensure_parent

        ensure_parent(json_path, field="--json")
    _check_baseline_flags(baseline, min_delta, n_resamples, stratify, calibration, dataset)
    if family not in ("metric", "run", "all"):
        raise InputError(f"must be 'metric', 'run' or 'all', got {family!r}", field="--family")
    qrels, pool, queries = _load(dataset, split, qrels_path, pool_path)
    loaded = {}
    for p in runs:
        r = read_run(p)
        if r.name in loaded:
            raise InputError(f"two runs are named {r.name!r}", path=p, field="RUN")
        loaded[r.name] = r
    if baseline is not None:
        if baseline not in loaded:
            raise InputError(f"no run named {baseline!r} (runs: {', '.join(loaded) or 'none'})", field="--baseline")
        if len(loaded) < 2:
            raise InputError(f"nothing to compare: {baseline!r} is the only run", field="--baseline")
        if stratify:
            from hcrbench.gate import strata_from_metadata

            for f in stratify:  # fail before the gate's trials on an unknown field
                strata_from_metadata(queries, f)
    console = Console(width=width())
    if not 0.0 <= tau_rel <= 1.0:
        raise InputError(f"must be in [0, 1], got {tau_rel}", field="--tau-rel")
    common = dict(n_trials=n_trials, tau=tau, alpha=alpha, seed=seed, rel_threshold=rel_threshold, tau_rel=tau_rel)
    out: dict = {"metric": m.name, "strict": strict, "systems": {}, "controls": None}
    err = Console(stderr=True, highlight=False)
    # Warnings from the gate go to stderr once each, above the tables (hcrbench.cli).
    pairs = gate_pairs(qrels, loaded, metric=m.name, strict=strict, item_pool=pool, k=k, **common) if loaded else {}
    rep = None
    if controls:
        base = next(iter(loaded.values())) if loaded else None
        rep = run_controls(qrels, pool, metric=m.name, strict=strict, k=k or m.cutoff or 10, base_run=base,
                           **common)
    flush_warnings()  # above the tables
    for name, p in pairs.items():
        _print_result(console, p.graded, name)
        if p.strict is not None:
            _print_result(console, p.strict, f"{name} (strict)")
        out["systems"][name] = p.to_dict()
    if pairs and strict:
        for row in agreement_table(pairs):
            if row["disagree"]:
                err.print(f"[yellow]warning:[/] {escape(row['system'])} {'passes' if row['graded_pass'] else 'fails'}"
                              f" the gate on {row['graded_metric']} but "
                              f"{'passes' if row['strict_pass'] else 'fails'} on strict R@5")
    if rep is not None:
        _print_controls(console, rep)
        out["controls"] = rep.to_dict()
    if baseline is not None:
        out.update(_baseline_report(console, pairs, baseline, queries, stratify, calibration, min_delta=min_delta,
                                    alpha=alpha, n_resamples=n_resamples, seed=seed, family=family,
                                    pool_pairings=pool_pairings, err=err))
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(out, indent=2, sort_keys=True) + "\n")
    failed = _bottom_line(console, pairs, rep)
    if failed:
        raise typer.Exit(1)


def _bottom_line(console, pairs, rep) -> bool:
    """Print what the gate says in one line a person can act on; True when a check failed (exit 1)."""
    failing = [f"{name} ({', '.join(r.metric for r in (p.graded, p.strict) if r is not None and not r.gate_pass)})"
               for name, p in pairs.items()
               if not p.graded.gate_pass or (p.strict is not None and not p.strict.gate_pass)]
    parts = []
    if pairs:
        parts.append(f"{len(pairs) - len(failing)} of {len(pairs)} runs pass the gate"
                     + (f"; FAIL: {', '.join(failing)}" if failing else ""))
    untrusted = rep is not None and not rep.trusted
    if rep is not None:
        parts.append("harness not trusted (a control was misclassified)" if untrusted else "harness trusted")
    failed = bool(failing) or untrusted
    console.print(f"gate: {'FAIL' if failed else 'PASS'} — {escape('; '.join(parts))}")
    return failed


def _check_baseline_flags(baseline: str | None, min_delta: float, n_resamples: int, stratify: list[str],
                          calibration: Path | None, dataset: Path | None) -> None:
    """The --baseline family's flags, checked before anything slow runs."""
    import math

    if baseline is None:
        for flag, given in (("--stratify", bool(stratify)), ("--calibration", calibration is not None)):
            if given:
                raise InputError("needs --baseline NAME (deltas are taken against a baseline run)", field=flag)
        return
    if not (math.isfinite(min_delta) and min_delta > 0):
        raise InputError(f"must be a positive number, got {min_delta}", field="--min-delta")
    check_draws(n_resamples, "--n-resamples")
    if any(not f for f in stratify):
        raise InputError("empty field name", field="--stratify")
    if stratify and dataset is None:
        raise InputError("needs --dataset DIR: query metadata comes from its queries.jsonl", field="--stratify")
    if calibration is not None:
        if calibration.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise InputError("must end in .png, .svg or .pdf", path=calibration, field="--calibration")
        if not calibration.parent.is_dir():
            raise InputError("directory not found", path=calibration.parent, field="--calibration")


def _baseline_report(console, pairs, baseline: str, queries, stratify: list[str], calibration: Path | None, *,
                     min_delta: float, alpha: float, n_resamples: int, seed: int, family: str = "run",
                     pool_pairings: bool = False, err=None) -> dict:
    """Verdicts (and strata, calibration) vs ``baseline``: printed, and returned as the JSON's extra keys."""
    from hcrbench.report.gate import (
        calibration_rows,
        calibration_table,
        compare_to_baseline,
        plot_calibration_runs,
        strata_rows,
        strata_tables,
        verdict_table,
    )

    comps = compare_to_baseline(pairs, baseline, min_delta=min_delta, alpha=alpha, n_resamples=n_resamples,
                                seed=seed, family=family, pool_pairings=pool_pairings)
    console.print(verdict_table(comps))
    base = pairs[baseline]
    failing = [r.metric for r in (base.graded, base.strict) if r is not None and not r.gate_pass]
    if failing:
        (err or console).print(f"[yellow]warning:[/] the baseline {escape(repr(baseline))} itself fails the gate on "
                      f"{', '.join(failing)}: deltas against it say little")
    from hcrbench.stats.compare import family_text

    extra: dict = {"baseline": baseline, "min_delta": min_delta, "verdicts": [c.to_dict() for c in comps],
                   "family": family_text(family, baseline), "family_kind": family, "pool_pairings": pool_pairings}
    console.print(escape(f"Holm family: {family_text(family, baseline)}"))
    if stratify:
        rows = strata_rows(comps, queries, stratify)
        for t in strata_tables(rows):
            console.print(t)
        extra["strata"] = rows
    if calibration is not None:
        rows = calibration_rows(comps, seed=seed)
        console.print(calibration_table(rows))
        plot_calibration_runs(rows, calibration, n_bench=len(base.graded.query_ids), min_delta=min_delta)
        console.print(escape(f"calibration plot written to {calibration}"))
        extra["calibration"] = rows
    return extra


def _print_controls(console, rep) -> None:
    from hcrbench.report.terminal import Table

    t = Table(title="Controls: expected vs observed gate outcome", title_justify="left")
    for col in ("control", "metric", "real", "expected", "got", "failed nulls", "ok"):
        t.add_column(col, justify="right" if col == "real" else "left")
    for r in rep.rows:
        t.add_row(r["control"], r["metric"], _fmt(r["real"]), "pass" if r["expected_pass"] else "fail",
                  "pass" if r["gate_pass"] else "fail", ",".join(r["failed_nulls"]) or "-", "✓" if r["ok"] else "✗")
    console.print(t)
    if rep.trusted:
        console.print("harness trusted on this benchmark: ✓ (every control classified as expected)")
    else:
        console.print(escape(f"harness trusted on this benchmark: ✗ — misclassified: {', '.join(rep.misclassified)}"))


def register(app: typer.Typer) -> None:
    app.command("gate")(gate_command)
