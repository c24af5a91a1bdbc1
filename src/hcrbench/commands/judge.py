"""``hcrbench judge OUTPUT_DIR --system NAME --budget B``: the optional LLM sufficiency judge on a run's contexts."""

from __future__ import annotations

from pathlib import Path

import typer


def judge_command(
    output_dir: Path = typer.Argument(..., help="An experiment output folder written by `hcrbench run` with budgets."),
    system: str = typer.Option(..., "--system", help="Whose contexts to judge."),
    budget: str = typer.Option("400", "--budget", help="Which budget's contexts (a number or 'all')."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Judge only the first N queries."),
    no_repeat: bool = typer.Option(False, "--no-repeat", help="Skip the second temperature-0 pass (hygiene)."),
) -> None:
    """Ask an OpenAI-compatible model (HCRBENCH_LLM_BASE_URL, HCRBENCH_LLM_MODEL) whether each context suffices."""
    from hcrbench.experiment.judge_step import judge_contexts
    from hcrbench.llm import LLMClient, LLMConfig

    client = LLMClient(LLMConfig.from_env())
    r = judge_contexts(output_dir, system, budget, client, limit=limit, repeat=not no_repeat)

    def f(x: float | None, pct: bool = False) -> str:
        return "—" if x is None else (f"{100 * x:.1f}%" if pct else f"{x:.2f}")

    typer.echo(f"{system} @ B={budget}: judge {r['model']} says sufficient for {f(r['rate'], True)} of "
               f"{r['n_judged']} judged queries; {r['n_failed']} failed calls not scored; kappa vs "
               f"{r['rule']} {f(r['kappa_vs_rule'])}")
    flags = [w for w, on in (("judgements differ between repeats (> 5%)", r["repeat_flagged"]),
                             ("fragile to prompt wording (> 10%)", r["prompt_fragile"])) if on]
    typer.echo("flags: " + ("; ".join(flags) if flags else "none") +
               f" -> {Path(output_dir) / 'judge' / f'{system}@{budget}.json'}")


def register(app: typer.Typer) -> None:
    app.command("judge")(judge_command)
