"""The execute stage of :func:`hcrbench.experiment.runner.run_experiment`: each system's run computed by the
engine (:mod:`hcrbench.experiment.engine`), reused from the folder, or skipped (``--only``); see
:mod:`hcrbench.experiment.stages` for the stages around it."""

from __future__ import annotations

import time

from rich.markup import escape

from hcrbench.data.atomic import atomic_write_bytes
from hcrbench.data.hashing import sha256_file
from hcrbench.data.trec import write_run
from hcrbench.errors import InputError
from hcrbench.experiment.cell import Cell, CellInputError, CellOutput
from hcrbench.experiment.claim import drop_stale_results
from hcrbench.experiment.config import locate
from hcrbench.experiment.engine import make_engine
from hcrbench.experiment.fingerprint import reusable, system_fingerprint, world_data_keys
from hcrbench.experiment.reads import (
    batches,
    fingerprint_with_reads,
    reads_entry,
    reads_of,
    resolved,
    with_readers_of_the_first,
)
from hcrbench.experiment.stages import Execution, Plan, commit_manifest, load_run
from hcrbench.experiment.steps import ProtocolHooks
from hcrbench.experiment.tree_step import LOGS_DIR, log_rel
from hcrbench.experiment.world_cache import WORLDS_DIR


def execute(p: Plan, *, fail_fast: bool | None, protocol: ProtocolHooks | None) -> Execution:
    """Each system's run: reused when its fingerprint and file still hold, skipped when ``--only`` leaves it out,
    else computed by the engine as a cell, its run file and manifest entry committed as it finishes. With
    ``--fail-fast`` the cells go one at a time, each after the protocol's checkpoints."""
    cfg, out, data, console, job = p.cfg, p.out, p.data, p.console, p.job
    ex = Execution()
    if cfg.protocol is not None and protocol is not None and (cfg.protocol.fail_fast if fail_fast is None
                                                              else fail_fast):
        ex.watch = protocol.watch(cfg, data, out)
    started = time.time()  # embeddings cached before this are earlier work (Cell.started)
    fps: dict[str, str] = {}  # a reader's fingerprint folds in the one of the system it reads (experiment.reads)
    world_keys = world_data_keys(data)
    wfps: dict[str, dict[str, str]] = {w: {} for w in world_keys}
    sources: dict[str, str] = {}
    cells, tags = [], {}
    twins: dict[str, list[Cell]] = {}  # a computed cell's name -> the cells whose run is the same computation
    first_of: dict[str, str] = {}  # fingerprint -> the first cell computing it
    for i, system in enumerate(cfg.systems, start=1):
        src = reads_of(system, [s.name for s in cfg.systems[: i - 1]])
        fp = fps[system.name] = fingerprint_with_reads(system_fingerprint(system, cfg, data.key), src, fps)
        for w, wkey in world_keys.items():  # per world too: adding worlds recomputes only the new ones (cell.py)
            wfps[w][system.name] = fingerprint_with_reads(system_fingerprint(system, cfg, wkey), src, wfps[w])
        if src is not None:
            sources[system.name], system = src, resolved(system, src, out)
        rel = f"runs/{system.name}.trec"
        prev = p.old_systems.get(system.name)
        tags[system.name] = tag = escape(f"[{i}/{len(cfg.systems)}] {system.name}")
        if reusable(prev, fp, out / rel):
            ex.runs[system.name] = load_run(out / rel, system.name)
            p.manifest["systems"][system.name] = prev
            ex.reused.append(system.name)
            console.print(f"{tag}: up to date (reused {rel})")
            if job:
                job.advance()
        elif p.only and system.name not in p.only:
            ex.skipped.append(system.name)
            console.print(f"{tag}: [yellow]skipped[/yellow] (not in --only and no up-to-date run)")
            if job:
                job.advance()
        else:
            cell = Cell(i - 1, system, cfg.k, cfg.seed if system.seed is None else system.seed, fp,
                        log_path=str((out / log_rel(system.name)).resolve()),
                        world_keys=tuple((w, wfps[w][system.name]) for w in world_keys) or None,
                        started=started)
            if fp in first_of:
                # The same type, params, seed, data and reads as a cell computed here (a system that differs only
                # in its name or context selection, which is applied later): its run is that cell's, copied.
                twins.setdefault(first_of[fp], []).append(cell)
            else:
                first_of[fp] = system.name
                cells.append(cell)
    if cells:
        _run_cells(p, ex, cells, tags, sources, twins)
    order = [s.name for s in cfg.systems]
    ex.runs = {n: ex.runs[n] for n in order if n in ex.runs}
    ex.computed.sort(key=order.index)
    p.manifest["systems"] = {n: p.manifest["systems"][n] for n in order if n in p.manifest["systems"]}
    return ex


def _run_cells(p: Plan, ex: Execution, cells: list[Cell], tags: dict[str, str], sources: dict[str, str],
               twins: dict[str, list[Cell]] | None = None) -> None:
    """Hand ``cells`` to the engine, committing each finished one (in the driver): its run file atomically, then
    the manifest; a cell's bad input is one line naming its config entry. ``twins`` (a computed cell's name -> the
    cells with its fingerprint) are committed with it: the same run, logs and costs under their own names."""
    twins = twins or {}
    twin_cells = [t for ts in twins.values() for t in ts]
    twin_of = {t.name: c for c, ts in twins.items() for t in ts}
    names = [c.name for c in cells] + list(twin_of)  # every system this run commits
    cfg, out, console, job, manifest, runs = p.cfg, p.out, p.console, p.job, p.manifest, ex.runs
    engine = make_engine(p.execution or cfg.execution, console)  # first: a bad engine or address changes nothing
    drop_stale_results(out)  # scores and reports on disk are stale from here on
    commit_manifest(out, cfg, manifest, p.old_systems)
    # With --fail-fast the cells go one at a time, in config order, each after the checkpoints; else a reader of
    # another cell of this run waits for a second batch. The job line names the cells in the order they run.
    # (a cell that reads a twin waits for the cell the twin copies)
    read = {n: twin_of.get(s, s) for n, s in sources.items()}
    todo = [[c] for c in cells] if ex.watch is not None else batches(cells, read)
    if ex.watch is None and getattr(engine, "first_alone", False):
        todo = with_readers_of_the_first(todo, read)
    in_order = [c for batch in todo for c in batch]
    if job:
        job.begin(in_order[0].name)
    mark = p.clock.mark()

    def on_done(cell: Cell, output: CellOutput) -> None:
        """Commit one finished cell (in the driver) and then its twins."""
        commit(cell, output)
        for twin in twins.get(cell.name, ()):
            copy_logs(out, cell.name, twin.name, names)
            commit(twin, CellOutput(output.run, {**output.entry, "same_run_as": cell.name}, dict(output.where)))

    def commit(cell: Cell, output: CellOutput) -> None:
        """Commit one finished cell: its run file atomically, then the manifest."""
        rel = f"runs/{cell.name}.trec"
        write_run(output.run, out / rel, tag=cell.name)
        # Score what the file holds (empty rankings are not in it), so a resumed run scores the same object.
        runs[cell.name] = load_run(out / rel, cell.name)
        entry = {"run": rel, **output.entry, "fingerprint": cell.fingerprint,
                 "run_sha256": sha256_file(out / rel), "execution": output.where,
                 **({"reads": reads_entry(sources[cell.name], out)} if cell.name in sources else {})}
        manifest["systems"][cell.name] = entry
        commit_manifest(out, cfg, manifest, p.old_systems)  # systems not reached yet keep their old entries
        ex.computed.append(cell.name)
        where = f" on {output.where['hostname']}" if engine.name != "local" else ""
        again = f", attempt {output.where['attempts']}" if output.where.get("attempts", 1) > 1 else ""
        if "same_run_as" in output.entry:
            console.print(f"{tags[cell.name]}: the same search as {output.entry['same_run_as']} (only its name or "
                          "context selection differs): its run and logs copied")
        else:
            console.print(f"{tags[cell.name]}: done in {entry['seconds']:.2f}s{where}{again}")
        nonlocal mark
        mark = p.clock.since(f"system:{cell.name}", mark)  # local engine: this cell's time (Ray: the wait)
        if job:
            job.advance()
            left = [c.name for c in in_order + twin_cells if c.name not in runs]
            if left:
                job.begin(left[0])

    try:
        for batch in todo:
            if ex.watch is not None and runs:
                ex.stopped = ex.watch.check(runs)
                if ex.stopped is not None:
                    console.print(f"[red]--fail-fast:[/red] {escape(ex.stopped)}; not running the remaining "
                                  "systems")
                    rest = [c.name for c in cells + twin_cells if c.name not in runs]
                    ex.skipped.extend(rest)
                    if job:
                        job.advance(len(rest))
                    break
            engine.run(batch, p.data, on_done, tags)
    except CellInputError as e:
        if e.error.path is not None:
            raise e.error from None
        key = {"system": "type", "param": "params"}.get(e.error.field or "", e.error.field or "type")
        raise InputError(e.error.problem, path=p.config_path, line=locate(p.text, ("systems", e.cell.index, key)),
                         field=f"systems[{e.cell.index}].{key}") from None
    finally:
        engine.close()


def copy_logs(out, source: str, name: str, others: list[str]) -> None:
    """Copy the files a system's cell left under ``OUT/logs`` (routing logs, trees, unit rankings, per-world parts)
    from ``source``'s names to ``name``'s; files of another system whose name extends ``source``'s are left."""
    longer = [o + "." for o in others if o != source and o.startswith(source + ".")]
    for folder in (out / LOGS_DIR, out / LOGS_DIR / WORLDS_DIR):
        if not folder.is_dir():
            continue
        for f in sorted(folder.iterdir()):
            if f.is_file() and f.name.startswith(source + ".") and not any(f.name.startswith(o) for o in longer):
                atomic_write_bytes(folder / (name + f.name[len(source):]), f.read_bytes())
