"""``hcrbench judge``: the optional LLM sufficiency judge, on a run's contexts or on a user's own records.

    hcrbench judge OUTPUT_DIR --system NAME --budget B [--limit N]      # an experiment's contexts
    hcrbench judge --input FILE.jsonl [--out FILE.json]                # your records (docs/context.md)

The endpoint and model come from HCRBENCH_LLM_BASE_URL / HCRBENCH_LLM_MODEL (``hcrbench llm serve`` prints both);
``--timeout``, ``--max-tokens``, ``--retries`` and ``--concurrency`` override HCRBENCH_LLM_TIMEOUT, _MAX_TOKENS,
_RETRIES and _CONCURRENCY (CPU-sized defaults: hcrbench.llm.client.DEFAULTS). ``--judge2 URL`` asks a second
judge and reports agreement (Cohen's kappa, Kendall's tau).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from hcrbench.errors import InputError


def _f(x: float | None, pct: bool = False) -> str:
    return "—" if x is None else (f"{100 * x:.1f}%" if pct else f"{x:.2f}")


def judge_command(
    output_dir: Path | None = typer.Argument(None, help="An experiment folder written by `hcrbench run` with "
                                                        "budgets (or use --input)."),
    input_file: Path | None = typer.Option(None, "--input", help="Judge your own records: JSONL with question, "
                                                                 "context (+ answer, reference, label)."),
    out_file: Path | None = typer.Option(None, "--out", help="--input mode: where the results go "
                                                             "(default: INPUT.judged.json)."),
    system: str | None = typer.Option(None, "--system", help="Whose contexts to judge (folder mode)."),
    budget: str = typer.Option("400", "--budget", help="Which budget's contexts (a number or 'all')."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Judge a sample of N queries, stratified by "
                                                                  "category and exact label (folder mode)."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the --limit sample."),
    no_repeat: bool = typer.Option(False, "--no-repeat", help="Skip the second temperature-0 pass (hygiene)."),
    wording_sample: int = typer.Option(20, "--wording-sample", min=0, help="Items asked in 2 more wordings "
                                                                        "(prompt fragility; 0 skips it)."),
    timeout: float | None = typer.Option(None, "--timeout", min=0.001, help="Seconds per call "
                                                                           "(env HCRBENCH_LLM_TIMEOUT; default 120)."),
    max_tokens: int | None = typer.Option(None, "--max-tokens", min=1, help="Tokens per answer "
                                                                           "(env HCRBENCH_LLM_MAX_TOKENS; default 160)."),
    retries: int | None = typer.Option(None, "--retries", min=0, help="Retries of a failed call "
                                                                     "(env HCRBENCH_LLM_RETRIES; default 1)."),
    concurrency: int | None = typer.Option(None, "--concurrency", min=1, help="Calls in flight "
                                                                             "(env HCRBENCH_LLM_CONCURRENCY; default 2)."),
    judge2: str | None = typer.Option(None, "--judge2", help="A second judge's /v1 URL: agreement is reported."),
    judge2_model: str | None = typer.Option(None, "--judge2-model", help="The second judge's model name "
                                                                         "(default: the one its server lists)."),
) -> None:
    """Ask an OpenAI-compatible model whether each context suffices to answer its question."""
    from hcrbench.llm import LLMClient, LLMConfig

    if (output_dir is None) == (input_file is None):
        raise InputError("give an experiment folder or --input FILE.jsonl (one of the two)", field="--input")
    settings = {"timeout": timeout, "max_tokens": max_tokens, "max_retries": retries, "concurrency": concurrency}
    client = LLMClient(LLMConfig.from_env(**settings))
    second = None
    if judge2 is not None:
        model2 = judge2_model or _listed_model(judge2) or client.config.model
        second = LLMClient(LLMConfig.from_env(base_url=judge2, model=model2, **settings))

    def progress(done: int, total: int, j: Any) -> None:
        what = "sufficient" if j.label else ("insufficient" if j.label is not None else f"failed ({j.error})")
        typer.echo(f"  judged {done}/{total}: {j.query_id} {what}{' (cached)' if j.cached else ''}", err=True)

    cfg = client.config
    typer.echo(f"judge: {cfg.model} at {cfg.base_url} (timeout {cfg.timeout:g} s, max tokens {cfg.max_tokens}, "
               f"retries {cfg.max_retries}, concurrency {cfg.concurrency})", err=True)
    if input_file is not None:
        from hcrbench.data.atomic import atomic_write_text
        from hcrbench.llm.records import judge_records, read_records

        records = read_records(input_file)
        r = judge_records(client, records, judge2=second, repeat=not no_repeat, progress=progress,
                          wording_sample=wording_sample)
        dest = out_file or input_file.with_name(input_file.name.removesuffix(".jsonl") + ".judged.json")
        atomic_write_text(dest, json.dumps(r, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        head = f"{len(records)} records"
    else:
        from hcrbench.experiment.judge_step import judge_contexts

        if system is None:
            raise InputError("folder mode needs --system NAME (whose contexts to judge)", field="--system")
        r = judge_contexts(output_dir, system, budget, client, limit=limit, repeat=not no_repeat, seed=seed,
                           judge2=second, progress=progress, wording_sample=wording_sample)
        dest = Path(output_dir) / "judge" / f"{system}@{budget}.json"
        head = f"{system} @ B={budget}"
    typer.echo(f"{head}: judge {cfg.model} says sufficient for {_f(r['rate'], True)} of {r['n_judged']} judged; "
               f"{r['n_failed']} failed calls not scored")
    typer.echo(f"hygiene flags: {r['flags']}")
    cond = r.get("conditional")
    if cond and cond.get("n_with_reference"):
        typer.echo(f"conditional: P(sufficient) {_f(cond['p_sufficient'], True)} of {cond['n_with_reference']}; "
                   f"P(correct | sufficient) {_f(cond['p_correct_given_sufficient'], True)} of "
                   f"{cond['n_correctness_judged']} ({cond['n_correctness_failed']} failed)")
    cal = r.get("calibration")
    verdict = "no exact labels: the judge is not calibrated"
    if cal is not None and not cal["n"]:
        verdict = "calibration vs exact labels: nothing judged -> undecidable (the judge is not calibrated)"
    if cal and cal["n"]:
        verdict = (f"calibration vs exact labels: kappa {_f(cal['kappa'])} on {cal['n']} -> {cal['status']}"
                   + (" (its numbers must not replace the exact measure)" if cal["status"] != "calibrated" else ""))
    typer.echo(verdict)
    ag = r.get("agreement")
    if ag is not None:
        flag = "; > 20% disagreement: flagged" if ag["disagreement_flagged"] else ""
        tau_ok = {True: "meets", False: "below", None: "cannot say for"}[ag["tau_ok"]]
        typer.echo(f"second judge {r['judge2']['judge']['model']}: kappa {_f(ag['kappa'])}, Kendall tau "
                   f"{_f(ag['kendall_tau'])} ({tau_ok} the design's 0.7), disagreement "
                   f"{_f(ag['disagreement'], True)} on {ag['n']}{flag}")
    typer.echo(f"-> {dest}")
    if r["n_failed"] and not r["n_judged"]:
        first = next(iter(r["failures"].values()))
        if all(f == "no label in the answer" for f in r["failures"].values()):
            raise InputError(f"no judgement came back: the model answered all {r['n_failed']} prompts without a "
                             "label (too small a model, or --max-tokens too low)", field="HCRBENCH_LLM_MODEL")
        raise InputError(f"no judgement came back: all {r['n_failed']} calls failed (first: {first}); check the "
                         "endpoint (`hcrbench llm serve`), --timeout and --max-tokens", field="HCRBENCH_LLM_BASE_URL")


def _listed_model(url: str) -> str | None:
    from hcrbench.llm.serve import served_models

    try:
        models = served_models(url)
    except (OSError, ValueError):
        return None
    return str(models[0].get("id")) if len(models) == 1 and models[0].get("id") else None


def register(app: typer.Typer) -> None:
    app.command("judge")(judge_command)
