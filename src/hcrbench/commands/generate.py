"""``hcrbench generate meridian``: write the synthetic Meridian corpus and its query suite (300 by default, ``--queries N``) as a BEIR folder
(``--worlds K``: K independent worlds pooled in one folder, each split its own worlds). The world is ``--size``
documents unless ``--grow`` asks it to grow for its suite's topics."""

from __future__ import annotations

from pathlib import Path

import typer

from hcrbench.errors import InputError
from hcrbench.limits import check_seed

generate_app = typer.Typer(help="Generate synthetic benchmark corpora.", no_args_is_help=True)


@generate_app.command("meridian")
def meridian_command(
    size: str = typer.Option("small", "--size", help="small (500 docs), medium (2,000), full (3,500) or a count."),
    seed: str = typer.Option("0", "--seed", help="Non-negative integer seed; same seed => identical bytes."),
    out: Path = typer.Option(..., "--out", help="Output folder (created if missing)."),
    queries: str = typer.Option("300", "--queries",
                                help="Queries in the suite, in the design's category shares (300: its counts)."),
    fixed_size: bool = typer.Option(True, "--fixed-size/--grow",
                                    help="--fixed-size (the default): the world is --size documents (the design's "
                                         "500 / 2,000 / 3,500), even when its suite then falls short of independent "
                                         "topics (describe reports a shortfall). --grow: the world grows until each "
                                         "split has 2/3 of its queries in distinct clusters (opt-in, kept for the "
                                         "figures measured on grown worlds; not with --worlds K)."),
    worlds: str = typer.Option("1", "--worlds",
                               help="Independent worlds in the dataset: 1 (one world, its queries split 60/20/20) "
                                    "or 3-100 (world w from a seed derived from --seed, at --size documents, never "
                                    "grown; tune, dev and test are different worlds; ids carry their world: "
                                    "w00-MER-000001, w00-MQ001; docs/meridian.md)."),
) -> None:
    """Generate Meridian Technologies: corpus.jsonl, queries, qrels/{tune,dev,test}.tsv, evidence, manifest."""
    import time

    from hcrbench.synth import generate_meridian

    s = seed.strip()
    if not (s.isascii() and s.isdigit()):
        raise InputError(f"must be a non-negative integer, got {seed!r}", field="--seed")
    check_seed(int(s), "--seed")
    t0 = time.perf_counter()
    q = queries.strip()
    if not (q.isascii() and q.isdigit()):
        raise InputError(f"must be a positive integer, got {queries!r}", field="--queries")
    k = worlds.strip()
    if not (k.isascii() and k.isdigit()):
        raise InputError(f"must be a positive integer, got {worlds!r}", field="--worlds")
    from hcrbench.synth.worlds import check_worlds, generate_worlds, remove_worlds

    n_worlds = check_worlds(int(k), field="--worlds")
    if n_worlds > 1 and not fixed_size:
        raise InputError(f"--grow and --worlds {n_worlds} exclude each other: a world of several is never grown",
                         field="--grow")
    from hcrbench.data.outputs import ensure_parent

    ensure_parent(out, field="--out")  # at most one missing folder level above --out (checked after the flags)
    if n_worlds > 1:
        def said(e: dict) -> None:  # one line per world on stderr, so a long generation is never silent
            typer.echo(f"world {e['name']} ({e['split']}, seed {e['seed']}): {e['n_docs']:,} documents, "
                       f"{e['n_queries']} queries, {e['done'].split(':')[0]} ({e['seconds']:.1f} s)", err=True)

        manifest = generate_worlds(out, size=size, seed=int(s), n_queries=int(q), worlds=n_worlds, on_world=said)
        splits = "; ".join(f"{sp} {', '.join(names)}" for sp, names in manifest["world_splits"].items())
        typer.echo(f"meridian: {n_worlds} worlds of {manifest['size_docs']:,} documents and "
                   f"{manifest['n_queries'] // n_worlds} queries ({splits}), seed {manifest['seed']} -> {out} "
                   f"({time.perf_counter() - t0:.1f} s); next: hcrbench describe {out}")
        return
    manifest = generate_meridian(out, size=size, seed=int(s), n_queries=int(q), grow=not fixed_size)
    remove_worlds(out)  # a folder that held several worlds holds one now: no stale world beside it
    grown = ""
    if manifest["n_docs"] > manifest["size_docs"]:
        grown = (f" (the world grew from {manifest['size_docs']:,} to hold {manifest['n_queries']} queries over "
                 f"independent topics; without --grow it keeps {manifest['size_docs']:,})")
    typer.echo(f"meridian: {manifest['n_docs']:,} documents{grown}, {manifest['n_queries']} queries, seed "
               f"{manifest['seed']} -> {out} ({time.perf_counter() - t0:.1f} s); next: hcrbench describe {out}")


@generate_app.command("code")
def code_command(
    package: str = typer.Option("email,asyncio", "--package",
                                help="Installed package(s) whose source becomes the corpus: a stdlib package "
                                     "(email, asyncio, ...) or any installed one; comma-separate several."),
    out: Path = typer.Option(..., "--out", help="Output folder (a BEIR folder plus linerange/ and manifest)."),
    seed: str = typer.Option("0", "--seed", help="Non-negative integer seed for the query sample."),
    queries: int = typer.Option(300, "--queries", help="How many queries to draw (fewer if fewer exist)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists."),
) -> None:
    """Build a code-retrieval set from installed Python source: line-range, file and snippet ground truth."""
    import time

    from hcrbench.synth.codeset import generate_codeset

    s = seed.strip()
    if not (s.isascii() and s.isdigit()):
        raise InputError(f"must be a non-negative integer, got {seed!r}", field="--seed")
    check_seed(int(s), "--seed")
    t0 = time.perf_counter()
    m = generate_codeset(out, package, seed=int(s), n_queries=queries, overwrite=overwrite)
    typer.echo(f"code set: {m['n_files']} files ({m['n_lines']:,} lines) of {m['package']} on Python "
               f"{m['python_version']}, {m['n_queries']} queries of {m['n_candidates']} candidates, seed {m['seed']} "
               f"-> {out} ({time.perf_counter() - t0:.1f} s); next: hcrbench policy-compare --dataset {out} "
               f"--system bm25 --budget 15")


def register(app: typer.Typer) -> None:
    app.add_typer(generate_app, name="generate")
