"""``hcrbench merge RUN RUN ... --out F [--depth K]``: shard runs (TREC RAG style) merged into one run."""

from __future__ import annotations

from pathlib import Path

import typer


def merge_command(
    runs: list[Path] = typer.Argument(..., help="Shard run files (TREC, gzip allowed), read as their concatenation."),
    out: Path = typer.Option(..., "--out", "-o", help="Merged run to write (atomically), in the format its suffix names: .trec / .run / .txt (TREC), .json (ranx), .parquet; .gz compresses."),
    depth: int | None = typer.Option(None, "--depth", "-k",
                                     help="Keep each query's best K documents (as trec_eval -M K would score)."),
    tag: str | None = typer.Option(None, "--tag", help="Run tag written in the last column (default: each line "
                                                       "keeps its own)."),
    dedupe: bool = typer.Option(False, "--dedupe",
                                help="Keep the first line of a doc two lines give for one query, instead of "
                                     "refusing the runs."),
    tmp_dir: Path | None = typer.Option(None, "--tmp-dir",
                                        help="Where queries are spilled while merging (default: the system's "
                                             "temporary folder; needs about as much disk as the runs' text)."),
) -> None:
    """Merge shard runs into one run, in bounded memory: queries in the order they first appear, each by score
    (desc), then the rank each line had, then doc id (desc, trec_eval's); score text, Q0 and tags kept as read.
    Scoring the result equals scoring the concatenated shards."""
    from rich.console import Console

    from hcrbench.data.merge import merge_runs
    from hcrbench.data.outputs import ensure_parent
    from hcrbench.data.run_writers import check_run_path

    check_run_path(out, field="--out")
    ensure_parent(out, field="--out")
    summary = merge_runs(runs, out, depth=depth, tag=tag, dedupe=dedupe, tmp_dir=tmp_dir)
    cut = f", top {depth} per query kept" if depth is not None else ""
    Console().print(f"merged {summary.files} runs: {summary.queries:,} queries, {summary.lines_read:,} lines read, "
                    f"{summary.lines_written:,} written{cut}. Wrote {out}; score it with hcrbench evaluate QRELS "
                    f"{out}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("merge")(merge_command)
