"""``hcrbench fuse RUN RUN ... --method M [--norm N] [--weights ...] --out F``: ranx's fusion methods on run files."""

from __future__ import annotations

from pathlib import Path

import typer

from hcrbench.errors import InputError


def _weights(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(w) for w in text.split(",") if w.strip()]
    except ValueError:
        raise InputError(f"expected comma-separated numbers, got {text!r}", field="--weights") from None


def fuse_command(
    runs: list[Path] = typer.Argument(..., help="Two or more run files: TREC (gzip allowed), ranx JSON or parquet."),
    method: str = typer.Option("rrf", "--method", help="sum | max | min | anz | mnz | gmnz | med | wmnz | mixed | isr "
                                                        "| log_isr | logn_isr | bordafuse | w_bordafuse | rbc | rrf | "
                                                        "wsum (ranx's names; combsum etc. accepted). Not here: "
                                                        "condorcet, w_condorcet (ranx's result depends on the hash "
                                                        "seed) and ranx's trained bayesfuse, mapfuse, posfuse, "
                                                        "probfuse, segfuse, slidefuse."),
    norm: str | None = typer.Option(None, "--norm", help="Per-query normalisation first: min-max | min-max-inverted "
                                                         "| max | sum | z-score | rank | borda | none (ranx's "
                                                         "definitions; default min-max for score-based methods, none "
                                                         "for rank-based ones, whose ranks it does not change)."),
    ties: str = typer.Option("ranx", "--ties", help="Order of tied scores: ranx (default: ranks as ranx sorts them, "
                                                    "and the file written in the order ranx.fuse(...).save() "
                                                    "writes, so ranx evaluates the same ties; not for bordafuse / "
                                                    "w_bordafuse, whose order ranx takes from a Python set: it changes "
                                                    "with PYTHONHASHSEED) | trec (trec_eval's: doc id descending, in "
                                                    "the ranks and the file)."),
    weights: str | None = typer.Option(None, "--weights", help="One weight per run for wsum / rrf / wmnz / mixed / "
                                                               "w_bordafuse, e.g. 0.7,0.3."),
    k: float = typer.Option(60, "--k", help="RRF's k."),
    phi: float = typer.Option(0.8, "--phi", help="RBC's persistence phi in (0, 1)."),
    gamma: float = typer.Option(1.0, "--gamma", help="gmnz's exponent on the count of runs."),
    sigma: float = typer.Option(0.01, "--sigma", help="logn_isr's sigma in [0, 1]."),
    tune_qrels: Path | None = typer.Option(None, "--tune-qrels",
                                           help="Choose the weights (wsum), k (rrf) or phi (rbc) on these qrels' "
                                                "queries first, as ranx's optimize_fusion."),
    tune_runs: list[Path] = typer.Option([], "--tune-run",
                                         help="With --tune-qrels: the same systems' runs on the tune split, one per "
                                              "RUN in the same order (default: RUN itself, restricted to the tune "
                                              "queries)."),
    metric: str = typer.Option("nDCG@10", "--metric", help="Measure maximised with --tune-qrels."),
    step: float = typer.Option(0.1, "--step", help="Weight grid step with --tune-qrels and wsum."),
    depth: int = typer.Option(1000, "--k-out", help="Documents written per query."),
    name: str | None = typer.Option(None, "--name", help="Run tag (default: the method)."),
    out: Path = typer.Option(..., "--out", help="Fused run to write (atomically), in the format its suffix names: .trec / .run / .txt (TREC), .json (ranx), .parquet; .gz compresses."),
) -> None:
    """Fuse run files with one of ranx's methods (equal to ranx.fuse, ties included with the default --ties ranx,
    and written as ranx.fuse(...).save() writes it, but for bordafuse / w_bordafuse), optionally tuned on a tune
    split."""
    from hcrbench.data.outputs import ensure_parent
    from hcrbench.data.run_formats import read_any_qrels as read_qrels
    from hcrbench.data.run_formats import read_any_run as read_run
    from hcrbench.data.run_writers import check_run_path, write_any_run
    from hcrbench.retrieve.fusion_methods import (
        RANK_BASED,
        WEIGHTED,
        fuse,
        method_name,
        norm_name,
        run_positions,
        ties_name,
    )

    check_run_path(out, field="--out")
    m = method_name(method)
    nm = norm_name(norm if norm is not None else ("none" if m in RANK_BASED else "min-max"))
    ties = ties_name(ties)
    w = _weights(weights)
    if len(runs) < 2:
        raise InputError(f"fusion needs at least two runs, got {len(runs)}", field="RUN")
    if w is not None and m not in WEIGHTED:
        raise InputError(f"method {m!r} takes no weights (weighted methods: {', '.join(WEIGHTED)})",
                         field="--weights")
    if w is not None and len(w) != len(runs):
        raise InputError(f"{len(w)} weights for {len(runs)} runs", field="--weights")
    if depth < 1:
        raise InputError(f"must be a positive integer, got {depth}", field="--k-out")
    ensure_parent(out, field="--out")
    loaded = [read_run(p) for p in runs]
    params: dict = {"weights": w, "k": k, "phi": phi}
    note = ""
    if tune_runs and tune_qrels is None:
        raise InputError("--tune-run needs --tune-qrels", field="--tune-run")
    if tune_qrels is not None:
        from hcrbench.experiment.fusion_tuning import optimize_fusion

        if w is not None:
            raise InputError("give either --weights or --tune-qrels, not both", field="--weights")
        qrels = read_qrels(tune_qrels)
        if tune_runs and len(tune_runs) != len(runs):
            raise InputError(f"{len(tune_runs)} tune runs for {len(runs)} runs", field="--tune-run")
        tuning = [read_run(p) for p in tune_runs] if tune_runs else loaded
        tuned = optimize_fusion(qrels, tuning, m, nm, metric=metric, step=step, ties=ties)
        params.update(tuned.params)
        singles = _single_scores(qrels, tuning, tuned.metric)
        chosen = ", ".join(f"{key}={_fmt(v)}" for key, v in tuned.params.items())
        best_single = max(singles.values())
        typer.echo(f"tuned on {tuned.n_queries} queries of {tune_qrels}: {chosen} gives {tuned.metric} "
                   f"{tuned.score:.4f} over {len(tuned.trials)} grid points (best single run "
                   f"{best_single:.4f}: {max(singles, key=singles.get)})")
        note = f"; {chosen} chosen on {tuned.n_queries} tune queries"
    fused = fuse(loaded, m, nm, weights=params["weights"], k=params["k"], phi=params["phi"], gamma=gamma,
                 sigma=sigma, ties=ties, name=name or m)
    if ties == "ranx" and check_run_path(out, field="--out") == "trec":  # ranx's own file: its line order, so
        # ranx reads the same tie order back
        _write_ranx_order(fused, [(r, run_positions(r, nm, ties)) for r in loaded], out, depth, name or m)
    else:
        write_any_run(fused, out, k=depth, field="--out")
    lines = int(sum(min(int(n), depth) for n in fused.lengths()))
    typer.echo(f"fused {len(runs)} runs with {m} {_how(m, nm, ties, RANK_BASED)}: {len(fused.query_ids)} queries, "
               f"{lines} lines -> {out}{note}")


def _write_ranx_order(fused, inputs, out: Path, depth: int, tag: str) -> None:
    """The fused run as ``ranx.fuse(...).save(out)`` writes it (:func:`~hcrbench.retrieve.ranx_order.
    ranx_saved_order`: its query order, its order of tied documents, ``repr`` scores), each query cut to ``depth``;
    atomically, ``.gz`` compressed. Ids and scores are checked as :func:`~hcrbench.data.write_run` checks them."""
    import numpy as np

    from hcrbench.data.atomic import atomic_open
    from hcrbench.data.trec import check_written_ids
    from hcrbench.retrieve.ranx_order import ranx_saved_order

    tag = "_".join(tag.split()) or "hcrbench"
    if not np.all(np.isfinite(np.asarray(fused.scores, dtype=np.float64))):
        raise InputError("the fusion gave a non-finite score; refusing to write a run no tool can read", path=out)
    check_written_ids(fused, out, what=f"system {tag!r}")
    with atomic_open(out, "w") as fh:
        for qid, docs in ranx_saved_order(fused, inputs):
            fh.writelines(f"{qid} Q0 {doc} {r} {score!r} {tag}\n" for r, (doc, score) in enumerate(docs[:depth], 1))


def _how(method: str, norm: str, ties: str, rank_based: tuple[str, ...]) -> str:
    """What the fusion read: ranks (and whose tie order) or normalised scores."""
    if method not in rank_based:
        return f"after {norm} normalisation" if norm != "none" else "on raw scores"
    order = "ranx's order" if ties == "ranx" else "trec_eval's order"
    again = " re-sorted by min-max-inverted" if norm == "min-max-inverted" else ""
    return f"on ranks (ties in {order}{again})"


def _fmt(v) -> str:
    return ",".join(f"{x:g}" for x in v) if isinstance(v, list) else f"{v:g}"


def _single_scores(qrels, runs, metric: str) -> dict[str, float]:
    from hcrbench.metrics import evaluate

    res = evaluate(qrels, {f"{i}:{r.name}": r.subset(qrels.query_ids) for i, r in enumerate(runs)}, [metric])
    return {n.split(":", 1)[1]: float(ev.means[metric]) for n, ev in res.runs.items()}


def register(app: typer.Typer) -> None:
    app.command("fuse")(fuse_command)
