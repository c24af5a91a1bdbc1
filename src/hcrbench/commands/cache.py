"""``hcrbench cache info | verify | clear``: see, check and prune the on-disk cache of vectors and indexes.

Every cached file carries a checksum written with it (``hcrbench.data.cache``); runs already refuse damaged entries
and recompute them, and ``verify`` checks the whole folder at once (exit 1 when something is damaged and not
repaired), so a CI job can prove its cache is sound before trusting a number.
"""

from __future__ import annotations

from pathlib import Path

import typer

from hcrbench.errors import InputError

cache_app = typer.Typer(help="Inspect, verify and clear the cache (embeddings, indexes, trees).",
                        no_args_is_help=True)

_ROOT_HELP = "Cache folder (default: $HCRBENCH_CACHE or ~/.cache/hcrbench)."


def _mb(n: int) -> str:
    return f"{n / 2**20:,.1f} MB"


@cache_app.command("info")
def info(root: Path | None = typer.Option(None, "--root", help=_ROOT_HELP)) -> None:
    """What is cached: one line per embedding model and per built index, with sizes."""
    from rich.console import Console
    from rich.markup import escape

    from hcrbench.data.cache import cache_root
    from hcrbench.data.cache_admin import list_entries
    from hcrbench.report.terminal import Table, width

    entries = list_entries(root)
    where = cache_root(root)
    if not entries:
        typer.echo(f"cache {where} is empty")
        return
    table = Table(title=f"cache {where}")
    for col in ("kind", "name", "items", "size"):
        table.add_column(col, justify="right" if col in ("items", "size") else "left")
    for e in entries:
        items = f"{e.items} shards" if e.kind == "embeddings" else f"{e.items} files"
        table.add_row(escape(e.kind), escape(e.name), items, _mb(e.size_bytes))  # a model id is the user's text
    Console(width=width(120)).print(table)
    total = sum(e.size_bytes for e in entries)
    typer.echo(f"{len(entries)} entries, {_mb(total)} in all; check them with `hcrbench cache verify`.")


@cache_app.command("verify")
def verify(
    root: Path | None = typer.Option(None, "--root", help=_ROOT_HELP),
    repair: bool = typer.Option(False, "--repair", help="Delete damaged entries so the next run recomputes them."),
) -> None:
    """Check every cached file against the checksum written with it. Exit 1 on damage left unrepaired."""
    from hcrbench.data.cache import cache_root
    from hcrbench.data.cache_admin import list_entries, verify_cache

    n_entries = len(list_entries(root))  # the entries `cache info` lists, counted the same way
    files, damage = verify_cache(root, repair=repair)
    for d in damage:
        typer.echo(f"DAMAGED {d.kind}: {d.path}: {d.reason}" + ("  [removed]" if repair else ""), err=True)
    where = cache_root(root)
    checked = f"{n_entries} entries ({files} embedding shards and indexes)"
    if not damage:
        typer.echo(f"cache {where}: {checked} checked, all intact.")
        return
    if repair:
        typer.echo(f"cache {where}: {checked} checked, {len(damage)} damaged and removed; the next run "
                   "recomputes them.")
        return
    typer.echo(f"cache {where}: {checked} checked, {len(damage)} DAMAGED. Runs already skip and recompute "
               "them; run `hcrbench cache verify --repair` to delete them now.")
    raise typer.Exit(1)


@cache_app.command("clear")
def clear(
    root: Path | None = typer.Option(None, "--root", help=_ROOT_HELP),
    model: str | None = typer.Option(None, "--model", help="Only embeddings whose model id contains this text."),
    kind: str | None = typer.Option(None, "--kind", help="Only this kind: embeddings, bm25, faiss-flat, ..."),
    older_than: str | None = typer.Option(None, "--older-than", help="Only entries last written before this "
                                          "age ago: 30d, 12h, 45m, 90s."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List what would be deleted, delete nothing."),
) -> None:
    """Delete cached entries (all of them, or those matching every filter given)."""
    from hcrbench.data.cache import cache_root
    from hcrbench.data.cache_admin import clear_cache, parse_age

    age = None
    if older_than is not None:
        try:
            age = parse_age(older_than)
        except ValueError as e:
            raise InputError(str(e), field="--older-than") from None
    gone = clear_cache(root, model=model, kind=kind, older_than=age, dry_run=dry_run)
    verb = "would delete" if dry_run else "deleted"
    for e in gone:
        typer.echo(f"{verb} {e.kind} {e.name} ({_mb(e.size_bytes)})", err=True)
    total = sum(e.size_bytes for e in gone)
    typer.echo(f"cache {cache_root(root)}: {verb} {len(gone)} entries, {_mb(total)}.")


def register(app: typer.Typer) -> None:
    app.add_typer(cache_app, name="cache")
