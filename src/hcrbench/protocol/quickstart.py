"""``hcrbench quickstart``: the main job in one call — Meridian, every baseline, RAPTOR and HCR, the gate, the
checkpoints and the verdicts, in one output folder.

:func:`write_config` renders the packaged protocol config (``templates/protocol.toml``; ``protocol_hash.toml`` for
the model-free smoke run) into ``OUT/quickstart.toml``, with Meridian generated into ``OUT/data/`` on first use;
:func:`run_quickstart` runs it with the experiment runner (so a re-run reuses every finished system and every
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
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.errors import InputError
from hcrbench.experiment.progress import current_job, plan_units, with_logged_job_progress
from hcrbench.protocol import looks
from hcrbench.protocol.looks import VERDICT_SEED

ENCODERS = ("minilm", "hash")
SIZES = {"small": 500, "medium": 2000, "full": 3500}
CONFIG_NAME = "quickstart.toml"
GROWTH_FILE = "growth.json"


@dataclass
class QuickstartResult:
    """Where everything went: the main output folder, its result, and the per-size results (``--sizes``)."""

    out: Path
    result: Any  # hcrbench.experiment.runner.ExperimentResult of the largest size
    sizes: dict[str, Any] = field(default_factory=dict)
    growth: dict[str, Any] | None = None


def parse_sizes(text: str) -> list[str]:
    """``"small,medium,full"`` -> sizes ordered by document count (names or counts from 500 to the generator's
    largest); repeats refused."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InputError("give at least one size", field="--sizes")
    from hcrbench.synth.generate import MAX_DOCS

    for t in items:  # every size checked before any work: a bad last size must not cost the earlier sizes' runs
        if t not in SIZES and not (t.isdigit() and 500 <= int(t) <= MAX_DOCS):
            raise InputError(f"unknown size {t!r} (small, medium, full or a document count from 500 to "
                             f"{MAX_DOCS:,})", field="--sizes")
    if len(set(items)) != len(items):
        raise InputError("a size is listed twice", field="--sizes")
    return sorted(items, key=n_docs)


def n_docs(size: str) -> int:
    return SIZES.get(size) or int(size)


def _seed_systems(encoder: str, seeds: int) -> str:
    backend = "onnx" if encoder == "minilm" else "hash"
    return "".join(f'[[systems]]\nname = "hcr-seed{s}"\ntype = "hcr"\nparams = {{ backend = "{backend}", seed = {s}'
                   f'${{hcr_tuned}} }}\nseed = {s}\nseed_group = "hcr"\nselection = "submodular"\n\n'
                   for s in range(1, seeds))


def tuned_params(chosen: dict[str, Any] | None) -> str:
    """``", beam_width = 8"``: the tune split's choice for a system, appended to its params (HCR's to every HCR
    system: its seeds and ablations)."""
    from hcrbench.protocol.tuning import toml_value

    return "".join(f", {k} = {toml_value(v)}" for k, v in (chosen or {}).items() if k != "selection")


def tuned_placeholders(text: str, tuned: dict[str, dict[str, Any]] | None) -> dict[str, str]:
    """``{"hcr_tuned": ", beam_width = 8", "raptor_tuned": ..., "hybrid_rrf_tuned": ...}``: every ``${<name>_tuned}``
    of the template (``-`` written ``_``) with that system's tuned params (empty when it was not tuned)."""
    import re

    by_ident = {name.replace("-", "_"): c for name, c in (tuned or {}).items()}
    return {f"{i}_tuned": tuned_params(by_ident.get(i)) for i in re.findall(r"\$\{(\w+)_tuned\}", text)}


def render_config(*, size: str, seed: int, encoder: str = "minilm", seeds: int = 3, n_trials: int = 200,
                  n_resamples: int = 10_000, data: str = "data/meridian-small-s0", fail_fast: bool = False,
                  tuned: dict[str, dict[str, Any]] | None = None, cross_encoder: str | None = None,
                  queries: int | None = None, worlds: int = 1, confidence: float | None = None,
                  look: int = 1) -> str:
    """The protocol config's TOML text (see the packaged templates), each tuned system's params as ``tuned``
    (``{system: {param: value}}``) chose them; with ``cross_encoder`` (weights: a folder or name) HCR and the kill
    baseline rerank with it and MaxSim is reported beside (:func:`hcrbench.protocol.field.with_cross_encoder`)."""
    if encoder not in ENCODERS:
        raise InputError(f"must be one of {', '.join(ENCODERS)}, got {encoder!r}", field="--encoder")
    if not 1 <= seeds <= 10:
        raise InputError(f"must be between 1 and 10, got {seeds}", field="--seeds")
    name = "protocol.toml" if encoder == "minilm" else "protocol_hash.toml"
    text = resources.files("hcrbench.experiment").joinpath("templates", name).read_text(encoding="utf-8")
    text = text.replace("${seed_systems}", _seed_systems(encoder, seeds))
    out = Template(text).substitute(size=size, output_dir=".", seed=seed, n_resamples=n_resamples, data=data,
                                    n_trials=n_trials, **tuned_placeholders(text, tuned))
    sel = ((tuned or {}).get("hcr") or {}).get("selection")
    if sel is not None:  # HCR's selection chosen on tune: every HCR system that used the design's default (not A5)
        out = out.replace('selection = "submodular"', f"selection = {json.dumps(sel)}")
    out = out.replace("fail_fast = false", f"fail_fast = {'true' if fail_fast else 'false'}")
    if queries is not None:  # the power plan's suite (protocol/query_plan.py)
        out = out.replace(f"generate_seed = {seed}\n", f"generate_seed = {seed}\ngenerate_queries = {int(queries)}\n",
                          1)
    if confidence is not None:  # a look of a sequential design: its intervals at the level it spends
        out = out.replace("[protocol]\n", f"[protocol]\nconfidence = {confidence!r}\n", 1)
    if worlds > 1:  # K independent worlds: tune w00, dev w01, test the rest (synth/worlds.py)
        extra = f"worlds = {int(worlds)}\n" + (f"look = {int(look)}\n" if look > 1 else "")
        out = out.replace(f"generate_seed = {seed}\n", f"generate_seed = {seed}\n{extra}", 1)
    if cross_encoder is not None:
        from hcrbench.protocol.field import with_cross_encoder

        out = with_cross_encoder(out, cross_encoder)
    return out


def data_folder(size: str, seed: int, queries: int | None = None, worlds: int = 1, look: int = 1) -> str:
    """The generated dataset's folder name under ``OUT/data``: ``meridian-<size>-s<seed>-worlds`` for a dataset
    of several worlds (adding test worlds keeps the folder and every world in it), else the one world's
    (:func:`hcrbench.protocol.query_plan.data_name`)."""
    from hcrbench.protocol.query_plan import data_name

    if worlds > 1:
        return f"meridian-{size}-s{seed}-worlds" + (f"-look{look}" if look > 1 else "")
    return data_name(size, seed, queries)


def write_config(folder: Path, size: str, *, seed: int, data_root: Path, tune: bool = True, progress: bool = False,
                 subject: Any = None, queries: int | None = None, **kw: Any) -> tuple[Path, dict[str, Any]]:
    """Tune on the tune split (``[protocol] tune``: an experiment in ``data_root/tune/<size>-s<seed>/``, its
    record in ``<size>-s<seed>.tuning.json`` beside it), then write ``folder/quickstart.toml`` with the choice
    locked in (unchanged bytes when nothing changed, so the run resumes). Returns the config's path and the
    tuning record. ``subject`` (a :class:`hcrbench.protocol.bring.SubjectSpec`, ``--system``): the system under
    test (default HCR)."""
    import os

    from hcrbench.experiment.config import parse_config
    from hcrbench.protocol.tuning import none_doc
    from hcrbench.protocol.tuning import tune as run_tuning

    folder.mkdir(parents=True, exist_ok=True)
    worlds = int(kw.get("worlds", 1))
    data = data_root / data_folder(size, seed, queries, worlds, int(kw.get("look", 1)))
    rel = Path(os.path.relpath(data, folder)).as_posix()
    if queries is not None:
        kw["queries"] = queries
    chosen: dict[str, Any] = {}
    doc = none_doc()
    if tune:
        draft = subject_config(render_config(size=size, seed=seed, data=rel, **kw), subject)
        cfg = parse_config(draft, folder / CONFIG_NAME)
        if cfg.protocol is not None and cfg.protocol.tune:
            if worlds > 1:
                from hcrbench.synth.worlds import ensure_worlds

                ensure_worlds(data, size=size, seed=seed, n_queries=queries, worlds=worlds,
                              look=int(kw.get("look", 1)))
            else:
                from hcrbench.synth.generate import ensure_meridian

                ensure_meridian(data, size=size, seed=seed, n_queries=queries,  # an older generator's folder is
                                grow=cfg.dataset.grow)                          # rewritten
            tag = f"{size}-s{seed}" + (f"-q{queries}" if queries else "") + ("-worlds" if worlds > 1 else "")
            doc = run_tuning(cfg, folder / CONFIG_NAME, data_root / "tune", tag, progress=progress)
            chosen = doc.get("chosen", {})
    text = subject_config(render_config(size=size, seed=seed, data=rel, tuned=chosen, **kw), subject)
    path = folder / CONFIG_NAME
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)
    return path, doc


def subject_config(text: str, subject: Any = None) -> str:
    """``text`` with ``subject`` as the system under test (:func:`hcrbench.protocol.bring.with_subject`)."""
    from hcrbench.protocol.bring import with_subject

    return text if subject is None else with_subject(text, subject)


def with_best_simple(verdicts: dict[str, Any], res: Any, config_path: Path) -> dict[str, Any]:
    """``verdicts`` with ``vs_best_simple``: the subject against the best simple system of the field
    (:mod:`hcrbench.protocol.best_simple`)."""
    from hcrbench.experiment.config import load_config
    from hcrbench.protocol.best_simple import vs_best_simple

    cfg, _ = load_config(config_path)
    path = Path(res.output_dir) / "eval.json"
    cost = json.loads(path.read_text(encoding="utf-8")).get("cost") if path.is_file() else None
    doc = vs_best_simple(res.evaluation, cfg, res.manifest, cost, system=verdicts.get("system") or cfg.protocol.system,
                         metric=verdicts.get("metric") or cfg.protocol.metric)
    return {**verdicts, "vs_best_simple": doc}


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
    for size in sizes:
        folder = out if size == largest else out / "sizes" / size
        if len(sizes) > 1:
            console.print(f"[bold]size {size}[/bold]: tuning on the tune split...")
        per_size[size] = _looks(folder, size, largest=size == largest, seed=seed, data_root=data_root,
                                encoder=encoder, seeds=seeds, n_trials=n_trials, n_resamples=n_resamples,
                                fail_fast=fail_fast, progress=progress, cross_encoder=cross_encoder, subject=subject,
                                worlds=worlds, max_worlds=max_worlds, budget_s=budget_minutes * 60.0,
                                max_queries=max_queries, relook=relook, console=console, sizes=sizes,
                                look=look)
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


def _looks(folder: Path, size: str, *, largest: bool, seed: int, data_root: Path, worlds: int,
           max_worlds: int | None, budget_s: float, max_queries: int, relook: bool, console: Any, sizes: list[str],
           **opts: Any) -> Any:
    """One size's looks: tune, then the test worlds in batches until every rule that queries can decide is decided
    (:mod:`hcrbench.protocol.batches`); one look with one world (``worlds`` 1). Returns the last look's result."""
    import time

    from hcrbench.experiment.runner import run_experiment
    from hcrbench.protocol import batches
    from hcrbench.protocol.verdicts import hooks, with_tuning, write_verdicts

    cap = worlds if worlds == 1 else max(worlds, max_worlds or batches.DEFAULT_MAX_WORLDS)
    max_looks = 1 + (cap - worlds) // batches.BATCH_WORLDS if worlds > 1 else 1
    started = time.perf_counter()
    history: list[dict[str, Any]] = []
    k = worlds
    eta: dict[str, Any] | None = None
    rate: float | None = None  # seconds per text encoded cold, as last measured
    while True:
        t_look = time.perf_counter()
        look_no = len(history) + 1
        gen_s, n_made = 0.0, 0
        made: list[float] = []  # each world's own generation seconds
        if worlds > 1:  # the batch's fresh test worlds (every world already there is kept as it is)
            from hcrbench.synth.worlds import ensure_worlds

            def on_world(e: dict[str, Any], made: list[float] = made) -> None:  # one line per world (tens of s)
                if str(e.get("done")) != "kept":
                    made.append(float(e.get("seconds") or 0.0))
                    console.print(f"world {e.get('name')} ({e.get('split')}): {e.get('done')} in "
                                  f"{batches.minutes(float(e.get('seconds') or 0.0))}", soft_wrap=True)

            from hcrbench.retrieve.progress import report

            report(f"Meridian {size}: {k} worlds (each generated once)", 0, None)
            t_gen = time.perf_counter()
            from hcrbench.retrieve.runtime import usable_cores

            ensure_worlds(data_root / data_folder(size, seed, worlds=k, look=opts.get("look", 1)), size=size,
                          seed=seed, worlds=k, look=opts.get("look", 1), on_world=on_world, workers=usable_cores())
            gen_s = time.perf_counter() - t_gen
            n_made = len(made)
        kw = dict(opts, seed=seed, data_root=data_root, worlds=k)
        if max_looks > 1:
            kw["confidence"] = look_confidence(look_no, max_looks)
        cfg, tuning = write_config(folder, size, **kw)
        hook = None
        if max_queries > 0 and worlds == 1:  # the power plan on tune + dev, before the test split is scored
            from hcrbench.protocol.query_plan import plan as plan_queries

            console.print(f"power plan on tune + dev (size {size}): how many test queries the rules need...")
            hook = plan_queries(cfg, data_root, size, seed, max_queries)
            console.print(f"queries: {hook['text']}")
            if hook.get("queries"):  # the suite the plan chose: a second look is refused now, before tuning on it
                from hcrbench.protocol.query_plan import data_name as _name

                looks.early_check(data_root / _name(size, seed, hook["queries"]), folder, relook=relook)
                cfg, tuning = write_config(folder, size, queries=hook["queries"], **kw)
        if len(sizes) > 1:
            console.print(f"[bold]size {size}[/bold] ({n_docs(size):,} documents per world) -> {folder}")
        # a demonstration states how often the locked test split was looked at (verdicts.json "discipline"),
        # it does not refuse: another quickstart on the same generated corpus (another encoder, another folder)
        # is a recorded look; a warm re-run that reuses every score is not a new look at all (the runner)
        look = looks.guard(cfg, data_root / data_folder(size, seed, (hook or {}).get("queries"), k,
                                                        opts.get("look", 1)), relook=relook)
        # the largest size's report is written by the command after this returns: its manifest says "reporting"
        # until then, so a run stopped while the report is written is not "complete" (lock refuses, verify flags)
        t_exp = time.perf_counter()
        res = run_experiment(cfg, force_test=True, progress=opts.get("progress", True),
                             fail_fast=opts.get("fail_fast", False), protocol=hooks(), report_follows=largest)
        exp_s = time.perf_counter() - t_exp
        res.verdicts = looks.record(look, folder, res.verdicts)  # a relook, in the registry and the verdicts
        n_test = int((res.manifest.get("dataset") or {}).get("n_queries") or 0)
        entry: dict[str, Any] = {"look": look_no, "worlds": k, "test_worlds": max(k - 2, 1), "n_test": n_test,
                                 "seconds": round(time.perf_counter() - t_look, 1), "generate_s": round(gen_s, 1),
                                 "confidence": kw.get("confidence", 0.95)}
        if eta is not None:  # the forecast beside what the look then took, in the console and verdicts.json
            entry["forecast_s"] = eta["seconds"]
            entry["experiment_s"] = round(exp_s + gen_s, 1)
            entry["forecast"] = eta
            entry["forecast_error"] = round(eta["seconds"] / entry["experiment_s"] - 1, 3) \
                if entry["experiment_s"] > 0 else None
            console.print(batches.forecast_line(look_no, eta["seconds"], exp_s + gen_s), soft_wrap=True)
        history.append(entry)
        rate = batches.encode_rate(res.manifest) or rate  # a look that encoded nothing keeps the last one's
        if worlds > 1 and res.verdicts is not None:  # each row: decided after which look, or what would decide it
            from hcrbench.protocol import sequential as sq

            sq.annotate(res.verdicts, look=look_no, max_looks=max_looks, worlds=entry["test_worlds"], queries=n_test,
                        worlds_per_batch=batches.BATCH_WORLDS, queries_per_world=n_test / entry["test_worlds"])
            batches.price_undecided(res.verdicts, test_worlds=entry["test_worlds"],
                                    queries_per_world=n_test / entry["test_worlds"],
                                    seconds_per_world=batches.cost_per_world(
                                        res.manifest, generate_s=gen_s / n_made if n_made else 0.0, rate=rate))
        und = batches.undecided_for_queries(res.verdicts)
        entry["undecided"] = [u["id"] for u in und]
        if worlds > 1:
            console.print(batches.look_line(look_no, entry["test_worlds"], n_test, time.perf_counter() - started,
                                            res.verdicts), soft_wrap=True)
        stop = None
        if worlds == 1:
            stop = "one world"
        elif not und:
            stop = "decided"
        elif k + batches.BATCH_WORLDS > cap:
            stop = f"max worlds ({cap}) reached"
        elif not batches.any_within_reach(res.verdicts, und):
            stop = f"no look up to {cap} worlds decides the undecided rows at their observed effects"
        else:
            # one world's own generation time (the worlds this look generated; none: all kept): worlds made side
            # by side take less wall time each than the one world of the next batch will
            per_world_gen = sum(made) / n_made if n_made else 0.0
            n_next = n_test + round(n_test / entry["test_worlds"]) * batches.BATCH_WORLDS
            eta = batches.forecast(res.manifest, n_test=n_test, n_next=n_next, batch=batches.BATCH_WORLDS,
                                   generate_s=per_world_gen, look_s=exp_s, rate=rate)
            spent = time.perf_counter() - started
            if spent + eta["seconds"] > budget_s:
                stop = (f"budget: the next batch would take ~{batches.minutes(eta['seconds'])} and "
                        f"{batches.minutes(max(0.0, budget_s - spent))} of the {batches.minutes(budget_s)} are left")
            else:
                console.print(f"adding {batches.BATCH_WORLDS} test world (~{n_next - n_test} queries): next look in "
                              f"{batches.eta_words(eta)}", soft_wrap=True)
                k += batches.BATCH_WORLDS
        if stop is not None:
            break
    if res.verdicts is not None:  # the tune -> lock -> test record
        res.verdicts = with_best_simple(with_tuning(res.verdicts, tuning), res, cfg)
        if hook is not None:
            res.verdicts["power_plan"] = {**(res.verdicts.get("power_plan") or {}), "queries_hook": hook}
        if worlds > 1:
            res.verdicts["sequential"] = sequential_doc(history, stop, max_looks, cap, res.verdicts)
            res.verdicts["sequential"]["variance"] = variance_of(folder, res.verdicts)
        write_verdicts(folder, res.verdicts)
    return res


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


def variance_of(folder: Path, verdicts: dict[str, Any]) -> dict[str, Any]:
    """The variance components of the subject minus the kill baseline over the test worlds (between worlds,
    between topics within a world, within topic), the worlds' costs and the allocation they imply
    (:func:`hcrbench.experiment.world_variance.components_of_run`); why not, when they cannot be computed."""
    from hcrbench.experiment.world_variance import components_of_run

    a, b = verdicts.get("system"), verdicts.get("kill_baseline")
    if not a or not b:
        return {"unavailable": "no subject or kill baseline"}
    try:
        return {"difference": f"{a} - {b}", **components_of_run(folder, a, b, metric=verdicts.get("metric") or
                                                                "nDCG@10")}
    except (InputError, ValueError, KeyError, OSError, ZeroDivisionError) as e:
        return {"difference": f"{a} - {b}", "unavailable": str(getattr(e, "problem", e))}


def look_confidence(look: int, max_looks: int) -> float:
    """The two-sided confidence level of look ``look`` of at most ``max_looks`` (the sequential design's)."""
    from hcrbench.protocol.sequential import level

    return float(level(look, max_looks))


def sequential_doc(history: list[dict[str, Any]], stop: str | None, max_looks: int, cap: int,
                   verdicts: dict[str, Any] | None) -> dict[str, Any]:
    """``verdicts.json["sequential"]``: every look (worlds, queries, seconds, level, the forecast beside what it
    took), why the run stopped, and for rows still undecided how many more test worlds the power computation says
    would decide them."""
    from hcrbench.protocol import batches

    und = batches.undecided_for_queries(verdicts)
    return {**((verdicts or {}).get("sequential") or {}), "looks": history, "stopped": stop, "max_looks": max_looks,
            "max_worlds": cap, "batch_worlds": batches.BATCH_WORLDS, "undecided": [u["id"] for u in und],
            "more_worlds_to_decide": batches.more_worlds(verdicts, und)}


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
