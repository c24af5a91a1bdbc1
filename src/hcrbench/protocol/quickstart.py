"""``hcrbench quickstart``: the main job in one call — Meridian, every baseline, RAPTOR and HCR, the gate, the
checkpoints and the verdicts, in one output folder.

:func:`~hcrbench.protocol.quickstart_config.write_config` renders the packaged protocol config
(``templates/protocol.toml``; ``protocol_hash.toml`` for the model-free smoke run) into ``OUT/quickstart.toml``, with
Meridian generated into ``OUT/data/`` on first use; :func:`run_quickstart` runs it with the experiment runner (so a re-run reuses every finished system and every
cached embedding) and, with several sizes, runs the comparison at each (``OUT/sizes/<size>/``; the largest in
``OUT`` itself) and writes ``OUT/growth.json`` (HCR minus the kill baseline on nDCG@10 against corpus size, with
CIs), which feeds the corpus-size criterion of ``OUT/verdicts.json``.

The test split is declared locked: the first run scores it; a warm re-run of the same folder (every score reused)
is the same look; any other run that would score it again is refused before any work unless ``relook`` (the
command's ``--relook``), and a relook is recorded in the lock registry and ``verdicts.json["discipline"]``
(:mod:`hcrbench.protocol.looks`). The default corpus seed is :data:`~hcrbench.protocol.looks.VERDICT_SEED`, fresh
data that no doc or test scores. ``verdicts.json["power_plan"]`` says how many test queries each rule needs
(:mod:`hcrbench.protocol.field`); before the test split is scored, the same plan on tune + dev picks the query
suite Meridian is generated with, up to ``max_queries`` (:mod:`hcrbench.protocol.query_plan`; what was generated
and why in ``power_plan["queries_hook"]``).

With several worlds a size takes its looks at test worlds in batches (:mod:`hcrbench.protocol.look_loop`), recorded
in ``OUT/looks.json`` after each: a re-run with the same arguments resumes where they leave off, and re-runs a
complete folder warm, reusing its last look and its verdicts (:mod:`hcrbench.protocol.look_resume`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.errors import InputError
from hcrbench.experiment.progress import current_job, plan_units, with_logged_job_progress
from hcrbench.protocol import looks
from hcrbench.protocol.look_loop import (
    look_confidence,
    run_looks,
    sequential_doc,
    starting_look,
    variance_of,
    with_best_simple,
)
from hcrbench.protocol.looks import VERDICT_SEED
from hcrbench.protocol.quickstart_config import (
    CONFIG_NAME,
    ENCODERS,
    SIZES,
    data_folder,
    n_docs,
    parse_sizes,
    render_config,
    subject_config,
    tuned_params,
    tuned_placeholders,
    write_config,
)

GROWTH_FILE = "growth.json"


@dataclass
class QuickstartResult:
    """Where everything went: the main output folder, its result, and the per-size results (``--sizes``)."""

    out: Path
    result: Any  # hcrbench.experiment.runner.ExperimentResult of the largest size
    sizes: dict[str, Any] = field(default_factory=dict)
    growth: dict[str, Any] | None = None



def plan_line(out: Path, sizes: list[str], seed: int, encoder: str, subject: Any, steps: int, worlds: int = 1) -> str:
    """The job's first line: what it will do, and what only the first run of this folder does."""
    name = getattr(subject, "name", None) or "hcr"
    fresh = [s for s in sizes if not (out / "data" / data_folder(s, seed, worlds=worlds) / "manifest.json").is_file()]
    what = f"{worlds} worlds (tune, dev, {worlds - 2} test)" if worlds > 1 else "one world"
    first = (f"generating Meridian {', '.join(fresh)}, {what} (first run only), " if fresh else "")
    enc = "encoded with MiniLM, cached after the first run" if encoder == "minilm" else "hashed words, no model"
    return (f"quickstart: {name} against the field on Meridian {', '.join(sizes)}, {steps} steps: {first}tuning on "
            f"the tune split, each system ({enc}), scoring, gate, verdicts")


def growth_doc(per_size: dict[str, Any]) -> dict[str, Any]:
    """``growth.json``: HCR minus the kill baseline at each size (delta, 95% CI, Holm p, from the verdicts), and on
    the entity-spanning + multi-hop queries (``subset``: the corpus-size rule reads it at medium)."""
    from hcrbench.protocol import registry as reg
    from hcrbench.protocol.ruleset.corpus_size import point_sequential

    points = []
    system = baseline = metric = None
    by_role = {role: getattr(reg.with_role(role), "id", None) for role in ("architecture", "growth")}
    for size, res in per_size.items():
        v = res.verdicts or {}
        system, baseline, metric = v.get("system"), v.get("kill_baseline"), v.get("metric")
        rows = {h["id"]: h for h in v.get("hypotheses", [])}
        kill, cs = rows.get(by_role["architecture"]), rows.get(by_role["growth"])
        ev = (kill or {}).get("evidence", {})
        ds = res.manifest["dataset"]
        per_world = sorted({int(w.get("n_documents", 0)) for w in (ds.get("worlds") or {}).values()})
        points.append({"size": size, "n_docs": per_world[-1] if per_world else ds["n_documents"],
                       "delta": ev.get("delta"),
                       "ci_low": ev.get("ci_low"), "ci_high": ev.get("ci_high"), "p": ev.get("p_holm"),
                       "subset": ((cs or {}).get("evidence") or {}).get("subset_at_this_size"),
                       **point_sequential(v)})
    return {"metric": metric or "nDCG@10", "system": system or "hcr", "baseline": baseline or "rerank",
            "points": points}


@with_logged_job_progress  # one line for the whole job: tuning, every size's systems, scoring, gate and checkpoints
def run_quickstart(out: Path, *, sizes: list[str], seed: int = VERDICT_SEED, encoder: str = "minilm", seeds: int = 3,
                   n_trials: int = 200, n_resamples: int = 10_000, fail_fast: bool = False,
                   progress: bool = True, relook: bool = False, cross_encoder: str | None = None,
                   subject: Any = None, max_queries: int = 600, worlds: int = 1, max_worlds: int | None = None,
                   budget_minutes: float = 30.0) -> QuickstartResult:
    """Run the protocol at each size (the largest into ``out``); see the module docstring."""
    from rich.console import Console

    from hcrbench.protocol.verdicts import apply_growth, write_verdicts

    console = Console(stderr=True, quiet=not progress, highlight=False)
    out = out.expanduser()
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", path=out, field="--out")
    # one quickstart per world, before any work (the worlds' test split is other data than the one world's)
    keys = [s if worlds == 1 else f"{s} (worlds)" for s in sizes]
    # a relook of several worlds draws fresh test worlds: look 1 + the looks other folders took (never the same)
    look = 1 + max(looks.prior_looks(out, k, seed) for k in keys) if worlds > 1 and relook else 1
    looks.claim_worlds(out, [(k, seed) for k in keys], relook=relook)
    out.mkdir(parents=True, exist_ok=True)
    data_root = out / "data"
    per_size: dict[str, Any] = {}
    job = current_job()
    job.expect(sum(plan_units(subject_config(render_config(size=s, seed=seed, encoder=encoder, seeds=seeds,
                                                           cross_encoder=cross_encoder, worlds=worlds), subject))
                   for s in sizes))  # type: ignore[union-attr]
    job.say(plan_line(out, sizes, seed, encoder, subject, job.total, worlds))  # type: ignore[union-attr]
    largest = sizes[-1]
    if worlds > 1 and getattr(subject, "type", None) == "runfile":  # a run file holds the worlds it was made for
        worlds = max_worlds = runfile_worlds(subject, worlds)
    for size in sizes:  # no work at all when a size's test split would be a second look (--relook), the design's
        # suite's or a power plan's larger one (meridian-<size>-s<seed>-q<N>)
        larger = sorted(data_root.glob(f"meridian-{size}-s{seed}-q*")) if data_root.is_dir() else []
        for root in (data_root / data_folder(size, seed, worlds=worlds, look=look), *([] if worlds > 1 else
                                                                          [data_root / f"meridian-{size}-s{seed}",
                                                                           *larger])):
            looks.early_check(root, out if size == largest else out / "sizes" / size, relook=relook)
        # other settings over a folder's several recorded looks: refused now, not after the sizes before it ran
        starting_look(out if size == largest else out / "sizes" / size, size, seed=seed, worlds=worlds,
                      max_worlds=max_worlds, budget_s=budget_minutes * 60.0, relook=relook, look=look)
    for size in sizes:
        folder = out if size == largest else out / "sizes" / size
        if len(sizes) > 1:
            console.print(f"[bold]size {size}[/bold]: tuning on the tune split...")
        per_size[size] = run_looks(folder, size, largest=size == largest, seed=seed, data_root=data_root,
                                   encoder=encoder, seeds=seeds, n_trials=n_trials, n_resamples=n_resamples,
                                   fail_fast=fail_fast, progress=progress, cross_encoder=cross_encoder,
                                   subject=subject, worlds=worlds, max_worlds=max_worlds,
                                   budget_s=budget_minutes * 60.0, max_queries=max_queries, relook=relook,
                                   console=console, sizes=sizes, look=look)
    result = per_size[largest]
    growth = None
    if len(sizes) > 1:
        growth = growth_doc(per_size)
        atomic_write_text(out / GROWTH_FILE, json.dumps(growth, indent=2, allow_nan=False) + "\n")
        if result.verdicts is not None:
            result.verdicts = apply_growth(result.verdicts, growth["points"],
                                           corpus_size_inputs(out, sizes, largest), seed=seed)
            write_verdicts(out, result.verdicts)
    else:
        (out / GROWTH_FILE).unlink(missing_ok=True)
    return QuickstartResult(out, result, per_size, growth)


def runfile_worlds(subject: Any, worlds: int) -> int:
    """The worlds a run-file subject was made for: every world up to the last one its test run names (at least
    ``worlds``). Its looks cannot add test worlds (the file has no ranking for them), so it gets one look at them."""
    from hcrbench.data.compressed import open_input
    from hcrbench.errors import InputError as _InputError
    from hcrbench.synth.worlds import world_of

    params = getattr(subject, "params", {}) or {}
    path = (params.get("paths") or {}).get("test") or params.get("path")
    last = -1
    if path:
        try:
            with open_input(Path(path)) as fh:
                for raw in fh:
                    parts = raw.decode("utf-8", "replace").split(None, 1)
                    w = world_of(parts[0]) if parts else None
                    last = max(last, w if w is not None else -1)
        except (OSError, ValueError, _InputError):  # the run's own check names what is wrong with it, later
            return worlds
    return max(worlds, last + 1)


def corpus_size_inputs(out: Path, sizes: list[str], largest: str) -> Any:
    """The corpus-size rule's replay inputs: the medium size's per-query differences on the rule's queries (its
    folder's per_query.csv and verdicts.json), None without a medium run."""
    if "medium" not in sizes:
        return None
    from hcrbench.protocol import registry as reg
    from hcrbench.protocol.operating_inputs import from_out

    folder = out if largest == "medium" else out / "sizes" / "medium"
    growth = reg.with_role("growth")
    try:
        return from_out(folder)[0].get(growth.id) if growth is not None else None
    except (OSError, KeyError, ValueError):
        return None


def queries_hook(verdicts: dict[str, Any] | None) -> str | None:
    """What the power plan asked of the corpus and what was generated (``power_plan["queries_hook"]``, written by
    :func:`run_quickstart` through :mod:`query_plan`), else the plan beside what this split has."""
    plan = (verdicts or {}).get("power_plan") or {}
    hook = plan.get("queries_hook")
    if hook and hook.get("text"):
        return f"queries: {hook['text']}"
    want, have = plan.get("queries_wanted"), plan.get("n_test")
    if plan.get("status") != "planned" or not want or not have:
        return None
    if want <= have:
        return f"power plan: the {have} test queries are enough for every rule planned"
    return (f"power plan: the rules need up to ~{want} test queries, this split has {have} (quickstart "
            "--max-queries generates a larger suite; [dataset] generate_queries = N in a config)")


__all__ = [
    "CONFIG_NAME",
    "ENCODERS",
    "GROWTH_FILE",
    "SIZES",
    "QuickstartResult",
    "corpus_size_inputs",
    "data_folder",
    "growth_doc",
    "look_confidence",
    "n_docs",
    "parse_sizes",
    "plan_line",
    "queries_hook",
    "render_config",
    "run_quickstart",
    "runfile_worlds",
    "sequential_doc",
    "subject_config",
    "tuned_params",
    "tuned_placeholders",
    "variance_of",
    "with_best_simple",
    "write_config",
]
