"""``hcrbench gate [RUN ...] --dataset DIR | --qrels FILE --item-pool FILE``: the four-null falsification gate.

Prints, per system, the real mean and each null's mean, 95% interval, delta, p and Holm p, and whether it
passes; with ``--controls`` also the positive/negative controls and whether the harness can be trusted on this
benchmark. Exit 0 whatever the gate says (a failing system is a finding); 2 for bad input.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from hcrbench.errors import InputError


def _read_pool(path: Path) -> list[str]:
    if not path.is_file():
        raise InputError("file not found", path=path, field="--item-pool")
    text = path.read_text(encoding="utf-8").strip()
    if text.startswith("["):
        try:
            ids = [str(x) for x in json.loads(text)]
        except json.JSONDecodeError as e:
            raise InputError(f"invalid JSON list ({e.msg})", path=path, line=e.lineno) from None
    else:
        ids = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not ids:
        raise InputError("the item pool is empty", path=path, line=1, field="--item-pool")
    return ids


def _load(dataset: Path | None, split: str, qrels_path: Path | None, pool_path: Path | None):
    from hcrbench.data import load_beir, read_qrels

    if dataset is None and qrels_path is None:
        raise InputError("give --dataset DIR (BEIR folder) or --qrels FILE with --item-pool FILE", field="--dataset")
    qrels = pool = None
    if dataset is not None:
        if not dataset.is_dir():
            raise InputError("not a directory", path=dataset, field="--dataset")
        ds = load_beir(dataset, split)
        qrels, pool = ds.qrels, list(ds.corpus.doc_ids)
    if qrels_path is not None:
        qrels = read_qrels(qrels_path)
    if pool_path is not None:
        pool = _read_pool(pool_path)
    if pool is None:
        raise InputError("null C needs the item pool: give --dataset DIR or --item-pool FILE", field="--item-pool")
    return qrels, pool


def _fmt(x: float) -> str:
    return f"{x:.4f}"


def _print_result(console, res, title: str) -> None:
    from rich.table import Table

    from hcrbench.gate import NULL_TITLES

    verdict = "[green]PASS[/]" if res.gate_pass else "[red]FAIL[/]"
    t = Table(title=f"{title} — {res.metric}: real {_fmt(res.real_mean)} over {len(res.query_ids)} queries — "
                    f"gate {verdict}", title_justify="left")
    for col in ("null", "mean", "95% interval", "delta", "p", "Holm p", "pass"):
        t.add_column(col, justify="left" if col == "null" else "right")
    for x, r in res.nulls.items():
        t.add_row(f"{x} {NULL_TITLES[x]}", _fmt(r.mean), f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]",
                  f"{r.delta:+.4f}", f"{r.p:.4f}", f"{r.p_holm:.4f}", "✓" if r.passed else "✗")
    console.print(t)


def gate_command(
    runs: list[Path] = typer.Argument(None, help="TREC run files to gate (optional with --controls)."),
    dataset: Path | None = typer.Option(None, "--dataset", "-d", help="BEIR folder: qrels + corpus (item pool)."),
    split: str = typer.Option("test", "--split", help="Qrels split of the BEIR folder."),
    qrels_path: Path | None = typer.Option(None, "--qrels", help="Qrels file (overrides the dataset's)."),
    pool_path: Path | None = typer.Option(None, "--item-pool", help="Doc ids, one per line (or a JSON list)."),
    metric: str = typer.Option("nDCG@10", "--metric", "-m", help="Graded metric: nDCG@k, P@k, R@k, RR, AP."),
    strict: bool = typer.Option(True, "--strict/--no-strict", help="Also gate strict recall@5 of the top gold."),
    controls: bool = typer.Option(False, "--controls", help="Build and gate the positive/negative controls."),
    n_trials: int = typer.Option(200, "--n-trials", help="Trials per null (>= 80 for Holm to reach 0.05)."),
    tau: float = typer.Option(0.01, "--tau", help="Minimum delta over every null mean."),
    alpha: float = typer.Option(0.05, "--alpha", help="Level of the Holm-adjusted empirical p-values."),
    k: int | None = typer.Option(None, "--k", help="Docs null C retrieves / control depth (default: cutoff, 10)."),
    seed: int = typer.Option(0, "--seed", help="Seed of every random draw."),
    rel_threshold: int = typer.Option(1, "--rel-threshold", "-l", help="Minimum grade that counts as relevant."),
    json_path: Path | None = typer.Option(None, "--json", help="Write every result as JSON here."),
) -> None:
    """Gate runs against four null predictors (calibrated p-values, Holm) and check the harness with controls."""
    import warnings

    from rich.console import Console

    from hcrbench.data import atomic_write_text, read_run
    from hcrbench.errors import HcrbenchWarning
    from hcrbench.gate import agreement_table, gate_pairs, run_controls
    from hcrbench.gate._kernels import parse_gate_metric

    m = parse_gate_metric(metric)
    if n_trials < 1:
        raise InputError(f"must be >= 1, got {n_trials}", field="--n-trials")
    if not 0 < alpha < 1:
        raise InputError(f"must be in (0, 1), got {alpha}", field="--alpha")
    if seed < 0:
        raise InputError(f"must be >= 0, got {seed}", field="--seed")
    if k is not None and k < 1:
        raise InputError(f"must be >= 1, got {k}", field="--k")
    runs = runs or []
    if not runs and not controls:
        raise InputError("nothing to gate: give RUN files and/or --controls", field="RUN")
    qrels, pool = _load(dataset, split, qrels_path, pool_path)
    loaded = {}
    for p in runs:
        r = read_run(p)
        if r.name in loaded:
            raise InputError(f"two runs are named {r.name!r}", path=p, field="RUN")
        loaded[r.name] = r
    console = Console(width=140)
    common = dict(n_trials=n_trials, tau=tau, alpha=alpha, seed=seed, rel_threshold=rel_threshold)
    out: dict = {"metric": m.name, "strict": strict, "systems": {}, "controls": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HcrbenchWarning)
        pairs = gate_pairs(qrels, loaded, metric=m.name, strict=strict, item_pool=pool, k=k, **common) if loaded else {}
        rep = None
        if controls:
            base = next(iter(loaded.values())) if loaded else None
            rep = run_controls(qrels, pool, metric=m.name, strict=strict, k=k or m.cutoff or 10, base_run=base,
                               **common)
    for w in dict.fromkeys(str(c.message) for c in caught if issubclass(c.category, HcrbenchWarning)):
        console.print(f"[yellow]warning:[/] {w}")
    for name, p in pairs.items():
        _print_result(console, p.graded, name)
        if p.strict is not None:
            _print_result(console, p.strict, f"{name} (strict)")
        out["systems"][name] = p.to_dict()
    if pairs and strict:
        for row in agreement_table(pairs):
            if row["disagree"]:
                console.print(f"[yellow]disagreement:[/] {row['system']} {'passes' if row['graded_pass'] else 'fails'}"
                              f" the gate on {row['graded_metric']} but "
                              f"{'passes' if row['strict_pass'] else 'fails'} on strict R@5")
    if rep is not None:
        _print_controls(console, rep)
        out["controls"] = rep.to_dict()
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(out, indent=2, sort_keys=True) + "\n")


def _print_controls(console, rep) -> None:
    from rich.table import Table

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
        console.print(f"harness trusted on this benchmark: ✗ — misclassified: {', '.join(rep.misclassified)}")


def register(app: typer.Typer) -> None:
    app.command("gate")(gate_command)
