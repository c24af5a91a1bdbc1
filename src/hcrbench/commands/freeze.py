"""``hcrbench freeze CONFIG_OR_OUTPUT --out baseline.json``: freeze results for ``hcrbench check``."""

from __future__ import annotations

from pathlib import Path

import typer


def freeze_command(
    config_or_output: Path = typer.Argument(..., help="An experiment TOML (its suite is run) or a finished "
                                                      "experiment output folder."),
    out: Path = typer.Option(..., "--out", help="Baseline JSON to write (atomically)."),
    smoke: bool = typer.Option(False, "--smoke", help="Freeze the 20-query smoke suite of CONFIG (2 per category)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the smoke selection (default: the config's)."),
    reuse: bool = typer.Option(False, "--reuse",
                               help="Resume into the config's own output folder instead of recomputing every system."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress output."),
) -> None:
    """Write a baseline JSON (means, per-query scores, dataset hashes, gate verdicts) for hcrbench check."""
    from rich.console import Console

    from hcrbench.cli import flush_warnings
    from hcrbench.errors import InputError
    from hcrbench.experiment.freeze import baseline_document, config_reference, write_baseline
    from hcrbench.experiment.manifest import read_manifest
    from hcrbench.limits import check_seed

    if seed is not None:
        check_seed(seed, "--seed")
    if out.exists() and out.is_dir():
        raise InputError("is a folder; give a file name for the baseline", path=out, field="--out")
    source = config_or_output
    if source.is_dir():
        if smoke or seed is not None or reuse:
            raise InputError("--smoke, --seed and --reuse need a CONFIG to run, not an output folder",
                             path=source, field="CONFIG_OR_OUTPUT")
        cfg_path = (read_manifest(source) or {}).get("config_path")
        ref = config_reference(Path(cfg_path), out) if cfg_path and Path(cfg_path).is_file() else None
        doc = baseline_document(source, config=ref)
    else:
        from hcrbench.experiment.suite import run_suite

        with run_suite(source, smoke=smoke, smoke_seed=seed, reuse=reuse, progress=not quiet) as run:
            doc = baseline_document(run.output_dir, smoke=run.smoke, config=config_reference(source, out),
                                    gate_newer_than=run.started, config_text=run.config_text)
    write_baseline(doc, out)
    flush_warnings()
    console = Console(highlight=False)
    metric = doc["metrics"][0] if doc["metrics"] else None
    n = doc["dataset"].get("n_queries")
    scores = ", ".join(f"{name} {s['means'].get(metric, float('nan')):.4f}" for name, s in doc["systems"].items())
    gate = "" if doc["gate"] is None else f"; gate verdicts of {len(doc['gate']['systems'])} systems"
    console.print(f"froze {len(doc['systems'])} systems on {n} queries ({doc['suite']['kind']} suite; {metric}: "
                  f"{scores}){gate} -> {out}", soft_wrap=True)
    console.print(f"check later with: hcrbench check --baseline {out}", soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("freeze")(freeze_command)
