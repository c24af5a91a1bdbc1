"""One size's looks at its test worlds: tune, then the test worlds in batches until every rule that queries can decide
is decided (:mod:`hcrbench.protocol.batches`), each look at the sequential design's level; one look with one world.

After every look the folder's record (:mod:`hcrbench.protocol.look_resume`, ``OUT/looks.json``) says what was done
and what comes next, so a re-run with the same arguments resumes: at the look under way when a run was stopped, or,
when the looks are complete, at the last one, reused warm with its recorded verdicts (no new test world, the same
bytes, in seconds).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError
from hcrbench.protocol import look_resume, looks
from hcrbench.protocol import quickstart_config as qc


def run_looks(folder: Path, size: str, *, largest: bool, seed: int, data_root: Path, worlds: int,
              max_worlds: int | None, budget_s: float, max_queries: int, relook: bool, console: Any,
              sizes: list[str], **opts: Any) -> Any:
    """One size's looks (module docstring). Returns the last look's result (``ExperimentResult``)."""
    from hcrbench.experiment.runner import run_experiment
    from hcrbench.protocol import batches
    from hcrbench.protocol.verdicts import hooks, with_tuning, write_verdicts

    cap, max_looks, args, start = starting_look(folder, size, seed=seed, worlds=worlds, max_worlds=max_worlds,
                                                budget_s=budget_s, relook=relook, look=opts.get("look", 1))
    if start.line:
        console.print(f"{folder}: {start.line}", soft_wrap=True)
    started = time.perf_counter() - start.spent_s  # the budget counts the recorded looks' seconds
    history: list[dict[str, Any]] = list(start.history)
    k, eta, rate = start.worlds, start.eta, start.rate  # rate: seconds per text encoded cold, as last measured
    while True:
        t_look = time.perf_counter()
        look_no = len(history) + 1
        gen_s, made = _generate(data_root, size, seed, k, opts.get("look", 1), console) if worlds > 1 else (0.0, [])
        n_made = len(made)
        kw = dict(opts, seed=seed, data_root=data_root, worlds=k)
        if max_looks > 1:
            kw["confidence"] = look_confidence(look_no, max_looks)
        cfg, tuning = qc.write_config(folder, size, **kw)
        hook = None
        if max_queries > 0 and worlds == 1:  # the power plan on tune + dev, before the test split is scored
            from hcrbench.protocol.query_plan import plan as plan_queries

            console.print(f"power plan on tune + dev (size {size}): how many test queries the rules need...")
            hook = plan_queries(cfg, data_root, size, seed, max_queries)
            console.print(f"queries: {hook['text']}")
            if hook.get("queries"):  # the suite the plan chose: a second look is refused now, before tuning on it
                from hcrbench.protocol.query_plan import data_name as _name

                looks.early_check(data_root / _name(size, seed, hook["queries"]), folder, relook=relook)
                cfg, tuning = qc.write_config(folder, size, queries=hook["queries"], **kw)
        if len(sizes) > 1:
            console.print(f"[bold]size {size}[/bold] ({qc.n_docs(size):,} documents per world) -> {folder}")
        # a demonstration states how often the locked test split was looked at (verdicts.json "discipline"),
        # it does not refuse: another quickstart on the same generated corpus (another encoder, another folder)
        # is a recorded look; a warm re-run that reuses every score is not a new look at all (the runner)
        look = looks.guard(cfg, data_root / qc.data_folder(size, seed, (hook or {}).get("queries"), k,
                                                           opts.get("look", 1)), relook=relook)
        # the largest size's report is written by the command after this returns: its manifest says "reporting"
        # until then, so a run stopped while the report is written is not "complete" (lock refuses, verify flags)
        t_exp = time.perf_counter()
        res = run_experiment(cfg, force_test=True, progress=opts.get("progress", True),
                             fail_fast=opts.get("fail_fast", False), protocol=hooks(), report_follows=largest)
        exp_s = time.perf_counter() - t_exp
        res.verdicts = looks.record(look, folder, res.verdicts)  # a relook, in the registry and the verdicts
        if start.complete and look_no == start.look and not getattr(res, "computed", ()):
            # the recorded looks are complete and the last one was reused whole: its verdicts as they were written
            res.verdicts = start.verdicts
            write_verdicts(folder, res.verdicts)
            console.print(f"reused the recorded look {look_no}: every score as it was, no new test world; the "
                          f"verdicts as recorded (the looks stopped: {start.stopped})", soft_wrap=True)
            return res
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
        stop, next_look = None, None
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
                next_look = {"look": look_no + 1, "worlds": k + batches.BATCH_WORLDS,
                             "test_worlds": entry["test_worlds"] + batches.BATCH_WORLDS, "queries": n_next,
                             "forecast_s": round(float(eta["seconds"]), 1), "spent_s": round(spent, 1),
                             "budget_s": float(budget_s)}
            else:
                console.print(f"adding {batches.BATCH_WORLDS} test world (~{n_next - n_test} queries): next look in "
                              f"{batches.eta_words(eta)}", soft_wrap=True)
                k += batches.BATCH_WORLDS
                look_resume.write_record(folder, args, history, next_look={"look": look_no + 1, "worlds": k,
                                                                           "eta": eta, "rate": rate})
        if stop is not None:
            break
    if res.verdicts is not None:  # the tune -> lock -> test record
        res.verdicts = with_best_simple(with_tuning(res.verdicts, tuning), res, cfg)
        if hook is not None:
            res.verdicts["power_plan"] = {**(res.verdicts.get("power_plan") or {}), "queries_hook": hook}
        if worlds > 1:
            res.verdicts["sequential"] = sequential_doc(history, stop, max_looks, cap, res.verdicts,
                                                        next_look=next_look, args=args)
            res.verdicts["sequential"]["variance"] = variance_of(folder, res.verdicts)
        write_verdicts(folder, res.verdicts)
    if worlds > 1:  # the looks are complete: a re-run with the same arguments reuses the last one as it is
        look_resume.write_record(folder, args, history, stopped=stop, verdicts=res.verdicts)
    return res


def starting_look(folder: Path, size: str, *, seed: int, worlds: int, max_worlds: int | None, budget_s: float,
                  relook: bool, look: int = 1) -> tuple[int, int, dict[str, Any], look_resume.Resume]:
    """``(cap, max_looks, args, start)``: the most worlds, the most looks, the arguments the record keeps, and
    where the folder's recorded looks leave off (:func:`hcrbench.protocol.look_resume.resume_point`: a first run
    is look 1; raises InputError, before any work, on other settings over several looks)."""
    from hcrbench.protocol import batches

    cap = worlds if worlds == 1 else max(worlds, max_worlds or batches.DEFAULT_MAX_WORLDS)
    max_looks = 1 + (cap - worlds) // batches.BATCH_WORLDS if worlds > 1 else 1
    args = look_resume.loop_args(size=size, seed=seed, worlds=worlds, cap=cap, budget_s=budget_s, look=look)
    start = look_resume.Resume(worlds=worlds)
    if worlds > 1:
        record = look_resume.read_record(folder) or (None if relook else look_resume.legacy_record(folder, args))
        start = look_resume.resume_point(record, args, relook=relook, folder=folder)
    return cap, max_looks, args, start


def _generate(data_root: Path, size: str, seed: int, k: int, relook_look: int, console: Any) -> tuple[float, list[float]]:
    """The look's ``k`` worlds in ``data_root`` (every world already there is kept as it is; the batch's fresh test
    worlds are generated): the seconds it took and each generated world's own seconds."""
    from hcrbench.protocol import batches
    from hcrbench.retrieve.progress import report
    from hcrbench.retrieve.runtime import usable_cores
    from hcrbench.synth.worlds import ensure_worlds

    made: list[float] = []

    def on_world(e: dict[str, Any]) -> None:  # one line per world (tens of seconds each)
        if str(e.get("done")) != "kept":
            made.append(float(e.get("seconds") or 0.0))
            console.print(f"world {e.get('name')} ({e.get('split')}): {e.get('done')} in "
                          f"{batches.minutes(float(e.get('seconds') or 0.0))}", soft_wrap=True)

    report(f"Meridian {size}: {k} worlds (each generated once)", 0, None)
    t_gen = time.perf_counter()
    ensure_worlds(data_root / qc.data_folder(size, seed, worlds=k, look=relook_look), size=size, seed=seed, worlds=k,
                  look=relook_look, on_world=on_world, workers=usable_cores())
    return time.perf_counter() - t_gen, made


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
                   verdicts: dict[str, Any] | None, *, next_look: dict[str, Any] | None = None,
                   args: dict[str, Any] | None = None) -> dict[str, Any]:
    """``verdicts.json["sequential"]``: every look (worlds, queries, seconds, level, the forecast beside what it
    took), why the run stopped, and for rows still undecided how many more test worlds the power computation says
    would decide them; ``next_look``: the look the budget left out (its worlds, queries, forecast seconds, the
    seconds spent and the budget), and ``args``: the loop's arguments (what a re-run must repeat to go on)."""
    from hcrbench.protocol import batches

    und = batches.undecided_for_queries(verdicts)
    return {**((verdicts or {}).get("sequential") or {}), "looks": history, "stopped": stop, "max_looks": max_looks,
            "max_worlds": cap, "batch_worlds": batches.BATCH_WORLDS, "undecided": [u["id"] for u in und],
            "more_worlds_to_decide": batches.more_worlds(verdicts, und),
            **({"next_look": next_look} if next_look else {}), **({"loop_args": args} if args else {})}
