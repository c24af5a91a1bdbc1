"""``hcrbench quickstart``: generate Meridian, run every baseline, RAPTOR and HCR, gate them, judge the design's
checkpoints and hypotheses, and end with the verdict table, a plain-words bottom line and the report's path."""

from __future__ import annotations

from pathlib import Path

import typer

from hcrbench.commands import _failon
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError
from hcrbench.protocol.looks import (
    DEFAULT_BUDGET_MINUTES,
    DEFAULT_MAX_WORLDS,
    DEFAULT_SIZE,
    DEFAULT_WORLDS,
    VERDICT_SEED,
)

#: Re-running the same command resumes: finished systems and cached embeddings are reused.
RESUMABLE = {"quickstart"}


def quickstart_command(
    out: Path = typer.Option(Path("runs/quickstart"), "--out", help="Output folder (data, runs, verdicts, report)."),
    size: str = typer.Option(DEFAULT_SIZE, "--size", help="Meridian size: small (500 docs), medium (2,000), full (3,500) "
                                                     "or a document count >= 500."),
    sizes: str | None = typer.Option(None, "--sizes", help="Run at several sizes, e.g. small,medium,full: writes "
                                                           "growth.json (HCR - kill baseline vs corpus size)."),
    seed: int = typer.Option(VERDICT_SEED, "--seed", help="Seed of the corpus and of every random choice (default: the "
                                                  "verdict seed, fresh data no doc or test scores)."),
    encoder: str = typer.Option("minilm", "--encoder", help="minilm (the real run) or hash (a model-free smoke run "
                                                           "of HCR only: plumbing, not a quality claim)."),
    seeds: int = typer.Option(3, "--seeds", help="Tree seeds of HCR (mean ± sd over them)."),
    n_trials: int = typer.Option(200, "--n-trials", help="Gate trials per null."),
    resamples: int = typer.Option(10_000, "--resamples", help="Permutation / bootstrap resamples."),
    fail_fast: bool = typer.Option(False, "--fail-fast",
                                   help="Stop at the first checkpoint that says stop and diagnose."),
    cross_encoder: str | None = typer.Option(None, "--cross-encoder", metavar="PATH", help="Cross-encoder weights "
                                             "(a local folder): HCR and the kill baseline rerank with them; MaxSim "
                                             "is reported beside."),
    relook: bool = typer.Option(False, "--relook", help="Score a locked test split that was scored before (a "
                                                        "second look, recorded); refused without it."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress output."),
    system: str = typer.Option("hcr", "--system", metavar="NAME",
                               help="The system under test: an installed plugin (docs/plugins.md), a built-in "
                                    "(bm25, dense, ...), a system of the field (hybrid-rrf, ...) or runfile:PATH "
                                    "(a TREC run of the test queries; runfile:FOLDER with test.trec, dev.trec, "
                                    "tune.trec: one run per split). Judged against the field, HCR included."),
    verbose: bool = typer.Option(False, "--verbose", help="Print every table before the verdict block (they are "
                                                          "always written to OUT/console.txt and the report)."),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="LEVEL", help=_failon.HELP),
    max_queries: int = typer.Option(600, "--max-queries", help="Generate Meridian with up to this many queries "
                                    "when the power plan (tune + dev) asks for more test queries than the design's "
                                    "300-query suite has; 0: keep the design's suite. One world (--worlds 1) "
                                    "only: with several worlds more evidence is more test worlds."),
    worlds: int = typer.Option(DEFAULT_WORLDS, "--worlds", help="Independent Meridian worlds at the size asked for: world 0 to "
                               "tune, world 1 to dev (the flat system), every further world to test, each system "
                               "built and searched per world; 1: one world whose queries are split 60/20/20."),
    max_worlds: int = typer.Option(DEFAULT_MAX_WORLDS, "--max-worlds", help="Add test worlds one batch at a time while a rule is "
                                   "not decidable for want of queries, up to this many worlds in all (tune and dev "
                                   "included); every look's intervals spend part of the error rate, so it holds "
                                   "whenever the run stops. --max-worlds equal to --worlds: one look."),
    budget: float = typer.Option(DEFAULT_BUDGET_MINUTES, "--budget", metavar="MINUTES", help="Add no batch of test worlds that the "
                                 "forecast (measured on the look before) says would end past this many minutes."),
) -> None:
    """The main job: corpus to go / no-go / kill in one command (re-running reuses everything finished).

    Bring your own retriever: --system NAME (a plugin of the hcrbench.retrievers entry point, see docs/plugins.md).
    """

    from rich.console import Console

    from hcrbench.cli import flush_warnings
    from hcrbench.limits import check_draws, check_seed
    from hcrbench.protocol.quickstart import ENCODERS, parse_sizes, run_quickstart
    from hcrbench.report.terminal import width

    if encoder not in ENCODERS:
        raise InputError(f"must be one of {', '.join(ENCODERS)}, got {encoder!r}", field="--encoder")
    if not 1 <= seeds <= 10:
        raise InputError(f"must be between 1 and 10, got {seeds}", field="--seeds")
    level = _failon.check_level(fail_on)
    check_seed(seed, "--seed")
    check_draws(n_trials, "--n-trials")
    check_draws(resamples, "--resamples")
    if not 0 <= max_queries <= 100_000:
        raise InputError(f"must be between 0 and 100000, got {max_queries}", field="--max-queries")
    from hcrbench.synth.worlds import check_worlds

    check_worlds(worlds, field="--worlds")
    if worlds > 1:
        check_worlds(max_worlds, field="--max-worlds")
        if max_worlds < worlds:
            raise InputError(f"must be at least --worlds ({worlds}), got {max_worlds}", field="--max-worlds")
    if not 0 < budget <= 10_000:
        raise InputError(f"must be a number of minutes in (0, 10000], got {budget}", field="--budget")
    if sizes is not None:
        size_list = parse_sizes(sizes)
    else:
        try:
            size_list = parse_sizes(size)
        except InputError as e:  # one --size: name the flag the user typed
            raise InputError(e.problem, field="--size") from None
    if sizes is not None and size != DEFAULT_SIZE:
        raise InputError("give --size or --sizes, not both", field="--sizes")
    from hcrbench.extras import check_main_job

    check_main_job(encoder, field="quickstart")  # a package missing from the install: one line before any work
    subject = parse_subject(system, encoder=encoder, seed=seed, seeds=seeds)
    refuse_a_folder_not_its_own(out.expanduser(), expect=experiment_names(size_list, seed=seed, encoder=encoder))
    from hcrbench.experiment.relock import read_lock, relock

    lock_before = read_lock(out.expanduser())
    qs = run_quickstart(out, sizes=size_list, seed=seed, encoder=encoder, seeds=seeds, n_trials=n_trials,
                        n_resamples=resamples, fail_fast=fail_fast, progress=not quiet, relook=relook,
                        cross_encoder=cross_encoder, subject=subject, max_queries=max_queries, worlds=worlds,
                        max_worlds=max_worlds, budget_minutes=budget)
    flush_warnings()
    console = Console(highlight=False, width=width())
    res = qs.result
    from hcrbench.experiment.progress import job_progress

    with job_progress(not quiet, plain=True) as job:  # the report takes a while: a line, not silence
        job.expect(1)
        job.begin("writing the report")
        report = end_with_verdict_block(console, qs, verbose=verbose)
        job.advance()
    from hcrbench.experiment.manifest import mark_complete

    res.manifest = mark_complete(qs.out) or res.manifest  # "complete" only now that the report is written
    relocked = relock(qs.out, lock_before)
    if relocked:
        Console(stderr=True, highlight=False).print(relocked, soft_wrap=True, markup=False)
    Console(stderr=True, highlight=False).print(
        f"computed {len(res.computed)}, reused {len(res.reused)}" + (f", skipped {len(res.skipped)}" if res.skipped
                                                                     else "") + f"; wrote {qs.out}", soft_wrap=True)
    print_verdict_block(console, res, report, qs.out / CONSOLE_FILE)
    line = _failon.fails(res.verdicts, level)
    if line:
        Console(stderr=True, highlight=False).print(line, soft_wrap=True)
        raise typer.Exit(1)


def parse_subject(system: str, *, encoder: str, seed: int, seeds: int):
    """``--system`` as a :class:`hcrbench.protocol.bring.SubjectSpec` (checked before anything is written)."""
    from hcrbench.protocol.bring import parse_system, system_types, with_subject
    from hcrbench.protocol.quickstart import render_config

    text = render_config(size="small", seed=seed, encoder=encoder, seeds=seeds)
    spec = parse_system(system, encoder=encoder, existing=list(system_types(text)))
    with_subject(text, spec)  # refuses the kill baseline as the subject
    return spec


CONSOLE_FILE = "console.txt"
#: What a quickstart writes into --out before its experiment marks the folder as its own.
OWN_BEFORE_MARKER = {"data", "sizes", "quickstart.toml"}


def experiment_names(sizes: list[str], *, seed: int, encoder: str) -> dict[str, str]:
    """``{folder below --out: experiment name}`` this quickstart writes (``"."``: the largest size)."""
    from hcrbench.experiment.config import parse_config
    from hcrbench.protocol.quickstart import render_config

    return {"." if s == sizes[-1] else f"sizes/{s}": parse_config(render_config(size=s, seed=seed, encoder=encoder)).name
            for s in sizes}


def refuse_a_folder_not_its_own(out: Path, expect: dict[str, str] | None = None) -> None:
    """Before any work: an ``--out`` folder holding a user's files or another experiment's results (another
    quickstart's too: another encoder or size, ``expect``) is refused in one line whose advice is a flag this
    command has (``--out``; the quickstart has no ``--force``): the runner would refuse it too, but only after the
    tuning."""
    for sub, name in (expect or {}).items():
        if sub != ".":
            refuse_a_folder_not_its_own(out / sub, {".": name})
    from hcrbench.data.outputs import BUSY, MARKER, read_marker
    from hcrbench.experiment.manifest import read_manifest

    if not out.is_dir():
        return
    marker = read_marker(out)
    try:
        manifest = read_manifest(out)
    except InputError:
        manifest = None
    owner = (marker or manifest or {}).get("name") if isinstance(marker or manifest, dict) else None
    advice = "choose another --out (the quickstart writes only into a new folder or one of its own)"
    if isinstance(owner, str) and not owner.startswith("quickstart-"):
        raise InputError(f"the folder {out} holds the results of experiment {owner!r}, not of a quickstart; "
                         f"{advice}", field="--out")
    if isinstance(owner, str) and expect and "." in expect and owner != expect["."]:
        raise InputError(f"the folder {out} holds the results of {owner!r}, another quickstart (another --encoder "
                         f"or --size) than this one ({expect['.']!r}); {advice}", field="--out")
    if marker is not None or manifest is not None:
        return
    foreign = sorted(p.name for p in out.iterdir() if p.name not in OWN_BEFORE_MARKER | {MARKER, BUSY}
                     and not (p.name.startswith(".") and p.name.endswith(".tmp")))
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise InputError(f"the folder {out} holds files hcrbench did not write ({shown}); {advice}",
                         field="--out")


def end_with_verdict_block(console, qs, *, verbose: bool = False) -> Path:
    """Write every table of :func:`print_outcome` to ``OUT/console.txt`` (and print them with ``--verbose``);
    return the report's path. The verdict block is printed last (:func:`print_verdict_block`)."""
    import io

    from rich.console import Console

    from hcrbench.data.atomic import atomic_write_text

    buf = io.StringIO()
    report = print_outcome(Console(file=buf, highlight=False, width=160, color_system=None, force_terminal=False),
                           qs.result, growth=qs.growth)
    atomic_write_text(Path(qs.out) / CONSOLE_FILE, buf.getvalue())
    if verbose:
        print_outcome(console, qs.result, growth=qs.growth, report=report)
    return report


def print_verdict_block(console, result, report: Path, tables: Path | None = None) -> None:
    """The verdict block (:mod:`hcrbench.report.verdict_block`), or the bottom lines there are without a
    protocol."""
    from hcrbench.report.verdict_block import print_block

    if result.verdicts is None:
        console.print(f"report: {report}")
        return
    print_block(console, result.verdicts, result.manifest, report=str(report),
                tables=str(tables) if tables else None)


def print_outcome(console, result, growth=None, report: Path | None = None) -> Path:
    """What ``quickstart`` and ``run`` (with a protocol) end with: scores, gate, verdicts, bottom line, report."""
    from hcrbench.experiment.gate_step import gate_bottom_line
    from hcrbench.report.evaluation import print_evaluation
    from hcrbench.report.verdicts import print_protocol

    print_evaluation(result.evaluation, result.comparisons, console=console)
    if growth is not None:
        for p in growth["points"]:
            d = p.get("delta")
            console.print(f"growth: {growth['system']} - {growth['baseline']} {growth['metric']} at {p['size']} "
                          f"({p['n_docs']:,} docs): " + ("not run" if d is None else
                                                          f"{d:+.3f} [{p['ci_low']:+.3f}, {p['ci_high']:+.3f}]"))
    if result.gate is not None:
        console.print(gate_bottom_line(result.gate))
    if result.verdicts is not None:
        print_cost(console, result.output_dir, result.manifest, result.verdicts)
        print_protocol(console, result.verdicts)
        print_field(console, result.verdicts)
    report = report or write_report_for(result.output_dir)
    console.print(f"report: {report}")
    return report


def print_field(console, verdicts: dict | None) -> None:
    """The field's lines (hcrbench.protocol.field): flat chosen on dev with the barrier check, the power plan."""
    from hcrbench.protocol.quickstart import queries_hook

    v = verdicts or {}
    for line in ((v.get("field") or {}).get("text"), (v.get("power_plan") or {}).get("text"), queries_hook(v),
                 (v.get("discipline") or {}).get("relook_text")):
        if line:
            console.print(line, soft_wrap=True, markup=False)


def print_cost(console, folder: Path, manifest: dict, verdicts: dict) -> None:
    """Cost per query of every system: eval.json's ``cost`` with the ms per query of ``manifest.json`` (eval.json
    holds them as null: it is byte-identical across fresh runs)."""

    from rich.table import Table

    from hcrbench.experiment.cost import with_timing

    path = Path(folder) / "eval.json"
    cost = (read_json(path).get("cost") if path.is_file() else None) or {}
    if not cost:
        return
    t = Table(title="cost per query (ms: manifest.json, index + search)", title_justify="left")
    cols = ("chunks_scored", "nodes_scored", "reranker_calls", "context_tokens", "depth", "ms_per_query")
    t.add_column("system")
    for c in ("chunks", "nodes", "rerank calls", "ctx tokens", "depth", "ms / q"):
        t.add_column(c, justify="right")
    key = {verdicts.get("system"), verdicts.get("kill_baseline")}
    from hcrbench.retrieve import traits

    external = {n for n, e in ((manifest or {}).get("systems") or {}).items()
                if traits((e or {}).get("type")).stage == "replay"}
    for n, c in with_timing(cost, manifest).items():
        label = f"[bold]{n}[/bold]" if n in key else n
        if n in external:  # a replayed run file: its cost was spent outside hcrbench
            t.add_row(f"{label} (run file: cost unknown)", *("—" for _ in cols))
            continue
        t.add_row(label, *("—" if c.get(k) is None else f"{c[k]:,.0f}" if k != "ms_per_query" else f"{c[k]:,.1f}"
                           for k in cols))
    console.print(t)


def write_report_for(folder: Path) -> Path:
    """The report of ``folder`` (``hcrbench.report.document.write_report``): the path of report.html."""
    from hcrbench.report.document import write_report

    return write_report(folder)["html"]


def register(app: typer.Typer) -> None:
    app.command("quickstart")(quickstart_command)
